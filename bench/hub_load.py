"""Hub load through NATS: synthetic protocol clients (no Textual, no SSH) at tables of five.

    python bench/hub_load.py [--players 250] [--seconds 30] [--warmup S] [--client-procs 2]
                             [--watchers N] [--bus nats://…] [--profile FILE [--profile-ramp]]
                             [--gc-young N] [--bus-slice S] [--trace-loop FILE]

Not a timed test. Starts a NATS server (unless ``--bus`` names one) and a hub on it in a
process of its own (``--hub-role``: a ``gambit hub --bus`` with instrumentation), then
``--players`` seated clients (and ``--watchers`` more in the lobby, a tenth by default)
spread over ``--client-procs`` client processes (``--client-role``). Each client process is
one lean gateway on the bus: it speaks ``server/bus/wire.py`` itself (with the shared token:
the clients' keys are trusted), keeps a few fields per session, reads a frame's type from its
bytes and decodes only table views (a lobby is counted, not decoded), so that the hub, not
the clients, is what is measured. Every fifth client opens a Prophet's Gambit table for five
(whole tables per process); the others join; each plays like a bot that thinks 0.5–1.5 s per
decision (the first legal action of its latest view) and stays at its table game after
game. Sessions arrive 100 a tenth of a second per process. After ``--warmup`` seconds the
hub measures for ``--seconds``. The warmup must cover the arrival and the storm of every
table's first deals starting at once, which is not the steady play measured: at 10,000
players the per-second p99 settled about 25 s after the last arrival (5.6 s), so the default
is a second per 250 players (at least 10 s).

Prints, as its last line, one JSON object: ``players`` (seated and watching), ``tables``,
``hub_cpu_percent`` (of one core, the hub process), ``action_to_published_ms_p50``/``_p99``
(hub side: a client's action taken from the bus → every message of the burst it caused
handed to NATS), ``actions``, ``client_actions_per_s`` (against
``tables_expected_actions_per_s``, one a second per table: below it, the clients or the hub
fall behind), ``client_cpu_percent`` (all client processes together, of one core: they share
the machine's cores with the hub), ``nats_cpu_percent`` (the NATS server started here),
``machine_busy_percent`` (all processes, of one core: 200 is two cores full),
``lobby_bytes_per_player_per_s`` (lobby and lobby_update frames the clients received),
``store_commit_ms_p99`` (the hub's commits, SQLite) and ``store_commit_ms_per_s`` (the loop's
time in them, each second: mostly waiting for the disk), ``gc_pauses`` and
``gc_pause_ms_p99``/``_max`` (the hub's garbage collections while measuring, and how long
each stopped its loop), ``loop_lag_ms_p99``/``_max`` (how late a 10 ms timer fired: whatever
held the loop), ``machine_cores`` and ``loadavg_1m_at_end``; and per action measured,
``gc_ms_per_action`` (collecting), the hub's ``hub_cpu_ms_per_action``,
``commits_per_action``, ``publishes_per_action`` (NATS messages the hub sent) and
``bus_messages_in_per_action`` (messages from the gateways).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
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

import msgpack  # noqa: E402

from protocol.codec import HEADER, encode  # noqa: E402
from protocol.event_log import expand  # noqa: E402
from protocol.messages import PROTOCOL_VERSION  # noqa: E402
from server.bus import wire  # noqa: E402

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
    from server.hub.main import hub_memory
    from server.store import Store

    tracer = None
    if args.trace_loop:
        from loop_trace import LoopTrace

        tracer = LoopTrace()
        tracer.install()
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
    if args.gc_young is not None:
        import server.hub.main

        server.hub.main.HUB_YOUNG_GENERATION = args.gc_young
    if args.bus_slice is not None:
        import server.hub.bus

        server.hub.bus.SLICE = args.bus_slice if args.bus_slice > 0 else float("inf")
    hub_memory(hub)  # as `gambit hub` does
    bus = HubBus(hub, args.bus, TOKEN)
    received = 0  # messages from the gateways
    on_message = bus._on_message

    async def counted_on_message(msg: Any) -> None:
        nonlocal received
        received += 1
        await on_message(msg)

    bus._on_message = counted_on_message  # type: ignore[method-assign]  # counted or timed
    await bus.start()

    measuring = False
    accepted: list[float] = []  # actions taken since the last flush to the bus
    latencies: list[float] = []
    commits: list[float] = []
    pauses: list[float] = []  # the garbage collector's, while measuring
    lags: list[float] = []  # how late a 10 ms timer fired: everything the loop was stuck on
    gc_started = 0.0

    def gc_timed(phase: str, info: dict[str, int]) -> None:
        nonlocal gc_started
        if phase == "start":
            gc_started = time.perf_counter()
        elif measuring:
            pauses.append(time.perf_counter() - gc_started)

    gc.callbacks.insert(0, gc_timed)  # (first: the policy's own callback is in the pause)

    async def lag_probe() -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            if measuring:
                lags.append(time.perf_counter() - before - 0.01)

    probe = asyncio.get_running_loop().create_task(lag_probe())

    handle = hub.handle

    def timed_handle(session: Any, message: Any) -> None:
        if measuring and isinstance(message, dict) and message.get("t") == "act":
            accepted.append(time.perf_counter())
        handle(session, message)

    hub.handle = timed_handle  # type: ignore[method-assign]  # counted or timed
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

    store.commit_held = timed_commit  # type: ignore[method-assign]  # counted or timed
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    if args.profile and args.profile_ramp:
        profiler.enable()  # the players' arrival too
    publishes = 0
    publish = bus.nc.publish

    async def counted_publish(subject: str, payload: bytes) -> None:
        nonlocal publishes
        publishes += 1
        await publish(subject, payload)

    bus._sender._publish = counted_publish  # type: ignore[union-attr]  # connected by now
    print("hub ready", flush=True)
    await asyncio.sleep(args.warmup)
    measuring = True
    if tracer is not None:
        tracer.on = True
    if profiler is not None:
        profiler.enable()
    cpu0, wall0 = cpu_seconds(os.getpid()), time.monotonic()
    commits0, publishes0, received0 = store.commits, publishes, received
    await asyncio.sleep(args.seconds)
    cpu1, wall1 = cpu_seconds(os.getpid()), time.monotonic()
    measuring = False
    if tracer is not None:
        tracer.on = False
        Path(args.trace_loop).write_text(json.dumps(tracer.report(), indent=1))
    n = max(1, len(latencies))
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    result = {
        "hub_cpu_percent": round(100 * (cpu1 - cpu0) / (wall1 - wall0), 1),
        "actions": len(latencies),
        "action_to_published_ms_p50": round(1000 * (percentile(latencies, 0.5) or 0), 2),
        "action_to_published_ms_p99": round(1000 * (percentile(latencies, 0.99) or 0), 2),
        "store_commit_ms_p99": round(1000 * (percentile(commits, 0.99) or 0), 2),
        "store_commit_ms_per_s": round(1000 * sum(commits) / (wall1 - wall0), 1),
        "gc_pauses": len(pauses),
        "gc_pause_ms_p99": round(1000 * (percentile(pauses, 0.99) or 0), 1),
        "gc_pause_ms_max": round(1000 * max(pauses, default=0), 1),
        "gc_ms_per_action": round(1000 * sum(pauses) / n, 4),
        "loop_lag_ms_p99": round(1000 * (percentile(lags, 0.99) or 0), 1),
        "loop_lag_ms_max": round(1000 * max(lags, default=0), 1),
        "hub_cpu_ms_per_action": round(1000 * (cpu1 - cpu0) / n, 3),
        "commits_per_action": round((store.commits - commits0) / n, 3),
        "publishes_per_action": round((publishes - publishes0) / n, 3),
        "bus_messages_in_per_action": round((received - received0) / n, 3),
        "tables": len(hub.tables),
    }
    print("HUB " + json.dumps(result), flush=True)
    probe.cancel()
    await bus.stop()
    await hub.stop()
    store.close()


# --- the clients: lean fake gateways, one per process ---------------------------------------


class LeanGateway:
    """One client process: a gateway of its own on the bus (speaking ``server/bus/wire.py``
    directly, no ``RemoteHub``, no connection objects) with many sessions behind it. Each
    session is a few fields: it decodes a frame only to read its type and, for a table view,
    what it needs to answer its own asks with the first legal action after 0.5–1.5 s."""

    def __init__(self, nc: Any, args: argparse.Namespace) -> None:
        self.nc = nc
        self.args = args
        self.gateway = f"bench{args.client_index}x{random.randrange(1 << 30):x}"
        self.loop = asyncio.get_running_loop()
        self.events: list[list[Any]] = []
        self.scheduled = False
        self.sessions: dict[int, Session] = {}
        self.counting = False
        self.lobby_bytes = 0
        self.watcher_bytes = 0
        self.acts = 0
        self.seated = 0
        self.welcomed = 0
        self.errors: dict[str, int] = {}
        self.hub_heard = asyncio.Event()
        self.sender = wire.Sender(nc.publish)  # one task publishes, in order

    def event(self, kind: int, session: int, data: bytes) -> None:
        self.events.append([kind, session, data])
        if not self.scheduled:
            self.scheduled = True
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        self.scheduled = False
        events, self.events = self.events, []
        self.sender.send(wire.HUB_SUBJECT, wire.pack([self.gateway, events]))

    def send(self, session: int, message: dict[str, Any]) -> None:
        self.event(wire.FRAMES, session, encode(message))

    def open(self, sid: int, session: Session) -> None:
        self.sessions[sid] = session
        info = {"peer": f"bench {session.index}", "address": None, "token": TOKEN}
        self.event(wire.OPEN, sid, wire.pack(info))
        index = session.index
        self.send(
            sid,
            {
                "t": "hello",
                "v": PROTOCOL_VERSION,
                "identity": f"bench:{index}",
                "name": f"B{index:05}",  # (names arrive in their order)
            },
        )

    async def on_message(self, msg: Any) -> None:
        if msg.subject.endswith(".all"):
            for sid, data in wire.unpack(msg.data):
                if data:
                    self.feed(sid, data)
        elif msg.data:
            self.feed(int(msg.subject.rsplit(".", 1)[1]), msg.data)

    def feed(self, sid: int, data: bytes) -> None:
        session = self.sessions.get(sid)
        if session is None:
            return
        if session.buf:
            session.buf += data
            data = bytes(session.buf)
            session.buf = bytearray()
        at, end = 0, len(data)
        while end - at >= 4:
            (length,) = HEADER.unpack_from(data, at)
            if end - at - 4 < length:
                break
            body = data[at + 4 : at + 4 + length]
            at += 4 + length
            self.message(sid, session, body)
        if at < end:
            session.buf += data[at:]

    def message(self, sid: int, session: Session, body: bytes) -> None:
        # Every message the hub sends starts with its "t": read the type from the bytes, and
        # decode only what a client must answer (a lobby is counted, never decoded).
        if body[1:3] == b"\xa1t" and 0xA0 <= body[3] <= 0xBF:
            kind = body[4 : 4 + body[3] - 0xA0].decode()
            message = None if kind in ("lobby", "lobby_update", "chat") else unpack(body)
        else:
            message = unpack(body)
            kind = message["t"]
        if kind == "table":
            # Views come as deltas of the last one (protocol 2): made whole, as an app does.
            message = session.last = expand(session.last, message)
            session.table_message(self, sid, message)
        elif kind in ("lobby", "lobby_update"):
            if self.counting:
                self.lobby_bytes += len(body) + 4
                if session.seat is None:
                    self.watcher_bytes += len(body) + 4
        elif kind == "welcome":
            self.welcomed += 1
            session.welcomed(self, sid)
        elif kind == "error":
            assert message is not None
            code = str(message.get("code", "?"))
            self.errors[code] = self.errors.get(code, 0) + 1
            if os.environ.get("HL_DEBUG"):
                print(sid, message, file=sys.stderr)


def unpack(body: bytes) -> Any:
    return msgpack.unpackb(body, raw=False, strict_map_key=False)


class Session:
    __slots__ = (
        "buf",
        "group",
        "index",
        "last",
        "legal",
        "peers",
        "pending",
        "seat",
        "seen",
        "started",
        "table",
    )

    def __init__(self, index: int, seat: int | None, group: int | None) -> None:
        self.index = index
        self.seat = seat  # None: a lobby watcher
        self.group = group
        self.buf = bytearray()
        self.last: dict[str, Any] | None = None  # the last whole table message
        self.table: int | None = None
        self.legal: Any = None
        self.pending = False
        self.started = False
        self.peers: list[tuple[int, Session]] = []  # seat 0: the joiners waiting for its table
        self.seen = False

    def welcomed(self, gw: LeanGateway, sid: int) -> None:
        if self.seat is None:
            return
        if self.seat == 0 and self.table is None:
            gw.send(sid, {"t": "create_table", "game": "prophets_gambit", "players": SEATS})
        if self.table is not None or self.seat == 0:
            gw.send(sid, {"t": "lobby_watch", "on": False})  # at (or opening) a table

    def table_message(self, gw: LeanGateway, sid: int, message: dict[str, Any]) -> None:
        table = message["table"]
        if self.table is None:
            self.table = table
            if self.seat == 0:
                for peer_sid, peer in self.peers:
                    peer.table = table
                    gw.send(peer_sid, {"t": "join", "table": table})
                    gw.send(peer_sid, {"t": "lobby_watch", "on": False})
        if not self.seen and message.get("seat") is not None:
            self.seen = True
            gw.seated += 1
        if self.seat == 0 and not self.started:
            seats = (message.get("info") or {}).get("seats") or ()
            if seats and all(s.get("name") for s in seats):
                self.started = True
                gw.send(sid, {"t": "start", "table": table})
        view = message.get("view") or {}
        # Acts on the latest view when its thinking is done, not on the one that made it
        # think: views sent before its last action was taken still show its ask.
        self.legal = view.get("legal")
        if self.legal and not self.pending:
            self.pending = True
            gw.loop.call_later(random.uniform(0.5, 1.5), self.act, gw, sid, table)

    def act(self, gw: LeanGateway, sid: int, table: int) -> None:
        self.pending = False
        if self.legal:
            gw.send(sid, {"t": "act", "table": table, "action": self.legal[0]})
            gw.acts += 1
            self.legal = None  # (until the next view)


async def client_role(args: argparse.Namespace) -> None:
    """One client process: its share of the tables (whole tables) and of the watchers."""
    import nats

    nc = await nats.connect(
        args.bus,
        name=f"hub_load client {args.client_index}",
        pending_size=256 * 1024 * 1024,
        flush_timeout=5,
    )
    gw = LeanGateway(nc, args)
    await nc.subscribe(wire.gateway_wildcard(gw.gateway), cb=gw.on_message)

    async def hub_alive(msg: Any) -> None:
        gw.hub_heard.set()

    await nc.subscribe(wire.HUB_ALIVE_SUBJECT, cb=hub_alive)
    await nc.flush()
    await gw.hub_heard.wait()
    start = time.monotonic()

    async def heartbeat() -> None:
        while True:
            gw.event(wire.ALIVE, 0, wire.pack({"sessions": list(gw.sessions)}))
            await asyncio.sleep(wire.HEARTBEAT)

    beat = gw.loop.create_task(heartbeat())
    procs, me = args.client_procs, args.client_index
    mine: list[Session] = []
    for group in range(me, args.players // SEATS, procs):
        host = Session(group * SEATS, 0, group)
        mine.append(host)
        for seat in range(1, SEATS):
            joiner = Session(group * SEATS + seat, seat, group)
            mine.append(joiner)
    mine += [Session(args.players + w, None, None) for w in range(me, args.watchers, procs)]
    hosts = {s.group: s for s in mine if s.seat == 0}
    for sid, session in enumerate(mine, 1):  # a ramp: so many sessions a tenth of a second
        gw.open(sid, session)
        if session.seat:
            host = hosts[session.group]
            if host.table is None:
                host.peers.append((sid, session))  # joins once its host has opened the table
            else:
                session.table = host.table
                gw.send(sid, {"t": "join", "table": host.table})
                gw.send(sid, {"t": "lobby_watch", "on": False})
        if sid % args.ramp == 0:
            await asyncio.sleep(0.1)
    ramped = time.monotonic() - start
    await asyncio.sleep(max(0.0, args.warmup - ramped))
    gw.counting = True
    acts0, cpu0, wall0 = gw.acts, cpu_seconds(os.getpid()), time.monotonic()
    await asyncio.sleep(args.seconds)
    cpu1, wall1 = cpu_seconds(os.getpid()), time.monotonic()
    gw.counting = False
    beat.cancel()
    result = {
        "sessions": len(mine),
        "seated": gw.seated,
        "welcomed": gw.welcomed,
        "no_table": sum(1 for x in mine if x.seat is not None and x.table is None),
        "unseen": sum(1 for x in mine if x.seat is not None and x.table and not x.seen),
        "ramp_s": round(ramped, 1),
        "acts": gw.acts - acts0,
        "cpu_percent": round(100 * (cpu1 - cpu0) / (wall1 - wall0), 1),
        "lobby_bytes": gw.lobby_bytes,
        "watcher_bytes": gw.watcher_bytes,
        "errors": gw.errors,
        "seconds": wall1 - wall0,
    }
    print("CLIENT " + json.dumps(result), flush=True)
    await nc.close()


def _machine_ticks() -> tuple[int, int]:
    """All CPU ticks of the machine so far, and the idle ones (``/proc/stat``)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields), fields[3] + fields[4]


