"""What grows in a server process: an opt-in debug hook (``GAMBIT_TRACEMALLOC=DIR``) that
writes a ``tracemalloc`` snapshot and a count of objects by type every few minutes, and the
tool that compares two of them (``python -m server.mem_trace diff A B``).

``bench/soak.py`` measures each process's resident memory rising (the server's 2-3 MB a
minute, the app workers' in steps) but not what is in it: Python filling its arenas, caches
that are bounded and fill, or something kept per player, table, game or session that never
goes. Set in the environment of ``gambit serve`` (its app workers inherit it), each process
starts ``tracemalloc`` (``GAMBIT_TRACEMALLOC_FRAMES`` frames a block, 8 by default) and a
thread that every ``GAMBIT_TRACEMALLOC_EVERY`` seconds (120) writes, in ``DIR``:

* ``<role>-<pid>-<minute>.tracemalloc``: the snapshot (``tracemalloc.Snapshot.dump``);
* ``<role>-<pid>-<minute>.json``: the resident memory, what ``tracemalloc`` traces (and
  uses itself), the C allocator's account (``malloc_mb``: its free blocks included), the
  collector's counts (and, with ``GAMBIT_TRACEMALLOC_COLLECT=1``, what a full collection
  before the snapshot freed: garbage waiting for a sweep, ``server/gc_freeze.py``, is not a
  leak), and the objects the collector tracks (the frozen ones too) by type, most first.

Then ``python -m server.mem_trace diff DIR/serve-123-005.tracemalloc DIR/serve-123-015...``
prints what grew between the two by line and by traceback (KB, and KB a minute), and
``python -m server.mem_trace types A.json B.json`` the object counts that grew.

Off by default: tracemalloc costs every allocation a lookup (a process runs slower and uses
more memory under it), and a snapshot holds the loop's thread (the GIL) while it is taken.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import logging
import os
import sys
import threading
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

from server.gc_freeze import resident_bytes
from server.malloc_trim import heap_info

log = logging.getLogger(__name__)

#: The folder the snapshots go to; unset, nothing is traced.
DIR_ENV = "GAMBIT_TRACEMALLOC"
EVERY_ENV = "GAMBIT_TRACEMALLOC_EVERY"
FRAMES_ENV = "GAMBIT_TRACEMALLOC_FRAMES"
COLLECT_ENV = "GAMBIT_TRACEMALLOC_COLLECT"
EVERY = 120.0
FRAMES = 8
#: Object types kept in a count (most first).
TYPES_KEPT = 60
#: Lines a diff shows.
TOP = 25


def resident_mb() -> float | None:
    rss = resident_bytes()
    return None if rss is None else rss / 2**20


class MemTrace:
    """Snapshots of one process into ``folder`` every ``every`` seconds (see the module
    docstring), from a daemon thread."""

    def __init__(self, folder: Path, role: str, every: float, collect: bool) -> None:
        self.folder = folder
        self.role = role
        self.every = every
        self.collect = collect
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mem-trace", daemon=True)

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.write()
            except Exception:  # a diagnosis must never stop the server
                log.exception("tracemalloc snapshot failed")

    def write(self) -> Path:
        """One snapshot and its counts; returns the snapshot's path."""
        minute = (time.monotonic() - self.started) / 60
        stem = self.folder / f"{self.role}-{os.getpid()}-{round(minute):03d}"
        info: dict[str, Any] = {"role": self.role, "pid": os.getpid(), "minute": minute}
        info["rss_mb"] = resident_mb()
        info["traced_mb"] = tracemalloc.get_traced_memory()[0] / 2**20
        info["tracemalloc_own_mb"] = tracemalloc.get_tracemalloc_memory() / 2**20
        heap = heap_info()
        if heap is not None:
            info["malloc_mb"] = {key: value / 2**20 for key, value in heap.items()}
        info["gc_count"] = gc.get_count()
        info["gc_frozen"] = gc.get_freeze_count()
        if self.collect:
            info["collected"] = gc.collect()
            info["traced_mb_after_collect"] = tracemalloc.get_traced_memory()[0] / 2**20
        started = time.perf_counter()
        snapshot = tracemalloc.take_snapshot()
        info["snapshot_s"] = time.perf_counter() - started
        snapshot.dump(str(stem) + ".tracemalloc")
        objects = everything_tracked()
        info["gc_tracked"] = len(objects)
        counts = Counter(type(o).__qualname__ for o in objects)
        del objects
        info["types"] = dict(counts.most_common(TYPES_KEPT))
        Path(str(stem) + ".json").write_text(json.dumps(info, indent=1))
        log.info("tracemalloc snapshot %s (%.1f MB traced)", stem, info["traced_mb"])
        return Path(str(stem) + ".tracemalloc")


