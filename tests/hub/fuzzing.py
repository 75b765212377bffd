"""The hub fuzz's frames and checks, shared by tests/hub/test_fuzz.py (a few thousand frames a
CI run) and bench/fuzz.py (10^6 frames).

Hypothesis strategies build frames of every kind (:func:`bursts`): random bytes, oversized
length prefixes, valid msgpack of wrong shapes, valid messages with a field mutated, unknown
types, well-formed requests the hub must refuse, illegal actions in ``act``; :func:`draw_attack`
draws one round of them for :class:`World` (a frozen table A whose two human seats are the
fuzzers, one over the in-process queue transport, one over a unix socket, a live table B, and
a guest that is cut off), :meth:`World.attack` sends them split at random places and checks
that each frame gets exactly one answer, in order (:func:`check_answers`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import struct
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

import msgpack
from hypothesis import strategies as st

from protocol.cards import DECKS
from protocol.codec import HEADER, MAX_CLIENT_FRAME, ProtocolError, decode_body, encode
from protocol.messages import CLIENT_MESSAGES, PROTOCOL_VERSION, validate_client
from server.engine import get_game
from server.hub import Hub, HubConfig
from server.hub.listener import serve_unix
from server.store import Store

from .conftest import fast_config
from .harness import Client, connect, connect_unix

PROTOCOL_CODES = {
    "bad_frame",
    "bad_message",
    "frame_too_large",
    "unknown_type",
    "invalid",
    "too_long",
}
MAX_BAD = HubConfig().max_bad_frames
_numbers = itertools.count(1)


@dataclass(frozen=True)
class Frame:
    """Bytes on the wire and what they are: ``bad`` (a broken frame: an error without ``ref``),
    ``refused`` (a well-formed request of type ``t`` the hub refuses: an error with ``ref``) or
    ``pong`` (a ping numbered ``n``). Before hello every well-formed one gets ``hello_first``."""

    data: bytes
    kind: str
    t: str | None = None
    n: int | None = None
    code: str | None = None  # the error code a broken frame must get, where it is certain


def frame_of(body: bytes) -> bytes:
    return HEADER.pack(len(body)) + body


def is_broken(body: bytes) -> bool:
    """Would the protocol layer refuse this body (bad msgpack, not a map, bad message)?"""
    try:
        validate_client(decode_body(body))
    except ProtocolError:
        return True
    return False


def ping(n: int | None = None) -> Frame:
    n = next(_numbers) if n is None else n
    return Frame(encode({"t": "ping", "n": n}), "pong", "ping", n)


# --- strategies --------------------------------------------------------------------------------

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(allow_nan=True),
    st.text(max_size=40),
    st.binary(max_size=12),
)
ANY_VALUE = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8) | st.integers(-5, 5), inner, max_size=4)
    ),
    max_leaves=12,
)
CARDS = sorted({c for deck in DECKS.values() for c in deck})


def broken(body: bytes) -> Frame:
    return Frame(frame_of(body), "bad")


random_bodies = st.binary(max_size=200).filter(is_broken).map(broken)

wrong_shapes = (
    ANY_VALUE.map(lambda v: msgpack.packb(v, use_bin_type=True)).filter(is_broken).map(broken)
)


@st.composite
def raw_oddities(draw) -> Frame:
    """Bodies msgpack itself chokes on, or that claim more than they hold."""
    depth = draw(st.integers(3, 6000))
    choice = draw(st.integers(0, 7))
    if choice == 0:  # arrays nested thousands deep
        body = b"\x91" * depth + b"\xc0"
    elif choice == 1:  # maps nested deep inside an otherwise good act
        head = b"".join(msgpack.packb(v) for v in ("t", "act", "table", 1, "action"))
        body = b"\x83" + head + b"\x81\xa1a" * min(depth, 4000) + b"\xc0"
    elif choice == 2:  # containers that claim billions of entries
        body = draw(st.sampled_from([b"\xdd", b"\xdf", b"\xdb", b"\xc6"])) + b"\xff\xff\xff\xff"
    elif choice == 3:  # extension types and bytes
        body = msgpack.packb({"t": "ping", "n": msgpack.ExtType(draw(st.integers(0, 127)), b"xx")})
    elif choice == 4:  # two messages in one frame
        body = msgpack.packb({"t": "ping", "n": 1}) * 2
    elif choice == 5:  # a good message cut short
        good = msgpack.packb({"t": "chat", "channel": "lobby", "text": "hello there"})
        body = good[: draw(st.integers(0, len(good) - 1))]
    elif choice == 6:  # a map with integer keys
        body = msgpack.packb({1: "ping", "t": "ping", "n": 1}, strict_types=False)
    else:  # the timestamp extension
        body = b"\xd6\xff" + struct.pack(">I", depth)
    assert is_broken(body)
    return broken(body)


@st.composite
def oversized(draw) -> Frame:
    """A length prefix over the limit, then that many bytes (which the hub must skip)."""
    length = draw(st.integers(MAX_CLIENT_FRAME + 1, MAX_CLIENT_FRAME + 3000))
    filler = draw(st.binary(min_size=1, max_size=16))
    body = (filler * (length // len(filler) + 1))[:length]
    return Frame(HEADER.pack(length) + body, "bad", code="frame_too_large")


@st.composite
def huge_strings(draw) -> Frame:
    size = draw(st.integers(600, 40_000))
    kind = draw(st.sampled_from(["chat", "profile", "type", "field"]))
    text = draw(st.sampled_from(["x", "é", "🂡", "\x00"])) * size
    message: dict[str, Any] = {
        "chat": {"t": "chat", "channel": "lobby", "text": text},
        "profile": {"t": "profile", "name": text},
        "type": {"t": text},
        "field": {"t": "ping", "n": 1, text: 1},
    }[kind]
    data = encode(message)
    return Frame(data, "bad")  # too long for the field, or for a frame


def valid_templates(a: int) -> list[dict[str, Any]]:
    """One good example of every client message (each is only ever sent mutated)."""
    return [
        {"t": "hello", "v": PROTOCOL_VERSION, "name": "Zed", "lang": "en", "identity": "k"},
        {"t": "profile", "name": "Zed", "lang": "de"},
        {
            "t": "create_table",
            "game": "prophet",
            "players": 3,
            "options": {"cap": 2},
            "access": "everyone",
            "max_rating": None,
            "stake": 0,
            "timer": 0,
        },
        {"t": "join", "table": a, "seat": 1},
        {"t": "leave", "table": a},
        {"t": "stand", "table": a},
        {"t": "spectate", "table": a},
        {"t": "add_bot", "table": a, "seat": 2, "kind": "random"},
        {"t": "remove_bot", "table": a, "seat": 2},
        {"t": "start", "table": a},
        {"t": "act", "table": a, "action": {"type": "bid", "card": "S1"}},
        {"t": "chat", "channel": "table", "table": a, "text": "hi"},
        {"t": "friend", "op": "add", "name": "Zed"},
        {"t": "invite", "op": "send", "table": a, "name": "Zed"},
        {"t": "ping", "n": 1},
    ]


WRONG_VALUES = [None, True, False, 1.5, float("nan"), [], [1], {}, {"a": 1}, "x", "", 7, -1]


@st.composite
def mutated(draw, a: int) -> Frame:
    """A good message with one thing broken."""
    message = dict(draw(st.sampled_from(valid_templates(a))))
    schema = CLIENT_MESSAGES[message["t"]]
    how = draw(
        st.sampled_from(
            ["type", "drop", "extra", "long", "range", "choice", "t", "t_type", "no_t", "deep"]
        )
    )
    fields = [f for f in message if f != "t"]
    if how == "type" and fields:
        name = draw(st.sampled_from(fields))
        spec = schema[name]
        wrong = [
            v
            for v in WRONG_VALUES
            if type(v) not in spec.types and not (v is None and spec.nullable)
        ]
        message[name] = draw(st.sampled_from(wrong))
    elif how == "drop" and any(schema[f].required for f in fields):
        del message[draw(st.sampled_from([f for f in fields if schema[f].required]))]
    elif how == "long" and any(schema[f].max_len for f in fields if schema[f].types == (str,)):
        name = draw(st.sampled_from([f for f in fields if schema[f].types == (str,)]))
        message[name] = "w" * draw(st.integers(schema[name].max_len + 1, 3000))
    elif how == "range" and any(schema[f].types == (int,) for f in fields):
        name = draw(st.sampled_from([f for f in fields if schema[f].types == (int,)]))
        spec = schema[name]
        outside = [-(2**63), 2**64 - 1]
        if spec.minimum is not None:
            outside.append(spec.minimum - 1)
        if spec.maximum is not None:
            outside.append(spec.maximum + 1)
        message[name] = draw(st.sampled_from(outside))
    elif how == "choice" and any(schema[f].choices for f in fields):
        name = draw(st.sampled_from([f for f in fields if schema[f].choices]))
        message[name] = draw(st.text(max_size=8).filter(lambda s: s not in schema[name].choices))
    elif how == "t":
        message["t"] = draw(st.text(max_size=20).filter(lambda s: s not in CLIENT_MESSAGES))
    elif how == "t_type":
        message["t"] = draw(st.sampled_from([None, 1, True, [], {}, 2.5]))
    elif how == "no_t":
        del message["t"]
    elif how == "deep" and message["t"] in ("act", "create_table"):
        key = "action" if message["t"] == "act" else "options"
        nested: Any = 1
        for _ in range(draw(st.integers(3, 300))):
            nested = {"k": nested}
        message[key] = {"type": nested} if key == "action" else {"cap": nested}
    else:  # "extra", and the fallback for messages a mutation does not fit
        name = draw(st.text(min_size=1, max_size=12).filter(lambda s: s not in schema and s != "t"))
        message[name] = draw(SCALARS)
    body = msgpack.packb(message, use_bin_type=True)
    assert is_broken(body), message
    return broken(body)


def refused(message: dict[str, Any]) -> Frame:
    """A well-formed request that the hub must refuse without changing anything."""
    validate_client(message)  # well-formed by construction, or the test itself is wrong
    return Frame(encode(message), "refused", message["t"])


BAD_NAMES = st.text(max_size=20).map(lambda s: (s + "@")[:24])


@st.composite
def refused_requests(draw, world: World, seat: int | None, hello: bool = True) -> Frame:
    """Requests that are well formed but refused for a fuzzer at ``seat`` of table A (None:
    a guest seated nowhere); the refusal must come before any change. Before ``hello`` every
    one of them is answered ``hello_first`` (and a hello would be accepted, so none is sent)."""
    a, b = world.a_id, world.b_id
    nowhere = draw(st.integers(10**6, 2**31))
    any_seat = st.integers(0, 5)
    choice = draw(st.integers(1 if not hello else 0, 16))
    if choice == 0:
        m = {"t": "hello", "v": draw(st.integers(0, 1_000_000)), "name": "Again"}
    elif choice == 1:
        m = {"t": "join", "table": draw(st.sampled_from([a, b]))}
        if draw(st.booleans()):
            m["seat"] = draw(any_seat | st.none())
    elif choice == 2:
        m = {"t": draw(st.sampled_from(["join", "leave", "stand", "spectate", "start"]))}
        m["table"] = nowhere
    elif choice == 3:
        m = {"t": "start", "table": draw(st.sampled_from([a, b]))}
    elif choice == 4:
        m = {"t": "stand", "table": b}
    elif choice == 5:
        m = {"t": draw(st.sampled_from(["add_bot", "remove_bot"]))}
        m["table"] = draw(st.sampled_from([a, b]))
        m["seat"] = draw(any_seat)
        if m["t"] == "add_bot" and draw(st.booleans()):
            m["kind"] = draw(st.sampled_from(["heuristic", "random"]))
    elif choice == 6:
        m = {"t": "act", "table": draw(st.sampled_from([b, nowhere])), "action": {"type": "x"}}
    elif choice == 7:
        text = draw(st.text(max_size=30))
        m = {"t": "chat", "channel": "table", "table": b, "text": text or "hi"}
    elif choice == 8:
        m = {"t": "chat", "channel": draw(st.sampled_from(["lobby", "table"])), "text": " \t\n"}
    elif choice == 9:
        m = {"t": "profile", "name": draw(BAD_NAMES)}
        if draw(st.booleans()):
            m["lang"] = draw(st.sampled_from(["en", "uk", "de"]))
    elif choice == 10:
        m = {"t": "friend", "op": draw(st.sampled_from(["add", "remove"]))}
        m["name"] = draw(BAD_NAMES)
    elif choice == 11:
        m = {"t": "invite", "op": draw(st.sampled_from(["accept", "decline"]))}
        m["table"] = draw(st.sampled_from([a, b]))
    elif choice == 12:
        m = {"t": "invite", "op": "send", "table": b, "name": draw(BAD_NAMES)}
    elif choice == 13:
        m = {"t": "invite", "op": "send", "table": a, "name": draw(BAD_NAMES)}
        if seat is None:
            m["table"] = draw(st.sampled_from([a, b]))
    elif choice == 14:  # any game, any options: refused for the stake (or the options)
        game = draw(st.sampled_from(["prophets_gambit", "prophet", "fortunes"]))
        options = draw(
            st.dictionaries(
                st.sampled_from(["cap", "deck", "schedule", "betting", "max_raises", "target"])
                | st.text(max_size=6),
                st.none() | st.booleans() | st.integers(-3, 60) | st.sampled_from(["x", "raise"]),
                max_size=3,
            )
        )
        m = {
            "t": "create_table",
            "game": game,
            "players": draw(st.integers(3, 6)),
            "options": options,
            "stake": 1_000_000,
        }
    else:  # an illegal action at table A (or any action, for a guest)
        m = {"t": "act", "table": a, "action": draw(bad_actions(world, seat))}
    return refused(m)


@st.composite
def bad_actions(draw, world: World, seat: int | None) -> dict[str, Any]:
    """Actions the seat may not take now: random maps, other seats' moves, forged ones."""
    legal = world.legal(seat)
    everyone = [a for s in range(3) for a in world.legal(s)]
    kinds = ["bid", "play", "risk", "draw", "pass", "target", "pick", "take", "kill", "x", ""]
    value = st.none() | st.booleans() | st.integers(-(2**31), 2**31 - 1) | st.sampled_from(CARDS)
    value = value | st.text(max_size=16)
    choice = draw(st.integers(0, 3))
    if choice == 0:
        action = draw(st.dictionaries(st.sampled_from(["type", "card", "seat", "tricks"]), value))
    elif choice == 1 and everyone:
        action = dict(draw(st.sampled_from(everyone)))
    elif choice == 2:
        action = {"type": draw(st.sampled_from(kinds)), "card": draw(st.sampled_from(CARDS))}
    else:
        base = dict(draw(st.sampled_from(everyone or [{"type": "bid", "card": "S1"}])))
        key = draw(st.sampled_from([*base, "seat", "zzz"]))
        base[key] = draw(value)
        action = base
    if action in legal:
        action = {**action, "extra": 1}  # never a legal move
    return action


