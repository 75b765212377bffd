"""The guest-chips rule as a property (issue 25): random lives of guests and registered players
against a hub on a real SQLite file, with guests on its real TCP listener and registered
players on its trusted unix socket, and the hub stopping or crashing and starting again.

After every step: the ledger sums to zero and passes its audit; no guest without a session and
a seat (taken or reserved) holds a chip; a registered player's chips moved only through game
results (starting grant, antes, payouts, refunds). The hub runs in this process so a crash can
be had at any step without a second interpreter's start-up; a crash drops the hub without any
of its stopping code, as SIGKILL would, and the new hub recovers from the file alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from protocol.connection import open_tcp, open_unix
from server.admission import AdmissionLimits
from server.hub import Hub
from server.hub.listener import serve_tcp, serve_unix
from server.store import Store

from .conftest import fast_config
from .harness import Client

REGISTERED = ["SHA256:ada", "SHA256:bob", "SHA256:cy"]
GAME_RESULTS = {"starting chips", "ante", "payout", "refund", "stay", "raise"}
#: How many examples (``GUEST_CHIPS_EXAMPLES=500`` for a deeper search than the suite's), and
#: how long each life may be.
EXAMPLES = int(os.environ.get("GUEST_CHIPS_EXAMPLES", "50"))
MAX_STEPS = 40
STEPS_RUN: list[int] = []  # steps of every life run, for the closing note (-s shows them)


def _step(kind: str, *args: st.SearchStrategy) -> st.SearchStrategy:
    return st.tuples(st.just(kind), *args)


#: (weight, step): lives that reach games, drops and restarts in a few dozen steps.
STEPS = [
    (3, lambda: _step("guest_arrives")),
    (2, lambda: _step("registered_arrives", st.integers(0, len(REGISTERED) - 1))),
    (2, lambda: _step("create", st.integers(0, 99), st.sampled_from([0, 5, 20]))),
    (2, lambda: _step("create_and_start", st.integers(0, 99), st.sampled_from([5, 20]))),
    (2, lambda: _step("join", st.integers(0, 99), st.integers(0, 99))),
    (3, lambda: _step("fill_and_start", st.integers(0, 99))),
    (4, lambda: _step("play", st.integers(1, 40))),
    (1, lambda: _step("leave", st.integers(0, 99))),
    (2, lambda: _step("drop", st.integers(0, 99))),
    (1, lambda: _step("wait", st.sampled_from([0.02, 0.1, 0.3]))),
    (1, lambda: _step("restart", st.booleans())),
]
step = st.one_of(*(make() for weight, make in STEPS for _ in range(weight)))


class World:
    """One hub on one data folder, and the clients talking to it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.clients: list[Client] = []
        self.steps = 0

    async def start(self) -> None:
        self.store = Store.open(self.folder)
        # Grace is short so that it runs out within a few steps; bots act at once.
        self.hub = Hub(self.store, fast_config(grace=0.05, between_games=0.05))
        await self.hub.start()
        self.unix = await serve_unix(self.hub, self.folder / "hub.sock")
        # Many guests from one address, as fast as the steps go: the listener's limits (tested
        # on their own) lifted.
        lifted = AdmissionLimits(max_per_address=10**6, connection_burst=10**6)
        self.tcp = await serve_tcp(self.hub, "127.0.0.1", 0, lifted)
        self.port = self.tcp.sockets[0].getsockname()[1]

    async def stop(self, crash: bool) -> None:
        for server in (self.unix, self.tcp):
            server.close()
        hub = self.hub
        if crash:
            # What SIGKILL leaves: the file as last committed, and no stopping code run.
            hub.runtime.timers.stop()
            hub.lobby.stop()
            hub.runtime.timers.cancel_tasks()
        else:
            await hub.stop()
        for client in self.clients:
            with contextlib.suppress(Exception):
                await client.close()
        self.clients = []
        await asyncio.sleep(0)
        self.store.close()

    # --- steps ---------------------------------------------------------------------------

    async def arrive(self, identity: str | None) -> None:
        if identity is None:
            client = Client(await open_tcp("127.0.0.1", self.port))
        else:
            client = Client(await open_unix(str(self.folder / "hub.sock")))
        client.welcome = await client.hello(identity=identity)  # type: ignore[attr-defined]  # noted on the test's client
        self.clients.append(client)

    def pick(self, n: int) -> Client | None:
        live = [c for c in self.clients if not c.closed]
        return live[n % len(live)] if live else None

    def seated_at_waiting_tables(self) -> list[tuple[Client, int]]:
        return [
            (client, table_id)
            for client in self.clients
            if not client.closed
            for table_id, table in sorted(self.hub.tables.items())
            if table.status == "waiting" and table.seat_of(client.welcome["you"]["id"]) is not None  # type: ignore[attr-defined]  # noted on the test's client
        ]

    def table_ids(self) -> list[int]:
        return sorted(self.hub.tables)

    async def run(self, move: tuple[Any, ...]) -> None:
        kind = move[0]
        if kind == "guest_arrives":
            await self.arrive(None)
        elif kind == "registered_arrives":
            await self.arrive(REGISTERED[move[1]])
        elif kind == "create" and (client := self.pick(move[1])):
            await client.send(
                "create_table", game="prophets_gambit", players=3, stake=move[2], timer=0
            )
        elif kind == "create_and_start" and (client := self.pick(move[1])):
            await client.send(
                "create_table", game="prophets_gambit", players=3, stake=move[2], timer=0
            )
            await self.settle()
            me = client.welcome["you"]["id"]  # type: ignore[attr-defined]  # noted on the test's client
            for table_id, table in sorted(self.hub.tables.items(), reverse=True):
                if table.status == "waiting" and table.seat_of(me) == 0:
                    for seat in (1, 2):
                        if table.seats[seat].empty:
                            await client.send("add_bot", table=table_id, seat=seat)
                    await client.send("start", table=table_id)
                    break
        elif kind == "join" and (client := self.pick(move[1])) and self.table_ids():
            tables = self.table_ids()
            await client.send("join", table=tables[move[2] % len(tables)])
        elif kind == "fill_and_start" and (seated := self.seated_at_waiting_tables()):
            client, table_id = seated[move[1] % len(seated)]
            for seat, holder in enumerate(self.hub.tables[table_id].seats):
                if holder.empty:
                    await client.send("add_bot", table=table_id, seat=seat)
            await client.send("start", table=table_id)
        elif kind == "play":
            # Humans answer what they are asked (their turn timers are off), move by move.
            for _ in range(move[1]):
                acted = False
                for client in self.clients:
                    for table_id, msg in list(client.tables.items()):
                        view = msg["view"]
                        if not client.closed and view and view["legal"] and not msg.get("_done"):
                            msg["_done"] = True
                            acted = True
                            await client.send("act", table=table_id, action=view["legal"][0])
                if not acted:
                    break
                await self.settle()
        elif kind == "leave" and (client := self.pick(move[1])):
            me = client.welcome["you"]["id"]  # type: ignore[attr-defined]  # noted on the test's client
            for table_id, table in list(self.hub.tables.items()):
                if table.seat_of(me) is not None:
                    await client.send("leave", table=table_id)
                    break
        elif kind == "drop" and (client := self.pick(move[1])):
            await client.close()
            client.closed = True
        elif kind == "wait":
            await asyncio.sleep(move[1])
        elif kind == "restart":
            await self.stop(crash=move[1])
            await self.start()
        await self.settle()

    async def settle(self) -> None:
        """Every message sent has been handled, every closed client's session is gone."""
        for n, client in enumerate(c for c in self.clients if not c.closed):
            mark = len(client.log)
            await client.send("ping", n=n)
            await client.until(lambda m, n=n: m["t"] == "pong" and m["n"] == n, timeout=10)
            assert len(client.log) >= mark
        for _ in range(500):
            if len(self.hub.sessions) == sum(1 for c in self.clients if not c.closed):
                break
            await asyncio.sleep(0.002)
        else:
            raise AssertionError("a closed client's session is still open in the hub")

    # --- the property --------------------------------------------------------------------

    def check(self) -> None:
        store, hub = self.store, self.hub
        assert store.ledger_total() == 0
        assert store.audit() == []
        for account, balance in store.balances("player:").items():
            pid = account.removeprefix("player:")
            if pid.startswith("guest:"):
                seated = any(
                    pid in (seat.player, seat.reserved)
                    for table in hub.tables.values()
                    for seat in table.seats
                )
                assert not balance or pid in hub.players or seated, (pid, balance)
        for pid in REGISTERED:
            reasons = {row["reason"] for row in store.ledger(f"player:{pid}", limit=10_000)}
            assert reasons <= GAME_RESULTS, (pid, reasons)


async def live(moves: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        world = World(Path(folder))
        await world.start()
        try:
            for move in moves:
                await world.run(move)
                world.check()
            # What the lives covered (shown by --hypothesis-show-statistics).
            reasons = {row["reason"] for row in world.store.ledger(limit=100_000)}
            for reason in ("ante", "payout", "guest_left"):
                if reason in reasons:
                    event(f"a {reason} before the last stop")
            event(f"{len(moves) // 10 * 10}+ steps")
            STEPS_RUN.append(len(moves))
            # However a life ends, a server that stops sends every guest's chips home.
            await world.stop(crash=False)
            await world.start()
            world.check()
            assert sum(world.store.balances("player:guest:").values()) == 0
        finally:
            await world.stop(crash=False)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(moves=st.lists(step, min_size=10, max_size=MAX_STEPS))
def test_no_guest_chips_are_stranded_and_the_ledger_holds(moves):
    asyncio.run(live(moves))


def teardown_module() -> None:
    if STEPS_RUN:
        print(f"\nguest chips property: {len(STEPS_RUN)} lives, {sum(STEPS_RUN)} steps")
