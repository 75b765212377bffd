"""Chaos for the cluster: players playing across two gateways, a hub and its standby, NATS
and PostgreSQL while one of them is killed (``kill -9``) at random, again and again.

Shared by ``bench/chaos.py`` (50 faults, 100 players) and ``tests/cluster/test_chaos.py``
(5 faults, a few players). Every process is started on loopback in a temporary folder (the
cluster tests' harness: :mod:`tests.cluster.harness`, :mod:`tests.cluster_support.postgres`,
a PostgreSQL server of the run's own, with durable commits: it is killed too).

Most players are light protocol clients (the ``gambit`` SSH channel, as a player's own app),
each with an SSH key of its own (the same player on every connection), four to a table of
one of the three games, each playing its seat with a random legal move. A player whose
connection ends connects again at once, through any gateway that is up. A few are real
terminal players (:mod:`tests.cluster_support.terminals`: OpenSSH ``ssh`` in a pty, the
app on screen), each at a table with three light clients, pressing Enter now and then; a
terminal whose session ends (its gateway killed) runs ``ssh`` again a few seconds later.

After every fault (and what heals it: a gateway or hub started again, the standby taking
over, NATS or PostgreSQL started again on the same port and data), it checks:

* the ledger sums to zero (read from PostgreSQL);
* every action a client saw accepted is in the store: a client counts its action as accepted
  when a message of that deal shows its seat no longer waiting; the store holds the deal's
  actions in ``live_actions`` (the game in play) or in ``games.history`` (a finished one),
  found by the deal's commitment. A terminal's actions are seen by the light client that
  owns its table (its seat no longer waiting, in the same deal), and counted: the store
  must hold at least as many of that seat's actions in that deal;
* every player is back: a ``ping`` sent after the fault answered, and a message of its table
  received since the fault (if it sat at one); a terminal shows its table with a line said
  there once the fault was healed (after a hub kill, once the standby serves; its table's
  light clients say one every second until it does), or the lobby if its table has closed;
  the time from the kill is measured;
* no table is driven by two hubs: exactly one live hub serves, it holds the database's
  advisory lock, and no deal is recorded twice.

A check that fails is looked at while it lasts (what every process is doing), and at the end
every process's log is kept in ``Settings.logs`` (:mod:`tests.cluster_support.evidence`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.cluster.harness import (
    HUB_READY,
    GambitProcess,
    Gateway,
    NatsServer,
    start_hub,
)
from tests.cluster_support import evidence
from tests.cluster_support.postgres import PostgresServer
from tests.cluster_support.terminals import Terminal, terminal_life
from tests.ssh.harness import ssh_keygen
from tests.ssh.screens import LOBBY

KINDS = ("gateway", "hub", "nats", "postgres")
#: Four seats at every table, one of each game by turns (stakes: chips move every deal).
GAMES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("prophets_gambit", {}),
    ("prophet", {"cap": 3}),
    ("fortunes", {"betting": "ante"}),
)
SEATS = 4
STAKE = 5
#: A terminal's table has a turn timer: Enter does not make every decision (Prophet's Gambit
#: asks for other keys too), and the timer plays what a player at a terminal leaves.
TERMINAL_TIMER = 10
HUB_OPTIONS = ("--bot-delay", "0.05", "--grace", "120", "--between-games", "1", "--no-chat-limit")
HUB_OPTIONS += ("--messages-per-second", "1000")
#: Every client comes from this machine: the door's per-address limits would count them all.
GATEWAY_OPTIONS = ("--workers", "0", "--max-sessions", "5000", "--max-per-address", "5000")
GATEWAY_OPTIONS += ("--max-unauthenticated", "1000", "--connection-rate", "1000")
GATEWAY_OPTIONS += ("--idle-timeout", "0")


def log(text: str) -> None:
    import sys

    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def action_key(seat: int, action: Any) -> str:
    """One action as the store and a client both spell it."""
    return json.dumps([seat, action], sort_keys=True, default=str)


# --- the cluster --------------------------------------------------------------------------


class ChaosCluster:
    """NATS, PostgreSQL, two hubs (one active, one standby) and two gateways; each can be
    killed and started again."""

    def __init__(self, folder: Path, postgres: PostgresServer) -> None:
        self.folder = folder
        self.postgres = postgres
        self.key = folder / "host_key"
        self.db = postgres.create_database("chaos")
        self.nats = NatsServer(folder)
        self.hub_options = (*HUB_OPTIONS, "--db", self.db)
        self.hubs: dict[str, GambitProcess] = {}
        #: Actions found lost at the checks so far (each fault is judged by the new ones).
        self.lost_so_far = 0
        self.gateways: dict[str, Gateway] = {}
        self.hubs["hub1"] = start_hub(folder, self.nats.url, *self.hub_options, name="hub1")
        self.hubs["hub2"] = start_hub(
            folder, self.nats.url, *self.hub_options, name="hub2", standby=True
        )
        for name in ("gw1", "gw2"):
            self.gateways[name] = self._gateway(name)

    def _gateway(self, name: str) -> Gateway:
        return Gateway(name, self.folder, self.nats.url, self.key, *GATEWAY_OPTIONS)

    def ports(self) -> list[int]:
        """The SSH ports of the gateways that are up."""
        return [g.port for g in self.gateways.values() if g.proc.poll() is None]

    def active_hubs(self) -> list[GambitProcess]:
        """Live hubs that have said they serve (after waiting, if they did)."""
        return [h for h in self.hubs.values() if h.proc.poll() is None and HUB_READY in h.out]

    # The faults: each kills one process, as kill -9 would.

    def kill(self, kind: str, rng: random.Random) -> str:
        """Kill one process of ``kind``; returns which."""
        if kind == "gateway":
            name = rng.choice(sorted(self.gateways))
            self.gateways[name].kill()
            return name
        if kind == "hub":
            active = self.wait_for_a_hub()
            active.kill()
            return active.name
        if kind == "nats":
            self.nats.kill()
            return "nats"
        self.postgres.kill()
        return "postgres"

    def heal(self, kind: str, down: float) -> None:
        """Start again what the fault (and what followed from it) ended: after ``down``
        seconds, NATS or PostgreSQL on the same port and data; a gateway on a new port; any
        hub that has ended (the killed one, or one that lost its lease or its lock), as a
        standby if another serves; and wait until one hub serves. After the active hub's
        kill: only until the standby serves; the killed hub is started again after the
        fault's check (:func:`one_fault`), as hubs on machines of their own would be: here
        its start (seconds of a core on a loaded machine) took the two cores the new hub and
        the players needed while they came back, and the terminals' lines waited for it."""
        if kind == "hub" and self.wait_for_the_standby() is not None:
            return
        time.sleep(down)
        if kind == "nats":
            self.nats.start()
        if kind == "postgres":
            self.postgres.restart()
        for name, gateway in list(self.gateways.items()):
            if gateway.proc.poll() is not None:
                self.gateways[name] = self._gateway(name)
        self.wait_for_a_hub()

    def wait_for_the_standby(self, timeout: float = 20.0) -> float | None:
        """After the active hub's kill: when (monotonic) another live hub is seen serving (the
        standby took over), the killed one not started again; None if none did within
        ``timeout`` or no hub lives (then :meth:`heal` starts what ended)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.active_hubs():
                return time.monotonic()
            if not any(hub.proc.poll() is None for hub in self.hubs.values()):
                return None
            time.sleep(0.05)
        return None

    def wait_for_a_hub(self) -> GambitProcess:
        """The hub that serves, once one does (starting again any that ended): after a
        fault's check one may still be taking over from one that lost its lease."""
        deadline = time.monotonic() + 60
        while True:
            self.restart_hubs()
            if actives := self.active_hubs():
                return actives[0]
            if time.monotonic() > deadline:
                raise AssertionError("no hub serves a minute after the fault")
            time.sleep(0.1)

    def restart_hubs(self) -> list[str]:
        """Start again every hub that has ended (as a service manager would: a hub that
        loses its lease or its lock exits 75 to be started again); returns which."""
        started = []
        for name, hub in list(self.hubs.items()):
            if hub.proc.poll() is not None:
                try:
                    self.hubs[name] = start_hub(
                        self.folder, self.nats.url, *self.hub_options, name=name, standby=None
                    )
                except AssertionError as err:  # (it ended at once: the database still down)
                    log(f"{name} did not start: {str(err)[:200]}")
                    continue
                started.append(name)
        return started

    def stop(self) -> None:
        for process in (*self.gateways.values(), *self.hubs.values()):
            process.stop()
        self.nats.stop()

    def tracebacks(self) -> list[str]:
        return [
            p.name for p in (*self.gateways.values(), *self.hubs.values()) if "Traceback" in p.log()
        ]

    def hubs_said(self, *texts: str) -> int:
        """How many lines of the hubs' logs (every start of each) hold all of ``texts``."""
        lines = [line for hub in self.hubs.values() for line in hub.log().splitlines()]
        return sum(1 for line in lines if all(text in line for text in texts))

    # What a failed check leaves behind (tests/cluster_support/evidence.py).

    def snapshot(self, why: str) -> None:
        """What every process is doing now, noted in the run's folder (``snapshots.txt``)."""
        python = {name: p.proc for name, p in (*self.hubs.items(), *self.gateways.items())}
        processes = {**python, "nats": self.nats.proc, "postgres": self.postgres.proc}
        evidence.snapshot(self.folder, why, processes, python, self.db)

    def keep_logs(self, dest: Path) -> Path:
        """Every process's log (and the run's notes) copied to ``dest``."""
        return evidence.keep(self.folder, self.postgres.root, dest)

    # What the store holds.

    def connect(self) -> Any:
        import psycopg

        return psycopg.connect(self.db, autocommit=True, connect_timeout=5)

    def stored(self) -> tuple[int, dict[tuple[int, str], Counter[str]], int]:
        """The ledger's sum; each deal's stored actions, by (table, commitment); and the deals
        recorded more than once."""
        import msgpack

        deals: dict[tuple[int, str], Counter[str]] = {}
        with self.connect() as conn, conn.transaction():
            # (one snapshot: a game that ends between two reads would be in neither)
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            ledger = conn.execute("SELECT COALESCE(SUM(amount), 0) FROM ledger").fetchone()[0]
            recorded: Counter[tuple[int, str]] = Counter()
            for table_id, history, deal in conn.execute(
                "SELECT table_id, history, deal FROM games"
            ):
                commitment = (msgpack.unpackb(deal) or {}).get("commitment") if deal else None
                key = (table_id, str(commitment))
                recorded[key] += 1
                deals[key] = Counter(
                    action_key(s, a) for s, a in msgpack.unpackb(history, strict_map_key=False)
                )
            live: dict[int, str] = {}
            for table_id, info in conn.execute("SELECT id, info FROM live_tables"):
                deal = msgpack.unpackb(info, strict_map_key=False).get("deal") or {}
                live[table_id] = str(deal.get("commitment"))
            for table_id, seat, action in conn.execute(
                "SELECT table_id, seat, action FROM live_actions ORDER BY table_id, seq"
            ):
                key = (table_id, live.get(table_id, "?"))
                if key in recorded:
                    continue  # (the finished game's, until the next one starts)
                deals.setdefault(key, Counter())[
                    action_key(seat, msgpack.unpackb(action, strict_map_key=False))
                ] += 1
        twice = sum(1 for n in recorded.values() if n > 1)
        return int(ledger), deals, twice

    def lock_holders(self) -> list[str]:
        """Who holds the database's lock (server/store/pg_lock.py): their application names."""
        from server.store.pg_lock import KEY

        with self.connect() as conn:
            rows = conn.execute(
                "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a "
                "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.classid = %s "
                "AND l.objid = %s AND l.objsubid = 2 AND l.granted",
                KEY,
            ).fetchall()
        return [r[0] for r in rows]


