"""The front door: connections refused before asyncssh builds anything for them.

asyncssh makes a whole SSH connection (its state, our version string) for every TCP
connection accepted, and a client hanging up and connecting again in a tight loop was
refused thousands of times a second that way, which took the server's event loop from the
players. So the SSH host listens through this door (asyncssh's ``tunnel`` interface: an object
with ``create_server``), which asks the host's admission about each new connection first:
one let in goes on to asyncssh as usual; one refused is told why (in an SSH disconnect, by
asyncssh) only the first few times a minute from its address, and after that simply closed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .host import SSHHost

log = logging.getLogger(__name__)


class FrontDoor:
    """What ``asyncssh.listen(tunnel=…)`` listens through."""

    def __init__(self, host: SSHHost) -> None:
        self.host = host
        #: Connections closed at the door without a word (the bench and tests count them).
        self.dropped = 0

    async def create_server(
        self, session_factory: Callable[[str, int], Any], listen_host: str, listen_port: int
    ) -> asyncio.AbstractServer:
        loop = asyncio.get_running_loop()
        return await loop.create_server(
            lambda: _Gate(self, session_factory), listen_host or None, listen_port
        )


#: How long a refused client is given to read why before its connection is closed.
REFUSAL_GRACE = 2.0
SSH_MSG_DISCONNECT = 1
DISC_TOO_MANY_CONNECTIONS = 12


def disconnect_packet(reason: str, code: int = DISC_TOO_MANY_CONNECTIONS) -> bytes:
    """An SSH_MSG_DISCONNECT as the first binary packet (no keys yet: plain, RFC 4253 6)."""
    text = reason.encode()
    payload = (
        bytes([SSH_MSG_DISCONNECT])
        + code.to_bytes(4, "big")
        + len(text).to_bytes(4, "big")
        + text
        + (0).to_bytes(4, "big")  # language tag: none
    )
    padding = 8 - (len(payload) + 5) % 8
    padding += 8 if padding < 4 else 0
    length = len(payload) + padding + 1
    return length.to_bytes(4, "big") + bytes([padding]) + payload + bytes(padding)


class _Gate(asyncio.Protocol):
    """One accepted socket: handed to asyncssh's connection if let in; if refused, told why
    here (the first few times a minute from its address) or closed at once."""

    def __init__(self, door: FrontDoor, session_factory: Callable[[str, int], Any]) -> None:
        self.door = door
        self.session_factory = session_factory
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.refusal: str | None = None
        self._heard = False  # the client's version line has come (a refusal may be said)
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        host = self.door.host
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if peer else "?"
        refusal = host.connection_refusal(address)
        if refusal is not None:
            if not host.admission.explain(address):
                self.door.dropped += 1
                transport.abort()
                return
            self._refuse(transport, address, refusal)
            return
        # The verdict travels with the call: GambitServer.connection_made (inside asyncssh's
        # connection_made, just below) reads it instead of asking admission a second time.
        host.verdict = (address, None)
        try:
            self.inner = self.session_factory(address, peer[1] if peer else 0)
            self.inner.connection_made(transport)
        finally:
            host.verdict = None

    # --- a refusal, said in SSH's own words ----------------------------------------------

    def _refuse(self, transport: asyncio.BaseTransport, address: str, refusal: str) -> None:
        """Our version, then (once the client's is read) a disconnect saying why; everything
        the client sends is read and dropped until it hangs up, so the socket closes cleanly
        (closing one with data unread resets it, and the client would lose our words)."""
        log.info("refused connection from %s: %s", address, refusal)
        self.transport = transport  # type: ignore[assignment]
        self.refusal = refusal
        transport.write(b"SSH-2.0-Gambit\r\n")  # type: ignore[attr-defined]
        self._timer = asyncio.get_running_loop().call_later(REFUSAL_GRACE, self._hang_up)

    def _hang_up(self) -> None:
        self._timer = None
        if self.transport is not None:
            self.transport.close()

    # --- forwarded to asyncssh ---------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self.inner is not None:
            self.inner.data_received(data)
        elif self.refusal is None or self.transport is None or self._heard:
            return  # a refused client's further words are read and dropped
        elif b"\n" in data:  # the end of the client's version line: now it listens
            self._heard = True
            self.transport.write(disconnect_packet(self.refusal))

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self.inner is not None:
            self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()