async def _window_opens(warmup: float, nats: Any) -> tuple[int, int, float, float]:
    """The machine's ticks, the NATS server's CPU and the time when the hub's window opens
    (``warmup`` after the clients start): see :func:`_busy`."""
    await asyncio.sleep(warmup)
    return (*_machine_ticks(), cpu_seconds(nats.pid) if nats is not None else 0.0, time.monotonic())


def _busy(opened: tuple[int, int, float, float], nats: Any) -> dict[str, Any]:
    """How busy the machine and the NATS server were while the hub measured (from about when
    its window opened until it closed): on two cores the hub shares them with the clients
    and NATS, and a machine kept busy holds every one of them up."""
    total0, idle0, nats0, wall0 = opened
    total1, idle1 = _machine_ticks()
    busy = 1 - (idle1 - idle0) / max(1, total1 - total0)
    out: dict[str, Any] = {"machine_busy_percent": round(100 * busy * (os.cpu_count() or 1), 1)}
    if nats is not None:
        out["nats_cpu_percent"] = round(
            100 * (cpu_seconds(nats.pid) - nats0) / (time.monotonic() - wall0), 1
        )
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="hub_load-"))
    procs: list[subprocess.Popen[Any]] = []
    bus = args.bus
    common = ["--warmup", str(args.warmup), "--seconds", str(args.seconds)]
    try:
        if bus is None:
            from tests.cluster.harness import NatsServer

            nats_server = NatsServer(folder)
            procs.append(nats_server.proc)  # type: ignore[arg-type]  # started by now: not None
            bus = nats_server.url
        hub_cmd = [sys.executable, __file__, "--hub-role", "--bus", bus]
        hub_cmd += ["--data-dir", str(folder / "hub"), *common]
        if args.gc_young is not None:
            hub_cmd += ["--gc-young", str(args.gc_young)]
        if args.bus_slice is not None:
            hub_cmd += ["--bus-slice", str(args.bus_slice)]
        if args.trace_loop:
            hub_cmd += ["--trace-loop", args.trace_loop]
        if args.profile:
            hub_cmd += ["--profile", args.profile] + ["--profile-ramp"] * args.profile_ramp
        hub = subprocess.Popen(hub_cmd, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        procs.append(hub)
        assert hub.stdout is not None
        assert hub.stdout.readline().strip() == "hub ready"
        clients = []
        for index in range(args.client_procs):
            cmd = [sys.executable, __file__, "--client-role", "--bus", bus, *common]
            cmd += ["--players", str(args.players), "--watchers", str(args.watchers)]
            cmd += ["--client-procs", str(args.client_procs), "--client-index", str(index)]
            cmd += ["--ramp", str(args.ramp)]
            clients.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, cwd=ROOT))
        procs += clients
        nats = nats_server.proc if args.bus is None else None
        window = asyncio.get_running_loop().create_task(_window_opens(args.warmup, nats))
        line = await asyncio.to_thread(hub.stdout.readline)
        busy = _busy(await window, nats)
        hub_result = json.loads(line.removeprefix("HUB "))
        parts = []
        for proc in clients:
            assert proc.stdout is not None
            out = await asyncio.to_thread(proc.stdout.read)
            found = [x for x in out.splitlines() if x.startswith("CLIENT ")]
            parts.append(json.loads(found[-1].removeprefix("CLIENT ")) if found else {})
        everyone = args.players + args.watchers
        elapsed = max((p.get("seconds", 0) for p in parts), default=args.seconds) or 1
        lobby = sum(p.get("lobby_bytes", 0) for p in parts)
        watcher = sum(p.get("watcher_bytes", 0) for p in parts)
        errors: dict[str, int] = {}
        for part in parts:
            for code, n in part.get("errors", {}).items():
                errors[code] = errors.get(code, 0) + n
        acts = sum(p.get("acts", 0) for p in parts)
        return {
            "players": everyone,
            "seated": args.players,
            "lobby_watchers": args.watchers,
            **hub_result,
            "lobby_bytes_per_player_per_s": round(lobby / everyone / elapsed, 1),
            "lobby_bytes_per_watcher_per_s": round(watcher / max(1, args.watchers) / elapsed, 1),
            "errors": errors,
            "client_procs": args.client_procs,
            "clients_seated": sum(p.get("seated", 0) for p in parts),
            "clients_welcomed": sum(p.get("welcomed", 0) for p in parts),
            "client_actions_per_s": round(acts / elapsed, 1),
            "tables_expected_actions_per_s": args.players // SEATS,
            "client_cpu_percent": round(sum(p.get("cpu_percent", 0) for p in parts), 1),
            **busy,
            "client_ramp_s": max((p.get("ramp_s", 0) for p in parts), default=0),
            "machine_cores": os.cpu_count(),
            "loadavg_1m_at_end": round(os.getloadavg()[0], 2),
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
    parser.add_argument("--warmup", type=float, default=None, help="default: players / 250 s")
    parser.add_argument(
        "--client-procs",
        type=int,
        default=2,
        help="client processes, each one lean gateway on the bus with its share of the tables",
    )
    parser.add_argument("--ramp", type=int, default=100, help=argparse.SUPPRESS)
    parser.add_argument("--profile", help="cProfile the hub while it measures, into this file")
    parser.add_argument(
        "--profile-ramp", action="store_true", help="profile the arrival (warmup) too"
    )
    parser.add_argument(
        "--watchers",
        type=int,
        default=None,
        help="players in the lobby, at no table (default: a tenth of --players)",
    )
    parser.add_argument("--bus", help="a running NATS server (default: start one)")
    parser.add_argument(
        "--bus-slice",
        type=float,
        help="seconds of a burst from the bus the hub handles at a time (0: a burst whole)",
    )
    parser.add_argument(
        "--gc-young",
        type=int,
        help="the hub's young-generation threshold (default: the hub's, 0: none)",
    )
    parser.add_argument(
        "--trace-loop",
        help="write the hub loop's busiest iterations, and what ran in them, to this JSON file",
    )
    parser.add_argument("--hub-role", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", help=argparse.SUPPRESS)
    parser.add_argument("--client-role", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--client-index", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hub_role:
        asyncio.run(hub_role(args))
        return
    if args.client_role:
        asyncio.run(client_role(args))
        return
    args.players -= args.players % SEATS
    if args.warmup is None:
        args.warmup = max(10.0, args.players / 250)
    if args.watchers is None:
        args.watchers = args.players // 10
    result = asyncio.run(run(args))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