def bursts(world: World, seat: int | None, hello: bool = True) -> st.SearchStrategy[Frame]:
    """One frame of any kind, weighted towards the ones that reach the hub's handlers."""
    bad_act = st.builds(
        lambda action: refused({"t": "act", "table": world.a_id, "action": action}),
        bad_actions(world, seat),
    )
    parts = [
        (random_bodies, 2),
        (wrong_shapes, 2),
        (raw_oddities(), 1),
        (oversized(), 1),
        (huge_strings(), 1),
        (mutated(world.a_id), 4),
        (refused_requests(world, seat, hello), 4),
        (bad_act, 3),
        (st.builds(ping), 1),
    ]
    return st.sampled_from([s for s, weight in parts for _ in range(weight)]).flatmap(lambda s: s)


def spaced(frames: list[Frame]) -> list[Frame]:
    """Insert a ping before a run of broken frames would cut the client off."""
    out, run = [], 0
    for frame in frames:
        if frame.kind == "bad" and run == MAX_BAD - 1:
            out.append(ping())
            run = 0
        out.append(frame)
        run = run + 1 if frame.kind == "bad" else 0
    return out


def expected(frames: list[Frame], hello: bool = True) -> tuple[list[tuple[str, Any]], bool]:
    """The answers a client must get, and whether it is cut off."""
    out: list[tuple[str, Any]] = []
    run = 0
    for frame in frames:
        if frame.kind == "bad":
            run += 1
            if run >= MAX_BAD:
                out.append(("bye", "too_many_errors"))
                return out, True
            out.append(("bad", frame.code))
            continue
        run = 0
        if not hello:
            out.append(("hello_first", None))
        elif frame.kind == "pong":
            out.append(("pong", frame.n))
        else:
            out.append(("ref", frame.t))
    return out, False


