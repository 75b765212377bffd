"""One SSH session: a player's terminal, running one Gambit app.

The session turns what the SSH client told us (PTY type and size, the environment it chose to
send) into a :class:`~protocol.term.TermInfo`; its
:class:`~server.apphost.launcher.AppLauncher` starts the player's app (in this process or on a
worker) and its :class:`~.session_host.SessionHost` has the hub serve the app's connection;
then it carries keystrokes to the app, and the app's frames to the player (it is the app's
:class:`~server.apphost.launcher.OutputSink`). It is also the boundary where limits sit:
input rate, idle time; and where anything that is not a terminal session (exec, sftp, a shell
without a PTY) is turned away with a message the player can read, in their language
(:meth:`GameSession.language`; the sentences are in ``messages.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import asyncssh

from protocol.term import TermInfo
from server.apphost.app_settings import term_info
from server.apphost.launcher import AppLauncher, AppRequest, RunningApp
from server.apphost.plain_launch import PlainLauncher, plain_wish
from server.hub.session import chosen_language
from server.terminal.early_input import EarlyInput
from server.terminal.term_size import clamp_size
from server.write_pacer import WritePacer, pacer

from .door import TRANSPORT
from .messages import NEEDS_PTY, NO_EXEC, NO_SUBSYSTEM, SORRY, idle_goodbye, say
from .session_host import SessionHost

if TYPE_CHECKING:  # for type hints only
    from protocol.connection import Connection

log = logging.getLogger(__name__)

#: Input rate limit: a burst of this many bytes, refilled at this many per second. Far above
#: anyone typing or clicking; a huge paste is cut short instead of flooding the app.
INPUT_BURST = 16 * 1024
INPUT_PER_SECOND = 4 * 1024


class GameSession(EarlyInput, asyncssh.SSHServerSession[bytes]):
    """One SSH channel of a connection: a PTY session runs an app; anything else is refused.

    The app runs wherever ``launcher`` puts it; either way its hub connection is served
    through ``host``, and what it draws reaches the player through :meth:`output`.
    """

    def __init__(
        self,
        host: SessionHost,
        launcher: AppLauncher,
        *,
        identity: str | None,
        username: str,
        address: str,
        plain_launcher: AppLauncher | None = None,
    ) -> None:
        EarlyInput.__init__(self)
        self.host = host
        self.launcher = launcher
        #: Plain sessions (``ssh plain@host``, ``NAME+plain``: issue 44): lines, on this loop.
        self.plain_launcher: AppLauncher = plain_launcher or PlainLauncher()
        #: The host's, told of every frame (see :data:`~.session_host.FrameObserver`).
        self._observers = host.frame_observers
        self.identity = identity
        self.username = username
        self.address = address
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.term_type: str | None = None
        self.size = (80, 24)
        self.refusal: bytes | None = None
        #: The player's app while it runs (it takes keystrokes as :attr:`driver`, once the
        #: session hands it what came early).
        self.app: RunningApp | None = None
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
        #: The app's frames not yet on the channel: the loop's pacer writes them, joined, at
        #: the end of this turn or a later one (see :meth:`output`).
        self._unwritten = bytearray()
        self._pacer: WritePacer | None = None

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

    # --- the app's output sink (see launcher.OutputSink) ------------------------------------

    def output(self, data: bytes) -> None:
        """A frame for the player's terminal (empty: their screen already shows it).

        Written by the loop's pacer (server/write_pacer.py), as the ``gambit`` channels' are:
        a worker's frames for its players arrive together (after a lobby update, every app
        draws), and each write to a channel is an SSH packet encrypted and sent there and
        then, so writing them as they came held the event loop, the hub's and every
        player's, for all of them at once. A turn's frames to one terminal are one write (the
        host's frame observers are told of it then)."""
        if data and self.chan is not None and not self._closed:
            self._unwritten += data
            if self._pacer is None:
                self._pacer = pacer()
            self._pacer.due(self)
            return
        for observer in self._observers:
            observer(self, len(data))

    def flush_now(self) -> None:
        """Write the frames waiting on the channel now (the pacer's turn, or before the
        session's last words)."""
        if not self._unwritten:
            return
        data, self._unwritten = bytes(self._unwritten), bytearray()
        if self._pacer is not None:
            self._pacer.forget(self)
        if self.chan is None or self._closed:
            return
        try:
            self.chan.write(data)
        except (BrokenPipeError, ConnectionError):
            # The player's end is gone (it sent EOF and closed): the app is being stopped.
            self._closed = True
            return
        for observer in self._observers:
            observer(self, len(data))

    def pending_output(self) -> int:
        """Bytes queued for this client: in the channel (flow control) and in the transport
        (given by the front door, see :data:`~.door.TRANSPORT`). Not the frames waiting for
        the pacer: they go within a turn or two, whatever the client reads."""
        if self.chan is None:
            return 0
        pending = self.chan.get_write_buffer_size()
        conn = self.chan.get_extra_info("connection")
        transport = conn.get_extra_info(TRANSPORT) if conn is not None else None
        if transport is not None:
            with contextlib.suppress(Exception):
                pending += transport.get_write_buffer_size()
        return pending

    # --- running the app -------------------------------------------------------------------

    async def run(self) -> None:
        """Run the app until the player leaves, the connection drops or the server stops."""
        assert self.chan is not None
        term = self._term()
        wish, username = plain_wish(self.username)
        plain = wish if wish is not None else self.host.stored_plain(self.identity)
        name = None if username.lower() in ("play", "guest", "") else username
        message: str | None = None  # a sentence of messages.py, said as the session ends
        fields: dict[str, Any] = {}
        lang: str | None = None  # the app's, once it has run
        hub_task = None
        app: RunningApp | None = None
        try:
            request = AppRequest(term, self.identity, name, peer=f"ssh {self.address}")
            launcher = self.plain_launcher if plain else self.launcher
            self.app = app = launcher.launch(request, self)
            self.hub_conn = app.hub_conn
            hub_task = self.host.serve_hub(self)
            self._arm_idle()
            self.attach(app)  # keystrokes go to the app now, those that came early first
            result = await app.result()
            lang = result.lang
            if result.failed:
                log.error("session from %s ended by a failure of its app", self.address)
                message = SORRY
            elif self.idle_out:
                message, fields = idle_goodbye(self.host.idle_timeout)
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
            if app is not None:
                await app.close()
            if hub_task is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(hub_task, 5)
            self.app = None
            self.driver = None
            self.hub_conn = None
            self.host.session_closed(self)
            self.flush_now()  # (the app's last frames, before the goodbye)
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
        timeout = self.host.idle_timeout
        if timeout <= 0:
            return
        delay = self.last_input + timeout - time.monotonic()
        loop = asyncio.get_running_loop()
        self._idle_handle = loop.call_later(max(0.0, delay), self._check_idle)

    def _check_idle(self) -> None:
        self._idle_handle = None
        if time.monotonic() - self.last_input >= self.host.idle_timeout:
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
        host, port = self.host.shown_address()
        fields = {"host": host, "port": port, **extra}
        return say(self.language(self._term()), sentence, **fields)
