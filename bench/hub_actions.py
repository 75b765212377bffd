"""The hub's CPU per action, in one process: a real Hub, a real SQLite store, the bus path.

    python bench/hub_actions.py [--tables 400] [--actions 4000] [--repeats 3] [--rate 2000]
                                [--watchers N] [--lobby-interval S] [--gc-default]
                                [--profile FILE] [--instructions] [--gateway-dies N]

Not a timed test. Where ``bench/hub_load.py`` needs NATS, client processes and a quiet
machine, this measures the hub's own work per action repeatably: it starts a Hub on a SQLite
file in a temporary folder and a :class:`~server.hub.bus.HubBus` whose NATS client is a
stand-in (``publish`` only counts the bytes), so every message goes through the same
sessions, deltas, encoding, outbox, group commit and bus flush as under ``hub_load``. It
opens ``--tables`` Prophet's Gambit tables of five trusted players (and ``--watchers`` lobby
watchers, a tenth of the players by default), starts them, then plays: every 10 ms it takes
``rate / 100`` actions, each the first legal action of a waiting seat of a random playing
table, and hands them to the hub as gateway frames (one bus message per tick, as a gateway
sends them). The driver's own work (choosing and encoding the actions) is timed and taken
off. Each repeat plays ``--actions`` actions. The GC is tuned as ``gambit hub`` tunes it
(``server.hub.main.hub_memory``) unless ``--gc-default``.

Prints, as its last line, one JSON object: ``hub_cpu_ms_per_action`` (median over the
repeats; the process's CPU during the repeat less the driver's, per action), each repeat's
figure, ``actions_per_s`` reached, ``published_bytes_per_action``, ``commits`` per action
and, with ``--instructions``, ``instructions_per_action`` (the same run under valgrind's
callgrind, instrumented only while the hub works on the play, not while the driver chooses:
counts, unlike time, do not depend on what else this shared machine is doing; some 100
times slower, so there the lobby flushes every 30 s, not every 0.25 s, for a flush to cover
hundreds of actions as it does at 2,000 a second). With ``--gateway-dies N``, after the play
N seated players' sessions end in one bus message (their gateway died) and then come back
(a new session each, same identity), every table still open: ``drop_ms_per_player`` and
``return_ms_per_player`` are the hub's CPU for each, per player.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from callgrind import counted, instrument  # noqa: E402

from protocol.codec import encode  # noqa: E402
from protocol.messages import PROTOCOL_VERSION  # noqa: E402
from server.bus import wire  # noqa: E402

TOKEN = "hub-actions-bench"
SEATS = 5
GATEWAY = "benchgw"


class FakeNats:
    """What the hub's bus publishes through: counted, then dropped."""

    def __init__(self) -> None:
        self.bytes = 0
        self.messages = 0

    async def publish(self, subject: str, payload: bytes) -> None:
        self.bytes += len(payload)
        self.messages += 1


class Msg:
    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


def callgrind(on: bool) -> None:
    """Turn callgrind's instrumentation on or off (no-op when not under it)."""
    if os.environ.get("HUB_ACTIONS_CALLGRIND"):
        instrument(on)


