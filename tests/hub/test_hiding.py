"""Information hiding through the protocol: no frame ever carries a card hidden from its reader.

Scripted clients (random legal actions), bots and a spectator play many random games of every
type, deal after deal. The hub end of every connection is wrapped: each frame the hub sends is
checked as it is written (the very bytes, shared frames included), synchronously, before the
client can read it — so the check runs against the engine state exactly as it is when the
frame goes out. What a reader may know is
tracked the way the engine conformance suite tracks it (tests/engine/test_conformance.py): cards
ever in a public place, its own seat's cards, and Prophet's Gambit's Seer and Darklord
glimpses. A card in another seat's hand or Fate, or in the deck, high deck or set-aside pile,
that the reader never legitimately saw must not appear in any string of the frame's msgpack
form (nor as a word inside a string). Lobby frames and the other out-of-table messages must
carry no card code at all. A view's public part (``State.public_view``: the fields every seat
and spectator is sent alike) is checked against every seat's knowledge and the spectator's: it
may hold only what all of them know, even when its reader knows more. The checks are in
tests/hub/hiding_audit.py, which bench/leak_audit.py runs over 10^5 games.
"""

from __future__ import annotations

import asyncio
import random
import secrets

import pytest

from protocol.codec import MAX_SERVER_FRAME, encode
from protocol.connection import QueueConnection
from protocol.event_log import DELTA
from server.hub import Hub
from server.hub.session import Player

from .conftest import fast_config
from .harness import Client
from .hiding_audit import AuditedConnection, Auditor, WatchedHub, codes_in_bytes


async def audited_client(hub: Hub, auditor: Auditor, identity: str) -> Client:
    to_hub: asyncio.Queue[bytes | None] = asyncio.Queue()
    to_client: asyncio.Queue[bytes | None] = asyncio.Queue()
    conn = AuditedConnection(to_hub, to_client, auditor, identity)
    client = Client(QueueConnection(to_client, to_hub, max_frame=MAX_SERVER_FRAME))
    client.hub_task = asyncio.get_running_loop().create_task(hub.serve(conn))  # type: ignore[attr-defined]  # noted on the test's client
    await client.hello(identity, identity=identity)
    return client


async def random_player(client: Client, table_id: int, rng: random.Random) -> None:
    """Answer every fresh view that asks something with a random legal action."""
    answered: set[int] = set()
    while True:
        msg = client.tables.get(table_id)
        if msg is not None and msg["view"] is not None and id(msg) not in answered:
            answered.add(id(msg))
            legal = msg["view"]["legal"]
            if legal:
                await client.send("act", table=table_id, action=rng.choice(legal))
        await asyncio.sleep(0.002)


#: (game, players, options, stake, deals played in a row at one table)
CASES = [
    ("prophets_gambit", 3, {}, 0, 6),
    ("prophets_gambit", 4, {}, 0, 6),
    ("prophets_gambit", 5, {}, 5, 6),
    ("prophet", 3, {"cap": 2}, 0, 5),
    ("prophet", 4, {"cap": 3, "schedule": "up_down"}, 5, 4),
    ("prophet", 5, {"deck": 52, "cap": 2, "schedule": "down_up"}, 0, 4),
    ("fortunes", 4, {}, 0, 2),
    ("fortunes", 4, {"betting": "raise"}, 5, 4),
    ("fortunes", 4, {"betting": "bid"}, 0, 2),
    ("fortunes", 4, {"betting": "target", "target": 20, "max_deals": 2}, 0, 1),
]


