"""A blocking open (a PostgreSQL connect) made on a thread, so the hub's event loop goes on.

Why: psycopg's connect is synchronous and waits up to its ``connect_timeout`` (pg.py) for a
database that does not answer, and longer for a host name lookup (unbounded). The hub's
loop serves players while its database is away and runs the NATS lease's renewal and the
database lock's keeper (server/store/pg_lock.py): none of them may wait for it.

What is made is handed to the loop whole, as the call's result; nothing uses it before.
A caller cancelled meanwhile (the hub stopping) does not leak it: it is closed once made.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Protocol, TypeVar


class Closable(Protocol):
    def close(self) -> None: ...


T = TypeVar("T", bound=Closable)


async def made_off_loop(make: Callable[[], T]) -> T:
    """``make()`` run on the loop's default executor; its result (or its error) here."""
    made = asyncio.get_running_loop().run_in_executor(None, make)
    try:
        # (shielded: a cancel of the caller cannot stop the thread, and would drop its result)
        return await asyncio.shield(made)
    except asyncio.CancelledError:
        made.add_done_callback(_close_result)
        raise


def _close_result(made: asyncio.Future[T]) -> None:
    """What a cancelled caller's thread made, closed (a failure or a cancel: nothing to close)."""
    if made.cancelled() or made.exception() is not None:
        return
    with contextlib.suppress(Exception):
        made.result().close()