# --- the players --------------------------------------------------------------------------


@dataclass
class Player:
    """One light client: plays its seat, notes the actions it saw accepted, answers pings."""

    index: int
    key: Any
    rng: random.Random
    ssh: Any = None
    conn: Any = None
    tables: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: (table, commitment, action key) of every action it saw accepted.
    accepted: list[tuple[int, str, str]] = field(default_factory=list)
    accepted_at: list[float] = field(default_factory=list)  # (monotonic) when, of each
    sent_log: list[Any] = field(default_factory=list)
    #: "A bot moved for you" notices: a stand-in played this seat while the hub had no
    #: connection of the player's (after a fault, before the player was back).
    stood_in: int = 0
    #: table -> (commitment, action key, action, when sent) of the action it sent and has not
    #: yet seen taken.
    pending: dict[int, tuple[str, str, Any, float]] = field(default_factory=dict)
    #: Tables whose next action taken is not counted: one sent before the hub changed (or
    #: the gateway said it would) may be taken there, before or after one sent since.
    blind: set[int] = field(default_factory=set)
    table_seen: float = 0.0  # (monotonic) the last message of its table
    pings: dict[int, float] = field(default_factory=dict)
    pong_at: dict[int, float] = field(default_factory=dict)
    next_ping: int = 0
    connects: int = 0
    welcome: asyncio.Event = field(default_factory=asyncio.Event)
    #: The seat a terminal player holds at a table this client owns (it watches that seat).
    terminal_seats: dict[int, int] = field(default_factory=dict)
    #: (table, commitment, seat) of each action of a terminal's seat it saw taken.
    terminal_taken: list[tuple[int, str, int]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"chaos{self.index:03d}"

    def seated(self) -> int | None:
        for table, message in self.tables.items():
            if message.get("seat") is not None:
                return table
        return None

    def send(self, message: dict[str, Any], on: Any = None) -> None:
        """Send on the connection now, or only on ``on`` if given (a send scheduled on one
        connection must not go out on the next: it would be taken there, unnoted)."""
        if self.conn is not None and (on is None or on is self.conn):
            with contextlib.suppress(Exception):
                self.conn.send_nowait(message)

    async def connect(self, port: int) -> None:
        import asyncssh

        from protocol.messages import PROTOCOL_VERSION
        from protocol.ssh_channel import open_channel

        self.ssh = await asyncssh.connect(
            "127.0.0.1",
            port,
            username=self.name,
            known_hosts=None,
            agent_path=None,
            client_keys=[self.key],
            preferred_auth=["publickey"],
            compression_algs=["none"],
            connect_timeout=10,
        )
        self.conn = await open_channel(self.ssh)
        self.tables.clear()
        self.pending.clear()  # (what was in flight ended with the old connection)
        self.blind.clear()
        self.welcome.clear()
        self.connects += 1
        await self.conn.send({"t": "hello", "v": PROTOCOL_VERSION, "name": self.name, "lang": "en"})

    def close(self) -> None:
        if self.ssh is not None:
            self.ssh.close()
        self.ssh = self.conn = None

    async def read(self) -> None:
        from protocol.connection import ConnectionClosed
        from protocol.event_log import expand

        with contextlib.suppress(ConnectionClosed, AttributeError):
            while self.conn is not None:
                message = await self.conn.recv()
                if not isinstance(message, dict):
                    continue
                kind = message.get("t")
                if kind == "welcome":
                    # (also when the gateway moved this session to another hub: what was
                    # in flight may or may not reach it, before or after what is sent now)
                    self.blind.update(self.pending)
                    self.welcome.set()
                elif kind == "notice" and message.get("code") in ("reconnecting", "stood_in"):
                    self.blind.update(self.pending)
                    self.stood_in += message.get("code") == "stood_in"
                elif kind == "pong":
                    self.pong_at.setdefault(message.get("n", -1), time.monotonic())
                elif kind == "table":
                    table = message["table"]
                    before = self.tables.get(table)
                    message = expand(before, message)
                    self.tables[table] = message
                    if before is not None and table in self.terminal_seats:
                        self.watch_terminal(table, before, message)
                    if message.get("seat") is not None:
                        self.table_seen = time.monotonic()
                    self.react(table, message)
                elif kind == "left":
                    self.tables.pop(message["table"], None)
                elif kind == "error":
                    self.pending.pop(message.get("table"), None)  # type: ignore[arg-type]

    def react(self, table: int, message: dict[str, Any]) -> None:
        view = message.get("view") or {}
        info = message.get("info") or {}
        seat = message.get("seat")
        commitment = str((info.get("deal") or {}).get("commitment"))
        sent = self.pending.get(table)
        if sent is not None and seat is not None and view:
            if sent[0] != commitment:
                del self.pending[table]  # another deal: not known whether it was taken
                self.blind.discard(table)
            elif seat not in (view.get("waiting") or ()):
                del self.pending[table]
                if table in self.blind:  # (which of its actions was taken is not known)
                    self.blind.discard(table)
                else:
                    self.accepted.append((table, commitment, sent[1]))
                self.accepted_at.append(time.monotonic())
        if seat is None:
            return
        if view.get("legal") and table not in self.pending:
            action = self.rng.choice(view["legal"])
            self.act(table, commitment, seat, action, self.rng.uniform(0.1, 0.6))
        if info.get("status") == "between":
            asyncio.get_running_loop().call_later(
                self.rng.uniform(0.2, 0.8),
                self.send,
                {"t": "result_read", "table": table},
                self.conn,
            )

    def watch_terminal(self, table: int, before: dict[str, Any], now: dict[str, Any]) -> None:
        """A terminal's seat that was waiting and is not, in the same deal, has acted (once,
        at least: a seat asked twice in a row is counted once, which only checks less)."""
        seat = self.terminal_seats[table]
        was, view = before.get("view") or {}, now.get("view") or {}
        commitment = str(((now.get("info") or {}).get("deal") or {}).get("commitment"))
        earlier = str(((before.get("info") or {}).get("deal") or {}).get("commitment"))
        if (
            view
            and commitment == earlier
            and seat in (was.get("waiting") or ())
            and seat not in (view.get("waiting") or ())
        ):
            self.terminal_taken.append((table, commitment, seat))

    def seat_of(self, table: int, name: str) -> int | None:
        """The seat ``name`` holds at ``table``, as this client last saw it."""
        info = (self.tables.get(table) or {}).get("info") or {}
        for seat in info.get("seats") or ():
            if seat.get("name") == name:
                return int(seat["seat"])
        return None

    def act(self, table: int, commitment: str, seat: int, action: Any, delay: float) -> None:
        self.pending[table] = (commitment, action_key(seat, action), action, time.monotonic())
        self.sent_log.append(((table, commitment[:10], action_key(seat, action)), time.monotonic()))
        asyncio.get_running_loop().call_later(
            delay, self.send, {"t": "act", "table": table, "action": action}, self.conn
        )

    def nudge(self, after: float = 3.0) -> None:
        """An action not seen taken for ``after`` seconds (sent into a fault, or refused):
        the same one sent again while it is still legal (so that whichever copy is taken,
        it is the one noted), else a new one."""
        now = time.monotonic()
        for table, (commitment, _key, action, sent) in list(self.pending.items()):
            if now - sent < after:
                continue
            message = self.tables.get(table) or {}
            seat, legal = message.get("seat"), (message.get("view") or {}).get("legal") or []
            if seat is None or not legal:
                continue
            now_dealing = str(((message.get("info") or {}).get("deal") or {}).get("commitment"))
            if action not in legal or now_dealing != commitment:
                action = self.rng.choice(legal)
            self.act(table, now_dealing, seat, action, 0.0)

    def ping(self) -> None:
        self.next_ping += 1
        self.pings[self.next_ping] = time.monotonic()
        self.send({"t": "ping", "n": self.next_ping})

    def back_since(self, fault: float, seated: bool) -> float | None:
        """When it was back after the fault at ``fault``: a ping sent since answered, and
        (``seated``) its table heard from since; None if not yet."""
        answered = []
        for n in range(self.next_ping, 0, -1):  # (the newest first: only those since)
            if self.pings[n] <= fault:
                break
            if n in self.pong_at:
                answered.append(self.pong_at[n])
        if not answered:
            return None
        at = min(answered)
        if seated:
            if self.table_seen <= fault:
                return None
            at = max(at, self.table_seen)
        return at


async def live(player: Player, ports: Any, stop: asyncio.Event) -> None:
    """Connect (to any gateway up), read and ping until the connection ends; again."""
    while not stop.is_set():
        reader = None
        try:
            choices = ports()
            if not choices:
                raise ConnectionError("no gateway is up")
            await player.connect(player.rng.choice(choices))
            reader = asyncio.create_task(player.read())
            while not stop.is_set() and not reader.done():
                player.ping()
                player.nudge()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(reader), 0.5)
        except Exception:  # (a gateway killed, refused while it starts: try again)
            pass
        finally:
            if reader is not None:
                reader.cancel()
            player.close()
        if not stop.is_set():
            await asyncio.sleep(player.rng.uniform(0.05, 0.3))


