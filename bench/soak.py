"""Soak: a compressed day on one ``gambit serve``, sampled for anything that grows.

    python bench/soak.py [--minutes 30] [--players 200] [--terminals 30] [--sample 10]
                         [--warmup MINUTES] [--workers W] [--seed 1]

Not a timed test. It starts one real ``gambit serve`` (``python -m server serve``) on loopback
with a temporary data folder and a free port, its door limits raised (every client comes from
this machine) and its clock compressed (bots, pauses between games, turn timers and the grace
period shorter, so a day's comings and goings fit in the run), and ``--metrics`` on, for the
event loop's lag. Then, from this process:

* ``--players`` light protocol clients (the ``gambit`` SSH channel, as a player's own app),
  half of them registered (an SSH key each, the same player on every visit), half guests (a
  new guest on every visit). Each lives a loop of visits: it arrives, opens a table of one of
  the three games (filling it with bots after a wait for others) or joins a waiting one from
  the lobby, or watches one being played; plays its seat (a random legal move after a
  moment's thought), closes each result, chats now and then in the lobby and at its table,
  leaves after a few games; at the end of a visit it leaves cleanly, or drops (the connection
  cut mid-game), and a dropped registered player often comes straight back (its seat is kept
  for the grace period); then it is away a while and comes again.
* ``--terminals`` real SSH terminal sessions (80x24 PTYs running the app, as
  ``bench/ssh_load.py``'s clients), guests and registered alike: through the welcome screen to
  the lobby, a line in the lobby chat, a join of the newest table with a free seat (``j``),
  Enter now and then (a move, or closing a result; the turn timer plays the rest), then they
  hang up, stay away a while and come back.
* In the middle, a restart: SIGTERM, wait for the server to stop, then the same command on
  the same data folder and port; every client finds its way back.

Every ``--sample`` seconds it reads, for every server process (the server and its children:
app workers, bot workers): RSS, open file descriptors and threads (``/proc``); the SQLite
file's size (with its WAL) and each table's row count; and the ``/metrics`` histogram of the
event loop's lag. Slopes are least-squares fits per hour over the samples after the warm-up
(``--warmup``, counted again after the restart: each half is fitted on its own, and the worse
half counts). Prints, as its last line, one JSON object:

* ``minutes``, ``players``, ``terminals``;
* ``rss_mb_per_hour_max``: the steepest RSS slope of any one server process (MB per hour);
* ``fds_growth``, ``threads_growth``: the most any one process's fitted line rises over the
  measured samples (open files, threads);
* ``db_rows_per_game``: rows the database gained after the warm-up per game finished then;
  ``db_rows_per_hour``: the same per hour; ``db_mb_per_hour``;
* ``loop_lag_ms_p99``: the 99th percentile of the event loop's lateness (a 0.5 s timer,
  from the histogram's buckets, interpolated) after the warm-up, and
  ``loop_lag_over_20ms``: the share of those samples later than 20 ms, read off the bucket
  at the target (no interpolation: the p99 is within 20 ms when this is at most 0.01);
* ``ledger_sum``: the sum of every ledger row once the server has stopped (0), and
  ``audit_problems``: what the store's own audit finds (0);
* ``guest_rows``: rows left for guests once the server has stopped (every guest is gone then),
  and ``guest_rows_without_games``: those of guests who played no game (0);
* ``games``, ``visits``, ``drops``, ``errors`` (client-side failures), ``restart_s``.

The line before the last holds the details: every table's rows at the end and its growth per
hour, each process's slope.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import ssh_load  # noqa: E402  (bench/'s own module, on the path above)

from tests.ssh.screens import PAST_WELCOME  # noqa: E402

GAMES: tuple[tuple[str, tuple[int, int], dict[str, Any]], ...] = (
    ("prophets_gambit", (3, 5), {}),
    ("prophet", (3, 5), {"cap": 3}),
    ("fortunes", (4, 4), {"betting": "ante"}),
)
CHAT_LINES = ("gg", "nice one", "hello all", "again?", "well played", "oops", "brb")
#: Seconds a gone guest is kept (compressed, as the rest), and how long the bench waits for
#: the last ones after its players have left, before it stops the server and counts.
GUEST_RETENTION = 20
SETTLE = 60
#: The server's clock, compressed: (option, value).
SERVER_PACE = (
    ("--bot-delay", "0.4"),
    ("--between-games", "4"),
    ("--turn-timer", "12"),
    ("--grace", "20"),
    ("--bot-think-ms", "50"),
    ("--guest-retention", str(GUEST_RETENTION)),
)
LAG_METRIC = re.compile(r'^gambit_event_loop_lag_seconds_bucket\{le="([^"]+)"\} ([0-9.e+]+)$')


def log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- the server ----------------------------------------------------------------------------


class Server:
    """One ``gambit serve`` process on a fixed port and data folder, started again at will."""

    def __init__(self, data_dir: Path, workers: int | None) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.metrics_port = free_port()
        self.workers = workers
        self.proc: subprocess.Popen[bytes] | None = None
        #: Set while the bench stops and starts the server (clients' failures are expected).
        self.restarting = False
        #: Times started: a visit that began before a restart and failed after it was cut by
        #: the restart (a terminal waits on a screen that never comes), not failed.
        self.starts = 0

    def cut(self, since: int) -> bool:
        """Whether a failure of what began at start number ``since`` is the restart's."""
        return self.restarting or self.starts != since

    def command(self) -> list[str]:
        command = [
            sys.executable,
            "-m",
            "server",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            "--metrics",
            f"127.0.0.1:{self.metrics_port}",
            "--log-file",
            str(self.data_dir / "server.log"),
            # Every client comes from this machine: the per-address limits would measure
            # themselves (each has tests of its own).
            "--max-sessions",
            "5000",
            "--max-per-address",
            "5000",
            "--max-unauthenticated",
            "1000",
            "--connection-rate",
            "1000",
            "--idle-timeout",
            "0",
            "--no-chat-limit",
        ]
        for flag, value in SERVER_PACE:
            command += [flag, value]
        if self.workers is not None:
            command += ["--workers", str(self.workers)]
        return command

    async def start(self) -> None:
        self.starts += 1
        self.proc = subprocess.Popen(
            self.command(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"gambit serve ended with {self.proc.returncode}: {err}")
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.close()
                if self.metrics() is not None:
                    return
            await asyncio.sleep(0.2)
        raise RuntimeError("gambit serve did not start")

    async def stop(self) -> float:
        """SIGTERM, and wait for the process to end; returns the seconds it took."""
        assert self.proc is not None
        began = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.to_thread(self.proc.wait, 60)
        except subprocess.TimeoutExpired:
            log("the server did not stop within 60 s: killed")
            self.proc.kill()
            self.proc.wait()
        return time.monotonic() - began

    def pids(self) -> list[int]:
        """The server process and every process under it."""
        if self.proc is None or self.proc.poll() is not None:
            return []
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rpartition(")")[2].split()[1])
                    children.setdefault(parent, []).append(int(entry))
        found, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo.extend(children.get(pid, []))
        return sorted(found)

    def metrics(self) -> dict[float, float] | None:
        """The event loop lag histogram's cumulative bucket counts (le in seconds)."""
        try:
            url = f"http://127.0.0.1:{self.metrics_port}/metrics"
            with urllib.request.urlopen(url, timeout=5) as reply:
                text = reply.read().decode()
        except OSError:
            return None
        buckets = {}
        for line in text.splitlines():
            match = LAG_METRIC.match(line)
            if match:
                buckets[float(match[1])] = float(match[2])
        return buckets


