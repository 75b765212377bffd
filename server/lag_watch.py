"""Who holds the event loop: an opt-in watchdog (``gambit serve --debug-lag MS``, or
``GAMBIT_DEBUG_LAG=MS``) that names the code running whenever the loop is late.

The hub and the SSH host share one event loop, so anything that holds it (a long callback, a
collection, a burst of writes) delays every player at once; ``/metrics`` shows how late the
loop runs a timer (``gambit_event_loop_lag_seconds``) but not why. This watchdog is a thread:
it asks the loop to run a beat (``call_soon_threadsafe``) and, while the beat waits longer
than the threshold, samples the loop thread's stack every few milliseconds
(``sys._current_frames``). When the beat finally runs it logs, at WARNING, how long the loop
was held, how much of that was garbage collection (and of which generations: young
collections or full ones), and the stacks it saw most (each sample stands for about ``POLL``
seconds of the hold).

Off by default: the thread takes the GIL every few milliseconds. asyncio's own debug mode
(``slow_callback_duration``) names the slow callback but not the line inside it, and slows
every task it tracks.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
import threading
import time
from collections import Counter
from types import FrameType

log = logging.getLogger(__name__)

#: The loop thread's stack is sampled this often while a beat is late (s) ...
POLL = 0.002
#: ... and a beat is asked for this long after the last one ran (s).
EVERY = 0.01
#: Frames of a stack shown: the outermost under the loop's callback, and the innermost.
OUTER_FRAMES = 6
INNER_FRAMES = 6
#: Distinct stacks logged per hold, most seen first.
STACKS_SHOWN = 3
#: The loop's own frames, left out of a stack (they are under every callback).
LOOP_FILES = os.sep + "asyncio" + os.sep
#: Where the loop runs a callback (``Handle._run``): a stack is shown from below it.
LOOP_HANDLE = LOOP_FILES + "events.py"


def describe(frame: FrameType | None) -> str:
    """A stack as one line, outermost first: from the callback the loop runs (what is under
    asyncio's ``Handle._run`` when there is one), asyncio's own frames left out; its first
    frames, then the innermost ones (where it is now)."""
    stack: list[FrameType] = []
    while frame is not None:
        stack.append(frame)
        frame = frame.f_back
    stack.reverse()
    for index in range(len(stack) - 1, -1, -1):
        code = stack[index].f_code
        if code.co_name == "_run" and code.co_filename.endswith(LOOP_HANDLE):
            stack = stack[index + 1 :]
            break
    frames = [
        f"{os.path.basename(f.f_code.co_filename).removesuffix('.py')}.{f.f_code.co_name}"
        f":{f.f_lineno}"
        for f in stack
        if LOOP_FILES not in f.f_code.co_filename
    ]
    if len(frames) > OUTER_FRAMES + INNER_FRAMES:
        frames = [*frames[:OUTER_FRAMES], "...", *frames[-INNER_FRAMES:]]
    return " > ".join(frames) or "(the loop itself: waiting, or between callbacks)"


class LagWatch:
    """The watchdog for one running loop (see the module docstring). ``threshold``: a beat
    later than this (s) is logged."""

    def __init__(self, loop: asyncio.AbstractEventLoop, threshold: float) -> None:
        self.loop = loop
        self.threshold = threshold
        self.loop_thread = threading.get_ident()
        #: Holds seen and logged (for tests and a summary at the end).
        self.holds: list[tuple[float, float, list[tuple[str, int]]]] = []
        self._gc_total = 0.0
        self._gc_started: float | None = None
        #: Collections so far, by generation (a hold's are logged: young or full).
        self._gc_runs = [0, 0, 0]
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="lag-watch", daemon=True)

    def start(self) -> None:
        gc.callbacks.append(self._gc)
        self._thread.start()
        log.info("watching the event loop for holds over %.0f ms", self.threshold * 1000)

    def stop(self) -> None:
        self._stopped.set()
        if self._thread.is_alive() and threading.get_ident() != self._thread.ident:
            self._thread.join(1.0)
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if threading.get_ident() != self.loop_thread:
            return
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif self._gc_started is not None:
            self._gc_total += time.perf_counter() - self._gc_started
            self._gc_started = None
            generation = info.get("generation", 2)
            self._gc_runs[min(max(generation, 0), 2)] += 1

    def _watch(self) -> None:
        while not self._stopped.is_set():
            beat = threading.Event()
            gc_before = self._gc_total
            runs_before = list(self._gc_runs)
            asked = time.perf_counter()
            try:
                self.loop.call_soon_threadsafe(beat.set)
            except RuntimeError:  # the loop has closed
                return
            stacks: Counter[str] = Counter()
            while not beat.wait(POLL):
                if self._stopped.is_set() or self.loop.is_closed():
                    return
                if time.perf_counter() - asked >= self.threshold:
                    stacks[describe(sys._current_frames().get(self.loop_thread))] += 1
            held = time.perf_counter() - asked
            if held >= self.threshold:
                runs = [now - then for now, then in zip(self._gc_runs, runs_before, strict=True)]
                self._report(held, self._gc_total - gc_before, stacks, runs)
            self._stopped.wait(EVERY)

    def _report(
        self, held: float, in_gc: float, stacks: Counter[str], runs: list[int] | None = None
    ) -> None:
        top = stacks.most_common(STACKS_SHOWN)
        self.holds.append((held, in_gc, top))
        where = "; ".join(f"{count}x {stack}" for stack, count in top) or "(no sample)"
        collections = ", ".join(
            f"{count} of generation {generation}"
            for generation, count in enumerate(runs or ())
            if count
        )
        log.warning(
            "event loop held %.0f ms (in garbage collection %.0f ms; %d samples): %s%s",
            held * 1000,
            in_gc * 1000,
            sum(stacks.values()),
            where,
            f" | collections: {collections}" if collections else "",
        )


def watch_loop(threshold_ms: float | None) -> LagWatch | None:
    """Start watching the running loop if asked (``threshold_ms``), else None."""
    if not threshold_ms:
        return None
    watch = LagWatch(asyncio.get_running_loop(), threshold_ms / 1000)
    watch.start()
    return watch
