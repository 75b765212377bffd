"""A game night at the issue's size on one hub: a Swiss of 400 players at tables of four over
five rounds, every player a scripted client that answers each decision at once with its first
legal action (as a quick bot would; then a ping, whose pong says the views after it show that
move), all registered and following the standings, none
watching the lobby (as the app: its lobby screen asks for the lobby's updates only while it is
shown, and a player of an event is at their table or on the Events screen).

    python bench/event.py [--players 400] [--size 4] [--rounds 5] [--game prophets_gambit]

Not a timed test. One process: the hub (SQLite store in a temporary folder) and its clients on
in-memory protocol connections (no SSH, no Textual), so the hub's own work is what is measured,
on a loop it shares with the clients. Prints, as its last line, one JSON object: ``players``,
``rounds``, ``tables_per_round``, ``pairing_ms_max`` (``Night.seat_next_round``; issue 42's
target: at most 100 ms), ``seated_s_max`` (a round's start → every player has its table's
first message; target at most 2 s), ``standings_ms_p50``, ``_p99`` and ``_max`` (a table's
game ends in the hub → every follower has the standings that count it; target at most 200
ms),
``ledger_sum`` (0), ``games`` (the event's tables that counted), ``gc_ms_total`` and
``gc_ms_max`` (the collector's pauses), ``wall_s``, ``loadavg_1m``, ``errors`` (the hub's
refusals of what the players sent: 0, each move made on a view that shows the one before;
before 2026-12-07 a view sent before a player's move was taken was answered again, refused
as out of turn or illegal, about 3 a game), ``lobby_watchers``
(``--lobby``: every player keeps the lobby's updates coming, as this bench had them before:
each decoded a ``lobby_update`` of the tables that changed every half second, as much work on
the shared loop as the standings themselves).

The garbage collector runs as ``gambit serve`` runs it (``--gc served``, the default:
``server.gc_freeze.FrozenSessions``, told of each player's arrival); ``--gc default`` leaves
CPython's, whose full collections of a heap this size stall the one loop for up to half a
second and made most of this bench's tails before (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from protocol.connection import ConnectionClosed, queue_pair  # noqa: E402
from protocol.event_log import expand  # noqa: E402
from protocol.messages import PROTOCOL_VERSION  # noqa: E402
from server.gc_freeze import FrozenSessions  # noqa: E402
from server.hub import Hub, HubConfig  # noqa: E402
from server.nights.night import Night  # noqa: E402
from server.store import Store  # noqa: E402


def config() -> HubConfig:
    """Quick play: no bot delay, no turn timer, budgets out of the way of scripted clients."""
    return HubConfig(
        bot_delay=0.0,
        between_games=0.2,
        after_results_read=0.05,
        turn_timer=0.0,
        bot_think_ms=5.0,
        bot_workers=0,
        lobby_interval=0.5,
        hello_timeout=10.0,
        messages_burst=1_000_000,
        seat_changes_burst=1_000_000,
        tables_burst=1_000_000,
        tables_per_player=1_000,
    )


class Player:
    """A scripted player: answers its turn at once; notes when it saw each table and each
    standings message."""

    def __init__(self, hub: Hub, name: str, lobby: bool = False) -> None:
        client_end, hub_end = queue_pair(trusted=True)
        #: Keeps the lobby's updates coming (``--lobby``): the app stops them on every screen
        #: but the lobby's, and a player of an event is at their table or on the Events screen.
        self.lobby = lobby
        self.task = asyncio.get_running_loop().create_task(hub.serve(hub_end))
        self.conn = client_end
        self.name = name
        self.tables: dict[int, dict[str, Any]] = {}
        self.first_seen: dict[int, float] = {}
        #: round number → table id, from the round's notice.
        self.seated_at: dict[int, int] = {}
        #: Arrival time of every ``night`` message (the standings), in order.
        self.standings_at: list[float] = []
        self.night_id: int | None = None
        #: What came, in order (a failing start says what it got).
        self.kinds: list[Any] = []
        self.got: dict[str, asyncio.Future[dict[str, Any]]] = {}
        #: table id -> the ping sent right after the last move made there. Until its pong
        #: comes, a view of that table may have left the hub before the move was taken and
        #: still ask for it (answered again, it was refused: out of turn, or illegal for the
        #: next decision): the hub handles a connection's messages in order, so whatever
        #: comes after the pong shows the move.
        self.moved: dict[int, int] = {}
        self.pings = 0
        #: Errors the hub sent (refused moves): none, when every move answers a fresh view.
        self.errors = 0
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def send(self, message: dict[str, Any]) -> None:
        await self.conn.send(message)

    def wait(self, kind: str) -> asyncio.Future[dict[str, Any]]:
        self.got[kind] = asyncio.get_running_loop().create_future()
        return self.got[kind]

    async def _read(self) -> None:
        try:
            while True:
                msg = await self.conn.recv()
                if not isinstance(msg, dict):
                    continue
                kind = msg["t"]
                now = time.perf_counter()
                self.kinds.append(msg if kind in ("error", "bye") else kind)
                if kind == "welcome" and not self.lobby:
                    await self.send({"t": "lobby_watch", "on": False})
                if kind == "table":
                    table = msg["table"]
                    msg = expand(self.tables.get(table), msg)
                    self.tables[table] = msg
                    self.first_seen.setdefault(table, now)
                    await self._answer(table)
                elif kind == "pong":
                    for table in [t for t, n in self.moved.items() if n == msg["n"]]:
                        del self.moved[table]
                        await self._answer(table)  # (the latest view, if it asks)
                elif kind == "error":
                    self.errors += 1
                elif kind == "night":
                    self.standings_at.append(now)
                elif kind == "notice" and msg.get("code") == "night_round":
                    self.seated_at[msg["args"]["round"]] = msg["args"]["table"]
                waiting = self.got.pop(kind, None)
                if waiting is not None and not waiting.done():
                    waiting.set_result(msg)
        except ConnectionClosed:
            return

    async def _answer(self, table: int) -> None:
        """Answer the table's latest view with its first legal action, if it asks and shows
        the last move made there (see ``moved``)."""
        view = self.tables[table].get("view")
        if table in self.moved or not view or not view["legal"] or view["over"]:
            return
        self.pings += 1
        self.moved[table] = self.pings
        await self.send({"t": "act", "table": table, "action": view["legal"][0]})
        await self.send({"t": "ping", "n": self.pings})


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


async def run(args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="gambit-event-"))
    store = Store.open(folder / "data")
    hub = Hub(store, config())
    await hub.start()
    memory = FrozenSessions() if args.gc == "served" else None
    if memory is not None:
        memory.started()
    pauses: list[float] = []
    began = [0.0]

    def collected(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            pauses.append((time.perf_counter() - began[0]) * 1000)

    gc.callbacks.append(collected)
    nights = hub.nights
    nights.round_break = 0.5

    # Instruments: seating one round, each round's start, each table's end → the standings.
    pairing: list[float] = []
    seat_round = Night.seat_next_round

    def timed_seat(self: Night, now: float | None = None) -> Any:
        start = time.perf_counter()
        try:
            return seat_round(self, now)
        finally:
            pairing.append((time.perf_counter() - start) * 1000)

    Night.seat_next_round = timed_seat  # type: ignore[method-assign]  # the bench's probe
    round_started: dict[int, float] = {}
    start_round = nights.start_round

    def timed_start(night_id: int, *, refuse: bool = False) -> None:
        round_started[len(nights.nights[night_id].rounds) + 1] = time.perf_counter()
        start_round(night_id, refuse=refuse)

    nights.start_round = timed_start  # type: ignore[method-assign]  # the bench's probe
    told_at: list[float] = []  # each push of the standings (one message to every follower)
    table_end: list[tuple[int, float]] = []  # (that push's index, when a game's end came)
    unsent: list[float] = []  # games ended since the last push
    tell_now = nights.tell_now

    def timed_tell(night_id: int) -> None:
        told_at.append(time.perf_counter())
        table_end.extend((len(told_at) - 1, ended) for ended in unsent)
        unsent.clear()
        tell_now(night_id)

    nights.tell_now = timed_tell  # type: ignore[method-assign]  # the bench's probe
    game_ended = nights.game_ended

    def timed_end(table: Any, outcome: Any) -> None:
        unsent.append(time.perf_counter())
        game_ended(table, outcome)

    nights.game_ended = timed_end  # type: ignore[method-assign]  # the bench's probe
    hub.play.game_end_hooks[hub.play.game_end_hooks.index(game_ended)] = timed_end

    host = Player(hub, "Host")
    await host.send({"t": "hello", "v": PROTOCOL_VERSION, "identity": "key-host", "name": "Host"})
    await host.wait("welcome")
    made = host.wait("night")
    await host.send(
        {
            "t": "night",
            "op": "create",
            "name": "Bench night",
            "game": args.game,
            "players": args.size,
            "format": "swiss",
            "rounds": args.rounds,
            "fill": "bots",
            "timer": 0,
        }
    )
    night_id = (await made)["night"]["id"]
    players = []
    for i in range(args.players):  # (each says hello at once: the hub waits for it a while)
        player = Player(hub, f"P{i}", lobby=args.lobby)
        players.append(player)
        if memory is not None:
            memory.session_started()
        welcomed = player.wait("welcome")
        await player.send(
            {
                "t": "hello",
                "v": PROTOCOL_VERSION,
                "identity": f"key-{player.name}",
                "name": player.name,
                "lang": "en",
            }
        )
        try:
            await asyncio.wait_for(welcomed, 10)
        except TimeoutError:
            player.task.print_stack()
            sys.exit(f"{player.name}: no welcome; got {player.kinds[-5:]}")
        await player.send({"t": "night", "op": "register", "night": night_id})
    night = nights.nights[night_id]
    for _ in range(3000):
        if len(night.active()) == args.players:
            break
        await asyncio.sleep(0.01)
    if args.verbose:
        print(f"{len(night.active())} registered")
    started = time.perf_counter()
    await host.send({"t": "night", "op": "start", "night": night_id})
    for tick in range(args.rounds * 6000):
        if night.over:
            break
        await asyncio.sleep(0.05)
        if args.verbose and tick % 40 == 0:
            done = sum(1 for r in night.rounds for s in r.scores if s is not None)
            print(f"{time.perf_counter() - started:.0f}s round {len(night.rounds)} games {done}")
    wall = time.perf_counter() - started
    await asyncio.sleep(0.5)  # the last standings reach everyone

    seated = []
    for number, begun in round_started.items():
        times = [
            p.first_seen[p.seated_at[number]] - begun
            for p in players
            if number in p.seated_at and p.seated_at[number] in p.first_seen
        ]
        seated.append(max(times) if len(times) == args.players else float("inf"))
    # Every follower got one message per tell since it followed: line each up from the end.
    latencies = []
    for index, ended in table_end:
        back = len(told_at) - index
        arrivals = [p.standings_at[-back] for p in players if len(p.standings_at) >= back]
        if len(arrivals) == len(players):
            latencies.append((max(arrivals) - ended) * 1000)
    result = {
        "players": args.players,
        "rounds": len(night.rounds),
        "tables_per_round": len(night.rounds[0].tables) if night.rounds else 0,
        "status": night.status,
        "pairing_ms_max": round(max(pairing), 1) if pairing else None,
        "seated_s_max": round(max(seated), 3) if seated else None,
        "standings_ms_p50": round(percentile(latencies, 0.5), 1),
        "standings_ms_p99": round(percentile(latencies, 0.99), 1),
        "standings_ms_max": round(max(latencies), 1) if latencies else None,
        "ledger_sum": store.ledger_total(),
        "games": sum(1 for r in night.rounds for s in r.scores if s is not None),
        "gc_ms_total": round(sum(pauses)),
        "gc_ms_max": round(max(pauses, default=0.0), 1),
        "wall_s": round(wall, 1),
        "loadavg_1m": round(os.getloadavg()[0], 2),
        "lobby_watchers": args.players if args.lobby else 0,
        "errors": sum(p.errors for p in players) + host.errors,
    }
    await hub.stop()
    gc.callbacks.remove(collected)
    if memory is not None:
        memory.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--game", default="prophets_gambit")
    parser.add_argument(
        "--gc", choices=("served", "default"), default="served", help="the collector's policy"
    )
    parser.add_argument(
        "--lobby",
        action="store_true",
        help="the players keep the lobby's updates coming (before 2026-12-06, 22:00, all did)",
    )
    parser.add_argument("--verbose", action="store_true", help="progress every 2 s")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
