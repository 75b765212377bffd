"""Sentences with coloured parts: a translated template whose ``{name}`` fields are filled
with text that keeps its colours (a card, a team's marker), wherever a language puts them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text

from .cards import CardStyle

#: A player's name by seat.
Names = Callable[[int], str]
#: How one game's cards look: a card's coloured face (``None``: no card).
Face = Callable[[str | None, CardStyle], Text]


def fill(template: str, **parts: Any) -> Text:
    """``template`` with its ``{name}`` fields filled; Text parts keep their styles, other
    values are shown as text, and a field with no part stays as written."""
    out = Text()
    rest = template
    while rest:
        start = rest.find("{")
        end = rest.find("}", start)
        if start < 0 or end < 0:
            out.append(rest)
            break
        out.append(rest[:start])
        key = rest[start + 1 : end]
        value = parts.get(key, "{" + key + "}")
        if isinstance(value, Text):
            out.append_text(value)
        else:
            out.append(str(value))
        rest = rest[end + 1 :]
    return out


class Said:
    """What an event's line is made of: the event, the players' names, the card style and
    the faces of the game's cards; each game's text module maps an event kind to a small
    function of one of these."""

    __slots__ = ("ev", "face", "names", "style")

    def __init__(self, ev: dict[str, Any], names: Names, style: CardStyle, face: Face) -> None:
        self.ev, self.names, self.style, self.face = ev, names, style, face

    @property
    def who(self) -> str:
        """The name of the event's seat."""
        return self.names(self.ev["seat"]) if "seat" in self.ev else ""

    def name(self, key: str) -> str:
        return self.names(self.ev[key])

    def card(self, key: str = "card") -> Text:
        return self.face(self.ev.get(key), self.style)

    def cards(self, key: str = "cards") -> Text:
        out = Text()
        for i, code in enumerate(self.ev[key]):
            if i:
                out.append(" ")
            out.append_text(self.face(code, self.style))
        return out

    def seats(self, key: str = "seats") -> str:
        """The names of the event's seats (or those under ``key``), joined by commas."""
        return ", ".join(self.names(s) for s in self.ev.get(key, ()))
