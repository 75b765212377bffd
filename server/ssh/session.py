"""One SSH session: a player's terminal, running one Gambit app in the server process.

The session turns what the SSH client told us (PTY type and size, the environment it chose to
send) into a :class:`~protocol.term.TermInfo`, opens a trusted in-process connection to the
hub, and runs the app on a :class:`~server.terminal.driver.ChannelDriver`. It is also the boundary
where limits sit: input rate, idle time; and where anything that is not a terminal session
(exec, sftp, a shell without a PTY) is turned away with a message the player can read, in
their language (:meth:`GameSession.language`; the sentences are in ``messages.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import asyncssh

from protocol.connection import Connection, queue_pair
from protocol.term import TermInfo
from server.apphost.app_settings import app_language, prepare_app, term_info
from server.hub.session import chosen_language
from server.terminal.driver import ChannelDriver, bind_term
from server.terminal.early_input import EarlyInput
from server.terminal.term_size import clamp_size

from .messages import NEEDS_PTY, NO_EXEC, NO_SUBSYSTEM, SORRY, idle_goodbye, say

if TYPE_CHECKING:
    from textual.app import App

    from server.apphost.workers import RemoteApp

    from .host import SSHHost

log = logging.getLogger(__name__)

#: ``(conn, term, identity, wished_name) -> app``: how a session makes its app.
AppFactory = Callable[[Connection, TermInfo, "str | None", "str | None"], "App[Any]"]

#: Input rate limit: a burst of this many bytes, refilled at this many per second. Far above
#: anyone typing or clicking; a huge paste is cut short instead of flooding the app.
INPUT_BURST = 16 * 1024
INPUT_PER_SECOND = 4 * 1024


class GameSession(EarlyInput, asyncssh.SSHServerSession[bytes]):
    """One SSH channel of a connection: a PTY session runs an app; anything else is refused.

    The app runs in this process, or on an app worker (``host.workers``) when the server has
    them; either way its hub connection is served by this process's hub, and what it draws
    reaches the player through :meth:`output`.
    """

    #: Instrumentation (metrics, the load benchmark): each is called with every frame's size
    #: as it is written to the player (0: a frame the player's screen already showed).
    observers: ClassVar[list[Callable[[GameSession, int], None]]] = []

    def __init__(self, host: SSHHost, *, identity: str | None, username: str, address: str) -> None:
        EarlyInput.__init__(self)
        self.host = host
        self.identity = identity
        self.username = username
        self.address = address
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.term_type: str | None = None
        self.size = (80, 24)
        self.refusal: bytes | None = None
        #: The app, or a worker's :class:`~.workers.RemoteApp` (both have ``exit``) ...
        self.app: App[Any] | RemoteApp | None = None
        #: ... and what takes its keystrokes and window changes (``feed``, ``resize``).
        self.driver: ChannelDriver | RemoteApp | None = None
        self.task: asyncio.Task[None] | None = None
        #: The hub's end of this session's connection (tools match hub sessions to ours).
        self.hub_conn: Connection | None = None
        self.idle_out = False
        #: Why the host ends the session (a sentence of ``messages.py``), said when it ends.
        self.goodbye: str | None = None
        self._tokens = float(INPUT_BURST)
        self._tokens_at = time.monotonic()
        self._dropped_input = 0
        self.last_input = time.monotonic()
        self._idle_handle: asyncio.TimerHandle | None = None
        self._closed = False

    # --- asyncssh callbacks ----------------------------------------------------------------

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan

    def pty_requested(
        self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Mapping[int, int]
    ) -> bool:
        self.term_type = term_type
        self.size = clamp_size(term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        if self.term_type is None:
            self.refusal = self._say(NEEDS_PTY)
        return True

    def exec_requested(self, command: str) -> bool:
        # Accepted only to answer with a readable message (a refused request shows the player
        # nothing better than "exec request failed").
        self.refusal = self._say(NO_EXEC)
        log.info("refused exec from %s", self.address)
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        # Accepted for the same reason as exec: to say why in words.
        log.info("refused subsystem %r from %s", subsystem, self.address)
        self.refusal = self._say(NO_SUBSYSTEM, name=subsystem[:32])
        return True

    def session_started(self) -> None:
        assert self.chan is not None
        if self.refusal is not None:
            self.chan.write_stderr(self.refusal)
            self.chan.exit(1)
            return
        full = self.host.session_refusal(self.address)
        if full is not None:
            sentence, fields = full
            self.chan.write(self._say(sentence, **fields))
            self.chan.exit(1)
            return
        self.host.session_opened(self)
        self.task = asyncio.get_running_loop().create_task(self.run())

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        size = clamp_size(width, height, fallback=self.size)
        if size == self.size:
            return  # a flood of window changes to the same (clamped) size costs nothing
        self.size = size
        if self.driver is not None:
            self.driver.resize(*self.size)

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        if not self._take_tokens(len(data)):
            return
        self.last_input = time.monotonic()
        self.feed_input(data)

    def eof_received(self) -> bool:
        self._stop_app()
        return False

    def break_received(self, msec: int) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed = True
        self._stop_app()

    # --- the driver's terminal (see driver.Terminal) ---------------------------------------

    def send(self, data: bytes) -> None:
        self.output(data)

    def output(self, data: bytes) -> None:
        """A frame for the player's terminal (empty: their screen already shows it)."""
        if data and self.chan is not None and not self._closed:
            try:
                self.chan.write(data)
            except (BrokenPipeError, ConnectionError):
                # The player's end is gone (it sent EOF and closed): the app is being stopped.
                self._closed = True
        for observer in GameSession.observers:
            observer(self, len(data))

    def frame_unchanged(self) -> None:
        self.output(b"")

    def pending_output(self) -> int:
        """Bytes queued for this client: in the channel (flow control) and in the transport."""
        if self.chan is None:
            return 0
        pending = self.chan.get_write_buffer_size()
        transport = getattr(self.chan.get_extra_info("connection"), "_transport", None)
        if transport is not None:
            with contextlib.suppress(Exception):
                pending += transport.get_write_buffer_size()
        return pending

    # --- running the app -------------------------------------------------------------------

    async def run(self) -> None:
        """Run the app until the player leaves, the connection drops or the server stops."""
        assert self.chan is not None
        term = self._term()
        name = None if self.username.lower() in ("play", "guest", "") else self.username
        message: str | None = None  # a sentence of messages.py, said as the session ends
        fields: dict[str, Any] = {}
        lang: str | None = None  # the app's, once it has run
        hub_task = None
        client: Connection | None = None
        try:
            workers = self.host.workers
            if workers is not None:
                remote = workers.open(self, term, self.identity, name)
                self.hub_conn = remote.hub_conn
                hub_task = self.host.hub.spawn(self.host.hub.serve(remote.hub_conn))
                self.app = self.driver = remote
                self._arm_idle()
                self.hand_over_early_input(remote)
                result = await remote.result
                failed = bool(result.get("failed"))
                lang = result.get("lang") if isinstance(result.get("lang"), str) else None
            else:
                client, self.hub_conn = queue_pair(trusted=True, peer=f"ssh {self.address}")
                hub_task = self.host.hub.spawn(self.host.hub.serve(self.hub_conn))
                self.app = app = self.host.app_factory(client, term, self.identity, name)
                prepare_app(app, term)
                bind_term(app, self, term)
                self._arm_idle()
                await app.run_async(size=(term.width, term.height), mouse=True)
                failed = bool(app.return_code)  # it crashed (logged by prepare_app's handler)
                lang = app_language(app)
            if failed:
                log.error("session from %s ended by a failure of its app", self.address)
                message = SORRY
            elif self.idle_out:
                message, fields = idle_goodbye(self.host.config.idle_timeout)
            elif self.goodbye is not None:
                message = self.goodbye
        except Exception:
            log.exception("session from %s failed", self.address)
            message = SORRY
        finally:
            if lang is None and self.hub_conn is not None:
                # The app did not say (it failed, or is not the Gambit app): the hub knows the
                # player's choice, a guest's too, until their connection closes below.
                lang = self.host.session_language(self.hub_conn)
            if self._idle_handle is not None:
                self._idle_handle.cancel()
            if client is not None:
                with contextlib.suppress(Exception):
                    await client.close()
            elif self.hub_conn is not None:
                with contextlib.suppress(Exception):
                    await self.hub_conn.close()
            if hub_task is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(hub_task, 5)
            self.app = None
            self.driver = None
            self.hub_conn = None
            self.host.session_closed(self)
            if not self._closed and self.chan is not None:
                if message:
                    self.chan.write(say(self.language(term, lang), message, **fields))
                self.chan.exit(0 if message is None else 1)

    def _stop_app(self) -> None:
        app = self.app
        if app is not None:
            app.exit()  # a message to the app's own task: safe from any other task

    def stop(self, goodbye: str | None = None) -> None:
        """End this session, telling the player why (a sentence of ``messages.py``, said in
        their language) once their own screen is back."""
        self.goodbye = goodbye
        self._stop_app()

    # --- limits ----------------------------------------------------------------------------

    def _take_tokens(self, size: int) -> bool:
        now = time.monotonic()
        self._tokens = min(INPUT_BURST, self._tokens + (now - self._tokens_at) * INPUT_PER_SECOND)
        self._tokens_at = now
        if size <= self._tokens:
            self._tokens -= size
            self._dropped_input = 0
            return True
        self._dropped_input += size
        if self._dropped_input == size:  # log the first drop of a run, not every packet
            log.info("input from %s over the rate limit; dropping", self.address)
        return False

    def _arm_idle(self) -> None:
        timeout = self.host.config.idle_timeout
        if timeout <= 0:
            return
        delay = self.last_input + timeout - time.monotonic()
        loop = asyncio.get_running_loop()
        self._idle_handle = loop.call_later(max(0.0, delay), self._check_idle)

    def _check_idle(self) -> None:
        self._idle_handle = None
        if time.monotonic() - self.last_input >= self.host.config.idle_timeout:
            log.info("session from %s idle; closing", self.address)
            self.idle_out = True
            self._stop_app()
        else:
            self._arm_idle()

    # --- what the host says itself -----------------------------------------------------------

    def _term(self) -> TermInfo:
        """The player's terminal as their client described it (PTY request, env sent)."""
        env = self.chan.get_environment() if self.chan is not None else {}
        return term_info(self.term_type, self.size, env)

    def language(self, term: TermInfo, app_lang: str | None = None) -> str:
        """The language the host speaks to this player in.

        Their app's (``app_lang``) once it has run: the hub told it, and the player may have
        changed it in Settings since. Before that (a refusal), the hub's own rule on what is
        known here: the language stored with the key, else the one the client's locale names
        (:func:`~server.hub.session.chosen_language`). English, though, when the client's
        locale is not UTF-8: the other languages' words are not ASCII, and English's are.
        """
        if not term.unicode:
            return "en"
        if app_lang:
            return app_lang
        return chosen_language(term.language, self.host.stored_language(self.identity))

    def _say(self, sentence: str, **extra: Any) -> bytes:
        """A sentence of ``messages.py`` in the player's language, ready for their terminal."""
        fields = {"host": self.host.public_host, "port": self.host.port, **extra}
        return say(self.language(self._term()), sentence, **fields)