def answers(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in log if m["t"] in ("error", "pong", "bye")]


def check_answers(got: list[dict[str, Any]], want: list[tuple[str, Any]]) -> None:
    assert len(got) == len(want), (
        f"{len(got)} answers for {len(want)} expected: {got[-3:]} / {want[-3:]}"
    )
    for i, (m, (kind, arg)) in enumerate(zip(got, want, strict=True)):
        where = f"answer {i}: {m} for {kind} {arg}"
        if kind == "bad":
            assert m["t"] == "error" and "ref" not in m and m["code"] in PROTOCOL_CODES, where
            assert arg is None or m["code"] == arg, where
        elif kind == "hello_first":
            assert m["t"] == "error" and m["code"] == "hello_first", where
        elif kind == "pong":
            assert m == {"t": "pong", "n": arg}, where
        elif kind == "ref":
            assert m["t"] == "error" and m.get("ref") == arg, where
            assert m["code"] != "internal", where
        else:
            assert m["t"] == "bye" and m["code"] == arg, where
        if m["t"] in ("error", "bye"):
            assert isinstance(m["code"], str) and isinstance(m["message"], str) and m["message"]


def chunked(data: bytes, sizes: list[int]) -> list[bytes]:
    out, pos = [], 0
    for size in sizes:
        if pos >= len(data):
            break
        out.append(data[pos : pos + size])
        pos += size
    if pos < len(data):
        out.append(data[pos:])
    return out