async def play_audited(store, monkeypatch, game, players, options, stake, seed, deals):
    """One table, ``deals`` random games in a row; returns the hub, its auditor, the clients
    (the spectator last) and the table's id. The caller closes the clients and stops the hub."""
    rng = random.Random(seed)
    monkeypatch.setattr(secrets, "randbits", lambda k: rng.getrandbits(k))  # seeds the deals
    hub = WatchedHub(store, fast_config(between_games=0.01))
    await hub.start()
    auditor = Auditor(hub)
    humans = rng.randint(2, min(3, players))
    clients = [await audited_client(hub, auditor, f"key-{i}") for i in range(humans)]
    watcher = await audited_client(hub, auditor, "key-watcher")
    drivers: list[asyncio.Task] = []
    try:
        await clients[0].send(
            "create_table", game=game, players=players, options=options, stake=stake
        )
        table_id = (await clients[0].expect("table"))["table"]
        seats = rng.sample(range(1, players), humans - 1)
        for client, seat in zip(clients[1:], seats, strict=True):
            await client.send("join", table=table_id, seat=seat)
            await client.expect("table", table=table_id, seat=seat)
        for seat in sorted(set(range(1, players)) - set(seats)):
            await clients[0].send(
                "add_bot", table=table_id, seat=seat, kind=rng.choice(["heuristic", "random"])
            )
        await watcher.send("spectate", table=table_id)
        await watcher.expect("table", table=table_id)
        table = hub.tables[table_id]
        async with asyncio.timeout(5):
            while not table.full:
                await asyncio.sleep(0.005)
        await clients[rng.randrange(humans)].send("start", table=table_id)
        drivers = [
            asyncio.get_running_loop().create_task(
                random_player(c, table_id, random.Random(rng.random()))
            )
            for c in clients
        ]
        async with asyncio.timeout(40):
            while table.games_played < deals:
                assert not auditor.violations, (seed, auditor.violations[:5])
                await asyncio.sleep(0.01)
        for client in [*clients, watcher]:
            n = rng.randrange(1_000_000)
            await client.send("ping", n=n)
            await client.expect("pong", n=n)
        return hub, auditor, [*clients, watcher], table_id
    except BaseException:
        for client in [*clients, watcher]:
            await client.close()
        await hub.stop()
        raise
    finally:
        for task in drivers:
            task.cancel()


@pytest.mark.parametrize(
    ("game", "players", "options", "stake", "deals"),
    CASES,
    ids=lambda v: str(v) if v != {} else "-",
)
async def test_no_frame_carries_a_card_hidden_from_its_reader(
    store, monkeypatch, game, players, options, stake, deals
):
    seed = random.randrange(2**32)
    hub, auditor, clients, _ = await play_audited(
        store, monkeypatch, game, players, options, stake, seed, deals
    )
    try:
        assert not auditor.errors, auditor.errors[:3]
        assert not auditor.violations, (seed, auditor.violations[:5])
        # The audit saw what the clients saw, frame for frame, and had hidden cards to guard.
        for client in clients:
            who = client_identity(client)
            sent = auditor.whole[who]
            assert client.log == sent[: len(client.log)]
            assert any(m["t"] == "pong" for m in client.log)
        watcher_tables = [m for m in auditor.whole["key-watcher"] if m["t"] == "table"]
        assert watcher_tables and all(m["seat"] is None for m in watcher_tables)
        assert sum(1 for m in watcher_tables if m["view"] and m["view"]["over"]) >= deals
        assert auditor.checked_tables >= 3 * deals
        assert auditor.checked_public >= 3 * deals * players
        if options.get("betting") != "raise":  # (there random folds may end every deal first)
            assert auditor.typed_actions > 0
        assert any(m["t"] in ("lobby", "lobby_update") for m in auditor.frames["key-0"])
        # Protocol 2: most table messages went out as deltas of the last one.
        tables = [m for m in auditor.frames["key-0"] if m["t"] == "table"]
        assert sum(DELTA in m for m in tables) > len(tables) / 2
        # Conservation holds after the stakes went round.
        assert store.ledger_total() == 0 and not store.audit()
    finally:
        for client in clients:
            await client.close()
        await hub.stop()


def client_identity(client: Client) -> str:
    welcome = next(m for m in client.log if m["t"] == "welcome")
    return welcome["you"]["id"]


