"""Native load: M players on the ``gambit`` channel and N terminal sessions at the same tables.

    python bench/native_load.py --native 100 --terminal 20 [--workers W] [--duration 20]
                                [--stagger 30] [--ramp 20] [--mixed-only]

Not a timed test. Native players are light protocol clients in this process (no Textual, as
``bench/hub_load.py``'s are): an asyncssh guest login, the ``gambit`` channel, a hello, and a
``result_read`` 0.5-2 s after each deal's result, as the app sends when its player closes it,
and no more lobby updates once seated (``lobby_watch``, as the app under a table's screen).
Terminal players are ``bench/ssh_load.py``'s clients: 80x24 PTY sessions through the welcome
screen, closing each result with Enter. The server (``gambit serve``'s store, hub, SSH host
and app workers) runs in a child process; it seats everyone at tables of five (``load…``
names, so the two kinds sit together), starts the tables over ``--stagger`` seconds and acts
for one pending seat about once a second per table, as ssh_load.py does.

Three runs of a fresh server: natives alone, terminals alone (each: the server's CPU per
player), then both together (the latencies and bytes). Prints, as its last line, one JSON
object:

* ``native_players``, ``terminal_players``: M and N.
* ``native_cpu_ms_per_s``, ``terminal_cpu_ms_per_s``: the server's CPU (SSH process and
  app workers) per player, in ms per second, over the measured window of the run with that
  kind alone; ``native_cpu_share``: the first over the second.
* ``native_bytes_per_action`` (``_z``: through a zlib stream per client, flushed per SSH
  packet, as ``ssh -C``): bytes down a native player's channel per action at their table;
  ``terminal_bytes_per_action`` (``_z``) the same for a terminal session (mixed run).
* ``native_first_paint_bytes`` (``_z``): a native player's bytes from the channel's opening
  to the lobby; ``terminal_first_paint_bytes`` (``_z``): a terminal's until its welcome screen
  is complete (medians).
* ``native_action_ms_p50/p99``: an action accepted by the hub to the hub's write of that
  table's message into every seated native player's channel whose view it changed (server
  side, as ssh_load.py times terminal frames); ``terminal_action_ms_p50/p99``: to the first
  frame every such terminal session writes after it (ssh_load.py's measure), mixed run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import ssh_load  # noqa: E402  (bench/'s own module, on the path above)
from ssh_load import cpu_seconds, percentile  # noqa: E402

#: The first bytes of a table message's frame (whole or delta): ``{"t": "table", …``.
TABLE_FRAME = b"\xa1t\xa5table"


# --- the server (child process) ------------------------------------------------------------


class NativeProbe(ssh_load.ServerProbe):
    """ssh_load.py's probe, also timing actions to the hub's writes into native channels."""

    def __init__(self, hub: Any, host: Any) -> None:
        from server.ssh.subsystem import HubChannel

        super().__init__(hub, host)
        self.channel_type = HubChannel
        self.native_open: dict[int, tuple[float, set[Any]]] = {}
        self.native_waiting: dict[Any, set[int]] = {}
        self.native_latencies: list[float] = []
        self.native_next = 0
        write = HubChannel.write
        probe = self

        def timed_write(channel: Any, data: bytes) -> None:
            write(channel, data)
            if TABLE_FRAME in data[:24]:
                probe.on_native_write(channel)

        HubChannel.write = timed_write  # type: ignore[method-assign]  # the bench's probe

    def accepted(
        self, table: Any, when: float, what: Any = None, changed: set[int] | None = None
    ) -> None:
        super().accepted(table, when, what, changed)
        if not self.window:
            return
        channels = set()
        for number, seat in enumerate(table.seats):
            if changed is not None and number not in changed:
                continue
            player = self.hub.players.get(seat.player) if seat.player else None
            for session in player.sessions if player else ():
                if isinstance(session.conn, self.channel_type):
                    channels.add(session.conn)
        if not channels:
            return
        action = self.native_next
        self.native_next += 1
        self.native_open[action] = (when, channels)
        for channel in channels:
            self.native_waiting.setdefault(channel, set()).add(action)

    def on_native_write(self, channel: Any) -> None:
        actions = self.native_waiting.pop(channel, None)
        if not actions:
            return
        now = time.perf_counter()
        for action in actions:
            accepted, left = self.native_open[action]
            left.discard(channel)
            if not left:
                del self.native_open[action]
                self.native_latencies.append((now - accepted) * 1000)

    def mark(self) -> dict[str, Any]:
        self.native_open.clear()
        self.native_waiting.clear()
        self.native_latencies.clear()
        return super().mark()

    def report(self) -> dict[str, Any]:
        wall = time.perf_counter() - self.wall_mark
        cpu = sum(
            cpu_seconds(pid) - mark for pid, mark in zip(self.cpu_pids, self.cpu_marks, strict=True)
        )
        report = super().report()
        report["cpu_seconds"] = cpu
        report["wall_seconds"] = wall
        report["native_latencies"] = self.native_latencies
        report["native_unfinished"] = len(self.native_open)
        del report["slowest_traced"], report["gc"]
        return report


async def serve_child(data_dir: Path, workers: int) -> None:
    """``gambit serve``'s parts with the probe, driven over stdin (as ssh_load.py's)."""
    from server.hub import Hub, HubConfig
    from server.ssh.host import SSHHost
    from server.ssh.keys import load_or_create_host_key
    from server.store import Store

    logging.basicConfig(filename=data_dir / "server.log", level=logging.WARNING)
    store = Store.open(data_dir)
    hub = Hub(store, HubConfig(bot_delay=1.0, turn_timer=0, between_games=2.0))
    await hub.start()
    config = ssh_load.loopback_host_config(data_dir, workers, 20_000)
    host = SSHHost(hub, config, load_or_create_host_key(data_dir))
    port = await host.start()
    probe = NativeProbe(hub, host)
    out = sys.__stdout__
    assert out is not None
    out.write(json.dumps({"port": port}) + "\n")
    out.flush()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := (await reader.readline()).decode().strip():
        if line.startswith("seat"):
            answer = probe.seat(float(line.split()[1]) if " " in line else 0.0)
        elif line == "mark":
            answer = probe.mark()
        elif line == "report":
            answer = probe.report()
        else:
            break
        out.write(json.dumps(answer) + "\n")
        out.flush()
    await host.close()
    await hub.stop()
    store.close()


class Child(ssh_load.Child):
    """This script's server process."""

    def __init__(self, data_dir: Path, workers: int) -> None:
        from server.apphost.app_worker import REPORT_UNCHANGED

        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--child", str(data_dir), str(workers)],
            env={**os.environ, REPORT_UNCHANGED: "1"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        self.port = self.read()["port"]


# --- the native clients (this process) -----------------------------------------------------


class NativeClient:
    """One player speaking the protocol on the ``gambit`` channel: counts what comes down."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.bytes = 0
        self.zbytes = 0
        self._z = zlib.compressobj()
        self.first_paint = (0, 0)
        self.ssh: Any = None
        self.conn: Any = None
        self.tables: dict[int, dict[str, Any]] = {}
        self.read_deals: set[Any] = set()
        self.lobby = asyncio.Event()
        self.reader: asyncio.Task[None] | None = None

    def counted(self, data: bytes) -> None:
        self.bytes += len(data)
        self.zbytes += len(self._z.compress(data) + self._z.flush(zlib.Z_SYNC_FLUSH))

    def reset_counts(self) -> None:
        self.bytes = self.zbytes = 0

    async def connect(self, port: int) -> None:
        import asyncssh

        from protocol.codec import MAX_SERVER_FRAME
        from protocol.messages import PROTOCOL_VERSION
        from protocol.ssh_channel import ChannelConnection

        client = self

        class Counting(ChannelConnection):
            def received(self, data: bytes) -> None:
                client.counted(data)
                super().received(data)

        class Session(asyncssh.SSHClientSession):  # type: ignore[type-arg]
            def data_received(self, data: bytes, datatype: Any) -> None:
                conn.received(data)

            def connection_lost(self, exc: Exception | None) -> None:
                conn.ended()

        self.ssh = await asyncssh.connect(
            "127.0.0.1",
            port,
            username="play",
            known_hosts=None,
            client_keys=None,
            agent_path=None,
            compression_algs=["none"],
            preferred_auth=["keyboard-interactive"],
            client_factory=ssh_load.GuestClient,
        )
        conn = Counting(max_frame=MAX_SERVER_FRAME, peer="hub")
        chan, _ = await self.ssh.create_session(Session, subsystem="gambit", encoding=None)
        conn.attach(chan)
        self.conn = conn
        self.reader = asyncio.get_running_loop().create_task(self.read())
        await conn.send({"t": "hello", "v": PROTOCOL_VERSION, "name": self.name, "lang": "en"})
        await asyncio.wait_for(self.lobby.wait(), 300)
        self.first_paint = (self.bytes, self.zbytes)

    async def read(self) -> None:
        from protocol.connection import ConnectionClosed
        from protocol.event_log import expand

        with contextlib.suppress(ConnectionClosed):
            while True:
                message = await self.conn.recv()
                if not isinstance(message, dict):
                    continue
                kind = message.get("t")
                if kind == "lobby":
                    self.lobby.set()
                elif kind == "table":
                    table = message["table"]
                    if not self.tables:
                        # As the app does once a table's screen covers the lobby.
                        self.conn.send_nowait({"t": "lobby_watch", "on": False})
                    message = expand(self.tables.get(table), message)
                    self.tables[table] = message
                    self.maybe_read_result(table, message)

    def maybe_read_result(self, table: int, message: dict[str, Any]) -> None:
        """Close a deal's result 0.5-2 s after it shows, as a player does in the app."""
        info = message.get("info") or {}
        if info.get("status") != "between":
            return
        key = (table, json.dumps(info.get("deal"), sort_keys=True, default=str))
        if key in self.read_deals:
            return
        self.read_deals.add(key)

        def send() -> None:
            with contextlib.suppress(Exception):
                self.conn.send_nowait({"t": "result_read", "table": table})

        asyncio.get_running_loop().call_later(random.uniform(0.5, 2.0), send)

    def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
        if self.ssh is not None:
            self.ssh.close()


# --- one run -----------------------------------------------------------------------------------


def names(natives: int, terminals: int) -> tuple[list[str], list[str]]:
    """``load…`` names, the terminals spread evenly among the natives (the server seats by
    name, five to a table)."""
    total = natives + terminals
    marks = {int(i * total / terminals) for i in range(terminals)} if terminals else set()
    kinds = ["t" if i in marks else "n" for i in range(total)]
    native_names = [f"load{i:05d}" for i, k in enumerate(kinds) if k == "n"]
    terminal_names = [f"load{i:05d}" for i, k in enumerate(kinds) if k == "t"]
    return native_names, terminal_names


async def one_run(args: argparse.Namespace, natives: int, terminals: int) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="gambit-native-bench-"))
    child = Child(data_dir, args.workers)
    native_names, terminal_names = names(natives, terminals)
    nclients = [NativeClient(n) for n in native_names]
    tclients = [ssh_load.Client(n, False) for n in terminal_names]
    try:
        order: list[Any] = [*nclients, *tclients]
        random.Random(7).shuffle(order)
        tasks = []
        for client in order:
            if isinstance(client, NativeClient):
                tasks.append(asyncio.create_task(client.connect(child.port)))
            else:
                tasks.append(asyncio.create_task(ssh_load.connect(client, child.port)))
            await asyncio.sleep(1 / args.ramp)
        await asyncio.gather(*tasks)
        log(f"{natives} native and {terminals} terminal players in the lobby")
        seated = await child.ask(f"seat {args.stagger}")
        log(f"seated: {seated}")
        await asyncio.sleep(args.stagger + args.settle)
        await child.ask("mark")
        for client in order:
            client.reset_counts()
        await asyncio.sleep(args.duration)
        report = await child.ask("report")
        actions = max(1, report["actions"])
        per_client = actions / max(1, seated["tables"])  # actions at each player's table
        seated_names = set(sorted(native_names + terminal_names)[: seated["seated"]])
        nseated = [c for c in nclients if c.name in seated_names]
        tseated = [c for c in tclients if c.name in seated_names]
        players = natives + terminals
        return {
            "players": players,
            "actions": report["actions"],
            "cpu_ms_per_s_per_player": 1000
            * report["cpu_seconds"]
            / report["wall_seconds"]
            / max(1, players),
            "cpu_percent": round(report["cpu_percent"], 1),
            "native_bytes_per_action": _per_action(nseated, per_client, "bytes"),
            "native_bytes_per_action_z": _per_action(nseated, per_client, "zbytes"),
            "terminal_bytes_per_action": _per_action(tseated, per_client, "bytes"),
            "terminal_bytes_per_action_z": _per_action(tseated, per_client, "zbytes"),
            "native_first_paint_bytes": _median([c.first_paint[0] for c in nclients]),
            "native_first_paint_bytes_z": _median([c.first_paint[1] for c in nclients]),
            "terminal_first_paint_bytes": _median([c.first_paint[0] for c in tclients]),
            "terminal_first_paint_bytes_z": _median([c.first_paint[1] for c in tclients]),
            "native_latencies": report["native_latencies"],
            "terminal_latencies": report["latencies"],
            "unfinished": [report["native_unfinished"], report["unfinished"]],
        }
    finally:
        for client in nclients:
            client.close()
        for terminal in tclients:
            if terminal.conn is not None:
                terminal.conn.close()
        child.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