# --- the world under attack ---------------------------------------------------------------------


class World:
    """A hub with a frozen table A (fuzzers q and u, a bot) and a live table B (d, two bots)."""

    hub: Hub
    store: Store
    server: asyncio.Server
    sock: str
    q: Client
    u: Client
    d: Client
    a_id: int
    b_id: int
    driver: asyncio.Task

    def __init__(self) -> None:
        self.codes: Counter[str] = Counter()
        self.frames_sent = 0

    @classmethod
    async def create(cls, tmp_path) -> World:
        self = cls()
        self.store = Store.open(tmp_path / "data")
        self.hub = Hub(self.store, fast_config(grace=60.0, hello_timeout=5.0))
        await self.hub.start()
        self.sock = str(tmp_path / "hub.sock")
        self.server = await serve_unix(self.hub, self.sock)
        self.q = await connect(self.hub)
        await self.q.hello("Q", identity="key-q")
        self.u = await connect_unix(self.sock)
        await self.u.hello("U", identity="key-u")
        self.d = await connect(self.hub)
        await self.d.hello("D", identity="key-d")

        await self.q.send("create_table", game="prophets_gambit", players=3, stake=10, timer=0)
        self.a_id = (await self.q.expect("table"))["table"]
        await self.u.send("join", table=self.a_id, seat=1)
        await self.u.expect("table", table=self.a_id, seat=1)
        await self.q.send("add_bot", table=self.a_id, seat=2)
        await self.q.until(lambda m: m["t"] == "table" and m["info"]["seats"][2]["bot"])
        await self.q.send("start", table=self.a_id)

        await self.d.send(
            "create_table", game="prophet", players=3, options={"cap": 2}, stake=5, timer=0
        )
        self.b_id = (await self.d.expect("table"))["table"]
        for seat in (1, 2):
            await self.d.send("add_bot", table=self.b_id, seat=seat, kind="random")
        await self.d.until(lambda m: m["t"] == "table" and m["info"]["seats"][2]["bot"])
        await self.d.send("start", table=self.b_id)
        self.driver = asyncio.get_running_loop().create_task(play_randomly(self.d, self.b_id))

        async with asyncio.timeout(5):  # table A waits for its humans only, with no timer
            while not self.frozen():
                await asyncio.sleep(0.005)
        return self

    def frozen(self) -> bool:
        state = self.hub.tables[self.a_id].state
        return (
            state is not None
            and set(state.pending()) == {0, 1}
            and ("table", self.a_id) not in self.hub.timers
        )

    def legal(self, seat: int | None) -> list[dict[str, Any]]:
        state = self.hub.tables[self.a_id].state
        return [a.to_wire() for a in state.legal_actions(seat)] if seat is not None else []

    def fingerprint(self) -> dict[str, Any]:
        hub, store = self.hub, self.store
        a, b = hub.tables[self.a_id], hub.tables[self.b_id]
        rows = {row["id"]: row for row in store.live_tables()}
        people = ("key-q", "key-u", "key-d")
        return {
            "tables": sorted(hub.tables),
            "a_snapshot": a.state.snapshot(),
            "a": a.record(),
            "a_row": rows[self.a_id],
            "b_seats": [asdict(s) for s in b.seats],
            "b_setup": (b.game, b.players, b.options, b.owner, b.access, b.stake, b.timer),
            "b_stored_seats": rows[self.b_id]["info"]["seats"],
            "balances": {
                acct: store.balance(acct)
                for acct in ("player:key-q", "player:key-u", f"pot:{self.a_id}")
            },
            "players": {p: store.get_player(p) for p in people},
            "online": {pid: (p.name, p.lang, len(p.sessions)) for pid, p in hub.players.items()},
            "friends": {p: store.friends(p) for p in people},
            "invites": (store.invited(self.a_id), store.invited(self.b_id)),
            "spectators": {t: len(s) for t, s in hub.watchers.by_table.items()},
            "ratings": {p: store.ratings_of(p) for p in ("key-q", "key-u")},
            "sessions": len(hub.sessions),
        }

    async def burst(self, client: Client, frames: list[Frame], sizes: list[int]) -> None:
        """Send a burst and a closing ping; check the answers, one per frame, in order."""
        marker = ping()
        frames = [*spaced(frames), marker]
        start = len(client.log)
        for piece in chunked(b"".join(f.data for f in frames), sizes):
            await client.conn.send_raw(piece)
        self.frames_sent += len(frames)
        await client.expect("pong", n=marker.n, timeout=15)
        want, cut = expected(frames)
        assert not cut
        check_answers(answers(client.log[start:]), want)
        assert not client.closed
        self.codes.update(m.get("code", m["t"]) for m in answers(client.log[start:]))

    async def cut_off(self, unix: bool, hello: bool, frames: list[Frame], sizes) -> None:
        """A guest sends frames until it is cut off; then more, which get nothing."""
        client = await connect_unix(self.sock) if unix else await connect(self.hub, trusted=False)
        try:
            if hello:
                welcome = await client.hello()
                assert welcome["you"]["guest"]
            tail = [broken(b"\xc1")] * MAX_BAD + [ping(), broken(b"")]
            frames = [*frames, *tail]
            start = len(client.log)
            for piece in chunked(b"".join(f.data for f in frames), sizes):
                if client.closed:
                    break
                await client.conn.send_raw(piece)
            self.frames_sent += len(frames)
            async with asyncio.timeout(15):
                while not client.closed:
                    await asyncio.sleep(0.005)
            want, cut = expected(frames, hello)
            assert cut
            check_answers(answers(client.log[start:]), want)
            if not unix:
                await asyncio.wait_for(client.hub_task, 5)  # type: ignore[attr-defined]  # noted on the test's client
                assert client.hub_task.exception() is None  # type: ignore[attr-defined]  # noted on the test's client
        finally:
            await client.close()
        async with asyncio.timeout(5):  # the guest's session is gone, nothing else
            while len(self.hub.sessions) != 3 or set(self.hub.players) != {
                "key-q",
                "key-u",
                "key-d",
            }:
                await asyncio.sleep(0.005)

    async def attack(self, attack: Attack) -> None:
        await asyncio.gather(
            self.burst(self.q, attack.q, attack.q_cuts),
            self.burst(self.u, attack.u, attack.u_cuts),
        )
        await self.cut_off(attack.unix, attack.hello, attack.guest, attack.guest_cuts)

    async def close(self) -> None:
        self.driver.cancel()
        for client in (self.q, self.u, self.d):
            await client.close()
        self.server.close()
        await self.server.wait_closed()
        await self.hub.stop()
        self.store.close()


