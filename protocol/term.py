"""What we know of a player's terminal, as the SSH client reported it (never the server's).

The SSH host fills this from the PTY request and the environment the client sent; ``gambit
play`` fills it from the local terminal. The app reads colour depth, card faces and language
defaults from here.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass

#: TERM names (prefixes) of terminals that erase in the current background colour.
_ERASES_IN_COLOUR = (
    "xterm",
    "tmux",
    "rxvt",
    "linux",
    "putty",
    "alacritty",
    "kitty",
    "foot",
    "wezterm",
    "vte",
    "gnome",
    "konsole",
    "ms-terminal",
    "ghostty",
    "contour",
)


#: TERM names of terminals without colour: the DEC terminals (vt52, vt100, vt220, ...) and
#: terminfo's monochrome entries (``xterm-mono``, ``ansi-mono``, ``linux-m``).
_MONOCHROME = re.compile(r"dumb|vt\d+(-.*)?|.*-mono|.*-m")


@dataclass(frozen=True, slots=True)
class TermInfo:
    width: int = 80
    height: int = 24
    term: str = "xterm-256color"
    colorterm: str | None = None
    no_color: bool = False
    lang: str | None = None  # the client's LANG / LC_ALL, when sent

    @property
    def color_system(self) -> str | None:
        """Rich's colour system name for this terminal: truecolor, 256, standard or None."""
        if self.no_color or self.monochrome:
            return None
        if (self.colorterm or "").lower() in ("truecolor", "24bit"):
            return "truecolor"
        if "256color" in self.term:
            return "256"
        return "standard"

    @property
    def monochrome(self) -> bool:
        """Whether TERM names a terminal that shows no colour (or none is named at all)."""
        term = self.term.lower()
        return not term or ("color" not in term and _MONOCHROME.fullmatch(term) is not None)

    @property
    def colour(self) -> bool:
        """Whether colour may be sent at all: not to a monochrome terminal, nor with NO_COLOR."""
        return self.color_system is not None

    @property
    def erases_in_colour(self) -> bool:
        """Whether the terminal erases cells in the current background colour (terminfo's
        ``bce``, with ECH): xterm and the terminals that follow it, and tmux. GNU screen does
        not by default, and an unknown terminal is not assumed to."""
        return self.term.lower().startswith(_ERASES_IN_COLOUR)

    @property
    def unicode(self) -> bool:
        """Whether the client's terminal takes UTF-8: yes unless its locale says otherwise (a
        player whose client sends no locale gets UTF-8, as almost every terminal now shows)."""
        if self.lang is None:
            return True
        return "utf-8" in self.lang.lower() or "utf8" in self.lang.lower()

    @property
    def language(self) -> str | None:
        """ "en", "uk" or "de" from the client's locale, if it names one of ours."""
        if not self.lang:
            return None
        code = self.lang.split("_")[0].split(".")[0].lower()
        return code if code in ("en", "uk", "de") else None


def local_term() -> TermInfo:
    """This process's own terminal as the app needs to know it (size, colours, locale): for
    ``gambit play`` and ``gambit connect``, whose app runs on the player's machine."""
    size = shutil.get_terminal_size((80, 24))
    env = os.environ
    return TermInfo(
        width=size.columns,
        height=size.lines,
        term=env.get("TERM", "xterm-256color"),
        colorterm=env.get("COLORTERM"),
        no_color="NO_COLOR" in env,
        lang=env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG"),
    )