def _per_action(clients: list[Any], actions_each: float, field: str) -> int | None:
    """Bytes each of ``clients`` received per action at its table (``actions_each``: the
    window's actions per table)."""
    if not clients:
        return None
    return round(sum(getattr(c, field) for c in clients) / len(clients) / max(1.0, actions_each))


def _median(values: list[int]) -> int | None:
    return round(statistics.median(values)) if values else None


async def run(args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {"native_players": args.native, "terminal_players": args.terminal}
    if not args.mixed_only:
        alone = await one_run(args, args.native, 0)
        log(json.dumps({k: v for k, v in alone.items() if not k.endswith("latencies")}))
        result["native_cpu_ms_per_s"] = round(alone["cpu_ms_per_s_per_player"], 2)
        alone = await one_run(args, 0, args.terminal)
        log(json.dumps({k: v for k, v in alone.items() if not k.endswith("latencies")}))
        result["terminal_cpu_ms_per_s"] = round(alone["cpu_ms_per_s_per_player"], 2)
        result["native_cpu_share"] = round(
            result["native_cpu_ms_per_s"] / max(1e-9, result["terminal_cpu_ms_per_s"]), 3
        )
    mixed = await one_run(args, args.native, args.terminal)
    log(json.dumps({k: v for k, v in mixed.items() if not k.endswith("latencies")}))
    for key in (
        "native_bytes_per_action",
        "native_bytes_per_action_z",
        "terminal_bytes_per_action",
        "terminal_bytes_per_action_z",
        "native_first_paint_bytes",
        "native_first_paint_bytes_z",
        "terminal_first_paint_bytes",
        "terminal_first_paint_bytes_z",
    ):
        result[key] = mixed[key]
    for kind in ("native", "terminal"):
        result[f"{kind}_action_ms_p50"] = percentile(mixed[f"{kind}_latencies"], 50)
        result[f"{kind}_action_ms_p99"] = percentile(mixed[f"{kind}_latencies"], 99)
    result["mixed_cpu_percent"] = mixed["cpu_percent"]
    return result


def log(text: str) -> None:
    print(text, flush=True)


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        from server.ssh.serve import use_app_fps

        use_app_fps()  # as gambit serve does
        asyncio.run(serve_child(Path(sys.argv[2]), int(sys.argv[3])))
        return
    from server.ssh.serve import default_workers

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--native", type=int, default=100, help="native players (M)")
    parser.add_argument("--terminal", type=int, default=20, help="terminal players (N)")
    parser.add_argument(
        "--workers", type=int, default=default_workers(), help="app workers (gambit serve's)"
    )
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds")
    parser.add_argument("--ramp", type=float, default=20.0, help="new connections per second")
    parser.add_argument("--stagger", type=float, default=30.0, help="tables start over this")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds after the last start")
    parser.add_argument(
        "--mixed-only", action="store_true", help="only the run with both kinds (no CPU split)"
    )
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args))))


if __name__ == "__main__":
    main()