def process_sample(pid: int) -> dict[str, float] | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None
    return {
        "rss_mb": int(fields["VmRSS"].split()[0]) / 1024,
        "threads": int(fields["Threads"]),
        "fds": fds,
    }


def db_sample(data_dir: Path) -> dict[str, Any]:
    """The database file's size (with its WAL) and each table's rows."""
    path = data_dir / "gambit.sqlite3"
    size = sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        rows = {t: conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        conn.close()
    return {"mb": size / 1e6, "rows": rows}


@dataclass
class Sample:
    at: float  # seconds since the start
    segment: int  # 0 before the restart, 1 after
    processes: dict[int, dict[str, float]]
    db: dict[str, Any] | None
    lag: dict[float, float] | None


# --- light protocol clients ----------------------------------------------------------------


@dataclass
class Counts:
    visits: int = 0
    drops: int = 0
    reconnects: int = 0
    errors: int = 0
    acts: int = 0
    chats: int = 0
    tables_opened: int = 0
    spectated: int = 0
    terminal_visits: int = 0
    last_errors: list[str] = field(default_factory=list)

    def error(self, who: str, err: BaseException) -> None:
        self.errors += 1
        self.last_errors = [*self.last_errors[-9:], f"{who}: {type(err).__name__}: {err}"]


def guest_client_factory() -> Any:
    return ssh_load.GuestClient()


class Light:
    """One player on the ``gambit`` channel: a loop of visits, each a few tables' worth."""

    def __init__(self, index: int, registered: bool, key: Any, rng: random.Random) -> None:
        self.index = index
        self.registered = registered
        self.key = key
        self.rng = rng
        self.visit_no = 0
        self.ssh: Any = None
        self.conn: Any = None
        self.tables: dict[int, dict[str, Any]] = {}
        self.lobby: dict[int, dict[str, Any]] = {}
        self.me = ""
        self.read_games: set[tuple[int, int]] = set()
        self.acting: set[int] = set()
        self.games_seen: dict[int, int] = {}

    @property
    def name(self) -> str:
        return f"reg{self.index:03d}" if self.registered else f"g{self.index:03d}v{self.visit_no}"

    async def connect(self, port: int) -> None:
        import asyncssh

        from protocol.messages import PROTOCOL_VERSION
        from protocol.ssh_channel import open_channel

        options: dict[str, Any] = dict(
            known_hosts=None, agent_path=None, compression_algs=["none"], connect_timeout=30
        )
        if self.registered:
            options.update(client_keys=[self.key], preferred_auth=["publickey"])
        else:
            options.update(
                client_keys=None,
                preferred_auth=["keyboard-interactive"],
                client_factory=guest_client_factory,
            )
        self.ssh = await asyncssh.connect("127.0.0.1", port, username=self.name, **options)
        self.conn = await open_channel(self.ssh)
        self.tables.clear()
        self.lobby.clear()
        self.acting.clear()
        await self.conn.send({"t": "hello", "v": PROTOCOL_VERSION, "name": self.name, "lang": "en"})

    def close(self) -> None:
        if self.ssh is not None:
            self.ssh.close()
        self.ssh = self.conn = None

    def send(self, message: dict[str, Any]) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.send_nowait(message)

    async def read(self, counts: Counts) -> None:
        from protocol.connection import ConnectionClosed
        from protocol.event_log import expand

        with contextlib.suppress(ConnectionClosed, AttributeError):
            while self.conn is not None:
                message = await self.conn.recv()
                if not isinstance(message, dict):
                    continue
                kind = message.get("t")
                if kind == "welcome":
                    self.me = message["you"]["name"]
                elif kind == "lobby":
                    self.lobby = {t["id"]: t for t in message.get("tables", [])}
                elif kind == "lobby_update":
                    for entry in message.get("tables") or []:
                        self.lobby[entry["id"]] = entry
                    for gone in message.get("removed") or []:
                        self.lobby.pop(gone, None)
                elif kind == "table":
                    table = message["table"]
                    message = expand(self.tables.get(table), message)
                    self.tables[table] = message
                    self.react(table, message, counts)
                elif kind == "left":
                    self.tables.pop(message["table"], None)

    def react(self, table: int, message: dict[str, Any], counts: Counts) -> None:
        """Play an asked seat (a random legal move after a moment), close a result."""
        view = message.get("view") or {}
        info = message.get("info") or {}
        if message.get("seat") is None:
            return
        if view.get("legal") and table not in self.acting:
            self.acting.add(table)

            def act() -> None:
                self.acting.discard(table)
                now = (self.tables.get(table) or {}).get("view") or {}
                legal = now.get("legal")
                if legal:
                    self.send({"t": "act", "table": table, "action": self.rng.choice(legal)})
                    counts.acts += 1

            asyncio.get_running_loop().call_later(self.rng.uniform(0.3, 2.0), act)
        if info.get("status") == "between":
            key = (table, info.get("games_played", 0))
            if key not in self.read_games:
                self.read_games.add(key)
                asyncio.get_running_loop().call_later(
                    self.rng.uniform(0.5, 2.5),
                    lambda: self.send({"t": "result_read", "table": table}),
                )

    def seated_table(self) -> tuple[int, dict[str, Any]] | None:
        for table, message in self.tables.items():
            if message.get("seat") is not None:
                return table, message
        return None

    async def visit(self, port: int, until: float, counts: Counts) -> bool:
        """One visit; True if it ended in a drop (the connection cut, not left)."""
        self.visit_no += 1
        counts.visits += 1
        await self.connect(port)
        reader = asyncio.create_task(self.read(counts))
        try:
            return await self.stay(until, counts)
        finally:
            reader.cancel()

    async def stay(self, until: float, counts: Counts) -> bool:
        rng = self.rng
        games_wanted = rng.randint(1, 3)
        started_waiting = 0.0
        watching: tuple[int, float] | None = None
        await asyncio.sleep(1.0)
        while time.monotonic() < until:
            if self.conn is None or self.ssh is None or self.conn.closed:
                raise ConnectionError("the server closed the connection")
            await asyncio.sleep(rng.uniform(0.8, 1.6))
            if rng.random() < 0.01:
                self.send({"t": "chat", "channel": "lobby", "text": rng.choice(CHAT_LINES)})
                counts.chats += 1
            seated = self.seated_table()
            if seated is not None:
                table, message = seated
                info = message.get("info") or {}
                if rng.random() < 0.02:
                    self.send(
                        {
                            "t": "chat",
                            "channel": "table",
                            "table": table,
                            "text": rng.choice(CHAT_LINES),
                        }
                    )
                    counts.chats += 1
                status = info.get("status")
                if status == "waiting" and info.get("owner") == self.me:
                    if not started_waiting:
                        started_waiting = time.monotonic()
                    if time.monotonic() - started_waiting > rng.uniform(4, 10):
                        for seat in info.get("seats", []):
                            if seat.get("name") is None and seat.get("bot") is None:
                                self.send({"t": "add_bot", "table": table, "seat": seat["seat"]})
                        self.send({"t": "start", "table": table})
                elif status == "waiting" and time.monotonic() - started_waiting > 40:
                    self.send({"t": "leave", "table": table})  # nobody starts it: go
                    started_waiting = 0.0
                elif status == "between" and info.get("games_played", 0) >= games_wanted:
                    self.send({"t": "leave", "table": table})
                    games_wanted = rng.randint(1, 3)
                    started_waiting = 0.0
                continue
            if watching is not None:
                if time.monotonic() > watching[1] or watching[0] not in self.tables:
                    self.send({"t": "leave", "table": watching[0]})
                    watching = None
                continue
            # In the lobby: open a table, join one, or watch one.
            choice = rng.random()
            free = [
                t
                for t in self.lobby.values()
                if t["status"] == "waiting"
                and t.get("stake", 0) <= 10
                and any(s["name"] is None and s["bot"] is None for s in t["seats"])
            ]
            playing = [t for t in self.lobby.values() if t["status"] != "waiting"]
            started_waiting = time.monotonic()
            if choice < 0.45 and free:
                self.send({"t": "join", "table": rng.choice(free)["id"]})
            elif choice < 0.6 and playing:
                table = rng.choice(playing)["id"]
                self.send({"t": "spectate", "table": table})
                watching = (table, time.monotonic() + rng.uniform(10, 40))
                counts.spectated += 1
            else:
                game, (low, high), options = rng.choice(GAMES)
                self.send(
                    {
                        "t": "create_table",
                        "game": game,
                        "players": rng.randint(low, high),
                        "options": options,
                        "stake": rng.choice((0, 5, 10)),
                        "timer": 12,
                    }
                )
                counts.tables_opened += 1
            await asyncio.sleep(1.0)
        # The visit ends: a drop (cut, mid-whatever), or a clean goodbye.
        if rng.random() < 0.3:
            counts.drops += 1
            self.close()
            return True
        seated = self.seated_table()
        if seated is not None:
            self.send({"t": "leave", "table": seated[0]})
            await asyncio.sleep(0.5)
        self.close()
        return False


async def light_life(
    player: Light, server: Server, stop: asyncio.Event, counts: Counts, pace: Pace
) -> None:
    rng = player.rng
    await asyncio.sleep(rng.uniform(0, pace.ramp))
    while not stop.is_set():
        dropped = False
        began = server.starts
        try:
            until = time.monotonic() + rng.expovariate(1 / pace.stay)
            dropped = await player.visit(server.port, min(until, pace.end), counts)
        except Exception as err:  # the restart, most often: come back a moment later
            player.close()
            if not server.cut(began):
                counts.error(player.name, err)
            await asyncio.sleep(rng.uniform(1, 5))
            continue
        if dropped and player.registered and rng.random() < 0.6:
            counts.reconnects += 1
            await asyncio.sleep(rng.uniform(1, 8))  # within the grace period: seat kept
            continue
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), rng.expovariate(1 / pace.away))