async def play_randomly(client: Client, table_id: int, seed: int = 1) -> None:
    """An honest player: a legal action for every fresh view that asks for one."""
    rng = random.Random(seed)
    answered: dict[str, Any] | None = None  # held, so that a new view is never taken for it
    while True:
        msg = client.tables.get(table_id)
        if msg is not None and msg["view"] is not None and msg is not answered:
            answered = msg
            if msg["view"]["legal"]:
                await client.send("act", table=table_id, action=rng.choice(msg["view"]["legal"]))
        await asyncio.sleep(0.003)


def same(now: dict[str, Any], then: dict[str, Any]) -> None:
    changed = {k: (then[k], now[k]) for k in then if now[k] != then[k]}
    assert not changed, f"bad input changed the hub: {changed}"


def no_errors_logged(caplog) -> None:
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not bad, [f"{r.name}: {r.getMessage()}" for r in bad[:3]]


CHUNKS = st.lists(st.integers(1, 700), max_size=6)


@dataclass(frozen=True)
class Attack:
    """One round: bursts from both fuzzers at once, then a guest's until it is cut off (after
    a hello or not, over the unix socket or not), each split into chunks of these sizes."""

    q: list[Frame]
    u: list[Frame]
    hello: bool
    guest: list[Frame]
    unix: bool
    q_cuts: list[int]
    u_cuts: list[int]
    guest_cuts: list[int]

    @property
    def frames(self) -> int:
        return len(self.q) + len(self.u) + len(self.guest)


