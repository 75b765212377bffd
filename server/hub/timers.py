"""The hub's timers and background tasks: what runs later, on the event loop.

Every part that waits (turn timers, bots, the next game, reveals, a restart) sets a timer here
under a key; a table's keys are ``(kind, table id, …)`` so :meth:`Timers.cancel_table` ends
them all when it closes. Once stopped, nothing new is scheduled (sessions that wind down after
:meth:`stop` set no timers).

A timer whose callback is refused because the database is away (``away`` says so of its
error: the write was refused before anything changed) is no failure: one line says so, and
the timer is set again once the database is back (:meth:`again`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

log = logging.getLogger(__name__)


class Timers:
    """Timers by key, and the tasks spawned, of one hub."""

    def __init__(self) -> None:
        #: The timers set now, by key (set through :meth:`later` and :meth:`cancel`).
        self.pending: dict[Any, asyncio.TimerHandle] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.stopped = False
        #: Whether an error a callback raised says the database is away (the hub sets it).
        self.away: Callable[[BaseException], bool] = lambda err: False
        #: Timers refused while the database was away, by key: set again by :meth:`again`.
        self.refused: dict[Any, tuple[Callable[..., Any], tuple[Any, ...]]] = {}

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def later(self, key: Any, delay: float, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback`` after ``delay`` seconds, replacing any timer under ``key``."""
        self.cancel(key)
        if self.stopped:
            return
        loop = asyncio.get_running_loop()
        self.pending[key] = loop.call_later(max(0.0, delay), self._fire, key, callback, args)

    def cancel(self, key: Any) -> None:
        self.refused.pop(key, None)
        handle = self.pending.pop(key, None)
        if handle is not None:
            handle.cancel()

    def cancel_table(self, table_id: int) -> None:
        """Cancel every timer of a table (keys ``(kind, table id, …)``): it closes."""
        keys = [*self.pending, *self.refused]
        for key in [k for k in keys if isinstance(k, tuple) and k[1:2] == (table_id,)]:
            self.cancel(key)

    def stop(self) -> None:
        """Cancel every timer; schedule none from now on."""
        self.stopped = True
        self.refused.clear()
        for handle in self.pending.values():
            handle.cancel()
        self.pending.clear()

    def cancel_tasks(self) -> None:
        for task in list(self.tasks):
            task.cancel()

    async def end_tasks(self, timeout: float = 1.0) -> None:
        """Cancel every task spawned and let each end (within ``timeout``): one cancelled
        before it ever ran would otherwise be dropped unstarted if the loop closes next (a bot
        about to think, at a hub's stop). Not the task calling this, if it is one of them."""
        me = asyncio.current_task()
        tasks = [task for task in self.tasks if task is not me]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    def _fire(self, key: Any, callback: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.pending.pop(key, None)
        try:
            callback(*args)
        except Exception as err:  # a timer must never take the hub down
            if not self.away(err):
                log.exception("timer %r failed", key)
                return
            log.warning("timer %r waits for the database (set again once it is back): %s", key, err)
            self.refused[key] = (callback, args)

    def again(self) -> int:
        """The database is back: every timer refused meanwhile fires now (unless its key was
        set again meanwhile). Returns how many."""
        refused, self.refused = self.refused, {}
        again = 0
        for key, (callback, args) in refused.items():
            if key not in self.pending:
                self.later(key, 0.0, callback, *args)
                again += 1
        return again
