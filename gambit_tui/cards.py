"""Card faces as Rich text: Unicode or ASCII, two or four suit colours, optional suit letters.

Every symbol here is one cell wide in every terminal we care about (♠ ★ ● ♦ ♛); the playing
card block (U+1F0A0) is two cells in some terminals and one in others, which breaks layouts,
so it is never used. How a card looks depends only on :class:`CardStyle`, built from the
player's preferences and terminal, so a screen re-renders its cards when those change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text

from protocol.cards import french_rank

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
        return suit_colour(suit, self, _TWO, _FOUR)

    def high_style(self) -> str:
        return "bold" if self.theme == "mono" else _HIGH_STYLE.get(self.theme, "bold magenta")


def suit_colour(
    suit: str, style: CardStyle, two: dict[str, str], four: dict[str, dict[str, str]]
) -> str:
    """A suit's colour in a deck's ``two``-colour table or, with four colours, its ``four``
    tables by theme (bold alone in the mono theme)."""
    if style.theme == "mono":
        return "bold"
    if style.four_colour:
        return four.get(style.theme, four["dark"])[suit]
    return two[suit]


def face_label(rank: str, suit: str, symbols: dict[str, str], style: CardStyle) -> str:
    """A card's rank and suit as the player wants them: "7♠", "7♠S" with suit letters, "7S"
    in ASCII."""
    if style.ascii:
        return f"{rank}{suit}"
    if style.suit_letters:
        return f"{rank}{symbols[suit]}{suit}"
    return f"{rank}{symbols[suit]}"


def card_label(code: str, style: CardStyle) -> str:
    """The plain text of a short card face: "7♠", "M●", "7♠S" with letters, "7S" in ASCII."""
    if code.startswith("H"):
        return high_short(code, style)
    return face_label(code[1], code[0], SYMBOLS, style)


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


# --- French deck (Prophet) ---------------------------------------------------------------

FRENCH_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
#: Suit colours of the French deck: black and red, or the four-colour deck's
#: black, red, blue and green (Diamonds and Clubs take the second pair).
_FRENCH_TWO = {"S": "bold", "C": "bold", "H": "bold red", "D": "bold red"}
_FRENCH_FOUR = {
    "dark": {"S": "bold", "H": "bold red", "D": "bold cyan", "C": "bold green"},
    "light": {"S": "bold", "H": "bold red3", "D": "bold blue", "C": "bold green4"},
}


def french_suit_style(suit: str, style: CardStyle) -> str:
    """The colour of a French suit (Spades/Clubs dark, Hearts/Diamonds red, or four colours)."""
    return suit_colour(suit, style, _FRENCH_TWO, _FRENCH_FOUR)


def french_label(code: str, style: CardStyle) -> str:
    """The plain text of a French card: "10♥", "A♠", "Q♣C" with letters, "10H" in ASCII."""
    rank = "10" if code[0] == "T" else code[0]
    return face_label(rank, code[1], FRENCH_SYMBOLS, style)


def french_text(code: str | None, style: CardStyle, *, empty: str = "—") -> Text:
    """A French card face with its suit colour; ``None`` shows ``empty``."""
    if code is None:
        return Text(empty, style="dim")
    return Text(french_label(code, style), style=french_suit_style(code[1], style))


def french_suit_text(suit: str, style: CardStyle) -> Text:
    """A French suit's symbol (or letter in ASCII), in its colour."""
    symbol = suit if style.ascii else FRENCH_SYMBOLS[suit]
    if style.suit_letters and not style.ascii:
        symbol += suit
    return Text(symbol, style=french_suit_style(suit, style))


@dataclass(frozen=True, slots=True)
class DeckFaces:
    """How one trick game's cards are drawn and ordered in a hand, so the shared hand row
    and trick view work for any deck: a face, a suit and a rank per card code."""

    text: Callable[[str, CardStyle], Text]
    """The coloured face of a card."""
    suit: Callable[[str], str]
    """A card's suit key."""
    rank: Callable[[str], int]
    """A card's strength within its suit (higher is stronger)."""
    suits: str
    """Suit keys in the order a hand sorted by suit shows them."""

    def sort(self, cards: list[str], by: str = "suit") -> list[str]:
        """``cards`` sorted by suit (then rank) or by rank (then suit), low to high."""
        order = {s: i for i, s in enumerate(self.suits)}

        def suit_index(code: str) -> int:
            return order.get(self.suit(code), len(order))

        if by == "rank":
            return sorted(cards, key=lambda c: (self.rank(c), suit_index(c)))
        return sorted(cards, key=lambda c: (suit_index(c), self.rank(c)))


#: The French deck: suits alternate black and red (♠ ♥ ♣ ♦), so two colours keep them apart.
FRENCH_FACES = DeckFaces(
    text=lambda code, style: french_text(code, style),
    suit=lambda code: code[1],
    rank=french_rank,
    suits="SHCD",
)