# --- terminal sessions ---------------------------------------------------------------------


async def terminal_life(
    index: int, key: Any, server: Server, stop: asyncio.Event, counts: Counts, pace: Pace
) -> None:
    import asyncssh

    rng = random.Random(f"terminal{index}")
    await asyncio.sleep(rng.uniform(0, pace.ramp))
    visit = 0
    while not stop.is_set():
        visit += 1
        registered = key is not None
        name = f"tr{index:02d}" if registered else f"tg{index:02d}v{visit}"
        client = ssh_load.Client(name, False)
        began = server.starts
        try:
            if registered:
                client.conn = await asyncssh.connect(
                    "127.0.0.1",
                    server.port,
                    username=name,
                    known_hosts=None,
                    agent_path=None,
                    client_keys=[key],
                    preferred_auth=["publickey"],
                    compression_algs=["none"],
                )
                client.chan, _ = await client.conn.create_session(
                    ssh_load.make_session_class(client),
                    term_type="xterm-256color",
                    term_size=(80, 24),
                    encoding=None,
                )
                # A key seen before goes straight to the lobby, or back to its table.
                seen = await wait_for_text(client, (ssh_load.WELCOME, *PAST_WELCOME), 120)
                if seen == ssh_load.WELCOME:
                    client.text = ""
                    client.chan.write(b"\r")
                    await wait_for_text(client, PAST_WELCOME, 120)
                client.lobby_at = time.perf_counter()
            else:
                await ssh_load.connect(client, server.port, timeout=120)
            counts.terminal_visits += 1
            until = min(time.monotonic() + rng.expovariate(1 / pace.stay), pace.end)
            for key_ in ["c", *rng.choice(CHAT_LINES), "\r", "\x1b"]:
                client.chan.write(key_.encode())
                await asyncio.sleep(rng.uniform(0.15, 0.4))
            await asyncio.sleep(ssh_load.ESC_PAUSE)
            client.chan.write(b"j")  # the newest table with a free seat, if any
            while time.monotonic() < until and not stop.is_set():
                await asyncio.sleep(rng.uniform(2, 5))
                client.chan.write(b"\r")  # a move, or a result closed
        except Exception as err:
            if not server.cut(began):
                counts.error(name, err)
        finally:
            if client.conn is not None:
                client.conn.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), rng.expovariate(1 / pace.away))


