"""Card codes for the three decks, shared by the engines and the app.

A card travels as a short string. Each game uses one deck, and a code is read within that deck:
Tarokka codes are suit letter + rank (``"S7"``, ``"GM"`` for the Master of Glyphs) or ``H`` + two
letters for a High card (``"HSE"``, the Seer); French codes are rank + suit (``"TH"``, ten of
Hearts); Fortunes codes are suit letter + number 1–14 (``"W14"``, the Righ of Wands) or ``*`` + a
Star's number (``"*0"`` … ``"*21"``).
"""

from __future__ import annotations

from dataclasses import dataclass

# --- Tarokka (Prophet's Gambit) ------------------------------------------------------------

TAROKKA_SUITS = {"S": "Swords", "T": "Stars", "C": "Coins", "G": "Glyphs"}
TAROKKA_RANKS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "M")
TAROKKA_COMMON: tuple[str, ...] = tuple(s + r for s in TAROKKA_SUITS for r in TAROKKA_RANKS)

HIGH_CARDS: dict[str, str] = {
    "HAR": "Artifact",
    "HBE": "Beast",
    "HBR": "Broken One",
    "HDA": "Darklord",
    "HDO": "Donjon",
    "HEX": "Executioner",
    "HMI": "Mists",
    "HGH": "Ghost",
    "HHO": "Horseman",
    "HIN": "Innocent",
    "HMA": "Marionette",
    "HRA": "Raven",
    "HSE": "Seer",
    "HTE": "Tempter",
}
TAROKKA_HIGH: tuple[str, ...] = tuple(HIGH_CARDS)
TAROKKA_DECK: tuple[str, ...] = TAROKKA_COMMON + TAROKKA_HIGH

_TAROKKA_NAME_LISTS = {
    "S": "Avenger|Paladin|Soldier|Mercenary|Myrmidon|Berserker|Hooded One|Dictator|Torturer|"
    "Warrior",
    "T": "Transmuter|Diviner|Enchanter|Abjurer|Elementalist|Evoker|Illusionist|Necromancer|"
    "Conjurer|Wizard",
    "C": "Swashbuckler|Philanthropist|Trader|Merchant|Guild Member|Beggar|Thief|Tax Collector|"
    "Miser|Rogue",
    "G": "Monk|Missionary|Healer|Shepherd|Druid|Anarchist|Charlatan|Bishop|Traitor|Priest",
}
TAROKKA_NAMES: dict[str, str] = {
    suit + rank: name
    for suit, names in _TAROKKA_NAME_LISTS.items()
    for rank, name in zip(TAROKKA_RANKS, names.split("|"), strict=True)
}
TAROKKA_NAMES.update(HIGH_CARDS)


def tarokka_suit(code: str) -> str:
    """The suit letter of a common Tarokka card ("S", "T", "C", "G")."""
    return code[0]


def tarokka_number(code: str) -> int | None:
    """The number 1–9 of a common Tarokka card; None for a Master (it has no number)."""
    r = code[1]
    return None if r == "M" else int(r)


def is_high(code: str) -> bool:
    return code[0] == "H"


# --- French deck (Prophet) -------------------------------------------------------------------

FRENCH_SUITS = {"S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs"}
#: The court cards' and the Ace's names, by rank letter.
FRENCH_COURTS = {"J": "Jack", "Q": "Queen", "K": "King", "A": "Ace"}
FRENCH_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
FRENCH_52: tuple[str, ...] = tuple(r + s for s in FRENCH_SUITS for r in FRENCH_RANKS)
FRENCH_32: tuple[str, ...] = tuple(c for c in FRENCH_52 if FRENCH_RANKS.index(c[0]) >= 5)


def french_rank(code: str) -> int:
    """Rank strength 2–14 (ace high)."""
    return FRENCH_RANKS.index(code[0]) + 2


def french_suit(code: str) -> str:
    return code[1]


# --- Fortunes deck -----------------------------------------------------------------------

FORTUNES_SUITS = {"W": "Wands", "C": "Cups", "S": "Swords", "P": "Pentacles"}
FORTUNES_STAR = "*"
FORTUNES_COURTS = {11: "Herald", 12: "Knight", 13: "Riga", 14: "Righ"}
#: Short rank labels as the rules page writes them: A, 2–10, H, K, Rg, Rh.
FORTUNES_RANK_LABELS = {1: "A", 11: "H", 12: "K", 13: "Rg", 14: "Rh"}
FORTUNES_DECK: tuple[str, ...] = tuple(
    s + str(n) for s in FORTUNES_SUITS for n in range(1, 15)
) + tuple(FORTUNES_STAR + str(n) for n in range(22))


def fortunes_suit(code: str) -> str:
    """The suit letter, or "*" for a Star."""
    return code[0]


def fortunes_value(code: str) -> int:
    """Ace 1 … 10, Herald 11, Knight 12, Riga 13, Righ 14; a Star its number 0–21."""
    return int(code[1:])


# --- Describing a card for people -----------------------------------------------------------

DECKS: dict[str, tuple[str, ...]] = {
    "tarokka": TAROKKA_DECK,
    "french52": FRENCH_52,
    "french32": FRENCH_32,
    "fortunes": FORTUNES_DECK,
}


@dataclass(frozen=True, slots=True)
class CardFace:
    """How to show one card: a short rank label, a suit key and a full English name."""

    code: str
    rank: str
    suit: str
    name: str


def describe(deck: str, code: str) -> CardFace:
    """Read a code within a deck; raises ValueError for a code that deck does not have."""
    if code not in DECKS[deck]:
        raise ValueError(f"{code!r} is not a card of the {deck} deck")
    if deck == "tarokka":
        if is_high(code):
            return CardFace(code, "♛", "H", HIGH_CARDS[code])
        rank = "M" if code[1] == "M" else code[1]
        suit = TAROKKA_SUITS[code[0]]
        label = "Master" if rank == "M" else rank
        return CardFace(code, rank, code[0], f"{label} of {suit} ({TAROKKA_NAMES[code]})")
    if deck.startswith("french"):
        rank = "10" if code[0] == "T" else code[0]
        return CardFace(
            code, rank, code[1], f"{FRENCH_COURTS.get(code[0], rank)} of {FRENCH_SUITS[code[1]]}"
        )
    value = fortunes_value(code)
    if code[0] == FORTUNES_STAR:
        return CardFace(code, str(value), "*", f"Star {value}")
    rank = FORTUNES_RANK_LABELS.get(value, str(value))
    label = "Ace" if value == 1 else FORTUNES_COURTS.get(value, str(value))
    return CardFace(code, rank, code[0], f"{label} of {FORTUNES_SUITS[code[0]]}")
