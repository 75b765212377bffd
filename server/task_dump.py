"""``kill -USR1`` a hub or a gateway: what each of its asyncio tasks waits for, and each
thread's stack, written to its log (at WARNING).

For a process that is alive and answers nothing: a loop held by one long call shows in the
threads' stacks (when the loop is free again; :mod:`server.lag_watch` names such holds as
they happen), but a task that waits for good (a callback that never returns, a queue nobody
fills) holds nothing and shows nowhere else. Each task is shown as the chain of coroutines it
waits in, outermost first, each at the line it waits on.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import signal
import sys
import traceback
from collections.abc import Iterator
from types import FrameType
from typing import Any

log = logging.getLogger(__name__)

#: Coroutines shown per task (the outermost and the innermost), and frames per thread.
TASK_DEPTH = 12
THREAD_FRAMES = 12


def install(loop: asyncio.AbstractEventLoop) -> None:
    """Dump on SIGUSR1 from now on (where signals can be handled: the main thread)."""
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGUSR1, dump, loop)


def dump(loop: asyncio.AbstractEventLoop) -> None:
    log.warning("what this process is doing (SIGUSR1):\n%s", describe(loop))


def describe(loop: asyncio.AbstractEventLoop) -> str:
    """Every task of ``loop`` (those waiting at the same lines together: a hub's thousand
    sessions each wait for their next message) and every thread, as text."""
    out = io.StringIO()
    tasks = asyncio.all_tasks(loop)
    out.write(f"{len(tasks)} task(s)\n")
    alike: dict[str, list[str]] = {}
    for task in tasks:
        frames: list[FrameType | None] = list(_awaiting(task.get_coro()))
        if len(frames) > TASK_DEPTH:  # (the outermost and the innermost)
            half = TASK_DEPTH // 2
            frames = [*frames[:half], None, *frames[-half:]]
        chain = "".join("    ...\n" if f is None else f"    {_where(f)}\n" for f in frames)
        alike.setdefault(chain, []).append(task.get_name())
    for chain, names in sorted(alike.items(), key=lambda item: sorted(item[1])[0]):
        shown = ", ".join(sorted(names)[:3]) + (
            f" and {len(names) - 3} more" if len(names) > 3 else ""
        )
        out.write(f"task {shown}:\n{chain}")
    for ident, frame in sys._current_frames().items():
        out.write(f"thread {ident}:\n")
        for line in traceback.format_stack(frame, limit=THREAD_FRAMES):
            out.write(line)
    return out.getvalue()


def _awaiting(coro: Any) -> Iterator[FrameType]:
    """The frames of a coroutine and of what it awaits, and so on inwards."""
    for _ in range(1000):  # (bounded: a chain is never that long)
        if coro is None:
            return
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if frame is not None:
            yield frame
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)


def _where(frame: FrameType) -> str:
    code = frame.f_code
    return f"{code.co_filename}:{frame.f_lineno} in {code.co_name}"
