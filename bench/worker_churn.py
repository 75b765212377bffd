"""Does an app worker's memory level off as players come and go, or keep growing?

    python bench/worker_churn.py [--waves 40] [--apps 20] [--stay 10] [--moves 30]
                                 [--moved 0.25] [--sweep-interval 2] [--trim]
                                 [--mallopt NAME=VALUE ...] [--without PATCH] [--forget-memos]

One process, no SSH: the real hub, and an app worker's own ``Worker``
(``server/apphost/app_worker.py``: the real Gambit app on the real driver, its frames counted
and dropped, its memory under the worker's ``FrozenSessions`` policy), its link wired straight
to the hub's ends as the SSH process carries it (as ``tests/ssh/test_moved_out_memory.py``).
``--stay`` players sit in the lobby throughout. Then ``--waves`` waves: ``--apps`` guests
arrive, go through the welcome screen, sit at tables of four (the three games in turn), chat,
two of the lobby's players watch a table; each table plays ``--moves`` moves (a heuristic
bot's choice for the pending seat; a finished game's result is closed); ``--moved`` of the
wave's apps are handed over and go on as new apps from their state (a move between workers,
both ends here); then the wave leaves. The sweep the worker's policy brings (its minimum
interval cut to ``--sweep-interval`` s, so a wave need not wait a minute) is measured:

RSS; ``sys.getallocatedblocks()`` (Python's live allocations); the frozen generation;
pymalloc's arenas in use (``sys._debugmallocstats``, read through a redirect of fd 2);
glibc's heap (``mallinfo2``: bytes in use and free inside it); and, at the end of each wave,
a census of ``gc.get_objects()`` by type. ``--trim`` calls glibc's ``malloc_trim(0)`` after
each sweep; ``--mallopt M_ARENA_MAX=1`` (or ``M_TRIM_THRESHOLD``, ``M_MMAP_THRESHOLD``,
``M_TOP_PAD``) sets glibc's options at the start. ``--without textual_patches.inner_outer``
puts one of the app host's patches to Textual back to Textual's own code
(``server/apphost/textual_layer.py``), to measure what it changes. ``--forget-memos`` empties
the shared memos at the end of each wave, as an app worker does every two minutes
(``server/apphost/memo_ages.py``), so a wave's sweep finds at most about a wave's worth of
them: a run of a few minutes otherwise measures them filling.

Prints one line per wave on stderr and, last, one JSON line: per wave ``rss_mb``,
``blocks_k``, ``frozen_k``, ``arenas``, ``heap_used_mb``, ``heap_free_mb``; the slopes per
wave over the second half (``rss_mb_per_wave``, ``blocks_k_per_wave``); and the types whose
count grew most from the end of the first quarter to the last wave (``growers``).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import ctypes
import ctypes.util
import gc
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from server.apphost import memo_ages  # noqa: E402  # (after the root is on the path)
from server.malloc_trim import heap_info, trim  # noqa: E402

GAMES = ("prophet", "prophets_gambit", "fortunes")
TABLE_SIZE = 4
MALLOPT = {"M_TRIM_THRESHOLD": -1, "M_TOP_PAD": -2, "M_MMAP_THRESHOLD": -3, "M_ARENA_MAX": -8}


def libc() -> Any:
    name = ctypes.util.find_library("c")
    return ctypes.CDLL(name) if name else None


LIBC = libc()


def heap() -> tuple[float, float]:
    """glibc's heap: MB in use (mmapped blocks too), MB free inside it (0, 0 where mallinfo2
    is missing; ``server/malloc_trim.py``)."""
    info = heap_info()
    if info is None:
        return 0.0, 0.0
    return (info["in_use"] + info["mmapped"]) / 2**20, info["free"] / 2**20


def arenas_in_use() -> int:
    """pymalloc's arenas allocated now, from ``sys._debugmallocstats()`` (written to fd 2)."""
    sys.stderr.flush()
    with tempfile.TemporaryFile() as out:
        saved = os.dup(2)
        try:
            os.dup2(out.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        text = out.read().decode("ascii", "replace")
    found = re.search(r"# arenas allocated current\s*=\s*([\d,]+)", text)
    return int(found.group(1).replace(",", "")) if found else -1


def census() -> collections.Counter[str]:
    """Objects the collector tracks, by type (the frozen ones too: unfrozen for the count)."""
    gc.unfreeze()
    try:
        return collections.Counter(
            f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.get_objects()
        )
    finally:
        gc.freeze()


class SSHSide:
    """The SSH process's part of the link, cut short (as in tests/ssh/test_moved_out_memory.py):
    each session's hub end, served by the hub; frames counted; a handed-over app's old
    session goes nowhere; an app that exits closes its hub end."""

    transport = True  # (a link that is up: the worker's connections write through it)

    def __init__(self, hub: Any, worker: Any) -> None:
        from server.apphost import worker_link as wl

        self.wl = wl
        self.hub = hub
        self.worker = worker
        self.ends: dict[int, Any] = {}
        self.tables: dict[int, Any] = {}
        self.states: dict[int, Any] = {}
        #: Sessions handed over whose old app may still be ending (its frames go nowhere).
        self.moved: set[int] = set()
        self.frames = 0
        self.bytes = 0
        worker.link.send = self.from_worker
        worker.link.transport = self

    def open(self, session: int, name: str, resume: Any = None, end: Any = None) -> None:
        wl = self.wl
        from protocol.codec import MAX_CLIENT_FRAME
        from protocol.term import TermInfo

        spec: dict[str, Any] = {
            "term": asdict(TermInfo(width=80, height=24)),
            "identity": None,
            "name": name,
        }
        if resume is not None:
            spec["resume"] = resume
            self.ends[session] = end
        else:
            end = wl.LinkConnection(self, session, max_frame=MAX_CLIENT_FRAME, trusted=True)
            self.ends[session] = end
            self.hub.spawn(self.hub.serve(end))
        self.worker.on_frame(session, wl.OPEN, wl.pack(spec))
        if resume is not None:
            end.rebind(self, session)

    def send(self, session: int, kind: int, payload: bytes = b"") -> None:
        """What the hub's end of a session writes: to the worker."""
        if session not in self.moved:
            self.worker.on_frame(session, kind, payload)

    def from_worker(self, session: int, kind: int, payload: bytes = b"") -> None:
        wl = self.wl
        if session in self.moved:
            return
        if kind == wl.OUTPUT:
            self.frames += 1
            self.bytes += len(payload)
        elif kind == wl.HUB:
            end = self.ends.get(session)
            if end is not None:
                end.received(payload)
        elif kind == wl.HUB_END or kind == wl.EXITED:
            end = self.ends.pop(session, None)
            self.tables.pop(session, None)
            if end is not None:
                end.received(None)
        elif kind == wl.TABLE:
            self.tables[session] = wl.unpack(payload)
        elif kind == wl.STATE:
            self.states[session] = wl.unpack(payload)
            self.moved.add(session)

    def hand_off(self, session: int) -> None:
        self.ends[session].hold()
        self.worker.on_frame(session, self.wl.HANDOFF, b"")


async def until(check: Any, limit: float = 60.0) -> bool:
    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def quiet(side: SSHSide, gap: float = 0.15, limit: float = 30.0) -> None:
    """Until no frame has been drawn for ``gap`` seconds."""
    deadline = time.monotonic() + limit
    last = -1
    while time.monotonic() < deadline and side.frames != last:
        last = side.frames
        await asyncio.sleep(gap)


def screen_of(worker: Any, session: int) -> str | None:
    held = worker.sessions.get(session)
    app = held[0].app if held else None
    return type(app.screen).__name__ if app is not None and app.is_running else None


class Churn:
    def __init__(self, args: argparse.Namespace, hub: Any, worker: Any, side: SSHSide) -> None:
        self.args = args
        self.hub = hub
        self.worker = worker
        self.side = side
        self.ids = iter(range(1, 10**9))
        self.samples: list[dict[str, Any]] = []
        self.censuses: list[collections.Counter[str]] = []
        self.failed = 0

    def hub_session(self, name: str) -> Any:
        for player in self.hub.players.values():
            if player.name == name and player.sessions:
                return next(iter(player.sessions))
        return None

    async def arrive(self, names: list[str]) -> dict[str, int]:
        sessions = {name: next(self.ids) for name in names}
        for name, session in sessions.items():
            self.side.open(session, name)
        for session in sessions.values():
            if await until(lambda s=session: screen_of(self.worker, s) == "WelcomeScreen"):
                await asyncio.sleep(0.05)  # (its name field composed)
                self.worker.on_frame(session, self.side.wl.INPUT, b"\r")
            else:
                self.failed += 1
        for session in sessions.values():
            await until(lambda s=session: screen_of(self.worker, s) == "LobbyScreen")
        await quiet(self.side)
        return sessions

    def seat(self, names: list[str], wave: int) -> dict[int, list[str]]:
        """Tables of four (the games in turn), started, each with a line of chat: their
        players' names by table."""
        hub = self.hub
        tables = {}
        for n, start in enumerate(range(0, len(names) - TABLE_SIZE + 1, TABLE_SIZE)):
            group = [self.hub_session(name) for name in names[start : start + TABLE_SIZE]]
            if any(s is None for s in group):
                self.failed += 1
                continue
            game = GAMES[(wave + n) % len(GAMES)]
            owner = group[0]
            hub.handle(owner, {"t": "create_table", "game": game, "players": 4, "timer": 0})
            table = max(t.id for t in hub.tables.values() if t.owner == owner.player.id)
            for session in group[1:]:
                hub.handle(session, {"t": "join", "table": table})
            hub.handle(owner, {"t": "chat", "channel": "table", "table": table, "text": "hi"})
            hub.handle(owner, {"t": "start", "table": table})
            tables[table] = names[start : start + TABLE_SIZE]
        return tables

    def move(self, table_id: int, seed: str) -> bool:
        from server.bots import make_bot

        table = self.hub.tables.get(table_id)
        state = table.state if table is not None else None
        if state is None or state.is_over or not state.pending():
            return False
        seat = min(state.pending())
        bot = make_bot(table.game, "heuristic", seed=f"{seed}:{len(state.history)}")
        self.hub.play.apply_action(table, seat, bot.choose(state.view(seat)))
        return True

    def close_results(self, tables: dict[int, list[str]]) -> None:
        for table_id, names in tables.items():
            table = self.hub.tables.get(table_id)
            if table is None or table.state is None or not table.state.is_over:
                continue
            for name in names:
                session = self.hub_session(name)
                if session is not None:
                    self.hub.handle(session, {"t": "result_read", "table": table_id})

    async def move_out(self, sessions: dict[str, int]) -> None:
        """``--moved`` of them handed over, each going on as a new app from its state."""
        count = round(len(sessions) * self.args.moved)
        for name in list(sessions)[:count]:
            old = sessions[name]
            self.side.hand_off(old)
            if not await until(lambda o=old: o in self.side.states, 10):
                self.failed += 1
                continue
            state = self.side.states.pop(old)
            if not isinstance(state, dict):  # (the app stays: its frames count again)
                self.failed += 1
                self.side.moved.discard(old)
                self.side.ends[old].rebind(self.side, old)
                continue
            new = next(self.ids)
            self.side.open(new, name, resume=state, end=self.side.ends.pop(old))
            sessions[name] = new
        await quiet(self.side)

    async def leave(self, sessions: dict[str, int]) -> None:
        for session in sessions.values():
            self.worker.on_frame(session, self.side.wl.STOP, b"")
        if not await until(lambda: not set(sessions.values()) & set(self.worker.sessions)):
            self.failed += 1
        await until(lambda: not self.worker.moved_out, 10)
        self.side.moved &= self.worker.moved_out

    async def wave(self, wave: int, watchers: list[str]) -> None:
        args = self.args
        names = [f"W{wave}p{i}" for i in range(args.apps)]
        sessions = await self.arrive(names)
        tables = self.seat(names, wave)
        for name, table in zip(watchers, tables, strict=False):
            session = self.hub_session(name)
            if session is not None:
                self.hub.handle(session, {"t": "spectate", "table": table})
        await quiet(self.side)
        for step in range(args.moves):
            for table in tables:
                self.move(table, f"{wave}:{table}")
            await quiet(self.side, gap=0.03)
            if step == args.moves // 2:
                await self.move_out(sessions)
        self.close_results(tables)
        lobby = self.hub_session(watchers[-1]) if watchers else None
        if lobby is not None:
            self.hub.handle(lobby, {"t": "chat", "channel": "lobby", "text": f"wave {wave}"})
        await quiet(self.side)
        for name, table in zip(watchers, tables, strict=False):
            session = self.hub_session(name)
            if session is not None:
                self.hub.handle(session, {"t": "leave", "table": table})
        await self.leave(sessions)
        for table_id in tables:  # (not left to stand-ins playing it out in this process)
            table = self.hub.tables.get(table_id)
            if table is not None:
                self.hub.seating.close_table(table)

    def measure(self) -> dict[str, Any]:
        from server.gc_freeze import resident_bytes

        used, free = heap()
        return {
            "rss_mb": round((resident_bytes() or 0) / 2**20, 1),
            "blocks_k": round(sys.getallocatedblocks() / 1000, 1),
            "frozen_k": round(gc.get_freeze_count() / 1000, 1),
            "arenas": arenas_in_use(),
            "heap_used_mb": round(used, 1),
            "heap_free_mb": round(free, 1),
        }


def slope(values: list[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean_x, mean_y = (n - 1) / 2, sum(values) / n
    num = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values))
    return num / sum((x - mean_x) ** 2 for x in range(n))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from server import gc_freeze
    from server.apphost.app_settings import host_many_apps
    from server.apphost.app_worker import Worker, _preload
    from server.hub import Hub, HubConfig
    from server.store import Store

    host_many_apps()
    _preload()
    from server.apphost import app_settings, textual_layer

    for name in args.without:
        textual_layer.restore(name)
        # (each new app installs the patches again: not in this run)
        app_settings.host_many_apps = lambda: None  # type: ignore[assignment]
    gc_freeze.MIN_SWEEP_INTERVAL = args.sweep_interval
    for setting in args.mallopt:
        name, value = setting.split("=")
        if LIBC is None or not LIBC.mallopt(MALLOPT[name], int(value)):
            raise SystemExit(f"mallopt {setting} failed")
    store = Store.open(Path(tempfile.mkdtemp(prefix="gambit-churn-")))
    hub = Hub(
        store,
        HubConfig(
            bot_delay=0.0,
            turn_timer=0,
            between_games=1.0,
            grace=0.5,
            guest_retention=0.0,
            seed=7,
            bot_workers=0,
        ),
    )
    await hub.start()
    worker = Worker()
    side = SSHSide(hub, worker)
    churn = Churn(args, hub, worker, side)
    swept: list[dict[str, Any]] = []

    def after_sweep() -> None:
        if args.trim:
            trim()
        swept.append(churn.measure())

    worker.memory.on_swept = after_sweep
    worker.memory.started()
    started = time.monotonic()
    try:
        stay = [f"Stay{i}" for i in range(args.stay)]
        await churn.arrive(stay)
        for wave in range(args.waves):
            sweeps = worker.memory.sweeps
            await churn.wave(wave, stay[:2])
            if args.forget_memos:
                memo_ages.forget()
            if not await until(lambda s=sweeps: worker.memory.sweeps > s, args.sweep_interval + 15):
                worker.memory.sweep()  # (the policy did not: fewer ended than are open)
            sample = dict(
                swept[-1],
                wave=wave,
                s=round(time.monotonic() - started),
                tables=len(hub.tables),
                apps=len(worker.sessions),
            )
            churn.samples.append(sample)
            churn.censuses.append(census())
            print(json.dumps(sample), file=sys.__stderr__, flush=True)
    finally:
        worker.stop_all()
        await until(lambda: not worker.sessions, 10)
        worker.memory.close()
        gc.unfreeze()
        await hub.stop()
        store.close()
    samples = churn.samples
    half = samples[len(samples) // 2 :]
    first, last = churn.censuses[len(churn.censuses) // 4], churn.censuses[-1]
    growers = sorted(((last[k] - first.get(k, 0), k) for k in last), reverse=True)[:12]
    series = {
        key: [s[key] for s in samples]
        for key in ("rss_mb", "blocks_k", "frozen_k", "arenas", "heap_used_mb", "heap_free_mb")
    }
    return {
        "waves": args.waves,
        "apps": args.apps,
        "stay": args.stay,
        "moves": args.moves,
        "trim": args.trim,
        "mallopt": args.mallopt,
        "without": args.without,
        "forget_memos": args.forget_memos,
        "malloc": os.environ.get("PYTHONMALLOC", "pymalloc"),
        "seconds": round(time.monotonic() - started),
        "failed": churn.failed,
        "rss_mb_per_wave": round(slope([s["rss_mb"] for s in half]), 3),
        "blocks_k_per_wave": round(slope([s["blocks_k"] for s in half]), 3),
        "arenas_per_wave": round(slope([s["arenas"] for s in half]), 3),
        "growers": {k: n for n, k in growers if n > 0},
        **series,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waves", type=int, default=40)
    parser.add_argument("--apps", type=int, default=20)
    parser.add_argument("--stay", type=int, default=10)
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--moved", type=float, default=0.25)
    parser.add_argument("--sweep-interval", type=float, default=2.0)
    parser.add_argument("--trim", action="store_true", help="malloc_trim(0) after each sweep")
    parser.add_argument("--mallopt", action="append", default=[], help="NAME=VALUE (glibc)")
    parser.add_argument("--without", action="append", default=[], help="a patch left out")
    parser.add_argument(
        "--forget-memos", action="store_true", help="empty the shared memos after each wave"
    )
    from table_updates import run_on_tables  # (this folder: run as a script)

    run_on_tables(parser, run, table_size=TABLE_SIZE)


if __name__ == "__main__":
    main()