async def settle(hub: Any, bus: Any, rounds: int = 3, limit: int = 1_000_000) -> None:
    """Let the loop run until every frame handed to the hub is handled and published (for
    ``rounds`` quiet turns of the loop; at most ``limit`` turns)."""
    quiet = 0
    for _ in range(limit):
        await asyncio.sleep(0)
        busy = (
            any(not c._inbox.empty() for c in bus.conns.values())
            or hub.store.holding
            or bus._out._scheduled
            or (bus._sender is not None and bus._sender._task is not None)
        )
        quiet = 0 if busy else quiet + 1
        if quiet >= rounds:
            return
    raise RuntimeError(f"the hub did not settle in {limit} turns of the loop")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from server.hub import Hub, HubConfig
    from server.hub.bus import HubBus
    from server.store import Store

    folder = Path(tempfile.mkdtemp(prefix="hub_actions-"))
    store = Store.open(folder)
    config = HubConfig(
        bot_delay=0.5,
        between_games=0.2,
        turn_timer=0.0,
        bot_workers=0,
        bot_think_ms=5.0,
        hello_timeout=600.0,
        tables_burst=1_000_000,
        tables_per_player=1_000,
        max_tables=100_000,
        messages_burst=1_000_000,
        seat_changes_burst=1_000_000,
        seed=1,
        lobby_interval=args.lobby_interval,
        grace=3600.0,  # (--gateway-dies: no stand-in plays while the players are away)
    )
    hub = Hub(store, config)
    await hub.start()
    bus = HubBus(hub, "nats://bench.invalid", TOKEN)
    nats = FakeNats()
    bus.nc = nats
    bus._sender = wire.Sender(nats.publish)

    def send(events: list[list[Any]]) -> asyncio.Future[Any]:
        return bus._on_message(Msg(wire.pack([GATEWAY, events])))

    # --- seat everyone -----------------------------------------------------------------------
    players = args.tables * SEATS
    info = wire.pack({"peer": "bench", "address": None, "token": TOKEN})
    events: list[list[Any]] = []
    for sid in range(1, players + args.watchers + 1):
        events.append([wire.OPEN, sid, info])
        hello = {"t": "hello", "v": PROTOCOL_VERSION, "identity": f"bench:{sid}", "name": f"B{sid}"}
        events.append([wire.FRAMES, sid, encode(hello)])
        if sid <= players:
            events.append([wire.FRAMES, sid, encode({"t": "lobby_watch", "on": False})])
    for at in range(0, len(events), 3000):
        await send(events[at : at + 3000])
        await settle(hub, bus)
    hosts = list(range(1, players + 1, SEATS))
    await send(
        [
            [wire.FRAMES, h, encode({"t": "create_table", "game": "prophets_gambit", "players": 5})]
            for h in hosts
        ]
    )
    await settle(hub, bus)
    by_owner = {t.owner: t.id for t in hub.tables.values()}
    joins = []
    for h in hosts:
        table = by_owner[f"bench:{h}"]
        joins += [[wire.FRAMES, h + k, encode({"t": "join", "table": table})] for k in range(1, 5)]
    await send(joins)
    await settle(hub, bus)
    await send(
        [[wire.FRAMES, h, encode({"t": "start", "table": by_owner[f"bench:{h}"]})] for h in hosts]
    )
    await settle(hub, bus)
    tables = [hub.tables[by_owner[f"bench:{h}"]] for h in hosts]
    sid_of = {(t.id, s): hosts[i] + s for i, t in enumerate(tables) for s in range(SEATS)}
    assert all(t.status == "playing" for t in tables), "tables did not start"
    hub.lobby.flush()  # what the seating changed in the lobby goes out now, not in the play
    await settle(hub, bus)
    if not args.gc_default:
        from server.hub.main import hub_memory

        hub_memory(hub)  # as `gambit hub` does

    # --- play ------------------------------------------------------------------------------------
    rng = random.Random(1)
    per_tick = max(1, round(args.rate / 100))

    def choose(n: int) -> list[list[Any]]:
        out: list[list[Any]] = []
        picked: set[int] = set()
        for _ in range(n * 3):
            if len(out) >= n:
                break
            table = tables[rng.randrange(len(tables))]
            state = table.state
            if table.id in picked or table.status != "playing" or state is None:
                continue
            pending = sorted(state.pending())
            if not pending:
                continue
            seat = pending[0]
            action = state.legal_actions(seat)[0]
            picked.add(table.id)
            message = {"t": "act", "table": table.id, "action": action.to_wire()}
            out.append([wire.FRAMES, sid_of[(table.id, seat)], encode(message)])
        return out

    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)  # CPU, not waits on the disk
    figures: list[float] = []
    rates: list[float] = []
    bytes_per: list[float] = []
    commits_per: list[float] = []
    for _ in range(args.repeats):
        done = 0
        driver = 0.0
        bytes0, commits0 = nats.bytes, store.commits
        cpu0, wall0 = time.process_time(), time.perf_counter()
        next_tick = wall0
        if profiler is not None:
            profiler.enable()
        while done < args.actions:
            callgrind(False)  # (the driver's own work is not the hub's)
            d0 = time.process_time()
            batch = choose(min(per_tick, args.actions - done))
            driver += time.process_time() - d0
            callgrind(True)
            if batch:
                await send(batch)
                done += len(batch)
            next_tick += 0.01
            await asyncio.sleep(max(0.0, next_tick - time.perf_counter()))
        await settle(hub, bus)
        callgrind(False)
        if profiler is not None:
            profiler.disable()
        cpu = time.process_time() - cpu0 - driver
        wall = time.perf_counter() - wall0
        figures.append(1000 * cpu / done)
        rates.append(done / wall)
        bytes_per.append((nats.bytes - bytes0) / done)
        commits_per.append((store.commits - commits0) / done)
    if profiler is not None:
        profiler.dump_stats(args.profile)
    churn = await gateway_dies(hub, bus, send, args.gateway_dies, players + args.watchers)
    await hub.stop()
    store.close()
    shutil.rmtree(folder, ignore_errors=True)
    return {
        "tables": args.tables,
        "players": players,
        "watchers": args.watchers,
        "actions_per_repeat": args.actions,
        "rate_asked": args.rate,
        "hub_cpu_ms_per_action": round(statistics.median(figures), 4),
        "repeats_ms_per_action": [round(f, 4) for f in figures],
        "actions_per_s": round(statistics.median(rates), 1),
        "published_bytes_per_action": round(statistics.median(bytes_per), 1),
        "commits_per_action": round(statistics.median(commits_per), 3),
        **churn,
    }


