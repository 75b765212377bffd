"""What held an asyncio loop: its busiest iterations, and the callbacks each one ran.

A latency percentile says how late answers were, not why. ``trace(loop)`` wraps every
callback the loop runs (``Handle._run``) and every iteration (``_run_once``), and keeps the
iterations whose callbacks together ran longer than ``threshold``, each with its callbacks
by time; ``report()`` sums them by callback name. Bench use only: it wraps asyncio's private
``Handle._run`` and ``BaseEventLoop._run_once`` and costs a few microseconds per callback.
"""

from __future__ import annotations

import asyncio
import asyncio.base_events
import asyncio.events
import time
from collections import defaultdict
from typing import Any


def describe(handle: asyncio.Handle) -> str:
    callback = handle._callback  # type: ignore[attr-defined]  # asyncio's private field
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        return "task " + getattr(coro, "__qualname__", repr(coro))
    func = getattr(callback, "func", callback)  # a partial
    return getattr(func, "__qualname__", repr(func))


class LoopTrace:
    def __init__(self, threshold: float = 0.03) -> None:
        self.threshold = threshold
        self.on = False
        self.iterations = 0
        self.busy: list[float] = []  # every iteration's callbacks' time, while on
        #: Time the loop spent neither waiting in select() nor running callbacks (its timer
        #: heap, reading which sockets are ready), and in select() itself, while on.
        self.overhead = 0.0
        self.waiting = 0.0
        self._selected = 0.0
        self.slow: list[tuple[float, list[tuple[float, str]]]] = []
        self._current: list[tuple[float, str]] = []

    def install(self) -> None:
        run = asyncio.events.Handle._run
        run_once = asyncio.base_events.BaseEventLoop._run_once
        tracer = self

        def timed_run(handle: asyncio.Handle) -> None:
            start = time.perf_counter()
            try:
                run(handle)
            finally:
                if tracer.on:
                    tracer._current.append((time.perf_counter() - start, describe(handle)))

        def traced_once(loop: Any) -> None:
            selector = loop._selector
            if not getattr(selector, "_traced", False):
                select = selector.select

                def timed_select(timeout: float | None = None) -> Any:
                    start = time.perf_counter()
                    try:
                        return select(timeout)
                    finally:
                        tracer._selected += time.perf_counter() - start

                selector.select = timed_select
                selector._traced = True
            tracer._current = []
            tracer._selected = 0.0
            start = time.perf_counter()
            run_once(loop)
            if tracer.on:
                tracer.iterations += 1
                busy = sum(t for t, _ in tracer._current)
                tracer.waiting += tracer._selected
                tracer.overhead += time.perf_counter() - start - tracer._selected - busy
                tracer.busy.append(busy)
                if busy >= tracer.threshold:
                    tracer.slow.append((busy, sorted(tracer._current, reverse=True)[:12]))

        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]  # counted or timed
        asyncio.base_events.BaseEventLoop._run_once = traced_once  # type: ignore[method-assign]  # counted or timed

    def report(self) -> dict[str, Any]:
        by_name: dict[str, list[float]] = defaultdict(list)
        for _, handles in self.slow:
            for t, name in handles:
                by_name[name].append(t)
        busy = sorted(self.busy)

        def pick(q: float) -> float | None:
            return round(1000 * busy[min(len(busy) - 1, int(q * len(busy)))], 1) if busy else None

        return {
            "iterations": self.iterations,
            "busy_ms_p50": pick(0.5),
            "busy_ms_p99": pick(0.99),
            "callbacks_s": round(sum(self.busy), 2),
            "outside_callbacks_s": round(self.overhead, 2),
            "select_s": round(self.waiting, 2),
            "slow_iterations": len(self.slow),
            "slow_threshold_ms": 1000 * self.threshold,
            "in_slow_iterations_ms": {
                name: {
                    "n": len(ts),
                    "sum": round(1000 * sum(ts), 1),
                    "max": round(1000 * max(ts), 1),
                }
                for name, ts in sorted(by_name.items(), key=lambda kv: -sum(kv[1]))[:25]
            },
            "slowest": [
                {"ms": round(1000 * b, 1), "handles": [(round(1000 * t, 1), n) for t, n in hs]}
                for b, hs in sorted(self.slow, reverse=True)[:15]
            ],
        }