async def wait_for_text(client: ssh_load.Client, texts: tuple[str, ...], timeout: float) -> str:
    """Wait until the screen shows one of ``texts``; returns it."""
    deadline = time.perf_counter() + timeout
    while True:
        for text in texts:
            if text in client.text:
                return text
        await ssh_load.wait_change(client, 1.0)
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{client.name}: none of {texts!r}")


# --- the run -------------------------------------------------------------------------------


@dataclass
class Pace:
    ramp: float  # seconds over which players first arrive
    stay: float  # a visit's mean length
    away: float  # the mean time between visits
    end: float  # monotonic time the run ends


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value) points, per hour."""
    if len(points) < 3:
        return 0.0
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return 0.0
    return sum((x - mx) * (y - my) for x, y in points) / sxx * 3600


def lag_p99_ms(deltas: dict[float, float]) -> float | None:
    """The 99th percentile from cumulative bucket counts (le seconds -> count), interpolated
    linearly within its bucket."""
    bounds = sorted(b for b in deltas if b != float("inf"))
    total = deltas.get(float("inf"), 0.0)
    if total <= 0:
        return None
    rank = 0.99 * total
    below, lower = 0.0, 0.0
    for bound in bounds:
        count = deltas[bound]
        if count >= rank:
            inside = count - below
            share = (rank - below) / inside if inside else 1.0
            return round((lower + share * (bound - lower)) * 1000, 2)
        below, lower = count, bound
    return round(bounds[-1] * 1000, 2) if bounds else None


def lag_share_over(deltas: dict[float, float], bound: float) -> float | None:
    """The share of samples later than ``bound`` seconds, when a bucket ends there."""
    total = deltas.get(float("inf"), 0.0)
    if total <= 0 or bound not in deltas:
        return None
    return round(1 - deltas[bound] / total, 4)


def measured(samples: list[Sample], warmup: float, starts: list[float]) -> list[list[Sample]]:
    """The samples of each segment (before/after the restart) past its warm-up."""
    return [
        [s for s in samples if s.segment == seg and s.at >= begin + warmup]
        for seg, begin in enumerate(starts)
    ]


def summarise(
    samples: list[Sample], warmup: float, starts: list[float]
) -> tuple[dict[str, Any], dict[str, Any]]:
    segments = [seg for seg in measured(samples, warmup, starts) if len(seg) >= 3]
    rss_slopes: dict[str, float] = {}
    #: Each process's RSS (MB) at the first measured sample, its most, and at the last.
    rss_span: dict[str, list[float]] = {}
    fds_growth = threads_growth = 0.0
    lag_deltas: dict[float, float] = {}
    rows_gained = games_gained = 0
    hours = 0.0
    for number, seg in enumerate(segments):
        pids = {pid for s in seg for pid in s.processes}
        for pid in pids:
            series = [(s.at, s.processes[pid]) for s in seg if pid in s.processes]
            if len(series) < 3:
                continue
            span = (series[-1][0] - series[0][0]) / 3600
            rss_slopes[f"{number}:{pid}"] = round(
                slope_per_hour([(t, p["rss_mb"]) for t, p in series]), 2
            )
            rss_span[f"{number}:{pid}"] = [
                round(series[0][1]["rss_mb"], 1),
                round(max(p["rss_mb"] for _, p in series), 1),
                round(series[-1][1]["rss_mb"], 1),
            ]
            fds_growth = max(fds_growth, slope_per_hour([(t, p["fds"]) for t, p in series]) * span)
            threads_growth = max(
                threads_growth, slope_per_hour([(t, p["threads"]) for t, p in series]) * span
            )
        lags = [s.lag for s in seg if s.lag]
        if len(lags) >= 2:
            for bound, count in lags[-1].items():
                lag_deltas[bound] = lag_deltas.get(bound, 0.0) + count - lags[0].get(bound, 0.0)
        dbs = [s.db for s in seg if s.db]
        if len(dbs) >= 2:
            rows_gained += sum(dbs[-1]["rows"].values()) - sum(dbs[0]["rows"].values())
            games_gained += dbs[-1]["rows"].get("games", 0) - dbs[0]["rows"].get("games", 0)
            with_db = [s for s in seg if s.db]
            hours += (with_db[-1].at - with_db[0].at) / 3600
    all_db = [s.db for seg in segments for s in seg if s.db]
    table_growth: dict[str, float] = {}
    mb_per_hour = 0.0
    if all_db:
        for table in all_db[-1]["rows"]:
            table_growth[table] = round(
                max(
                    slope_per_hour([(s.at, s.db["rows"].get(table, 0)) for s in seg if s.db])
                    for seg in segments
                ),
                1,
            )
        mb_per_hour = max(
            slope_per_hour([(s.at, s.db["mb"]) for s in seg if s.db]) for seg in segments
        )
    headline = {
        "rss_mb_per_hour_max": max(rss_slopes.values(), default=None),
        "fds_growth": round(fds_growth, 1),
        "threads_growth": round(threads_growth, 1),
        "db_rows_per_game": round(rows_gained / games_gained, 1) if games_gained else None,
        "db_rows_per_hour": round(rows_gained / hours) if hours else None,
        "db_mb_per_hour": round(mb_per_hour, 2),
        "loop_lag_ms_p99": lag_p99_ms(lag_deltas),
        "loop_lag_over_20ms": lag_share_over(lag_deltas, 0.02),
    }
    details = {
        "rss_mb_per_hour_by_process": rss_slopes,
        "rss_mb_first_max_last": rss_span,
        "rows_per_hour_by_table": table_growth,
        "rows_at_end": all_db[-1]["rows"] if all_db else None,
        "lag_samples": lag_deltas.get(float("inf")),
    }
    return headline, details


def final_store(data_dir: Path) -> dict[str, Any]:
    """What the stopped server left: the ledger's sum, the store's audit, guests' rows."""
    from server.store import Store

    store = Store.open(data_dir)
    try:
        problems = store.audit()
        total = store.ledger_total()
    finally:
        store.close()
    conn = sqlite3.connect(data_dir / "gambit.sqlite3")
    try:
        guest_rows = guest_rows_without_games = 0
        played = "(SELECT player_id FROM game_players)"
        for sql in (
            "SELECT COUNT(*) FROM players WHERE id LIKE 'guest:%' {}",
            "SELECT COUNT(*) FROM balances WHERE account LIKE 'player:guest:%' {}",
            "SELECT COUNT(*) FROM ledger WHERE account LIKE 'player:guest:%' {}",
            "SELECT COUNT(*) FROM ratings WHERE player_id LIKE 'guest:%' {}",
        ):
            guest_rows += conn.execute(sql.format("")).fetchone()[0]
        for sql in (
            f"SELECT COUNT(*) FROM players WHERE id LIKE 'guest:%' AND id NOT IN {played}",
            "SELECT COUNT(*) FROM balances WHERE account LIKE 'player:guest:%' "
            f"AND substr(account, 8) NOT IN {played}",
            "SELECT COUNT(*) FROM ledger WHERE account LIKE 'player:guest:%' "
            f"AND substr(account, 8) NOT IN {played}",
        ):
            guest_rows_without_games += conn.execute(sql).fetchone()[0]
    finally:
        conn.close()
    return {
        "ledger_sum": total,
        "audit_problems": len(problems),
        "guest_rows": guest_rows,
        "guest_rows_without_games": guest_rows_without_games,
    }


