"""What the SSH host itself says to a player, in English, Ukrainian or German.

The app speaks its player's language from its own catalogs, but some words reach a player's
terminal from the SSH host, with no app running: a refusal (no terminal, a command, sftp, a
full server) and the goodbye written once the app has ended (idle, the server stopping, a
failure). Those are the sentences here, each marked with :func:`N_`; their translations are
the host's own small catalogs, ``locale/<lang>/LC_MESSAGES/gambit_ssh.po`` beside this file,
parsed with Babel at run time like the app's (the server imports the app only to start one).
``tests/ssh/test_messages.py`` fails when a sentence lacks a translation.

Which language a session's words are in is the session's business (``session.py``: the app's
language once it has run, else the hub's rule, :func:`server.hub.session.chosen_language`).
The refusals said outside any session (the disconnects before login, the forwarding refusal)
are not here: they stay in English, and ``host.py`` says why.
"""

from __future__ import annotations

import functools
import gettext
import io
import logging
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

log = logging.getLogger(__name__)

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "gambit_ssh"


def N_(message: str) -> str:
    """Mark a sentence for the catalogs; it is translated where it is said (:func:`say`)."""
    return message


NEEDS_PTY = N_(
    "Gambit is played in a terminal, and this connection has none.\n"
    "Connect with:  ssh -t -p {port} play@{host}"
)
NO_EXEC = N_("Gambit runs no commands. Connect without one:  ssh -p {port} play@{host}")
NO_SUBSYSTEM = N_("Gambit offers no file transfer or other subsystems ({name}).")
SORRY = N_("Sorry: the server could not run your session.")
IDLE = N_(
    "Disconnected after {minutes} min without a key press. "
    "Your seat is kept for a while: connect again to carry on."
)
#: The same for an idle timeout under a minute (in minutes it said "0 min").
IDLE_SECONDS = N_(
    "Disconnected after {seconds} s without a key press. "
    "Your seat is kept for a while: connect again to carry on."
)
#: What every player reads when the server stops (their seat waits out the hub's grace).
STOPPING = N_("The Gambit server is stopping. Your seat is kept for a while.")
FULL = N_("The server is full ({players} players). Try again later.")
TOO_MANY_SESSIONS = N_("Too many sessions from your address. Close one and try again.")


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The host's catalog for ``lang`` (cached per process); English, or a language without a
    catalog, is the sentences as written."""
    path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not lang.isalpha() or not path.is_file():
        return gettext.NullTranslations()
    try:
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=lang, domain=DOMAIN)
        buffer = io.BytesIO()
        write_mo(buffer, catalog)
        buffer.seek(0)
        return gettext.GNUTranslations(buffer)
    except Exception:  # a broken catalog must not cost a player their goodbye
        log.exception("could not load the SSH host's %s catalog", lang)
        return gettext.NullTranslations()


def idle_goodbye(timeout: float) -> tuple[str, dict[str, int]]:
    """The idle goodbye and its gap for a ``timeout`` in seconds: whole minutes from one
    minute on, seconds below it."""
    if timeout < 60:
        return IDLE_SECONDS, {"seconds": max(1, round(timeout))}
    return IDLE, {"minutes": round(timeout / 60)}


def say(lang: str, message: str, **fields: Any) -> bytes:
    """``message`` (one of this module's sentences) in ``lang`` with its gaps filled, as lines
    for a terminal: each ends in CR LF (no line discipline turns LF into that here)."""
    try:
        text = translations(lang).gettext(message).format(**fields)
    except (KeyError, IndexError, ValueError):  # a translation's gaps gone wrong: say it in English
        log.exception("the SSH host's %s catalog cannot say %r", lang, message)
        text = message.format(**fields)
    return (text.replace("\n", "\r\n") + "\r\n").encode()
