"""What an app learns of its player's terminal, and what it must not take from the server's.

Textual reads colour depth, ``NO_COLOR`` and its stdout from the *process*, which here is the
server, shared by every player. Each session's app is set up from what the player's SSH client
sent instead, and its stray output goes to the log.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.console import COLOR_SYSTEMS, Console
from textual.filter import Monochrome

from gambit_tui.term import TermInfo

if TYPE_CHECKING:
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


def prepare_app(app: App[Any], term: TermInfo) -> None:
    """Per-session settings Textual would otherwise take from the server's own environment."""
    app._capture_stdout = STRAY_OUTPUT  # type: ignore[assignment]
    app._capture_stderr = STRAY_OUTPUT  # type: ignore[assignment]
    app.error_console = Console(file=APP_ERRORS, markup=False, highlight=False)  # type: ignore[arg-type]
    system = term.color_system
    app.console._color_system = COLOR_SYSTEMS[system] if system else None
    if system is None and not any(isinstance(f, Monochrome) for f in app._filters):
        app._filters.append(Monochrome())
