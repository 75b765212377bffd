"""A message connection over one SSH channel: the ``gambit`` subsystem, from either end.

The channel carries the protocol's length-prefixed msgpack frames (:mod:`protocol.codec`)
both ways, byte for byte as the in-process and socket transports do, so an app on a player's
own machine sees what an app on the server sees. The server's end gets its bytes from its
SSH session's ``data_received`` (:meth:`ChannelConnection.received`); a client opens the
channel with :func:`open_channel`.

Reading is flow-controlled: when too much arrived and was not read yet, the channel stops
reading (SSH's window then stops the peer) until the reader catches up.
"""

from __future__ import annotations

import asyncio
from typing import Any

import asyncssh
from asyncssh.channel import SSHChannel

from .codec import MAX_SERVER_FRAME
from .connection import MAX_PENDING_OUTPUT, ConnectionClosed, InboxConnection

#: The name of the subsystem: ``ssh -s -p PORT host gambit``.
SUBSYSTEM = "gambit"
#: Bytes received and not read yet past which the channel stops reading.
MAX_UNREAD = 256 * 1024


class ChannelConnection(InboxConnection):
    """One end of a protocol connection whose bytes travel over an SSH channel."""

    def __init__(self, *, max_frame: int, trusted: bool = False, peer: str = "ssh") -> None:
        super().__init__(asyncio.Queue(), max_frame=max_frame, trusted=trusted, peer=peer)
        self.chan: SSHChannel[bytes] | None = None
        #: What the peer wrote on the channel's stderr (a server refusing the subsystem).
        self.stderr = bytearray()
        self._unread = 0
        self._paused = False
        self._ended = False

    def attach(self, chan: SSHChannel[bytes]) -> None:
        self.chan = chan

    # --- what the channel brings ---------------------------------------------------------

    def received(self, data: bytes) -> None:
        """Bytes from the peer (the session's ``data_received``)."""
        if self._ended or not data:
            return
        self._unread += len(data)
        self._inbox.put_nowait(data)
        if self._unread > MAX_UNREAD and not self._paused and self.chan is not None:
            self._paused = True
            self.chan.pause_reading()

    def ended(self) -> None:
        """The peer sent EOF, or the channel is gone: the reader sees the end (once)."""
        if not self._ended:
            self._ended = True
            self._inbox.put_nowait(None)

    async def _read_some(self) -> bytes:
        data = await self._inbox.get()
        if data:
            self._unread -= len(data)
            if self._paused and self._unread <= MAX_UNREAD // 2 and self.chan is not None:
                self._paused = False
                self.chan.resume_reading()
        return data or b""

    # --- what goes out ---------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        chan = self.chan
        if self._out_closed or chan is None or chan.is_closing():
            raise ConnectionClosed
        if chan.get_write_buffer_size() > MAX_PENDING_OUTPUT:
            self.closed = True  # a peer that does not read is cut off, not buffered forever
            self._out_closed = True
            chan.close()
            raise ConnectionClosed
        try:
            chan.write(data)
        except (BrokenPipeError, ConnectionError, OSError):
            raise ConnectionClosed from None

    def _end_output(self) -> None:
        if self.chan is not None:
            self.chan.close()


class _ClientSession(asyncssh.SSHClientSession[bytes]):
    """A client's side of the channel: everything goes to its connection."""

    def __init__(self, conn: ChannelConnection) -> None:
        self.conn = conn

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        if datatype == asyncssh.EXTENDED_DATA_STDERR:
            if len(self.conn.stderr) < 4096:
                self.conn.stderr += data
            return
        self.conn.received(data)

    def eof_received(self) -> bool:
        self.conn.ended()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.conn.ended()


async def open_channel(
    ssh: asyncssh.SSHClientConnection, subsystem: str = SUBSYSTEM, **options: Any
) -> ChannelConnection:
    """The client's end of a ``gambit`` channel on an SSH connection already logged in."""
    conn = ChannelConnection(max_frame=MAX_SERVER_FRAME, peer="hub")
    chan, _ = await ssh.create_session(
        lambda: _ClientSession(conn), subsystem=subsystem, encoding=None, **options
    )
    conn.attach(chan)
    return conn


__all__ = ["SUBSYSTEM", "ChannelConnection", "open_channel"]
