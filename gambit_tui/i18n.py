"""Translations per app instance, from gettext catalogs parsed at run time.

Many players share one server process, each with their own language, so nothing here installs
a global ``_``. A catalog (``locale/<lang>/LC_MESSAGES/gambit.po``) is parsed with Babel once
per process and turned into a :class:`gettext.GNUTranslations` (plural forms included); each
:class:`~gambit_tui.app.GambitApp` holds the one for its player's language. The module-level
:func:`_` and :func:`ngettext` look up the app whose task is running (Textual's ``active_app``
context variable), so widget code simply writes ``_("Play")``.

Strings defined at import time (binding descriptions, name tables) are marked with :func:`N_`
for extraction and translated where they are shown. One English word with two meanings gets a
context (gettext's ``msgctxt``): :func:`pgettext` where it is shown, or :func:`NC_` where it is
only marked, so each language can say "Save" (the Focus) and "Save" (the settings) differently.
"""

from __future__ import annotations

import contextvars
import functools
import gettext
import io
import logging
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from textual import active_app

from .ascii_text import asciify

log = logging.getLogger(__name__)

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "gambit"
#: Languages a player may choose; a language without a catalog falls back to English text.
LANGUAGES: dict[str, str] = {"en": "English", "uk": "Українська", "de": "Deutsch"}


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalog for ``lang`` (cached per process: catalogs never change while running)."""
    path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not path.is_file():
        return gettext.NullTranslations()
    try:
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=lang, domain=DOMAIN)
        buffer = io.BytesIO()
        write_mo(buffer, catalog)
        buffer.seek(0)
        return gettext.GNUTranslations(buffer)
    except Exception:  # a broken catalog must not take a player's session down
        log.exception("could not load the %s catalog", lang)
        return gettext.NullTranslations()


class AsciiTranslations(gettext.NullTranslations):
    """A catalog whose every message comes out in ASCII, for a terminal without UTF-8
    ("…" as "...", Ukrainian in Latin letters): see ascii_text.py."""

    def __init__(self, catalog: gettext.NullTranslations) -> None:
        super().__init__()
        self.catalog = catalog

    def gettext(self, message: str) -> str:
        return asciify(self.catalog.gettext(message))

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return asciify(self.catalog.ngettext(msgid1, msgid2, n))

    def pgettext(self, context: str, message: str) -> str:
        return asciify(self.catalog.pgettext(context, message))

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return asciify(self.catalog.npgettext(context, msgid1, msgid2, n))


@functools.cache
def ascii_catalog(catalog: gettext.NullTranslations) -> AsciiTranslations:
    """``catalog`` in ASCII (one per catalog for the whole process, so screens that cache
    text by catalog share it)."""
    return AsciiTranslations(catalog)


#: The catalog of a client that is not a Textual app (the plain mode's, gambit_tui/plain): set
#: in its own task's context, it is looked up before any app's.
plain_catalog: contextvars.ContextVar[gettext.NullTranslations | None] = contextvars.ContextVar(
    "plain_catalog", default=None
)


def _current() -> gettext.NullTranslations:
    catalog = plain_catalog.get()
    if catalog is not None:
        return catalog
    try:
        app = active_app.get()
    except LookupError:
        return translations("en")
    return getattr(app, "translations", None) or translations("en")


#: What joins a context and a message in a catalog key (as in compiled gettext catalogs).
CONTEXT_SEP = "\x04"


def _(message: str) -> str:
    """``message`` in the running app's language (a key made by :func:`NC_` in its context)."""
    if CONTEXT_SEP in message:
        context, _sep, text = message.partition(CONTEXT_SEP)
        return _current().pgettext(context, text)
    return _current().gettext(message)


def pgettext(context: str, message: str) -> str:
    """``message`` as meant in ``context``, for an English word that has two meanings."""
    return _current().pgettext(context, message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, by the running app's language's plural rule."""
    return _current().ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Mark a string for extraction; it is translated later, where it is shown."""
    return message


def NC_(context: str, message: str) -> str:
    """Mark ``message`` in ``context`` for extraction (a binding's description, say): the key
    it returns is translated in that context by :func:`_` where it is shown."""
    return f"{context}{CONTEXT_SEP}{message}"
