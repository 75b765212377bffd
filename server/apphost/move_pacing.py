"""App moves one at a time: a burst of players sitting down must not stop every screen.

A move (workers.py) is a fresh app started on the table's worker from the old one's state:
tens of milliseconds of that worker's CPU, about what a player's arrival costs. What it buys
is small and slow to pay back (the drawing a table's apps share; docs/benchmarks.md). When
many players sit down at once (a server's first minute, a game night's round seated, the load
benchmark seating hundreds), starting all their moves at once held up every screen on both
workers for seconds: ``bench/ssh_load.py --sessions 500`` went from an action p99 of 1.6-1.9 s
to 3.8-34 s on a quiet machine. So moves wait in line: one in flight at a time (the next starts
once the moved app has drawn, so a busy worker slows the line down by itself), at least
``gap`` seconds apart, and each is looked at again when its turn comes (the player may have
left the table, or the table's home changed meanwhile).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

A = TypeVar("A", bound=Hashable)

#: Seconds between the starts of two moves, at least.
GAP = 0.1


class MovePacer(Generic[A]):
    """The line of apps waiting to move. ``start(app)`` starts ``app``'s move if it still
    should move and says whether it did; :meth:`done` is told when that move has finished
    (the new app drew, the app stayed, or it ended)."""

    def __init__(self, start: Callable[[A], bool], gap: float = GAP) -> None:
        self.start = start
        self.gap = gap
        self.waiting: dict[A, None] = {}  # (insertion-ordered: first come, first moved)
        self.moving: A | None = None
        self.last_start = -gap
        self._timer: asyncio.TimerHandle | None = None

    def want(self, app: A) -> None:
        """``app`` should move (once its turn comes)."""
        if app != self.moving:
            self.waiting[app] = None
        self._next()

    def forget(self, app: A) -> None:
        """``app`` has ended: it moves nowhere (nor holds up the line)."""
        self.waiting.pop(app, None)
        if app == self.moving:
            self.done(app)

    def done(self, app: A) -> None:
        if app == self.moving:
            self.moving = None
            self._next()

    def _next(self) -> None:
        if self.moving is not None or self._timer is not None:
            return
        while self.waiting:
            wait = self.last_start + self.gap - time.monotonic()
            if wait > 0:
                self._timer = asyncio.get_running_loop().call_later(wait, self._tick)
                return
            app = next(iter(self.waiting))
            del self.waiting[app]
            if self.start(app):
                self.moving = app
                self.last_start = time.monotonic()
                return

    def _tick(self) -> None:
        self._timer = None
        self._next()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.waiting.clear()
