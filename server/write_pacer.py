"""Writes to many SSH channels spread over the event loop's turns, and joined per channel.

A lobby update, a lobby chat line or a batch's messages go to every client at once, and each
write to an SSH channel is a packet asyncssh encrypts and sends there and then: in
``bench/soak.py`` (100 light clients) these fan-outs held ``gambit serve``'s event loop, the
hub's and every player's, 25-160 ms each, most of its holds over 20 ms (``--debug-lag``).
So the hub's end of a ``gambit`` channel, and a terminal's session (the frames its app draws,
which a worker sends together: server/ssh/session.py), only note what they write, and a
:class:`WritePacer` writes it: at most :data:`BUDGET` of writing per turn of the loop (then the
loop's timers and other callbacks run, and the rest goes at the next turn), and each
channel's messages of a turn in one write (one packet: one encryption instead of one per
message). Each channel's bytes keep their order; a channel's last words (a goodbye) go after
what it was sent before.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from typing import Protocol

#: Seconds of writing per turn of the event loop; what is left waits for the next turn.
BUDGET = 0.004


class Paced(Protocol):
    def flush_now(self) -> None:
        """Write what waits, now."""


class WritePacer:
    """Channels with bytes waiting, written in the order they first waited (see above)."""

    def __init__(self) -> None:
        self._due: dict[Paced, None] = {}
        self._scheduled = False
        #: Turns of the loop that wrote, and those that left some for the next (tests, logs).
        self.turns = 0
        self.deferred = 0

    def due(self, channel: Paced) -> None:
        """``channel`` has bytes to write: at the end of this turn of the loop, or later."""
        if channel not in self._due:
            self._due[channel] = None
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._write)

    def forget(self, channel: Paced) -> None:
        self._due.pop(channel, None)

    def _write(self) -> None:
        self._scheduled = False
        self.turns += 1
        until = time.perf_counter() + BUDGET
        due = self._due
        while due:
            channel = next(iter(due))
            del due[channel]
            channel.flush_now()
            if time.perf_counter() >= until:
                break
        if due:  # (call_soon: after the timers and callbacks already waiting)
            self.deferred += 1
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._write)


_PACERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, WritePacer] = (
    weakref.WeakKeyDictionary()
)


def pacer() -> WritePacer:
    """The running loop's pacer (every channel on a loop shares its turns)."""
    loop = asyncio.get_running_loop()
    found = _PACERS.get(loop)
    if found is None:
        found = _PACERS[loop] = WritePacer()
    return found
