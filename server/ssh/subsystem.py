"""The ``gambit`` subsystem: the protocol itself over an SSH channel, for apps run by players.

``ssh -s -p PORT host gambit`` (and ``gambit connect``) opens a channel that carries the
protocol's length-prefixed msgpack frames both ways, as an app worker's link carries them:
no terminal, no app on the server, only the player's own program talking to the hub. It
comes in through the same front door as a terminal session, so the door's limits, the login
(a key is the identity, no key a guest, a banned key refused), the per-address and server
session limits, the idle timeout and the goodbye on shutdown are the same; the hub applies
its own (frame size, message budgets, bad frames, the hello's deadline and version).

Identity comes from the SSH login, never from the client's hello (:mod:`.hello_gate`). What
the host says itself on this channel (a full server, idling out, stopping) is a protocol
``bye`` whose words are the host's sentences (``messages.py``) in the player's language.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any

import asyncssh

from protocol.codec import MAX_CLIENT_FRAME, ProtocolError, encode
from protocol.connection import MAX_PENDING_OUTPUT, ConnectionClosed
from protocol.ssh_channel import SUBSYSTEM, ChannelConnection
from server.hub.session import chosen_language
from server.write_pacer import WritePacer, pacer

from .hello_gate import HelloGate
from .messages import idle_goodbye, say
from .session import GameSession

if TYPE_CHECKING:  # for type hints only
    from server.apphost.launcher import AppLauncher

    from .session_host import SessionHost

log = logging.getLogger(__name__)


class HubChannel(ChannelConnection):
    """The hub's end of a ``gambit`` channel: trusted, its hello's identity the SSH key's."""

    def __init__(self, identity: str | None, peer: str) -> None:
        super().__init__(max_frame=MAX_CLIENT_FRAME, trusted=True, peer=peer)
        self.gate = HelloGate(identity)
        #: Bytes written and not yet on the channel: the loop's pacer writes them
        #: (server/write_pacer.py), joined, after this turn of the loop or a later one.
        self._pending = bytearray()
        self._pacer: WritePacer | None = None

    def write(self, data: bytes) -> None:
        chan = self.chan
        if self._out_closed or chan is None or chan.is_closing():
            raise ConnectionClosed
        if chan.get_write_buffer_size() + len(self._pending) > MAX_PENDING_OUTPUT:
            self.closed = True  # a peer that does not read is cut off, not buffered forever
            self._out_closed = True
            self._pending.clear()
            chan.close()
            raise ConnectionClosed
        self._pending += data
        if self._pacer is None:
            self._pacer = pacer()
        self._pacer.due(self)

    def flush_now(self) -> None:
        """Write what waits on the channel now (the pacer's turn, or before last words)."""
        if not self._pending:
            return
        data, self._pending = bytes(self._pending), bytearray()
        if self._pacer is not None:
            self._pacer.forget(self)
        chan = self.chan
        if chan is None or chan.is_closing():
            return
        try:
            super().write(data)
        except ConnectionClosed:
            self._out_closed = True

    def received(self, data: bytes) -> None:
        """Raises :class:`ProtocolError` for a frame the gate cannot pass (see hello_gate)."""
        super().received(self.gate.feed(data))

    def last_word(self, message: dict[str, Any]) -> None:
        """Send ``message`` (a bye) and nothing after it: the hub's later writes are refused."""
        self.flush_now()  # (what it was sent before goes first)
        if not self._out_closed and self.chan is not None and not self.chan.is_closing():
            with contextlib.suppress(Exception):
                self.chan.write(encode(message))
        self._out_closed = True

    def _end_output(self) -> None:
        """Nothing here: the session ends the channel, with its exit status, once the hub has
        finished with it."""


class PlayerSession(GameSession):
    """An SSH session: a terminal running an app (:class:`GameSession`), or a ``gambit``
    channel served by the hub directly."""

    def __init__(
        self,
        host: SessionHost,
        launcher: AppLauncher,
        *,
        identity: str | None,
        username: str,
        address: str,
    ) -> None:
        super().__init__(host, launcher, identity=identity, username=username, address=address)
        #: The hub's end of the ``gambit`` channel, when this session is one.
        self.channel: HubChannel | None = None
        self._said_bye = False

    # --- asyncssh callbacks ----------------------------------------------------------------

    def subsystem_requested(self, subsystem: str) -> bool:
        if subsystem != SUBSYSTEM or self.channel is not None:
            return super().subsystem_requested(subsystem)
        log.info("gambit channel from %s", self.address)
        self.channel = HubChannel(self.identity, peer=f"ssh channel {self.address}")
        return True

    def session_started(self) -> None:
        channel = self.channel
        if channel is None:
            super().session_started()
            return
        assert self.chan is not None
        channel.attach(self.chan)
        full = self.host.session_refusal(self.address)
        if full is not None:
            sentence, fields = full
            self._bye("refused", sentence, fields)
            self.chan.exit(1)
            return
        self.host.session_opened(self)
        self.task = asyncio.get_running_loop().create_task(self._serve_channel(channel))

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        channel = self.channel
        if channel is None:
            super().data_received(data, datatype)
            return
        self.last_input = time.monotonic()
        try:
            channel.received(data)
        except ProtocolError as err:
            log.info("gambit channel from %s: %s; closing", self.address, err.message)
            channel.last_word({"t": "bye", "code": err.code, "message": err.message})
            self._said_bye = True
            channel.ended()

    def eof_received(self) -> bool:
        if self.channel is None:
            return super().eof_received()
        self.channel.ended()
        return True  # half open: the hub's last words still go out, then the session exits

    def connection_lost(self, exc: Exception | None) -> None:
        if self.channel is None:
            super().connection_lost(exc)
            return
        self._closed = True
        self.channel.ended()

    # --- serving the channel ---------------------------------------------------------------

    async def _serve_channel(self, channel: HubChannel) -> None:
        """Let the hub serve the channel until either end closes it."""
        self.hub_conn = channel
        self._arm_idle()
        try:
            await self.host.serve_hub(self)
        except Exception:
            log.exception("gambit channel from %s failed", self.address)
        finally:
            if self._idle_handle is not None:
                self._idle_handle.cancel()
            self.hub_conn = None
            self.host.session_closed(self)
            channel.flush_now()  # (the hub's last messages, before the exit status)
            if not self._closed and self.chan is not None:
                with contextlib.suppress(Exception):
                    self.chan.exit(1 if self._said_bye else 0)

    def _stop_app(self) -> None:
        """The host ends the session (idle, stopping) or the client has gone."""
        channel = self.channel
        if channel is None:
            super()._stop_app()
            return
        if self.idle_out:
            sentence, fields = idle_goodbye(self.host.idle_timeout)
            self._bye("idle", sentence, fields)
        elif self.goodbye is not None:
            self._bye("server", self.goodbye, {})
        channel.ended()

    def _bye(self, code: str, sentence: str, fields: dict[str, Any]) -> None:
        """Say one of the host's sentences as the channel's last message."""
        if self.channel is None or self._said_bye:
            return
        self._said_bye = True
        host, port = self.host.shown_address()
        fields = {"host": host, "port": port, **fields}
        text = say(self._channel_language(), sentence, **fields).decode()
        text = text.replace("\r\n", "\n").rstrip("\n")
        self.channel.last_word({"t": "bye", "code": code, "message": text})

    def _channel_language(self) -> str:
        """The player's language as the hub knows it, else the one stored with their key."""
        if self.channel is not None:
            lang = self.host.session_language(self.channel)
            if lang:
                return lang
        return chosen_language(None, self.host.stored_language(self.identity))