async def gateway_dies(hub: Any, bus: Any, send: Any, n: int, last_sid: int) -> dict[str, Any]:
    """``n`` seated players' sessions end at once (their gateway died), then they come back
    through another (a new session each, with the same identity): the hub's CPU per player
    for each, with every table still open."""
    if n <= 0:
        return {}
    sids = range(1, n + 1)
    hub.config.bot_delay = 3600.0  # (no stand-in moves for them meanwhile: only the hub's own work)
    cpu0 = time.process_time()
    await send([[wire.END, sid, b""] for sid in sids])
    await settle(hub, bus)
    cpu1 = time.process_time()
    info = wire.pack({"peer": "bench", "address": None, "token": TOKEN})
    events: list[list[Any]] = []
    for sid in sids:
        hello = {"t": "hello", "v": PROTOCOL_VERSION, "identity": f"bench:{sid}", "name": f"B{sid}"}
        events += [[wire.OPEN, last_sid + sid, info], [wire.FRAMES, last_sid + sid, encode(hello)]]
    await send(events)
    await settle(hub, bus)
    cpu2 = time.process_time()
    back = sum(1 for sid in sids if f"bench:{sid}" in hub.players)
    assert back == n, f"{back} of {n} players came back"
    return {
        "gateway_dies_players": n,
        "drop_ms_per_player": round(1000 * (cpu1 - cpu0) / n, 4),
        "return_ms_per_player": round(1000 * (cpu2 - cpu1) / n, 4),
    }


def instructions(args: argparse.Namespace) -> dict[str, Any]:
    """The same run under callgrind, collection on only while playing."""
    argv = [a for a in sys.argv[1:] if a != "--instructions"]
    env = {**os.environ, "HUB_ACTIONS_CALLGRIND": "1", "PYTHONMALLOC": "malloc"}
    result, total = counted(__file__, argv, env)
    result["instructions_per_action"] = round(total / (args.actions * args.repeats))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=400)
    parser.add_argument("--actions", type=int, default=4000, help="actions per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rate", type=float, default=2000.0, help="actions asked per second")
    parser.add_argument("--watchers", type=int, default=None, help="default: players / 10")
    parser.add_argument(
        "--gateway-dies",
        type=int,
        default=0,
        help="after the play, this many seated players drop at once and come back",
    )
    parser.add_argument("--profile", help="write a cProfile of the play to this file")
    parser.add_argument("--instructions", action="store_true", help="count under callgrind")
    parser.add_argument(
        "--gc-default", action="store_true", help="keep Python's GC policy (not hub_memory)"
    )
    parser.add_argument(
        "--lobby-interval",
        type=float,
        default=None,
        help="seconds between lobby flushes (default 0.25, as a hub; 30 under --instructions, "
        "where the hub runs some 100 times slower, so that a flush still covers hundreds of "
        "actions as it does at 2,000 a second)",
    )
    args = parser.parse_args()
    if args.lobby_interval is None:
        under = args.instructions or os.environ.get("HUB_ACTIONS_CALLGRIND")
        args.lobby_interval = 30.0 if under else 0.25
    if args.watchers is None:
        args.watchers = args.tables * SEATS // 10
    result = instructions(args) if args.instructions else asyncio.run(run(args))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
