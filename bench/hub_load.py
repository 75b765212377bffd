"""Hub load through NATS: synthetic protocol clients (no Textual, no SSH) at tables of five.

    python bench/hub_load.py [--players 250] [--seconds 30] [--warmup 10] [--gateways 4]
                             [--bus nats://…]

Not a timed test. Starts a NATS server (unless ``--bus`` names one) and a hub on it in a
process of its own (``--hub-role``: a ``gambit hub --bus`` with instrumentation), then
``--players`` seated clients (and ``--watchers`` more in the lobby) spread over
``--gateways`` in-process gateways (``RemoteHub``, as
``gambit gateway`` uses, with the shared token: the clients' keys are trusted). Every fifth
client opens a Prophet's Gambit table for five; the others join; each plays like a bot that
thinks 0.5–1.5 s per decision (about one action a second per table) and stays at its table
game after game. After ``--warmup`` seconds the hub measures for ``--seconds``.

Prints, as its last line, one JSON object: ``players`` (seated and watching), ``tables``,
``hub_cpu_percent`` (of one core, the hub process), ``action_to_published_ms_p50``/``_p99``
(hub side: a client's action taken from the bus → every message of the burst it caused
handed to NATS), ``actions``,
``lobby_bytes_per_player_per_s`` (lobby and lobby_update frames the clients received),
``store_commit_ms_p99`` (the hub's commits, SQLite), and ``machine_cores``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from protocol.codec import MAX_SERVER_FRAME, FrameDecoder, encode  # noqa: E402
from protocol.connection import queue_pair  # noqa: E402
from protocol.event_log import expand  # noqa: E402
from protocol.messages import PROTOCOL_VERSION  # noqa: E402

TOKEN = "hub-load-bench"
SEATS = 5


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- the hub, in a process of its own ---------------------------------------------------------


async def hub_role(args: argparse.Namespace) -> None:
    from server.hub import Hub, HubConfig
    from server.hub.bus import HubBus
    from server.store import Store

    store = Store.open(Path(args.data_dir))
    config = HubConfig(
        bot_delay=0.5,
        between_games=1.0,
        turn_timer=0.0,
        bot_workers=0,
        bot_think_ms=5.0,
        hello_timeout=60.0,
        tables_burst=1_000_000,
        tables_per_player=1_000,
        max_tables=100_000,
        messages_burst=1_000,
        seat_changes_burst=1_000,
    )
    hub = Hub(store, config)
    await hub.start()
    bus = HubBus(hub, args.bus, TOKEN)
    await bus.start()

    measuring = False
    accepted: list[float] = []  # actions taken since the last flush to the bus
    latencies: list[float] = []
    commits: list[float] = []

    handle = hub.handle

    def timed_handle(session: Any, message: Any) -> None:
        if measuring and isinstance(message, dict) and message.get("t") == "act":
            accepted.append(time.perf_counter())
        handle(session, message)

    hub.handle = timed_handle  # type: ignore[method-assign]
    flush = bus._flush

    def timed_flush(items: Any) -> None:
        flush(items)
        if accepted and bus._sender is not None:
            marks = accepted[:]
            accepted.clear()
            asyncio.get_running_loop().create_task(published(marks))

    async def published(marks: list[float]) -> None:
        assert bus._sender is not None
        await bus._sender.flushed()
        now = time.perf_counter()
        latencies.extend(now - t for t in marks)

    bus._out._flush = timed_flush  # the coalescer holds the bound method
    commit_held = store.commit_held

    def timed_commit() -> Any:
        start = time.perf_counter()
        try:
            return commit_held()
        finally:
            if measuring:
                commits.append(time.perf_counter() - start)

    store.commit_held = timed_commit  # type: ignore[method-assign]
    print("hub ready", flush=True)
    await asyncio.sleep(args.warmup)
    measuring = True
    cpu0, wall0 = cpu_seconds(os.getpid()), time.monotonic()
    await asyncio.sleep(args.seconds)
    cpu1, wall1 = cpu_seconds(os.getpid()), time.monotonic()
    measuring = False
    result = {
        "hub_cpu_percent": round(100 * (cpu1 - cpu0) / (wall1 - wall0), 1),
        "actions": len(latencies),
        "action_to_published_ms_p50": round(1000 * (percentile(latencies, 0.5) or 0), 2),
        "action_to_published_ms_p99": round(1000 * (percentile(latencies, 0.99) or 0), 2),
        "store_commit_ms_p99": round(1000 * (percentile(commits, 0.99) or 0), 2),
        "tables": len(hub.tables),
    }
    print("HUB " + json.dumps(result), flush=True)
    await bus.stop()
    await hub.stop()
    store.close()


# --- the clients --------------------------------------------------------------------------------


class Bench:
    def __init__(self, players: int) -> None:
        self.players = players
        self.tables: dict[int, asyncio.Future[int]] = {}
        self.lobby_bytes = 0
        self.counting = False
        self.errors: dict[str, int] = {}
        self.acts = 0
        self.watcher_bytes = 0
        self.kinds: dict[str, int] = {}
        self.thinking: set[asyncio.Task[None]] = set()


async def watcher(bench: Bench, gateway: Any, index: int) -> None:
    """A player in the lobby, not at a table: gets every lobby update."""
    client_end, hub_end = queue_pair(trusted=True, peer=f"bench {index}")
    gateway.spawn(gateway.serve(hub_end))
    decoder = FrameDecoder(MAX_SERVER_FRAME)
    client_end.send_nowait(
        {"t": "hello", "v": PROTOCOL_VERSION, "identity": f"bench:{index}", "name": f"B{index}"}
    )
    while data := await client_end.read_bytes():
        for message in decoder.feed(data):
            lobby = isinstance(message, dict) and message["t"] in ("lobby", "lobby_update")
            if bench.counting and lobby:
                size = len(encode(message))  # type: ignore[arg-type]
                bench.lobby_bytes += size
                bench.watcher_bytes += size


async def client(bench: Bench, gateway: Any, index: int) -> None:
    client_end, hub_end = queue_pair(trusted=True, peer=f"bench {index}")
    gateway.spawn(gateway.serve(hub_end))
    group, seat = divmod(index, SEATS)
    decoder = FrameDecoder(MAX_SERVER_FRAME)
    views: dict[int, dict[str, Any]] = {}
    pending: set[int] = set()
    loop = asyncio.get_running_loop()

    def send(message: dict[str, Any]) -> None:
        client_end.send_nowait(message)

    async def act_later(table: int, action: Any, step: Any) -> None:
        await asyncio.sleep(random.uniform(0.5, 1.5))
        view = views.get(table, {}).get("view") or {}
        if view.get("legal") and view.get("step") == step:
            send({"t": "act", "table": table, "action": action})
            bench.acts += 1
        pending.discard(table)

    send({"t": "hello", "v": PROTOCOL_VERSION, "identity": f"bench:{index}", "name": f"B{index}"})
    table_id: int | None = None
    started = False
    while True:
        data = await client_end.read_bytes()
        if not data:
            return
        for message in decoder.feed(data):
            if not isinstance(message, dict):
                continue
            kind = message["t"]
            bench.kinds[kind] = bench.kinds.get(kind, 0) + 1
            if kind in ("lobby", "lobby_update"):
                if bench.counting:
                    bench.lobby_bytes += len(encode(message))
            elif kind == "welcome":
                if table_id is not None:
                    continue  # welcomed again (its session moved): still at its table
                if seat == 0:
                    send({"t": "create_table", "game": "prophets_gambit", "players": SEATS})
                else:
                    table_id = await bench.tables.setdefault(group, loop.create_future())
                    send({"t": "join", "table": table_id})
            elif kind == "table":
                table = message["table"]
                message = expand(views.get(table), message)
                views[table] = message
                if seat == 0 and table_id is None:
                    table_id = table
                    bench.tables.setdefault(group, loop.create_future()).set_result(table)
                    send({"t": "lobby_watch", "on": False})  # at the table, as the app
                info = message.get("info") or {}
                seats = info.get("seats") or []
                if seat == 0 and not started and seats and all(s.get("name") for s in seats):
                    started = True
                    send({"t": "start", "table": table})
                view = message.get("view") or {}
                if view.get("legal") and table not in pending:
                    pending.add(table)
                    task = loop.create_task(act_later(table, view["legal"][0], view.get("step")))
                    bench.thinking.add(task)
                    task.add_done_callback(bench.thinking.discard)
            elif kind == "error":
                code = message.get("code", "?")
                bench.errors[code] = bench.errors.get(code, 0) + 1
                if code in ("table_full", "no_table") or (seat and table_id is None):
                    pass
            if kind == "table" and seat and message.get("seat") is not None:
                send({"t": "lobby_watch", "on": False}) if not started else None
                started = True  # seated (joiners: stop watching the lobby once)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from server.bus.gateway import RemoteHub

    folder = Path(tempfile.mkdtemp(prefix="hub_load-"))
    procs: list[subprocess.Popen[Any]] = []
    bus = args.bus
    try:
        if bus is None:
            from tests.cluster.harness import NatsServer

            nats = NatsServer(folder)
            procs.append(nats.proc)  # type: ignore[arg-type]
            bus = nats.url
        hub = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--hub-role",
                "--bus",
                bus,
                "--data-dir",
                str(folder / "hub"),
                "--warmup",
                str(args.warmup),
                "--seconds",
                str(args.seconds),
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        procs.append(hub)
        assert hub.stdout is not None
        assert hub.stdout.readline().strip() == "hub ready"
        gateways = [RemoteHub(bus, TOKEN) for _ in range(args.gateways)]
        for gateway in gateways:
            await gateway.start()
        bench = Bench(args.players)
        tasks = [
            asyncio.get_running_loop().create_task(client(bench, gateways[i % len(gateways)], i))
            for i in range(args.players)
        ]
        tasks += [
            asyncio.get_running_loop().create_task(
                watcher(bench, gateways[i % len(gateways)], args.players + i)
            )
            for i in range(args.watchers)
        ]
        await asyncio.sleep(args.warmup)
        bench.counting = True
        start = time.monotonic()
        line = await asyncio.to_thread(hub.stdout.readline)
        elapsed = time.monotonic() - start
        bench.counting = False
        hub_result = json.loads(line.removeprefix("HUB "))
        for task in tasks:
            task.cancel()
        for gateway in gateways:
            await gateway.stop()
        everyone = args.players + args.watchers
        return {
            "players": everyone,
            "seated": args.players,
            "lobby_watchers": args.watchers,
            **hub_result,
            "lobby_bytes_per_player_per_s": round(bench.lobby_bytes / everyone / elapsed, 1),
            "lobby_bytes_per_watcher_per_s": round(
                bench.watcher_bytes / max(1, args.watchers) / elapsed, 1
            ),
            "errors": bench.errors,
            "client_actions": bench.acts,
            "kinds": bench.kinds,
            "machine_cores": os.cpu_count(),
        }
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=250)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--gateways", type=int, default=4)
    parser.add_argument(
        "--watchers",
        type=int,
        default=None,
        help="players in the lobby, at no table (default: a tenth of --players)",
    )
    parser.add_argument("--bus", help="a running NATS server (default: start one)")
    parser.add_argument("--hub-role", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hub_role:
        asyncio.run(hub_role(args))
        return
    args.players -= args.players % SEATS
    if args.watchers is None:
        args.watchers = args.players // 10
    result = asyncio.run(run(args))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