class Run:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.samples: list[Sample] = []
        self.segment = 0
        self.began = time.monotonic()
        #: Each server process's command line (what it is), by pid.
        self.roles: dict[int, str] = {}

    async def sample(self, server: Server) -> None:
        pids = server.pids()
        processes = {}
        for pid in pids:
            got = process_sample(pid)
            if got is not None:
                processes[pid] = got
                if pid not in self.roles:
                    with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as cmd:
                        self.roles[pid] = cmd.read().replace(b"\0", b" ").decode()[-80:]
        db = None
        with contextlib.suppress(sqlite3.Error, OSError):
            db = await asyncio.to_thread(db_sample, server.data_dir)
        lag = await asyncio.to_thread(server.metrics)
        if processes:
            sample = Sample(time.monotonic() - self.began, self.segment, processes, db, lag)
            self.samples.append(sample)
            if self.args.samples:
                with open(self.args.samples, "a") as out:
                    out.write(json.dumps(dataclasses.asdict(sample), default=str) + "\n")

    async def sampler(self, server: Server, stop: asyncio.Event) -> None:
        while not stop.is_set():
            if not server.restarting:
                await self.sample(server)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.args.sample)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import asyncssh

    rng = random.Random(args.seed)
    seconds = args.minutes * 60
    warmup = args.warmup * 60 if args.warmup is not None else min(300.0, seconds * 0.2 / 2)
    data_dir = Path(tempfile.mkdtemp(prefix="gambit-soak-"))
    server = Server(data_dir, args.workers)
    the_run = Run(args)
    counts = Counts()
    stop = asyncio.Event()
    try:
        await server.start()
        assert server.proc is not None
        log(f"gambit serve pid {server.proc.pid} port {server.port}, data {data_dir}")
        end = time.monotonic() + seconds
        # A compressed day: visits of a few minutes, a little less away, everyone arrived
        # within the first tenth of the run.
        pace = Pace(
            ramp=min(120.0, seconds * 0.1),
            stay=max(60.0, min(240.0, seconds / 8)),
            away=max(20.0, min(120.0, seconds / 16)),
            end=end,
        )
        keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(args.players)]
        lights = [
            Light(i, i % 2 == 0, keys[i], random.Random(rng.random())) for i in range(args.players)
        ]
        tasks = [asyncio.create_task(light_life(p, server, stop, counts, pace)) for p in lights]
        tasks += [
            asyncio.create_task(
                terminal_life(
                    i,
                    asyncssh.generate_private_key("ssh-ed25519") if i % 2 else None,
                    server,
                    stop,
                    counts,
                    pace,
                )
            )
            for i in range(args.terminals)
        ]
        sampler = asyncio.create_task(the_run.sampler(server, stop))
        starts = [0.0, 0.0]
        await asyncio.sleep(seconds / 2)
        log(f"restart: {json.dumps(counts.__dict__)}")
        server.restarting = True
        stopped = await server.stop()
        the_run.segment = 1
        await server.start()
        server.restarting = False
        starts[1] = time.monotonic() - the_run.began
        log(f"restarted: the stop took {stopped:.1f} s")
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        await the_run.sample(server)
        stop.set()
        await asyncio.gather(sampler)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for player in lights:
            player.close()
        # Everyone has left: seats end after the grace period, the games under way are played
        # out by bots, guests' chips go home and the retention forgets them.
        await asyncio.sleep(args.settle)
        games = (the_run.samples[-1].db or {}).get("rows", {}).get("games")
        await server.stop()
        headline, details = summarise(the_run.samples, warmup, starts)
        final = final_store(data_dir)
        details["counts"] = counts.__dict__
        details["processes"] = the_run.roles
        details["warmup_s"] = warmup
        print(json.dumps(details), flush=True)
        return {
            "minutes": args.minutes,
            "players": args.players,
            "terminals": args.terminals,
            **headline,
            **final,
            "games": games,
            "visits": counts.visits + counts.terminal_visits,
            "drops": counts.drops,
            "errors": counts.errors,
            "restart_s": round(stopped, 1),
        }
    finally:
        stop.set()
        if server.proc is not None and server.proc.poll() is None:
            server.proc.kill()
        if args.keep:
            log(f"data kept in {data_dir}")
        else:
            shutil.rmtree(data_dir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="length of the run")
    parser.add_argument("--players", type=int, default=200, help="light protocol clients")
    parser.add_argument("--terminals", type=int, default=30, help="SSH terminal sessions")
    parser.add_argument("--sample", type=float, default=10.0, help="seconds between samples")
    parser.add_argument(
        "--warmup",
        type=float,
        default=None,
        help="minutes after each start not fitted (default: a tenth of the run, at most 5)",
    )
    parser.add_argument("--workers", type=int, default=None, help="gambit serve --workers")
    parser.add_argument(
        "--settle",
        type=float,
        default=SETTLE,
        help="seconds the server runs on after the clients have gone, before it is stopped",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the data folder")
    parser.add_argument(
        "--samples", metavar="FILE", help="also append every sample to FILE as a JSON line"
    )
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args))), flush=True)


if __name__ == "__main__":
    main()
