"""The front door: connections refused before anything is built for them.

asyncssh (through asyncio's server) makes a task, a transport and a whole SSH connection (its
state, our version string) for every TCP connection accepted, and a client hanging up and
connecting again in a tight loop was refused thousands of times a second that way, which took
the server's event loop from the players. So the SSH host listens through this door (given to
asyncssh as its ``tunnel``: an object with ``create_server``), which accepts sockets itself and
asks the host's admission about each before anything else: one let in goes on to asyncssh as
usual; one refused is told why (an SSH disconnect) the first few times a minute from its
address, and after that only closed, at the cost of two system calls.

Behind a balancer (``proxy_protocol``), a socket's PROXY header is read first (with a time
limit) and the address it names is the one admission judges and everything after sees.

The door's verdict travels with the connection it let in: the address it judged, and the
socket's transport, are set on asyncssh's connection (its public ``set_extra_info``) before
asyncssh tells the host's per-connection server of it (:data:`ADMITTED_ADDRESS`,
:data:`TRANSPORT`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable
from typing import Any, Protocol

from . import proxy_protocol

log = logging.getLogger(__name__)

#: The extra-info name under which a connection let in carries the address the door judged.
ADMITTED_ADDRESS = "gambit_admitted_address"
#: ... and its socket's transport: the bytes waiting there are the player's backlog too
#: (``GameSession.pending_output``), and asyncssh's connection has no public way to it.
TRANSPORT = "gambit_transport"


class DoorKeeper(Protocol):
    """Whom the door asks about each connection (the SSH host)."""

    def connection_refusal(self, address: str) -> str | None:
        """Why a new connection from ``address`` may not come in, if it may not."""

    def refusal_explained(self, address: str) -> bool:
        """Whether a refused client from ``address`` is told why (else only closed)."""


#: Sockets accepted per wake-up of a listening socket, at most (then the loop runs others).
ACCEPT_BATCH = 64


class FrontDoor:
    """What ``asyncssh.listen(tunnel=…)`` listens through."""

    def __init__(self, keeper: DoorKeeper, *, reuse_port: bool, proxy_protocol: bool) -> None:
        self.keeper = keeper
        self.reuse_port = reuse_port
        self.proxy_protocol = proxy_protocol
        #: Connections closed at the door without a word (the bench and tests count them).
        self.dropped = 0

    async def create_server(
        self, session_factory: Callable[[str, int], Any], listen_host: str, listen_port: int
    ) -> Listener:
        return Listener(self, session_factory, listen_host, listen_port)


class Listener:
    """Listening sockets, accepted by hand; what asyncssh and the host need of a server."""

    def __init__(
        self,
        door: FrontDoor,
        session_factory: Callable[[str, int], Any],
        host: str,
        port: int,
    ) -> None:
        self.door = door
        self.session_factory = session_factory
        self.loop = asyncio.get_running_loop()
        self.sockets: list[socket.socket] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
        try:
            for family, kind, proto, _, address in dict.fromkeys(infos):
                sock = socket.socket(family, kind, proto)
                self.sockets.append(sock)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if door.reuse_port:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
                if family == socket.AF_INET6:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                if port == 0 and len(self.sockets) > 1:  # every family on the one free port
                    address = (address[0], self.sockets[0].getsockname()[1], *address[2:])
                sock.bind(address)
                sock.listen(128)
                sock.setblocking(False)
                self.loop.add_reader(sock.fileno(), self._accept, sock)
        except BaseException:
            self.close()
            raise

    def _accept(self, listening: socket.socket) -> None:
        keeper = self.door.keeper
        for _ in range(ACCEPT_BATCH):
            try:
                conn, peer = listening.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as err:  # e.g. out of file descriptors: try again next wake-up
                log.warning("could not accept a connection: %s", err)
                return
            if self.door.proxy_protocol:
                conn.setblocking(False)
                task = self.loop.create_task(self._open_proxied(conn, peer))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
                continue
            address = str(peer[0]) if peer else "?"
            refusal = keeper.connection_refusal(address)
            if refusal is not None and not keeper.refusal_explained(address):
                self.door.dropped += 1
                conn.close()
                continue
            conn.setblocking(False)
            task = self.loop.create_task(self._open(conn, address, peer, refusal))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _open_proxied(self, conn: socket.socket, peer: Any) -> None:
        """Read the balancer's PROXY header, then judge the client it names."""
        try:
            address, rest = await asyncio.wait_for(
                proxy_protocol.read_header(conn), proxy_protocol.HEADER_TIMEOUT
            )
        except (proxy_protocol.ProxyHeaderError, TimeoutError, OSError) as err:
            log.info("dropped a connection from %s: %s", peer[0] if peer else "?", err or "timeout")
            self.door.dropped += 1
            conn.close()
            return
        address = address or (str(peer[0]) if peer else "?")  # LOCAL: the balancer's own
        keeper = self.door.keeper
        refusal = keeper.connection_refusal(address)
        if refusal is not None and not keeper.refusal_explained(address):
            self.door.dropped += 1
            conn.close()
            return
        await self._open(conn, address, (address, peer[1] if peer else 0), refusal, rest)

    async def _open(
        self,
        conn: socket.socket,
        address: str,
        peer: Any,
        refusal: str | None,
        early: bytes = b"",
    ) -> None:
        def gate() -> _Gate:
            return _Gate(self.door, self.session_factory, address, peer, refusal, early)

        try:
            await self.loop.connect_accepted_socket(gate, sock=conn)
        except OSError:
            conn.close()

    # --- what a server has -----------------------------------------------------------------

    def close(self) -> None:
        for sock in self.sockets:
            with contextlib.suppress(Exception):
                self.loop.remove_reader(sock.fileno())
            sock.close()

    async def wait_closed(self) -> None:
        return

    def is_serving(self) -> bool:
        return any(sock.fileno() >= 0 for sock in self.sockets)


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
    here (see ``Listener._accept`` for the ones only closed)."""

    def __init__(
        self,
        door: FrontDoor,
        session_factory: Callable[[str, int], Any],
        address: str,
        peer: Any,
        refusal: str | None,
        early: bytes = b"",
    ) -> None:
        self.door = door
        #: Bytes of the client's read with its PROXY header: the start of its SSH stream.
        self.early = early
        self.session_factory = session_factory
        self.address = address
        self.peer = peer
        self.refusal = refusal
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self._heard = False  # the client's version line has come (a refusal may be said)
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if self.refusal is not None:
            self._refuse(transport, self.address, self.refusal)
            if self.early:
                self.data_received(self.early)
            return
        # The verdict travels with the connection: GambitServer.connection_made (inside
        # asyncssh's connection_made, just below) reads it instead of asking admission again.
        inner = self.session_factory(self.address, self.peer[1] if self.peer else 0)
        inner.set_extra_info(**{ADMITTED_ADDRESS: self.address, TRANSPORT: transport})
        self.inner = inner
        inner.connection_made(transport)
        if self.early:
            self.data_received(self.early)

    # --- a refusal, said in SSH's own words ----------------------------------------------

    def _refuse(self, transport: asyncio.BaseTransport, address: str, refusal: str) -> None:
        """Our version, then (once the client's is read) a disconnect saying why; everything
        the client sends is read and dropped until it hangs up, so the socket closes cleanly
        (closing one with data unread resets it, and the client would lose our words)."""
        log.info("refused connection from %s: %s", address, refusal)
        self.transport = transport  # type: ignore[assignment]  # a stream's: it writes
        transport.write(b"SSH-2.0-Gambit\r\n")  # type: ignore[attr-defined]  # (the same)
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