async def seat_players(players: list[Player], terminals: Sequence[Terminal] = ()) -> None:
    """Four to a table: the first opens it, the others join, the first starts it. The first
    tables have three light clients and a terminal each (the first invites it)."""
    light = list(players)
    groups: list[tuple[list[Player], Terminal | None]] = []
    for one in terminals:
        groups.append((light[: SEATS - 1], one))
        light = light[SEATS - 1 :]
    groups += [(light[i : i + SEATS], None) for i in range(0, len(light) - SEATS + 1, SEATS)]
    for number, (group, terminal) in enumerate(groups):
        # (a terminal's first table is Prophet's: Enter makes each of its decisions there)
        game, options = GAMES[(number + (terminal is not None)) % len(GAMES)]
        owner = group[0]
        await asyncio.wait_for(owner.welcome.wait(), 60)
        owner.send(
            {
                "t": "create_table",
                "game": game,
                "players": SEATS,
                "options": options,
                "stake": STAKE,
                "timer": TERMINAL_TIMER if terminal is not None else 0,
            }
        )
        table = await _until(owner.seated, 30)
        for other in group[1:]:
            await asyncio.wait_for(other.welcome.wait(), 60)
            other.send({"t": "join", "table": table})
        for other in group[1:]:
            await _until(other.seated, 30)
        if terminal is not None:
            await seat_terminal(owner, terminal, table)
        owner.send({"t": "start", "table": table})


