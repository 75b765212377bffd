"""What a blocking open made on a thread for a caller that was cancelled meanwhile (the hub
stopping while its store connects: server/store/off_loop.py) is closed once made, not left
open for the process's life; what the caller awaits comes to it whole."""

from __future__ import annotations

import asyncio
import threading

import pytest

from server.store.off_loop import made_off_loop


class Made:
    closed = False

    def close(self) -> None:
        self.closed = True


async def test_what_a_cancelled_caller_waited_for_is_closed_once_made() -> None:
    go = threading.Event()
    made = Made()

    def make() -> Made:
        go.wait(10)
        return made

    waiting = asyncio.ensure_future(made_off_loop(make))
    await asyncio.sleep(0.05)  # (the thread is making it)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert not made.closed
    go.set()
    for _ in range(100):
        if made.closed:
            break
        await asyncio.sleep(0.05)
    assert made.closed


async def test_the_caller_gets_what_was_made_or_its_error() -> None:
    made = Made()
    assert await made_off_loop(lambda: made) is made and not made.closed

    def fails() -> Made:
        raise OSError("no answer")

    with pytest.raises(OSError, match="no answer"):
        await made_off_loop(fails)
