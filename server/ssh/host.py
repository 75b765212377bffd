"""The asyncssh server: who may come in, as whom, and how many.

The bridge between SSH and the hub (like ssh-chat's ``host.go``): it authenticates, counts
connections and sessions, refuses everything but terminal sessions, and gives each PTY session
a :class:`~server.ssh.session.GameSession`, which asks it for what it needs through
:class:`~.session_host.SessionHost` and starts its app through the host's
:class:`~server.apphost.launcher.AppLauncher` (in this process, or the app workers' pool). Game
logic never sees SSH.

Who is who:

* Any username. ``play`` and ``guest`` mean "no wish"; ``plain`` and ``NAME+plain`` start the
  plain mode for screen readers (issue 44), as does a key whose player chose it in their
  settings (``screen`` and ``NAME+screen`` then start the full screen once); anything else is
  the display name the player would like (the hub decides whether they get it).
* A public key the client offers (and proves it holds) is accepted, and its SHA256
  fingerprint is the player's identity: the same key is the same player, from any device.
* A client without a key joins as a guest, through keyboard-interactive auth with no prompts.
* ``--authorized-keys FILE`` accepts only the keys listed there. ``--password PW``: keyless
  players (and keys not in that file) must give the password, and play as guests. With either
  option set, nobody gets in without one of them.

In which language: what a session says (``messages.py``: no terminal, a command, sftp, the
server full, the goodbyes) is in the player's language (:meth:`GameSession.language`). The
rest stays in English, on purpose:

* the disconnects said before login (the door's and this module's: the server full, too many
  connections, new connections or failed logins from an address, too many logging in, a
  banned key). Before login the client has sent no environment (OpenSSH sends ``LANG`` with a
  session, after login) and proven no key, so nothing tells the player's language; and saying
  an offered key's stored language to whoever offers it would tell anyone who has a player's
  public key which language that player chose.
* the forwarding refusal: after login, but outside any session, so without ``LANG``.

The OpenSSH client shows both through its log, which writes every non-ASCII byte as an octal
escape (``\\320\\243…``): Ukrainian or German there would be unreadable anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import socket
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

import asyncssh

from server.admission import Admission, AdmissionLimits
from server.apphost.in_process import AppFactory, InProcessLauncher, default_app_factory
from server.apphost.launcher import AppLauncher
from server.apphost.memo_ages import MemoAges
from server.apphost.workers import AppWorkers
from server.gc_freeze import FrozenSessions

from . import asyncssh_layer
from .config import HostConfig
from .door import ADMITTED_ADDRESS, FrontDoor
from .live_sessions import LiveSessions
from .messages import FULL, STOPPING, TOO_MANY_SESSIONS
from .session import GameSession
from .session_host import FrameObserver, HostedSession
from .subsystem import PlayerSession

if TYPE_CHECKING:  # for type hints only
    from protocol.connection import Connection

log = logging.getLogger(__name__)

#: Kernel send buffer per connection. Linux would grow it to megabytes for a client that reads
#: slowly, and every byte there is a stale frame the player still has to receive; a frame
#: skipped before it reaches the kernel (see driver.py) costs them nothing.
SEND_BUFFER = 128 * 1024


class BanList(Protocol):
    def banned(self, *, fingerprint: str | None = None, address: str | None = None) -> str | None:
        """Why an address or a key is banned (a sentence for its client), if it is."""


class ServedHub(Protocol):
    """What the host needs of a hub: the one in this process (:class:`~server.hub.Hub`) or
    one across the bus (:class:`~server.bus.gateway.RemoteHub`)."""

    @property
    def admin(self) -> BanList: ...

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]: ...

    async def serve(self, conn: Connection) -> None: ...

    def stored_language(self, identity: str | None) -> str | None: ...

    def stored_plain(self, identity: str | None) -> bool: ...


class SSHHost:
    """One listening SSH server in front of one hub: a
    :class:`~.session_host.SessionHost` to its sessions.

    ``sessions``: where the running sessions are kept (give the hub its ``describe``; made
    here when not given). ``app_factory``: the app each session runs in this process, when the
    server has no app workers (tests give a stand-in). ``frame_observers``: told of every frame
    written to a player (more may be added to :attr:`frame_observers` while it runs).
    """

    def __init__(
        self,
        hub: ServedHub,
        config: HostConfig,
        host_key: asyncssh.SSHKey,
        app_factory: AppFactory | None = None,
        *,
        sessions: LiveSessions | None = None,
        frame_observers: list[FrameObserver] | None = None,
    ) -> None:
        self.hub = hub
        self.config = config
        self.idle_timeout = config.idle_timeout
        self.host_key = host_key
        #: Where apps run: here, until :meth:`start` starts the app workers, if any.
        self.launcher: AppLauncher = InProcessLauncher(app_factory or default_app_factory)
        self.frame_observers: list[FrameObserver] = list(frame_observers or ())
        self.allowed_keys: asyncssh.SSHAuthorizedKeys | None = None
        if config.authorized_keys is not None:
            self.allowed_keys = asyncssh.read_authorized_keys(str(config.authorized_keys))
        self.admission = Admission(
            AdmissionLimits(
                max_per_address=config.max_per_address,
                max_unauthenticated=config.max_unauthenticated,
                connection_burst=config.connection_burst,
                connections_per_second=config.connections_per_second,
                max_auth_failures=config.max_auth_failures,
            )
        )
        self.door = FrontDoor(
            self, reuse_port=config.reuse_port, proxy_protocol=config.proxy_protocol
        )
        #: The running sessions (players' terminals).
        self.sessions = sessions if sessions is not None else LiveSessions()
        self.open_connections: set[asyncssh.SSHServerConnection] = set()
        self._server: asyncssh.SSHAcceptor | None = None
        self.port = config.port
        # (Apps in workers: this process's sessions are light, see gc_freeze.py.)
        light = config.app_workers > 0
        self.memory = FrozenSessions(light=light) if config.freeze_sessions else None
        # (apps in this process: their shared memos are emptied now and then, see memo_ages)
        self.memos = MemoAges() if config.freeze_sessions and not light else None
        self.workers: AppWorkers | None = None

    @property
    def private(self) -> bool:
        """Password or key list set: nobody comes in without one of them."""
        return self.config.password is not None or self.allowed_keys is not None

    @property
    def public_host(self) -> str:
        """The host name to show players in messages."""
        if self.config.host in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "::", ""):
            return "localhost" if self.config.host in ("127.0.0.1", "::1") else socket.gethostname()
        return self.config.host

    async def start(self) -> int:
        """Listen; returns the port (useful with port 0)."""
        config = self.config
        if config.app_workers > 0:
            self.workers = AppWorkers(
                config.app_workers,
                log_file=config.log_file,
                verbose=config.verbose,
                log_json=config.log_json,
                max_rss_mb=config.worker_max_rss,
            )
            await self.workers.start()
            self.launcher = self.workers
        asyncssh_layer.install()  # (half the packets: see the module)
        self._server = await asyncssh.listen(
            config.host,
            config.port,
            tunnel=self.door,  # refuses connections before asyncssh makes anything of them
            server_factory=lambda: GambitServer(self),
            server_host_keys=[self.host_key],
            # Thin links: players who connect with ``ssh -C`` get zlib after authentication.
            compression_algs=["zlib@openssh.com", "none"],
            encoding=None,  # bytes: the driver decodes UTF-8 itself, split packets and all
            line_editor=False,  # the app reads keys, not lines
            allow_pty=True,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            keepalive_interval=config.keepalive_interval or None,
            keepalive_count_max=3,
            login_timeout=config.login_timeout,
        )
        sockets = self._server.sockets
        if sockets:
            self.port = sockets[0].getsockname()[1]
        if self.memory is not None:
            self.memory.started()
        if self.memos is not None:
            self.memos.start()
        return self.port

    async def close(self) -> None:
        """Stop listening and end every session, each player told why first.

        Bounded: about 9 s at most, so ``gambit serve`` stops within its own limit
        (``serve.STOP_TIMEOUT``) even with a player whose app or connection hangs.
        """
        if self.workers is not None:
            self.workers.stop_restarts()  # a worker that ends now is not replaced
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1)
        tasks = [s.task for s in self.sessions if s.task is not None]
        for session in self.sessions:
            session.stop(STOPPING)
        if tasks:
            await asyncio.wait(tasks, timeout=4)
        # Clients leave once their session has ended; closing a connection under them
        # would lose the goodbye still in their buffers (OpenSSH exits on a disconnect).
        closing = [asyncio.ensure_future(c.wait_closed()) for c in self.open_connections]
        if closing:
            await asyncio.wait(closing, timeout=2)
        for conn in list(self.open_connections):
            conn.close()
        if self.workers is not None:
            await self.workers.close(timeout=2)
        if self.memory is not None:
            self.memory.close()
        if self.memos is not None:
            self.memos.close()

    async def abort(self) -> None:
        """What :meth:`close` did not finish in time: drop every connection, kill workers."""
        if self._server is not None:
            self._server.close()
        for conn in list(self.open_connections):
            conn.abort()
        if self.workers is not None:
            await self.workers.kill()
        if self.memory is not None:
            self.memory.close()
        if self.memos is not None:
            self.memos.close()

    # --- counting --------------------------------------------------------------------------

    def connection_refusal(self, address: str) -> str | None:
        """Why a new connection from ``address`` may not come in, if it may not (in English:
        said before login, see the module's docstring)."""
        if len(self.open_connections) >= self.config.max_sessions + self.config.max_unauthenticated:
            self.admission.refused["full"] += 1
            return f"The server is full ({self.config.max_sessions} players). Try again later."
        refusal = self.admission.refusal(address)
        if refusal is None:
            refusal = self.hub.admin.banned(address=address)  # (after the cheap checks)
            if refusal is not None:
                self.admission.refused["banned"] += 1
        return refusal

    def refusal_explained(self, address: str) -> bool:
        """Whether a refused connection from ``address`` is told why (else only closed)."""
        return self.admission.explain(address)

    def session_refusal(self, address: str) -> tuple[str, dict[str, Any]] | None:
        """Why a new game session from ``address`` may not start, if it may not: a sentence
        of ``messages.py`` and its gaps (the session says it in the player's language)."""
        if len(self.sessions) >= self.config.max_sessions:
            return FULL, {"players": self.config.max_sessions}
        if self.sessions.from_address(address) >= self.config.max_per_address:
            return TOO_MANY_SESSIONS, {}
        return None

    def session_language(self, conn: Connection) -> str | None:
        """The language the hub speaks to the player on its end ``conn`` of a session (None:
        unknown, or a hub across a bus)."""
        language_on = getattr(self.hub, "language_on", None)
        if language_on is None:
            return None
        try:
            return language_on(conn)
        except Exception:  # the goodbye is still said (in the client's language or English)
            log.exception("could not look up a session's language")
            return None

    def stored_language(self, identity: str | None) -> str | None:
        """The language stored with ``identity``'s key, as far as the hub can tell at once
        (None: a guest, a key without one, a hub across a bus, or a store that failed)."""
        if identity is None:
            return None
        try:
            return self.hub.stored_language(identity)
        except Exception:  # a refusal is still said (in the client's language or English)
            log.exception("could not look up the language stored with a key")
            return None

    def stored_plain(self, identity: str | None) -> bool:
        """Whether ``identity``'s player chose the plain mode in their settings, as far as
        the hub can tell at once (False: a guest, a hub across a bus, a store that failed)."""
        if identity is None:
            return False
        try:
            return self.hub.stored_plain(identity)
        except Exception:  # the full-screen app still starts
            log.exception("could not look up the plain mode stored with a key")
            return False

    def serve_hub(self, session: HostedSession) -> asyncio.Task[Any]:
        conn = session.hub_conn
        assert conn is not None, "a session is served once it has its hub connection"
        self.sessions.serving(session)
        return self.hub.spawn(self.hub.serve(conn))

    def shown_address(self) -> tuple[str, int]:
        return self.public_host, self.port

    def session_opened(self, session: HostedSession) -> None:
        self.sessions.add(session)
        if self.memory is not None:
            self.memory.session_started()

    def session_closed(self, session: HostedSession) -> None:
        if self.sessions.discard(session) and self.memory is not None:
            self.memory.session_ended(len(self.sessions))


class GambitServer(asyncssh.SSHServer):
    """asyncssh's per-connection callbacks: authentication and what channels may open."""

    def __init__(self, host: SSHHost) -> None:
        self.host = host
        self.conn: asyncssh.SSHServerConnection | None = None
        self.address = "?"
        self.username = ""
        self.identity: str | None = None
        # The key of the publickey attempt in progress. Any other method clears it, so a
        # key offered with a bad signature can never become the identity of a guest login.
        self._candidate: asyncssh.SSHKey | None = None
        self._counted = False  # let in and counted by the host's admission
        self._refusal: str | None = None  # or refused, and why
        self._failed = False  # a login attempt was refused on this connection

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.address = str(peer[0]) if peer else "?"
        host = self.host
        admitted = conn.get_extra_info(ADMITTED_ADDRESS)
        if admitted is not None:  # judged at the door (by the address a PROXY header gave)
            self.address = admitted
        else:  # not through the door (tests)
            refusal = host.connection_refusal(self.address)
            if refusal is not None:
                log.info("refused connection from %s: %s", self.address, refusal)
                self._refusal = refusal  # said when it asks to log in (begin_auth)
                return
        self._counted = True
        host.open_connections.add(conn)
        oldest = host.admission.opened(conn, self.address)
        if oldest is not None:
            log.info("too many connections logging in; dropping the oldest")
            oldest.disconnect(
                asyncssh.DISC_TOO_MANY_CONNECTIONS, "Too many connections are logging in."
            )
        sock = conn.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._counted:
            return
        self._counted = False
        host = self.host
        host.open_connections.discard(self.conn)
        if self._failed and self.conn in host.admission.pending:
            host.admission.failed(self.address)  # a key-only server: no key it knows
        host.admission.closed(self.conn, self.address)

    def begin_auth(self, username: str) -> bool:
        """Always authenticate: a client's key, if it has one, is who it is."""
        if self._refusal is not None:
            raise asyncssh.DisconnectError(asyncssh.DISC_TOO_MANY_CONNECTIONS, self._refusal)
        self.username = username
        return True

    def public_key_auth_supported(self) -> bool:
        config = self.host.config
        return self.host.allowed_keys is not None or config.password is None

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        """Any key may log in (it is the player's identity), unless a key list is set. A
        banned key is refused outright, before it could log in another way."""
        host = self.host
        banned = host.hub.admin.banned(fingerprint=key.get_fingerprint("sha256"))
        if banned is not None:
            host.admission.refused["banned"] += 1
            log.info("refused a banned key from %s", self.address)
            raise asyncssh.DisconnectError(asyncssh.DISC_ILLEGAL_USER_NAME, banned)
        if host.allowed_keys is not None:
            allowed = host.allowed_keys.validate(key, self.address, self.address) is not None
        else:
            allowed = host.config.password is None
        self._candidate = key if allowed else None
        self._failed = self._failed or not allowed
        return allowed

    def kbdint_auth_supported(self) -> bool:
        """Guests: keyboard-interactive with no prompt at all, on an open server only."""
        return not self.host.private

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        self._candidate = None
        return not self.host.private

    def password_auth_supported(self) -> bool:
        return self.host.config.password is not None

    async def validate_password(self, username: str, password: str) -> bool:
        self._candidate = None
        expected = self.host.config.password
        if expected is not None and hmac.compare_digest(password.encode(), expected.encode()):
            return True
        # Each failure from an address answers later than the last, then the address is
        # refused for a while (see admission.py): guessing costs the guesser, not the server.
        admission = self.host.admission
        delay = admission.failed(self.address)
        log.info("wrong password from %s", self.address)
        await asyncio.sleep(delay)
        if admission.banned(self.address) and self.conn is not None:
            self.conn.disconnect(
                asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
                "Too many failed logins from your address; try again later.",
            )
        return False

    def auth_completed(self) -> None:
        self.host.admission.authenticated(self.conn)
        if self._candidate is not None:
            self.identity = self._candidate.get_fingerprint("sha256")
        log.info(
            "%s logged in from %s as %s",
            self.username,
            self.address,
            self.identity or "a guest",
        )

    def session_requested(self) -> GameSession:
        host = self.host
        return PlayerSession(
            host,
            host.launcher,
            identity=self.identity,
            username=self.username,
            address=self.address,
        )

    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int):
        raise asyncssh.ChannelOpenError(
            asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, "Gambit does not forward connections."
        )

    def unix_connection_requested(self, dest_path: str):
        raise asyncssh.ChannelOpenError(
            asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, "Gambit does not forward connections."
        )

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        log.info("refused port forwarding from %s", self.address)
        return False

    def unix_server_requested(self, listen_path: str) -> bool:
        return False
