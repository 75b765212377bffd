"""Every game term a player reads, as translatable strings.

The protocol carries codes ("S7", "HEX", "two_pairs", "prophets_gambit"); this module turns
them into words in the player's language. The English words are the msgids, so the English
catalog is complete when every one of them is listed here, or (the cards' and suits' names)
in ``protocol.cards``, whose names :mod:`gambit_tui.catalog` extracts too.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from protocol.cards import FRENCH_COURTS, FRENCH_SUITS, HIGH_CARDS, TAROKKA_NAMES, TAROKKA_SUITS

from .i18n import N_, NC_, _

GAME_TITLES = {
    "prophets_gambit": N_("Prophet's Gambit"),
    "prophet": N_("Prophet"),
    "fortunes": N_("Fortunes"),
}
#: Each game's name in one word, for its rating in the status bar ("Gambit 1,012").
GAME_SHORT = {
    "prophets_gambit": NC_("rating", "Gambit"),
    "prophet": NC_("rating", "Prophet"),
    "fortunes": NC_("rating", "Fortunes"),
}

#: The "n of Suit" pattern for each suit, so languages can inflect the suit.
_OF_SUIT = {
    "S": N_("{rank} of Swords"),
    "T": N_("{rank} of Stars"),
    "C": N_("{rank} of Coins"),
    "G": N_("{rank} of Glyphs"),
}

#: The "rank of Suit" pattern of each French suit (Prophet), so languages can inflect.
_FRENCH_OF_SUIT = {
    "S": N_("{rank} of Spades"),
    "H": N_("{rank} of Hearts"),
    "D": N_("{rank} of Diamonds"),
    "C": N_("{rank} of Clubs"),
}

CATEGORIES = {
    "highest_card": N_("Highest card"),
    "one_pair": N_("One pair"),
    "two_pairs": N_("Two pairs"),
    "three_of_a_kind": N_("Three of a kind"),
    "guild": N_("Guild"),
    "village": N_("Village"),
    "fortune": N_("Fortune"),
    "circle": N_("Circle"),
    "family": N_("Family"),
}

ACCESS = {
    "everyone": N_("everyone"),
    "friends": N_("friends"),
    "invited": N_("invited"),
}

STATUS = {
    "waiting": N_("waiting"),
    "playing": N_("playing"),
    "between": N_("between deals"),
}

OPTION_LABELS = {
    "deck": N_("Deck"),
    "schedule": N_("Cards per round"),
    "cap": N_("Cap"),
    "betting": N_("Betting"),
    "max_raises": N_("Most raises"),
    "target": N_("Target"),
    "max_deals": N_("Most deals"),
}

CHOICE_LABELS = {
    "ascending": N_("ascending"),
    "fixed": N_("fixed"),
    "descending": N_("descending"),
    "down_up": N_("down and up"),
    "up_down": N_("up and down"),
    "rubber": N_("rubber of four deals"),
    "ante": N_("single deal"),
    "raise": N_("raise"),
    "bid": N_("bid"),
    "target": N_("target"),
    "target_exact": N_("exact target"),
}


def game_title(game: str) -> str:
    return _(GAME_TITLES.get(game, game))


def game_short(game: str) -> str:
    return _(GAME_SHORT[game]) if game in GAME_SHORT else game[:2]


def suit_name(letter: str) -> str:
    return _(TAROKKA_SUITS.get(letter, letter))


def tarokka_card_name(code: str) -> str:
    """The full name of a Tarokka card: "7 of Swords (Hooded One)", "Master of Coins
    (Rogue)", "Seer"."""
    if code.startswith("H"):
        return _(HIGH_CARDS.get(code, code))
    suit, rank = code[0], code[1]
    label = _("Master") if rank == "M" else rank
    title = _(TAROKKA_NAMES[code])
    return _("{card} ({title})").format(card=_(_OF_SUIT[suit]).format(rank=label), title=title)


def tarokka_short_name(code: str) -> str:
    """A Tarokka card's name without its title, as the plain mode says it: "7 of Swords",
    "Master of Coins", "Seer"."""
    if code.startswith("H"):
        return _(HIGH_CARDS.get(code, code))
    suit, rank = code[0], code[1]
    label = _("Master") if rank == "M" else rank
    return _(_OF_SUIT[suit]).format(rank=label)


def french_suit_name(letter: str) -> str:
    """A French suit's name: "Hearts"."""
    return _(FRENCH_SUITS.get(letter, letter))


def french_card_name(code: str) -> str:
    """A French card in words: "Ace of Spades", "10 of Hearts"."""
    rank, suit = code[0], code[1]
    label = _(FRENCH_COURTS[rank]) if rank in FRENCH_COURTS else ("10" if rank == "T" else rank)
    return _(_FRENCH_OF_SUIT[suit]).format(rank=label)


def category_name(category: str) -> str:
    return _(CATEGORIES.get(category, category))


def option_label(name: str) -> str:
    return _(OPTION_LABELS.get(name, name.replace("_", " ")))


def choice_label(value: Any) -> str:
    if isinstance(value, str):
        return _(CHOICE_LABELS.get(value, value))
    return str(value)


#: Whom a choice favours, when it fails the fairness bar (Fortunes ruling 11; the server's
#: option specs say which choices do).
FAVOURS = {"dealer": N_("favours the dealer's team")}


def favoured_choice_label(value: Any, favours: dict[str, str] | None) -> str:
    """A choice's label, saying whom it favours if it does: "single deal (favours the
    dealer's team)"."""
    label = choice_label(value)
    side = (favours or {}).get(value) if isinstance(value, str) else None
    if side is None:
        return label
    return _("{choice} ({favours})").format(choice=label, favours=_(FAVOURS.get(side, side)))


def access_label(access: str) -> str:
    return _(ACCESS.get(access, access))


def status_label(status: str) -> str:
    return _(STATUS.get(status, status))


def seat_label(
    seat: dict[str, Any], mine: bool, cut: int | None = None, *, you: bool = True
) -> Text:
    """A seat's name as the seats panels show it (``cut`` to so many characters): bold for
    the player's own, italic for a bot, "(away)" and "(you)" after it (unless not ``you``:
    where there is no room, the bold says it)."""
    name = Text(seat_name(seat)[:cut], style="bold" if mine else "")
    if seat.get("bot") and not seat.get("name"):
        name.stylize("italic")
    if seat.get("away"):
        name.append(_(" (away)"), style="dim")
    if mine and you:
        name.append(_(" (you)"), style="dim")
    return name


#: A bot's level in words a player understands (the protocol's bot kinds), weakest first.
BOT_LEVELS = {"random": N_("beginner"), "heuristic": N_("regular"), "strong": N_("strong")}
#: The order the level key cycles a bot through.
LEVEL_CYCLE = ("heuristic", "strong", "random")


def bot_level(kind: str) -> str:
    return _(BOT_LEVELS.get(kind, kind))


def seat_name(seat: dict[str, Any], level: bool = False) -> str:
    """Who sits in a lobby seat entry, in words: a name, a bot (with its level, if asked),
    or nobody."""
    if seat.get("name"):
        return seat["name"]
    if seat.get("bot"):
        if level:
            return _("Bot {n} ({level})").format(n=seat["seat"] + 1, level=bot_level(seat["bot"]))
        return _("Bot {n}").format(n=seat["seat"] + 1)
    return _("empty")
