"""A message connection with two transports: in-process queues and stream sockets.

Both carry the same length-prefixed msgpack frames (:mod:`protocol.codec`), so what a client
sees over a socket in another process is byte for byte what an in-process SSH session's app
sees. ``recv`` returns a decoded map, or a :class:`ProtocolError` value for a bad frame (the
receiver decides what to do with it); it raises :class:`ConnectionClosed` at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod
from collections import deque
from typing import Any

from .codec import MAX_CLIENT_FRAME, MAX_SERVER_FRAME, FrameDecoder, ProtocolError, encode

#: A stream peer that lets this much of our output pile up unread is cut off.
MAX_PENDING_OUTPUT = 4 * 1024 * 1024


class ConnectionClosed(Exception):
    """The other end has gone."""


class Connection(ABC):
    """One end of a channel of protocol messages."""

    #: Set by whoever made the connection: may the peer assert an identity in ``hello``?
    trusted: bool = False
    peer: str = "?"

    def __init__(self, max_frame: int) -> None:
        self._decoder = FrameDecoder(max_frame)
        self._ready: deque[dict[str, Any] | ProtocolError] = deque()
        self.closed = False

    async def send(self, message: dict[str, Any]) -> None:
        """Encode and send one message; raises ConnectionClosed if the peer is gone."""
        self.write(encode(message))

    def send_nowait(self, message: dict[str, Any]) -> None:
        """Send without waiting: writes never block (the hub calls this from handlers)."""
        self.write(encode(message))

    async def send_raw(self, data: bytes) -> None:
        """Send bytes as they are (tests use it to send broken frames)."""
        self.write(data)

    @abstractmethod
    def write(self, data: bytes) -> None:
        """Queue bytes for the peer; raises ConnectionClosed if it is gone."""

    @abstractmethod
    async def _read_some(self) -> bytes:
        """The next chunk of bytes; b"" at the end."""

    async def recv(self) -> dict[str, Any] | ProtocolError:
        while not self._ready:
            if self.closed:
                raise ConnectionClosed
            data = await self._read_some()
            if not data:
                self.closed = True
                raise ConnectionClosed
            self._ready.extend(self._decoder.feed(data))
        return self._ready.popleft()

    async def read_bytes(self) -> bytes:
        """The next bytes from the peer as they came, not decoded (a relay passes them on
        untouched); b"" at the end."""
        if self._ready:
            raise RuntimeError("read_bytes after recv has buffered decoded messages")
        if self.closed:
            return b""
        data = await self._read_some()
        if not data:
            self.closed = True
        return data

    @abstractmethod
    async def close(self) -> None:
        """Close both directions; the peer's recv ends with ConnectionClosed."""


class InboxConnection(Connection):
    """An end whose incoming bytes wait in an asyncio queue (None marks the end); a subclass
    says how bytes go out (:meth:`write`) and how the other end learns there are no more
    (:meth:`_end_output`)."""

    def __init__(
        self,
        inbox: asyncio.Queue[bytes | None],
        *,
        max_frame: int,
        trusted: bool = False,
        peer: str = "in-process",
    ) -> None:
        super().__init__(max_frame)
        self._inbox = inbox
        self.trusted = trusted
        self.peer = peer
        self._out_closed = False

    @abstractmethod
    def _end_output(self) -> None:
        """Tell the other end that nothing more comes (once)."""

    async def _read_some(self) -> bytes:
        data = await self._inbox.get()
        return data or b""

    async def close(self) -> None:
        if not self._out_closed:
            self._out_closed = True
            self._end_output()
        self.closed = True
        self._inbox.put_nowait(None)  # wake our own pending recv


class QueueConnection(InboxConnection):
    """In-process end: bytes travel through two asyncio queues (None marks the end)."""

    def __init__(
        self,
        inbox: asyncio.Queue[bytes | None],
        outbox: asyncio.Queue[bytes | None],
        *,
        max_frame: int,
        trusted: bool = False,
        peer: str = "in-process",
    ) -> None:
        super().__init__(inbox, max_frame=max_frame, trusted=trusted, peer=peer)
        self._outbox = outbox

    def write(self, data: bytes) -> None:
        if self._out_closed:
            raise ConnectionClosed
        self._outbox.put_nowait(data)

    def _end_output(self) -> None:
        self._outbox.put_nowait(None)


def queue_pair(
    *, trusted: bool = True, peer: str = "in-process"
) -> tuple[QueueConnection, QueueConnection]:
    """(client end, hub end) of an in-process connection."""
    to_hub: asyncio.Queue[bytes | None] = asyncio.Queue()
    to_client: asyncio.Queue[bytes | None] = asyncio.Queue()
    client = QueueConnection(to_client, to_hub, max_frame=MAX_SERVER_FRAME, peer="hub")
    hub = QueueConnection(to_hub, to_client, max_frame=MAX_CLIENT_FRAME, trusted=trusted, peer=peer)
    return client, hub


class StreamConnection(Connection):
    """A connection over an asyncio stream (TCP or a unix socket)."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        max_frame: int,
        trusted: bool = False,
        peer: str | None = None,
    ) -> None:
        super().__init__(max_frame)
        self._reader = reader
        self._writer = writer
        self.trusted = trusted
        self.peer = peer or str(writer.get_extra_info("peername") or "socket")

    def write(self, data: bytes) -> None:
        if self._writer.is_closing():
            raise ConnectionClosed
        if self._writer.transport.get_write_buffer_size() > MAX_PENDING_OUTPUT:
            self.closed = True
            self._writer.close()  # a peer that does not read is cut off, not buffered forever
            raise ConnectionClosed
        self._writer.write(data)

    async def _read_some(self) -> bytes:
        try:
            return await self._reader.read(65536)
        except (ConnectionError, OSError):
            return b""

    async def close(self) -> None:
        self.closed = True
        if not self._writer.is_closing():
            self._writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self._writer.wait_closed()


async def open_unix(path: str) -> StreamConnection:
    reader, writer = await asyncio.open_unix_connection(path)
    return StreamConnection(reader, writer, max_frame=MAX_SERVER_FRAME, peer="hub")


async def open_tcp(host: str, port: int, source: str | None = None) -> StreamConnection:
    """A client's connection; ``source``: the local address to connect from."""
    local = (source, 0) if source else None
    reader, writer = await asyncio.open_connection(host, port, local_addr=local)
    return StreamConnection(reader, writer, max_frame=MAX_SERVER_FRAME, peer="hub")


__all__ = [
    "Connection",
    "ConnectionClosed",
    "ProtocolError",
    "QueueConnection",
    "StreamConnection",
    "open_tcp",
    "open_unix",
    "queue_pair",
]
