"""The CPU time one session's app takes to start, measured among many apps on one loop.

A worker runs a hundred apps on one thread, interleaved callback by callback: the thread's
CPU time between an app's start and its first frame is mostly other players' work. So each
starting app runs in its own ``contextvars`` context holding a :class:`StartClock`, and every
callback the event loop runs in such a context (the app's tasks, its timers, its widgets'
message pumps: asyncio gives each the context it was scheduled from) adds its thread time to
that clock, until the app's first screen is drawn (:func:`shows_first_screen`, then
:meth:`StartClock.stop`).

That needs a hook on every callback the loop runs (``asyncio.Handle._run``), so it is off
unless the environment asks for it (``GAMBIT_APP_START_CPU``, which ``bench/ssh_load.py``
sets for its server): then a worker reports each session's figure to the SSH process.
"""

from __future__ import annotations

import asyncio.events
import contextvars
import os
import time
from collections.abc import Callable
from typing import Any

#: Set in the environment, app workers measure and report each app's start (see above).
MEASURE = "GAMBIT_APP_START_CPU"

_CLOCK: contextvars.ContextVar[StartClock | None] = contextvars.ContextVar(
    "gambit_start_clock", default=None
)
_installed = False


class StartClock:
    """CPU seconds the callbacks of one context have taken (``cpu``), until stopped."""

    __slots__ = ("cpu", "running")

    def __init__(self) -> None:
        self.cpu = 0.0
        self.running = True

    def stop(self) -> float | None:
        """Stop counting; the milliseconds counted (None if already stopped)."""
        if not self.running:
            return None
        self.running = False
        return self.cpu * 1000


def shows_first_screen(app: Any) -> bool:
    """Whether a frame ``app`` writes now shows its first screen: one it pushed over its
    default screen (the Gambit app's says it is connecting, then the welcome screen comes),
    not the terminal's set-up or the default screen alone."""
    return app is not None and len(app.screen_stack) > 1


def enabled() -> bool:
    return bool(os.environ.get(MEASURE))


def install() -> None:
    """Count callbacks' thread time into their context's clock (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    original: Callable[[Any], None] = asyncio.events.Handle._run
    thread_time = time.thread_time

    def _run(handle: Any) -> None:
        clock = handle._context.get(_CLOCK)
        if clock is None or not clock.running:
            original(handle)
            return
        started = thread_time()
        try:
            original(handle)
        finally:
            clock.cpu += thread_time() - started

    asyncio.events.Handle._run = _run  # type: ignore[method-assign, assignment]  # patches asyncio


def start_context() -> tuple[contextvars.Context, StartClock]:
    """A context to start an app's task in, and the clock that counts its callbacks."""
    install()
    clock = StartClock()
    context = contextvars.copy_context()
    context.run(_CLOCK.set, clock)
    return context, clock
