"""A player's own display preferences, remembered per identity by the hub.

They travel as ``{"t": "profile", "prefs": {...}}`` and come back in ``welcome.you.prefs`` and
``you.prefs``; the hub stores them as they are, so this module is the one place that knows
their keys, defaults and legal values (a stored value from an older app is ignored, not fatal).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

THEMES = ("dark", "light", "mono")
SORTS = ("suit", "rank")
VERBOSITIES = ("full", "short")


@dataclass(frozen=True, slots=True)
class Prefs:
    theme: str = "dark"
    """"dark", "light" or "mono" (no colour at all)."""
    ascii: bool | None = None
    """ASCII card faces; None follows the terminal (Unicode unless its locale says otherwise)."""
    four_colour: bool = False
    """Four suit colours instead of two."""
    suit_letters: bool = False
    """A suit letter beside each symbol, so suits are told apart without colour."""
    alert: bool = True
    """Bell and window title when a decision becomes yours."""
    sort: str = "suit"
    """How a hand is ordered in the trick games: "suit" (then rank) or "rank" (then suit)."""
    autoplay_forced: bool = False
    """Play the card for the player when it is their only legal one (after a random pause)."""
    plain: bool = False
    """The plain mode for screen readers (issue 44): the SSH host starts it for this key from
    the next connection on (``NAME+screen`` still asks for the full screen)."""
    verbosity: str = "full"
    """How much the plain mode says: "full", or "short" (a trick in one sentence, no other
    tables' or spectators' chatter: see ``gambit_tui/plain/short.py``)."""

    @classmethod
    def from_wire(cls, data: dict[str, Any] | None) -> Prefs:
        """Known keys with values of the right kind; anything else keeps its default."""
        data = data or {}
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            if f.name == "theme":
                ok = value in THEMES
            elif f.name == "sort":
                ok = value in SORTS
            elif f.name == "verbosity":
                ok = value in VERBOSITIES
            elif f.name == "ascii":
                ok = value is None or isinstance(value, bool)
            else:
                ok = isinstance(value, bool)
            if ok:
                values[f.name] = value
        return cls(**values)

    def to_wire(self) -> dict[str, Any]:
        return asdict(self)

    def with_(self, **changes: Any) -> Prefs:
        return replace(self, **changes)
