"""``kill -USR1`` a hub or a gateway (server/task_dump.py): what each asyncio task waits for,
down to the innermost coroutine and its line, and each thread's stack, in its log."""

from __future__ import annotations

import asyncio
import logging
import os
import signal

from server import task_dump


async def _inner(never: asyncio.Event) -> None:
    await never.wait()  # the line a stuck task shows


async def _outer(never: asyncio.Event) -> None:
    await _inner(never)


async def test_sigusr1_logs_each_task_down_to_the_line_it_waits_on(caplog):
    never = asyncio.Event()
    stuck = asyncio.get_running_loop().create_task(_outer(never), name="stuck-one")
    await asyncio.sleep(0)
    loop = asyncio.get_running_loop()
    task_dump.install(loop)
    try:
        with caplog.at_level(logging.WARNING, logger="server.task_dump"):
            os.kill(os.getpid(), signal.SIGUSR1)
            for _ in range(100):
                if caplog.records:
                    break
                await asyncio.sleep(0.01)
    finally:
        loop.remove_signal_handler(signal.SIGUSR1)
        stuck.cancel()
    text = caplog.records[0].getMessage()
    assert text.startswith("what this process is doing (SIGUSR1):")
    task = text.split("task stuck-one:\n")[1].split("task ")[0]
    frames = [line.strip() for line in task.splitlines() if line.startswith("    ")]
    assert frames[0].endswith("in _outer") and frames[1].endswith("in _inner"), task
    line = _inner.__code__.co_firstlineno + 1
    assert f"test_task_dump.py:{line} in _inner" in frames[1], task
    assert "thread " in text and "in test_sigusr1" in text  # (this thread's stack)