async def seat_terminal(owner: Player, terminal: Terminal, table: int) -> None:
    """The owner invites the terminal's player; it answers as a person does (Ctrl+R, y)."""
    await terminal.wait_for((LOBBY,), 120)
    for _attempt in range(3):
        owner.send({"t": "invite", "op": "send", "table": table, "name": terminal.name})
        await asyncio.sleep(1.0)
        terminal.press("\x12")  # Ctrl+R: the answer dialog
        with contextlib.suppress(AssertionError):
            await terminal.wait_for(("Answer",), 10)
            terminal.press("y")
            seat = await _until(lambda: owner.seat_of(table, terminal.name), 20)
            terminal.table, terminal.seat = table, seat
            owner.terminal_seats[table] = seat
            return
        terminal.press("\x1b")  # (whatever is open: closed, and again)
        await asyncio.sleep(0.5)
    raise AssertionError(f"{terminal.name} not seated at table {table}:\n{terminal.text()}")


async def _until(probe: Any, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while (value := probe()) is None:
        if time.monotonic() > deadline:
            raise AssertionError(f"not seated within {timeout} s")
        await asyncio.sleep(0.05)
    return value


# --- the run ------------------------------------------------------------------------------


@dataclass
class Settings:
    #: Players in all, the terminals among them.
    players: int = 100
    #: Real terminal players (OpenSSH in a pty), each at a table with three light clients.
    terminals: int = 4
    faults: int = 50
    seed: int = 1
    #: Seconds of play between one fault's recovery and the next fault (uniform).
    between: tuple[float, float] = (2.0, 6.0)
    #: Seconds a killed NATS or PostgreSQL stays down (uniform).
    down: tuple[float, float] = (0.3, 1.5)
    #: Seconds every player must be back within.
    bound: float = 10.0
    #: Seconds a player is waited for before it counts as not back.
    wait: float = 30.0
    #: Where every process's log is kept when a check fails (or the run stops on an error):
    #: the run's folders are temporary (None: nothing kept).
    logs: Path | None = None
    #: Kept there even when every check held.
    keep_logs: bool = False
    #: The kinds of process killed (a run of one kind looks for what that kind does).
    kinds: tuple[str, ...] = KINDS


def fault_plan(settings: Settings) -> list[str]:
    """Which kind of process each fault kills: every kind once first (in a seeded
    order), then at random. (The same seed and kinds, the same plan.)"""
    rng = random.Random(f"plan{settings.seed}")
    first = list(settings.kinds)
    rng.shuffle(first)
    rest = [rng.choice(settings.kinds) for _ in range(max(0, settings.faults - len(first)))]
    return (first + rest)[: settings.faults]


async def run(settings: Settings, folder: Path, postgres: PostgresServer) -> dict[str, Any]:
    """The whole run; returns the summary (the bench's last JSON line)."""
    import asyncssh

    rng = random.Random(settings.seed)
    cluster = await asyncio.to_thread(ChaosCluster, folder, postgres)
    stop = asyncio.Event()
    players = [
        Player(
            i, asyncssh.generate_private_key("ssh-ed25519"), random.Random(f"{settings.seed}.{i}")
        )
        for i in range(settings.players - settings.terminals)
    ]
    terminals = [
        Terminal(
            i,
            await asyncio.to_thread(ssh_keygen, folder / f"terminal{i}_key"),
            random.Random(f"{settings.seed}.terminal{i}"),
        )
        for i in range(settings.terminals)
    ]
    lives = [asyncio.create_task(live(p, cluster.ports, stop)) for p in players]
    lives += [asyncio.create_task(terminal_life(t, cluster.ports, stop)) for t in terminals]
    result: dict[str, Any] = {"faults": 0, "survived": 0}
    faults: list[dict[str, Any]] = []
    finished = False
    try:
        await seat_players(players, terminals)
        log(f"{len(players)} light players and {len(terminals)} terminals seated")
        await asyncio.sleep(rng.uniform(*settings.between))
        for number, kind in enumerate(fault_plan(settings), 1):
            record = await one_fault(number, kind, cluster, players, terminals, settings, rng)
            faults.append(record)
            log(json.dumps(record))
            with open(folder / "faults.jsonl", "a") as notes:
                notes.write(json.dumps(record) + "\n")
            if not record["ok"]:  # (looked at now, while it lasts)
                why = f"fault {number} ({record['killed']}): a check failed"
                await asyncio.to_thread(cluster.snapshot, why)
            await asyncio.sleep(rng.uniform(*settings.between))
        finished = True
    except BaseException as err:
        with contextlib.suppress(Exception):
            cluster.snapshot(f"the run stopped: {err!r}"[:400])
        raise
    finally:
        stop.set()
        for task in lives:
            task.cancel()
        await asyncio.gather(*lives, return_exceptions=True)
        await asyncio.to_thread(cluster.stop)
        if not finished and settings.logs is not None:
            log(f"every process's log kept in {cluster.keep_logs(settings.logs)}")
    seen = accepted_so_far(players)
    ledger, deals, twice = cluster.stored() if postgres.proc is not None else (0, {}, 0)
    lost = lost_actions(seen, deals) + lost_terminal_actions(terminal_taken(players), deals)
    backs = [f["back_s"] for f in faults if f["back_s"] is not None]
    terminal_backs = [f["terminals_back_s"] for f in faults if f["terminals_back_s"] is not None]
    result.update(
        faults=len(faults),
        survived=sum(1 for f in faults if f["ok"]),
        actions_lost=len(lost),
        actions_checked=sum(len(p.accepted) for p in players)
        + sum(len(p.terminal_taken) for p in players),
        back_to_play_s_max=round(max(backs), 2) if backs else None,
        terminals=len(terminals),
        terminal_actions_checked=sum(len(p.terminal_taken) for p in players),
        terminal_back_s_max=round(max(terminal_backs), 2) if terminal_backs else None,
        terminals_not_back=sum(f["terminals_not_back"] for f in faults),
        terminal_reconnects=sum(t.reconnects for t in terminals),
        not_back=sum(f["not_back"] for f in faults),
        ledger_sum=ledger,
        deals_recorded_twice=twice,
        two_hubs=sum(1 for f in faults if f["two_hubs"]),
        no_hub_at_check=sum(1 for f in faults if not f["one_hub"] and not f["two_hubs"]),
        stood_in_notices=sum(p.stood_in for p in players),
        tracebacks=cluster.tracebacks(),
        # Hubs that stopped by themselves (and so a hub change, or the same one started
        # again): the lease, or the database's lock, lost, or a commit failed.
        leases_lost=cluster.hubs_said("lease: lost"),
        database_locks_lost=cluster.hubs_said("database lock:", "; stopping"),
        commits_failed=cluster.hubs_said("the store cannot commit"),
        players=len(players) + len(terminals),
        seed=settings.seed,
        sequence=[f["killed"] for f in faults],
        lost_sample=lost[:5],
    )
    for kind in KINDS:
        result[f"{kind}_kills"] = sum(1 for f in faults if f["kind"] == kind)
    failed = not all(f["ok"] for f in faults) or lost or ledger or twice
    if settings.logs is not None and (failed or settings.keep_logs):
        result["logs"] = str(cluster.keep_logs(settings.logs))
        log(f"every process's log kept in {result['logs']}")
    return result


async def say_to_terminals(marker: str, players: list[Player], terminals: list[Terminal]) -> None:
    """Every second, a line at each terminal's table (by a light client seated there and
    connected) until that terminal shows one: ``marker`` and a number."""
    said = 0
    while True:
        for terminal in terminals:
            if terminal.back_at is not None or terminal.table is None:
                continue
            here = [p for p in players if p.seated() == terminal.table and p.welcome.is_set()]
            if here:
                said += 1
                text = f"{marker}{said}"
                here[said % len(here)].send(
                    {"t": "chat", "channel": "table", "table": terminal.table, "text": text}
                )
        await asyncio.sleep(1.0)


def accepted_so_far(players: list[Player]) -> Counter[tuple[int, str, str]]:
    seen: Counter[tuple[int, str, str]] = Counter()
    for player in players:
        seen.update(player.accepted)
    return seen


def terminal_taken(players: list[Player]) -> Counter[tuple[int, str, int]]:
    seen: Counter[tuple[int, str, int]] = Counter()
    for player in players:
        seen.update(player.terminal_taken)
    return seen


def lost_terminal_actions(
    seen: Counter[tuple[int, str, int]], deals: dict[tuple[int, str], Counter[str]]
) -> list[tuple[str, int, str, str]]:
    """The actions of terminals' seats seen taken that the store does not hold (by count:
    which action a terminal's Enter made is not known here)."""
    lost = []
    for (table, commitment, seat), count in seen.items():
        stored = deals.get((table, commitment), Counter())
        have = sum(n for key, n in stored.items() if json.loads(key)[0] == seat)
        if have < count:
            lost.append(("terminal", table, commitment[:12], f"seat {seat}: {have} of {count}"))
    return lost


def lost_actions(
    seen: Counter[tuple[int, str, str]], deals: dict[tuple[int, str], Counter[str]]
) -> list[tuple[str, int, str, str]]:
    """The actions clients saw accepted that the store does not hold."""
    lost = []
    for (table, commitment, action), count in seen.items():
        have = deals.get((table, commitment), Counter())[action]
        if have < count:
            lost.append(("table", table, commitment[:12], action))
    return lost


async def one_fault(
    number: int,
    kind: str,
    cluster: ChaosCluster,
    players: list[Player],
    terminals: list[Terminal],
    settings: Settings,
    rng: random.Random,
) -> dict[str, Any]:
    seated = {p.index: p.seated() is not None for p in players}
    before = [h.name for h in cluster.active_hubs()]  # (serving before the fault)
    killed = await asyncio.to_thread(cluster.kill, kind, rng)
    at = time.monotonic()
    await asyncio.to_thread(cluster.heal, kind, rng.uniform(*settings.down))
    healed = time.monotonic() - at
    # Each terminal's table says a line every second until the terminal shows one. (Only
    # from now on: a line said before its session was cut off could still reach its screen.)
    marker = f"ok{number}x"
    for terminal in terminals:
        terminal.expect(marker, at)
    saying = asyncio.create_task(say_to_terminals(marker, players, terminals))
    # Everyone back (bounded): a ping answered, its table heard from.
    deadline = at + settings.wait
    back: dict[int, float] = {}
    while time.monotonic() < deadline and (
        len(back) < len(players) or any(t.back_at is None for t in terminals)
    ):
        for player in players:
            if player.index not in back:
                when = player.back_since(at, seated[player.index])
                if when is not None:
                    back[player.index] = when - at
        for terminal in terminals:  # (its table closed: the lobby will do)
            if terminal.back_at is None and not any(p.seated() == terminal.table for p in players):
                terminal.expect(None, at)
        await asyncio.sleep(0.1)
    saying.cancel()
    terminals_back = [t.back_at - at for t in terminals if t.back_at is not None]
    for terminal in terminals:
        terminal.stop_expecting()
    seen = accepted_so_far(players)  # (before the store is read: all of it is stored)
    taken = terminal_taken(players)
    ledger, deals, twice = await asyncio.to_thread(cluster.stored)
    lost = lost_actions(seen, deals) + lost_terminal_actions(taken, deals)
    actives = cluster.active_hubs()
    holders = await asyncio.to_thread(cluster.lock_holders)
    # Two hubs: two that say they serve, two holders of the lock, one serving without it
    # (the holder's name is cut at 63 characters: its pid may be cut off), a deal recorded
    # twice. None serving at this moment is told apart (one that lost its lock again).
    two_hubs = (
        len(actives) > 1
        or len(holders) > 1
        or (
            len(actives) == 1
            and len(holders) == 1
            and f"pid {actives[0].proc.pid}" not in holders[0]
            and " pid " in holders[0]
        )
        or twice > 0
    )
    one_hub = not two_hubs and len(actives) == 1
    worst = max([*back.values(), *terminals_back]) if back or terminals_back else None
    # A hub that lost its lease or lock after the heal, or the hub killed: started again, as
    # a standby.
    await asyncio.to_thread(cluster.restart_hubs)
    record = {
        "fault": number,
        "kind": kind,
        "killed": killed,
        "healed_s": round(healed, 2),
        "back_s": round(worst, 2) if worst is not None else None,
        "not_back": len(players) - len(back) + len(terminals) - len(terminals_back),
        "players_back_s": round(max(back.values()), 2) if back else None,
        "terminals_back_s": round(max(terminals_back), 2) if terminals_back else None,
        # (each terminal's, by the game of its table: a Fortunes one is judged by its play)
        "each_terminal_back_s": {
            f"{t.name} {game_at(players, t.table)}": None
            if t.back_at is None
            else round(t.back_at - at, 2)
            for t in terminals
        },
        "terminals_not_back": len(terminals) - len(terminals_back),
        "ledger_sum": ledger,
        "actions_lost": len(lost),
        "one_hub": one_hub,
        "two_hubs": two_hubs,
        "before": before[0] if len(before) == 1 else before,
        "active": actives[0].name if len(actives) == 1 else [a.name for a in actives],
    }
    if len(terminals_back) < len(terminals):  # what their screens showed
        record["terminals_not_back_seen"] = [
            {"terminal": t.name, "table": t.table, "up": t.up, "screen": t.text()}
            for t in terminals
            if t.back_at is None
        ][:2]
    if len(back) < len(players):  # who, and where their tables stood (as they last saw them)
        record["not_back_tables"] = sorted(
            {p.seated() or 0 for p in players if p.index not in back}
        )
        record["not_back_seen"] = [
            {
                "player": p.name,
                "table": p.seated(),
                "waiting": ((p.tables.get(p.seated() or -1) or {}).get("view") or {}).get(
                    "waiting"
                ),
                "pong": p.back_since(at, False) is not None,
            }
            for p in players
            if p.index not in back
        ][:8]
    new_losses = len(lost) - cluster.lost_so_far  # (earlier ones counted at their fault)
    cluster.lost_so_far = max(cluster.lost_so_far, len(lost))
    record["ok"] = (
        new_losses <= 0
        and ledger == 0
        and not two_hubs
        and record["not_back"] == 0
        and worst is not None
        and worst <= settings.bound
    )
    return record


def game_at(players: list[Player], table: int | None) -> str:
    """The game of ``table`` as its light clients last saw it ("?" if none did)."""
    for player in players:
        info = (player.tables.get(table or -1) or {}).get("info") or {}
        if info.get("game"):
            return str(info["game"])
    return "?"
