"""What an app learns of its player's terminal, and what it must not take from the server's.

Textual reads colour depth, ``NO_COLOR`` and its stdout from the *process*, which here is the
server, shared by every player. Each session's app is set up from what the player's SSH client
sent instead, and its stray output goes to the log.

A crash is logged as a plain traceback: Textual's own report shows every frame's local
variables, and on a server those hold other players' data and the server's settings.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.console import Console

from protocol.term import TermInfo

from .colour_depth import set_colour_depth

if TYPE_CHECKING:  # for type hints only
    from textual.app import App

log = logging.getLogger(__name__)


def term_info(term_type: str | None, size: tuple[int, int], env: Mapping[str, str]) -> TermInfo:
    """What we know of the player's terminal, from their PTY request and the env they sent.

    OpenSSH sends only the variables its ``SendEnv`` names (usually ``LANG`` and ``LC_*``);
    ``COLORTERM`` and ``NO_COLOR`` arrive only when a player asks for them.
    """
    width, height = size
    lang = env.get("LC_ALL") or env.get("LANG") or env.get("LC_CTYPE") or env.get("LC_MESSAGES")
    no_color = env.get("NO_COLOR")
    return TermInfo(
        width=width or 80,
        height=height or 24,
        term=term_type or "",
        colorterm=env.get("COLORTERM") or None,
        no_color=bool(no_color),
        lang=lang or None,
    )


class _LogStream:
    """A file that logs what is written to it.

    Textual redirects ``sys.stdout``/``sys.stderr`` to its app while the app runs; with many
    apps starting and stopping out of order, the restored stream can be a dead app's, which
    keeps that app alive and sends stray prints into another player's screen. Every app
    here gets this one shared stream instead, which holds no app.
    """

    def __init__(self, level: int) -> None:
        self.level = level
        self._busy = False

    def write(self, text: str) -> int:
        if not text.strip():
            return len(text)
        if self._busy:
            # Logging itself wrote here (its last-resort handler uses sys.stderr, which is
            # this stream while an app runs): write to the real stderr, never recurse.
            if sys.__stderr__ is not None:
                sys.__stderr__.write(text)
            return len(text)
        self._busy = True
        try:
            log.log(self.level, "app output: %s", text.rstrip())
        finally:
            self._busy = False
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return -1


STRAY_OUTPUT = _LogStream(logging.WARNING)
APP_ERRORS = _LogStream(logging.ERROR)


#: Tests only: ``module:function`` that makes each session's app in place of the Gambit app,
#: called as ``function(conn, term, identity, name)`` (in app workers too).
TEST_APP_FACTORY = "GAMBIT_TEST_APP_FACTORY"


def host_many_apps() -> None:
    """Set up, once per process, what running many apps on one event loop needs and a plain
    Textual app does without: every patch of Textual declared in :mod:`.textual_layer`
    (checked against the Textual it was written for), and our widgets' own fast paths
    switched on (tables drawn in the callback that changed them, :mod:`.draw_now`; the
    footer's keys found with fewer questions, :mod:`.shown_bindings`; no layout where a
    repaint will do, ``quiet_layout``). Idempotent."""
    from .textual_layer import install_all

    install_all()


def make_app(
    conn: Any,
    term: TermInfo,
    identity: str | None,
    name: str | None,
    resume: dict[str, Any] | None = None,
) -> App[Any]:
    """The Gambit app for one session (imported on first use, so the host can be tested
    without it), or the test factory's app; ``resume``: it takes over from another app
    (see :class:`~.launcher.AppRequest`)."""
    host_many_apps()
    spec = os.environ.get(TEST_APP_FACTORY)
    if spec:
        module, _, attr = spec.partition(":")
        factory = getattr(importlib.import_module(module), attr)
        return factory(conn, term, identity, name)
    from gambit_tui.app import GambitApp

    return GambitApp(conn, term=term, identity=identity, name=name, resume=resume)


def app_language(app: Any) -> str | None:
    """The language ``app`` speaks to its player (the Gambit app's ``lang``: the hub's choice
    at hello, or the player's since, in Settings), for what the SSH host says once the app
    has ended; None for an app that does not say (a test's stand-in)."""
    lang = getattr(app, "lang", None)
    return lang if isinstance(lang, str) else None


def log_crashes(app: App[Any]) -> None:
    """Log an error that ends ``app`` as a plain traceback, without the locals of every
    frame Textual would print (player data, the server's settings), and end the app.

    Textual routes every unhandled error (handlers, timers, workers) to the app's
    ``_handle_exception``; this replaces it for this app only (a patch declared in
    :mod:`.textual_layer`), keeping what it records
    (the return code 1 and the error, which tests and :meth:`App.run_async` callers read).
    """

    from .textual_layer import on_instance

    def handle_exception(error: Exception) -> None:
        app._return_code = 1
        if app._exception is None:
            app._exception = error
            app._exception_event.set()
        cause = getattr(error, "error", None)  # a failed Textual worker wraps its error
        shown = cause if isinstance(cause, BaseException) else error
        log.error("the app crashed", exc_info=(type(shown), shown, shown.__traceback__))
        app._close_messages_no_wait()

    on_instance("app_settings.log_crashes", app, handle_exception)


def prepare_app(app: App[Any], term: TermInfo) -> None:
    """Per-session settings Textual would otherwise take from the server's own environment."""
    from .ended_apps import EveryNode, EveryWorker
    from .textual_layer import on_instance

    log_crashes(app)
    # (what ended_apps takes apart once the app has ended: every node and worker it had)
    on_instance("ended_apps.registry", app, EveryNode())
    on_instance("ended_apps.workers", app._workers, EveryWorker())
    on_instance("app_settings.stray_stdout", app, STRAY_OUTPUT)
    on_instance("app_settings.stray_stderr", app, STRAY_OUTPUT)
    app.error_console = Console(file=APP_ERRORS, markup=False, highlight=False)  # type: ignore[arg-type]  # a file-like writer, not a TextIO
    set_colour_depth(app, term)