def draw_attack(data: Any, world: World) -> Attack:
    """An attack drawn from a Hypothesis ``st.data()``."""
    lists = st.lists
    q_frames = data.draw(lists(bursts(world, 0), min_size=8, max_size=40), label="q")
    u_frames = data.draw(lists(bursts(world, 1), min_size=8, max_size=40), label="u")
    hello = data.draw(st.booleans(), label="hello")
    guest = data.draw(lists(bursts(world, None, hello), max_size=12), label="guest")
    unix = data.draw(st.booleans(), label="unix")
    q_cuts, u_cuts, guest_cuts = (data.draw(CHUNKS) for _ in range(3))
    return Attack(q_frames, u_frames, hello, guest, unix, q_cuts, u_cuts, guest_cuts)


async def finish(world: World, games_before: int, actions: list) -> None:
    """After the attack table B has gone on playing, and table A plays to its end."""
    b = world.hub.tables[world.b_id]
    async with asyncio.timeout(20):
        while b.games_played < games_before + 2:
            await asyncio.sleep(0.01)
    assert not world.driver.done()
    for client in (world.q, world.d):  # their sessions never ended
        assert not client.hub_task.done()  # type: ignore[attr-defined]  # noted on the test's client
    assert not world.u.closed
    assert not any(m.get("code") == "internal" for m in world.d.log)
    honest = [
        asyncio.get_running_loop().create_task(play_randomly(c, world.a_id, seed))
        for seed, c in enumerate((world.q, world.u))
    ]
    try:
        a = world.hub.tables[world.a_id]
        async with asyncio.timeout(20):
            while a.games_played < 1:
                await asyncio.sleep(0.01)
    finally:
        for task in honest:
            task.cancel()
    game = world.store.games_of("key-q", 1)[0]
    assert game["table_id"] == world.a_id
    assert game["history"][: len(actions)] == actions  # the attack added no action
    replayed = get_game("prophets_gambit").replay(game["params"], game["history"])
    assert replayed.is_over
    assert world.store.ledger_total() == 0 and not world.store.audit()
