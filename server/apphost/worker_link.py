"""The link between the SSH process and an app worker process: one socket, many sessions.

Each frame is ``length (4 bytes) · session (4) · kind (1) · payload``. The SSH process sends
a session's PTY details, its keystrokes, window changes and the hub's messages; the worker
sends back the session's screen output and the app's messages to the hub. Hub messages
travel as the protocol's own encoded frames, untouched: the hub checks them exactly as it
checks an in-process app's, so a worker is trusted no more than an app is.

Session 0 is the link itself (a worker says it is ready, the SSH process asks it to stop).

A turn of the event loop's frames go to the socket in one write, at the end of the turn: a
lobby update or a chat line is a HUB frame for every app of a worker, and writing each at
once was a system call each, and a wake-up of the worker each, while the SSH process's event
loop (the hub's, every player's) waited (``bench/soak.py`` with ``--debug-lag``). Frames
keep their order; :meth:`Link.close` writes what waits first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from collections.abc import Callable
from typing import Any

import msgpack

from protocol.codec import packb
from protocol.connection import ConnectionClosed, InboxConnection

log = logging.getLogger(__name__)

HEADER = struct.Struct("!IIB")

# SSH process → worker
OPEN = 1  # msgpack: the session's terminal, identity and wished name
INPUT = 2  # bytes the player typed
RESIZE = 3  # msgpack [width, height]
STOP = 4  # end the app (the player left, idled out, or the server stops)
PENDING = 5  # msgpack int: bytes the player's connection has not taken yet
# both ways
HUB = 6  # encoded protocol frames, to or from the hub
HUB_END = 7  # that direction of the hub connection is closed
# worker → SSH process
OUTPUT = 8  # bytes for the player's terminal (empty: a frame already on their screen)
EXITED = 9  # msgpack map: the app has ended ({"failed": bool, "lang": str | None})
READY = 10  # session 0: the worker has loaded the app and takes sessions
STARTED = 11  # msgpack float: the app's CPU ms until its first frame (when measured)
# moving an app to another worker (workers.py)
HANDOFF = 12  # SSH process → worker: send the app's state (STATE), then end it unseen
STATE = 13  # msgpack map or nil: what a new app needs to go on (nil: it cannot)
TABLE = 14  # worker → SSH process, msgpack int or nil: the table the app shows now
# the worker's memory (recycling.py)
SWEPT = 15  # worker → SSH process, session 0, msgpack map: {"rss": bytes or nil, "apps": n}

#: A frame larger than this ends the link: neither side ever sends one.
MAX_FRAME = 8 * 1024 * 1024
#: Frames waiting for the end of the turn are written at once past this many bytes.
FLUSH_AT = 256 * 1024

Handler = Callable[[int, int, bytes], None]


pack = packb


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False)


class Link(asyncio.Protocol):
    """One end of the socket: ``send`` frames, and each frame received goes to ``handler``."""

    def __init__(self, handler: Handler, on_lost: Callable[[], None] | None = None) -> None:
        self.handler = handler
        self.on_lost = on_lost
        self.transport: asyncio.Transport | None = None
        self._loop = asyncio.get_running_loop()
        self.closed = self._loop.create_future()
        self._buffer = bytearray()
        #: Frames sent this turn, written at its end (see the module docstring).
        self._out = bytearray()
        self._flush_due = False
        #: Writes to the socket so far (tests).
        self.writes = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # a stream's: it writes

    def send(self, session: int, kind: int, payload: bytes = b"") -> None:
        """Queue a frame; it is written with the turn's others at the end of the turn."""
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        out = self._out
        out += HEADER.pack(len(payload), session, kind)
        out += payload
        if len(out) >= FLUSH_AT:
            self.flush()
        elif not self._flush_due:
            self._flush_due = True
            self._loop.call_soon(self.flush)

    def flush(self) -> None:
        """Write the frames waiting, now."""
        self._flush_due = False
        if not self._out:
            return
        data, self._out = self._out, bytearray()
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        transport.write(data)
        self.writes += 1

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        offset = 0
        size = len(buffer)
        while size - offset >= HEADER.size:
            length, session, kind = HEADER.unpack_from(buffer, offset)
            if length > MAX_FRAME:
                log.error("worker link: a frame of %d bytes; closing the link", length)
                self.close()
                return
            end = offset + HEADER.size + length
            if end > size:
                break
            payload = bytes(buffer[offset + HEADER.size : end])
            offset = end
            try:
                self.handler(session, kind, payload)
            except Exception:
                log.exception("worker link: could not handle a frame of kind %d", kind)
        del buffer[:offset]

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self._out.clear()
        if not self.closed.done():
            self.closed.set_result(None)
        if self.on_lost is not None:
            self.on_lost()

    def close(self) -> None:
        """Write what waits, then close (the other end reads it all before the end)."""
        self.flush()
        if self.transport is not None:
            self.transport.close()


class LinkConnection(InboxConnection):
    """A protocol connection whose bytes cross a :class:`Link` as one session's HUB frames.

    The worker's app holds one end (its connection to the hub) and the SSH process the other
    (the hub serves it like any in-process connection).
    """

    def __init__(
        self,
        link: Link,
        session: int,
        *,
        max_frame: int,
        trusted: bool = False,
        peer: str = "worker",
    ) -> None:
        super().__init__(asyncio.Queue(), max_frame=max_frame, trusted=trusted, peer=peer)
        self._link = link
        self._session = session
        #: While the app moves to another worker: what the hub sent meanwhile, in order
        #: (None: the hub's end closed), for the new app (see :meth:`rebind`).
        self._held: list[bytes | None] | None = None

    def write(self, data: bytes) -> None:
        if self._out_closed or self._link.transport is None:
            raise ConnectionClosed
        if self._held is not None:
            self._held.append(data)
            return
        self._link.send(self._session, HUB, data)

    def hold(self) -> None:
        """Keep what the hub sends from now on (the app is being handed over)."""
        if self._held is None:
            self._held = []

    def rebind(self, link: Link, session: int) -> None:
        """Carry this connection over ``link`` as ``session`` from now on (the app's new
        worker), after what was held, in order. The hub's side never notices."""
        held, self._held = self._held or [], None
        self._link, self._session = link, session
        for data in held:
            if data is None:
                self._end_output()
            else:
                link.send(session, HUB, data)

    def received(self, data: bytes | None) -> None:
        """A HUB frame (or, as None, HUB_END) from the other side."""
        self._inbox.put_nowait(data)

    def inbox_empty(self) -> bool:
        """Whether the app has taken every frame received (see app_worker's hand-off)."""
        return self._inbox.empty() and not self._ready

    def _end_output(self) -> None:
        if self._held is not None:
            self._held.append(None)
            return
        with contextlib.suppress(Exception):
            self._link.send(self._session, HUB_END)