async def test_the_audit_catches_a_leak(store, monkeypatch):
    """The check is not vacuous: a view of another seat, or of a hand to a spectator, or a
    card in a lobby frame, is reported — and a player's own view is not. Each check gives the
    same answer when it first looks in the frame's bytes (as the frames written are checked)
    as when it walks every string."""
    hub, auditor, clients, table_id = await play_audited(
        store, monkeypatch, "prophets_gambit", 3, {}, 0, seed=7, deals=1
    )

    def leaks(who: str, message: dict) -> list[str]:
        walked = auditor.leaks(who, message)
        assert auditor.leaks(who, message, present=codes_in_bytes(encode(message))) == walked
        return walked

    def public_leaks(who: str, message: dict) -> list[str]:
        walked = auditor.public_leaks(who, message)
        present = codes_in_bytes(encode(message))
        assert auditor.public_leaks(who, message, present=present) == walked
        return walked

    try:
        assert not auditor.violations
        table = hub.tables[table_id]
        async with asyncio.timeout(5):  # the next deal is on
            while table.state is None or table.state.is_over:
                await asyncio.sleep(0.005)
        state = table.state
        me = table.seat_of("key-0")
        other = (me + 1) % 3
        assert leaks("key-0", hub.play.table_message(table, me)) == []
        assert leaks("key-0", hub.play.table_message(table, other))
        assert leaks("key-watcher", hub.play.table_message(table, me))
        assert leaks("key-watcher", {"t": "chat", "text": f"psst {state.hands[me][0]}"})
        card = state.hands[other][0]
        assert leaks("key-0", {"t": "lobby", "tables": [], "players": [card]})
        mine = state.hands[me][0]  # a card the reader may know, but not in a lobby frame
        assert leaks("key-0", {"t": "lobby_update", "tables": [{"name": mine}]})
        # Nor in the view's public part, which every other seat is sent too; in its private
        # part (the hand) it is fine.
        whole = hub.play.table_message(table, me)
        assert public_leaks("key-0", whole) == []
        whole["view"]["discard"] = [*whole["view"]["discard"], mine]
        assert public_leaks("key-0", whole)
        assert leaks("key-0", whole) == []  # what the reader alone is checked for
        assert not auditor.violations
    finally:
        for client in clients:
            await client.close()
        await hub.stop()


async def test_a_seat_left_mid_game_is_the_readers_until_its_left_frame(store, monkeypatch):
    """What the hub made for a player while they sat may go out after they stood up (the
    outbox sends once stored): the audit reads it as their seat's, until their ``left``."""
    hub, auditor, clients, table_id = await play_audited(
        store, monkeypatch, "prophets_gambit", 3, {}, 0, seed=11, deals=1
    )
    try:
        table = hub.tables[table_id]
        async with asyncio.timeout(5):  # the next deal is on
            while table.state is None or table.state.is_over:
                await asyncio.sleep(0.005)
        me = table.seat_of("key-0")
        view = hub.play.table_message(table, me)
        held: list[tuple[Player, dict]] = []  # their left, as if still in the outbox
        push = Player.push

        def holding(player: Player, message: dict) -> None:
            if player.id == "key-0" and message.get("t") == "left":
                held.append((player, message))
            else:
                push(player, message)

        monkeypatch.setattr(Player, "push", holding)
        hub.seating.vacate(table, hub.players["key-0"])
        assert table.seat_of("key-0") is None and held
        assert auditor.leaks("key-0", view) == []  # made while they sat
        monkeypatch.setattr(Player, "push", push)
        for player, message in held:
            player.push(message)
        async with asyncio.timeout(5):
            while not any(m["t"] == "left" for m in auditor.frames["key-0"]):
                await asyncio.sleep(0.005)
        assert auditor.leaks("key-0", view)  # after their left: another seat's cards
    finally:
        for client in clients:
            await client.close()
        await hub.stop()