def everything_tracked() -> list[Any]:
    """Every object the collector tracks, the frozen ones too: an app worker freezes nearly
    everything alive (``server/gc_freeze.py``), so counting only the unfrozen would miss what
    grows there. Unfrozen for the count and frozen again at once (the freeze also takes what
    was young: the worker's own freezes do so every half minute anyway)."""
    frozen = gc.get_freeze_count()
    if frozen:
        gc.unfreeze()
    try:
        return gc.get_objects()
    finally:
        if frozen:
            gc.freeze()


def start_from_env(role: str) -> MemTrace | None:
    """Start tracing this process if ``GAMBIT_TRACEMALLOC`` says where to (else None)."""
    folder = os.environ.get(DIR_ENV)
    if not folder:
        return None
    frames = int(os.environ.get(FRAMES_ENV) or FRAMES)
    every = float(os.environ.get(EVERY_ENV) or EVERY)
    collect = os.environ.get(COLLECT_ENV, "") not in ("", "0")
    tracemalloc.start(frames)
    trace = MemTrace(Path(folder), role, every, collect)
    trace.start()
    log.warning(
        "tracing memory (tracemalloc, %d frames) into %s every %.0f s", frames, folder, every
    )
    return trace


# --- comparing ------------------------------------------------------------------------------

#: Blocks allocated here are the tracing's own.
OWN = (tracemalloc.__file__, "<frozen importlib._bootstrap>", "<unknown>")


def load(path: str) -> tracemalloc.Snapshot:
    snapshot = tracemalloc.Snapshot.load(path)
    return snapshot.filter_traces([tracemalloc.Filter(False, name) for name in OWN])


def minute_of(path: str) -> float | None:
    """The minute a snapshot was taken, from the JSON beside it."""
    with contextlib.suppress(OSError, ValueError, KeyError):
        return float(json.loads(Path(path).with_suffix(".json").read_text())["minute"])
    return None


def diff(old_path: str, new_path: str, top: int, key: str) -> str:
    old, new = load(old_path), load(new_path)
    minutes = None
    first, last = minute_of(old_path), minute_of(new_path)
    if first is not None and last is not None and last > first:
        minutes = last - first
    lines = []
    total = sum(s.size_diff for s in new.compare_to(old, "filename"))
    rate = f", {total / 1024 / minutes:+.0f} KB/min" if minutes else ""
    lines.append(f"traced: {total / 1024:+.0f} KB over {minutes or 0:.1f} min{rate} ({key})")
    for stat in new.compare_to(old, key)[:top]:
        per_min = f"{stat.size_diff / 1024 / minutes:+8.1f} KB/min" if minutes else ""
        where = stat.traceback.format(limit=1 if key == "lineno" else None, most_recent_first=True)
        head = (
            f"{stat.size_diff / 1024:+9.1f} KB {per_min}  {stat.count_diff:+7d} blocks"
            f"  (now {stat.size / 1024:.0f} KB)"
        )
        lines.append(head + "\n    " + "\n    ".join(where))
    return "\n".join(lines)


def types_diff(old_path: str, new_path: str, top: int) -> str:
    old = json.loads(Path(old_path).read_text())
    new = json.loads(Path(new_path).read_text())
    before, after = Counter(old["types"]), Counter(new["types"])
    grown = Counter({name: after[name] - before[name] for name in after})
    minutes = new["minute"] - old["minute"]
    lines = [f"tracked objects {old['gc_tracked']} -> {new['gc_tracked']} in {minutes:.1f} min"]
    for name, change in grown.most_common(top):
        lines.append(f"{change:+8d}  {name} (now {after[name]})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="compare two GAMBIT_TRACEMALLOC snapshots")
    sub = parser.add_subparsers(dest="command", required=True)
    compare = sub.add_parser("diff", help="what grew between two .tracemalloc snapshots")
    compare.add_argument("old")
    compare.add_argument("new")
    compare.add_argument("--top", type=int, default=TOP)
    compare.add_argument("--key", choices=("lineno", "traceback", "filename"), default="lineno")
    types = sub.add_parser("types", help="object counts that grew between two .json files")
    types.add_argument("old")
    types.add_argument("new")
    types.add_argument("--top", type=int, default=TOP)
    args = parser.parse_args(argv)
    if args.command == "diff":
        print(diff(args.old, args.new, args.top, args.key))
    else:
        print(types_diff(args.old, args.new, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
