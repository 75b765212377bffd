"""Card faces as Rich text: Unicode or ASCII, two or four suit colours, optional suit letters.

Every symbol here is one cell wide in every terminal we care about (♠ ★ ● ♦ ♛); the playing
card block (U+1F0A0) is two cells in some terminals and one in others, which breaks layouts,
so it is never used. How a card looks depends only on :class:`CardStyle`, built from the
player's preferences and terminal, so a screen re-renders its cards when those change.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from .i18n import _
from .names import HIGH_CARDS

SYMBOLS = {"S": "♠", "T": "★", "C": "●", "G": "♦"}
HIGH_SYMBOL = "♛"
ASCII_HIGH = "^"
FACE_DOWN = "▒▒"
ASCII_FACE_DOWN = "##"

#: Suit colours by theme: two-colour (dark/light suits) and four-colour decks.
_TWO = {"S": "bold", "C": "bold", "T": "bold red", "G": "bold red"}
_FOUR = {
    "dark": {"S": "bold", "T": "bold red", "C": "bold yellow", "G": "bold cyan"},
    "light": {"S": "bold", "T": "bold red3", "C": "bold dark_orange3", "G": "bold blue"},
}
_HIGH_STYLE = {"dark": "bold magenta", "light": "bold magenta"}


@dataclass(frozen=True, slots=True)
class CardStyle:
    """How to draw cards for one player."""

    ascii: bool = False
    four_colour: bool = False
    suit_letters: bool = False
    theme: str = "dark"

    def suit_style(self, suit: str) -> str:
        if self.theme == "mono":
            return "bold"
        if self.four_colour:
            return _FOUR.get(self.theme, _FOUR["dark"])[suit]
        return _TWO[suit]

    def high_style(self) -> str:
        return "bold" if self.theme == "mono" else _HIGH_STYLE.get(self.theme, "bold magenta")


def card_label(code: str, style: CardStyle) -> str:
    """The plain text of a short card face: "7♠", "M●", "7♠S" with letters, "7S" in ASCII."""
    if code.startswith("H"):
        return high_short(code, style)
    rank, suit = code[1], code[0]
    if style.ascii:
        return f"{rank}{suit}"
    if style.suit_letters:
        return f"{rank}{SYMBOLS[suit]}{suit}"
    return f"{rank}{SYMBOLS[suit]}"


def high_short(code: str, style: CardStyle) -> str:
    mark = ASCII_HIGH if style.ascii else HIGH_SYMBOL
    return f"{mark}{_(HIGH_CARDS.get(code, code))}"


def card_text(code: str | None, style: CardStyle, *, empty: str = "—") -> Text:
    """A card face with its suit colour; ``None`` shows ``empty``."""
    if code is None:
        return Text(empty, style="dim")
    if code.startswith("H"):
        return Text(high_short(code, style), style=style.high_style())
    return Text(card_label(code, style), style=style.suit_style(code[0]))


def face_down(style: CardStyle) -> Text:
    return Text(ASCII_FACE_DOWN if style.ascii else FACE_DOWN, style="dim")


def cards_text(codes: list[str], style: CardStyle, sep: str = " ") -> Text:
    out = Text()
    for i, code in enumerate(codes):
        if i:
            out.append(sep)
        out.append_text(card_text(code, style))
    return out
