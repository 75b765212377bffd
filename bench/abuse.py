"""Abuse: each attack of issue 17 against a server with 50 seated players, who must not notice.

    python bench/abuse.py [--sessions 50] [--phase 30] [--workers W] [--phases none …]

Not a timed test. It starts the server as ``bench/ssh_load.py`` does (store, hub, SSH host and
app workers, as ``gambit serve``), but with ``gambit serve``'s default limits, and with the hub
also on a TCP listener (as ``gambit hub --tcp``) for attackers who speak the protocol. The
players (bystanders) connect over SSH, each from its own loopback address (127.0.1.N), and are
seated at tables of five where a bot acts for one seat about once a second; two probes type
into the lobby chat. Then, one phase of ``--phase`` seconds each:

* ``none``: no attack (the reference; measured again as ``none_again`` after the last attack,
  and each attack is held to the mean of the two);
* ``huge_resize``: five guests claim 65535×65535 terminals, in the PTY request, in window
  changes and in band, over and over;
* ``idle_sockets``: 500 TCP connections from one address that never send a byte;
* ``table_spam``: ten protocol clients send 3,000 ``create_table`` each, reconnecting when cut
  off, for the whole phase;
* ``message_flood``: ten protocol clients send 3,000 ``add_bot``/``remove_bot`` pairs each, the
  same way;
* ``connection_churn``: twenty loops connect to the SSH port and hang up, as fast as they can.

Each attack runs in a process of its own at the lowest priority (``nice 19``): a real
attacker's own work runs on its own machine, and on a 2-core one it would take the cores from
the server and its players; what the attack costs the server is what is measured.

Prints, as its last line, one JSON object with, per phase: ``action_p99_ms`` (an action
accepted by the hub to the frame on every seated player's screen, as in ssh_load),
``echo_p99_ms`` (a probe's key to its screen), ``peak_rss_mb`` (the server's processes
together, sampled every 0.2 s), ``commits`` and ``commit_ms_max`` (how often, and at most how
long, the hub's event loop waited on the disk); ``reference``: the mean of ``none`` and
``none_again``; and ``targets``: whether every attack's bystander p99 is within 2× the
reference and its peak RSS within 1.5×.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ssh_load

from protocol.codec import encode
from protocol.connection import open_tcp
from protocol.messages import PROTOCOL_VERSION

ROOT = Path(__file__).resolve().parents[1]
PHASES = ("none", "huge_resize", "idle_sockets", "table_spam", "message_flood", "connection_churn")


def rss_mb(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
    return total


def server_pids(root: int) -> list[int]:
    """The server process and its children (app workers), read afresh (a worker may be new)."""
    pids = [root]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as stat:
                if int(stat.read().rpartition(")")[2].split()[1]) == root:
                    pids.append(int(entry))
    return pids


# --- the attacks (each runs until ``stop``, in a process of its own) -----------------------


@dataclass(slots=True)
class Target:
    port: int  # SSH
    hub_tcp: int  # the hub's TCP listener


async def attack_for(name: str, target: Target, seconds: float) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(seconds, stop.set)
    await ATTACKS[name](target, stop)


async def huge_resize(target: Target, stop: asyncio.Event) -> None:
    import asyncssh

    sessions = []
    for n in range(5):
        conn = await asyncssh.connect(
            "127.0.0.1",
            target.port,
            username=f"huge{n}",
            known_hosts=None,
            client_keys=None,
            agent_path=None,
            preferred_auth=["keyboard-interactive"],
            client_factory=ssh_load.GuestClient,
            local_addr=(f"127.0.0.{10 + n}", 0),
        )
        chan, _ = await conn.create_session(
            asyncssh.SSHClientSession, term_type="xterm-256color", term_size=(65535, 65535)
        )
        sessions.append((conn, chan))
    sizes = [(65535, 65535), (65535, 1), (1, 65535), (0, 0), (40000, 40000)]
    try:
        turn = 0
        while not stop.is_set():
            for _, chan in sessions:
                chan.change_terminal_size(*sizes[turn % len(sizes)])
                chan.write("\x1b[?2048;2$y\x1b[48;65535;65535;0;0t")
            turn += 1
            await asyncio.sleep(0.25)
    finally:
        for conn, _ in sessions:
            conn.close()


async def idle_sockets(target: Target, stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    socks = []
    for _ in range(500):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.bind(("127.0.0.2", 0))
        with contextlib.suppress(OSError):
            await loop.sock_connect(sock, ("127.0.0.1", target.port))
        socks.append(sock)
    await stop.wait()
    for sock in socks:
        sock.close()


async def protocol_flood(target: Target, stop: asyncio.Event, kind: str) -> None:
    """Ten clients of the hub's TCP listener, each sending 3,000 messages at once, again and
    again (a new connection when cut off)."""

    async def one(n: int) -> None:
        while not stop.is_set():
            conn = await open_tcp("127.0.0.1", target.hub_tcp)
            try:
                await conn.send({"t": "hello", "v": PROTOCOL_VERSION, "name": f"Flood{n}"})
                if kind == "message_flood":
                    await conn.send({"t": "create_table", "game": "prophets_gambit", "players": 5})
                    table = None
                    while table is None:
                        message = await asyncio.wait_for(conn.recv(), 10)
                        if isinstance(message, dict) and message.get("t") == "table":
                            table = message["table"]
                    burst = []
                    for _ in range(3000):
                        burst.append({"t": "add_bot", "table": table, "seat": 1})
                        burst.append({"t": "remove_bot", "table": table, "seat": 1})
                else:
                    burst = [{"t": "create_table", "game": "prophet", "players": 6}] * 3000
                conn.write(b"".join(encode(m) for m in burst))
                with contextlib.suppress(Exception):
                    while not stop.is_set():  # read until cut off
                        await asyncio.wait_for(conn.recv(), 1)
            except Exception:
                await asyncio.sleep(0.1)
            finally:
                await conn.close()

    await asyncio.gather(*(one(n) for n in range(10)))


async def connection_churn(target: Target, stop: asyncio.Event) -> None:
    async def loop_once(n: int) -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError, TimeoutError):
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(
                        "127.0.0.1", target.port, local_addr=(f"127.0.0.{100 + n % 4}", 0)
                    ),
                    2,
                )
                with contextlib.suppress(OSError, TimeoutError):
                    await asyncio.wait_for(reader.read(256), 0.5)
                writer.close()
            await asyncio.sleep(0)

    await asyncio.gather(*(loop_once(n) for n in range(20)))


ATTACKS = {
    "huge_resize": huge_resize,
    "idle_sockets": idle_sockets,
    "table_spam": lambda target, stop: protocol_flood(target, stop, "table_spam"),
    "message_flood": lambda target, stop: protocol_flood(target, stop, "message_flood"),
    "connection_churn": connection_churn,
}


# --- the run -------------------------------------------------------------------------------


async def phase(
    name: str, child: ssh_load.Child, probes: list[ssh_load.Client], seconds: float
) -> dict[str, Any]:
    stop = asyncio.Event()
    echoes: list[float] = []
    typing = [asyncio.create_task(ssh_load.type_keys(p, stop, echoes)) for p in probes]
    await child.ask("store")  # resets the longest commit
    before = await child.ask("store")
    await child.ask("mark")
    attacker = None
    if name in ATTACKS:
        # In a process of its own, at the lowest priority: an attacker's own work runs on its
        # own machine, and on this 2-core one it would otherwise take the cores from the
        # server and its players; what the attack costs the server is what is measured.
        attacker = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--attack",
                name,
                str(child.port),
                str(child.hub_tcp),
                str(seconds),
            ],
            cwd=ROOT,
            preexec_fn=lambda: os.nice(19),
        )
    peak = 0.0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        peak = max(peak, rss_mb(server_pids(child.proc.pid)))
        await asyncio.sleep(0.2)
    stop.set()
    await asyncio.gather(*typing)
    if attacker is not None:
        try:
            code = await asyncio.to_thread(attacker.wait, 20)
            if code:
                ssh_load.log(f"{name}: the attack ended with code {code}")
        except subprocess.TimeoutExpired:
            attacker.kill()
    report = await child.ask("report")
    after = await child.ask("store")
    return {
        "action_p99_ms": ssh_load.percentile(report["latencies"], 99),
        "action_p50_ms": ssh_load.percentile(report["latencies"], 50),
        "actions": report["actions"],
        "echo_p99_ms": ssh_load.percentile(echoes, 99),
        "peak_rss_mb": round(peak, 1),
        "commits": after["commits"] - before["commits"],
        "commit_ms_max": round(after["commit_ms_max"], 2),
        "cpu_percent": round(report["cpu_percent"], 1),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="gambit-abuse-"))
    child = ssh_load.Child(data_dir, args.workers, strict=True)
    players = [ssh_load.Client(f"load{i:04d}", False) for i in range(args.sessions)]
    probes = [ssh_load.Client(f"probe{i}", True) for i in range(2)]
    try:
        tasks = []
        for n, client in enumerate(players + probes):
            source = f"127.0.1.{n + 1}"  # one address each: the server's limits are per address
            tasks.append(asyncio.create_task(ssh_load.connect(client, child.port, source=source)))
            await asyncio.sleep(0.1)
        await asyncio.gather(*tasks)
        seated = await child.ask(f"seat {args.stagger}")
        ssh_load.log(f"server pid {child.proc.pid}")
        ssh_load.log(f"seated: {seated}")
        await asyncio.sleep(args.stagger + args.warmup)
        results = {}
        # The reference is measured first and again last (the machine's own noise moves more
        # than some attacks do); each attack is held to the mean of the two.
        for name in [*args.phases, "none"]:
            key = "none_again" if name == "none" and "none" in results else name
            results[key] = await phase(name, child, probes, args.phase)
            ssh_load.log(f"{key}: {json.dumps(results[key])}")
            await asyncio.sleep(2)  # what an attack left behind settles
        base = {
            k: (results["none"][k] + results["none_again"][k]) / 2
            for k in ("action_p99_ms", "peak_rss_mb")
        }
        met = {}
        for name in args.phases:
            if name == "none":
                continue
            r = results[name]
            met[name] = bool(
                r["action_p99_ms"] is not None
                and r["action_p99_ms"] <= 2 * base["action_p99_ms"]
                and r["peak_rss_mb"] <= 1.5 * base["peak_rss_mb"]
            )
        return {"sessions": args.sessions, **results, "reference": base, "targets": met}
    finally:
        for client in players + probes:
            if client.conn is not None:
                client.conn.close()
        child.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] == "--attack":
        name, port, hub_tcp, seconds = sys.argv[2], *map(float, sys.argv[3:])
        asyncio.run(attack_for(name, Target(int(port), int(hub_tcp)), seconds))
        return
    from server.ssh.serve import default_workers

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50, help="seated players")
    parser.add_argument("--phase", type=float, default=30.0, help="seconds per phase")
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--stagger", type=float, default=10.0)
    parser.add_argument(
        "--warmup", type=float, default=10.0, help="seconds of play before the first phase"
    )
    parser.add_argument(
        "--phases",
        nargs="+",
        default=list(PHASES),
        choices=PHASES,
        help="which phases to run (the first is the reference)",
    )
    args = parser.parse_args()
    random.seed(1)
    print(json.dumps(asyncio.run(run(args))))


if __name__ == "__main__":
    main()
