"""The plain mode's words: card names said in full, each legal action as a short label, and
the command words a player may type (in their language; English is always understood)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from rich.text import Text

from protocol.cards import (
    FORTUNES_STAR,
    FORTUNES_SUITS,
    FRENCH_COURTS,
    FRENCH_SUITS,
    TAROKKA_SUITS,
    fortunes_value,
)

from ..cards import CardStyle
from ..fortunes_text import RANK_NAMES
from ..fortunes_text import card_name as fortunes_card_name
from ..i18n import NC_, _, plain_catalog, translations
from ..names import french_card_name, tarokka_short_name

T = TypeVar("T")

#: Every command and the English word that types it (each also said in the player's
#: language, context "command").
COMMANDS: dict[str, str] = {
    "help": NC_("command", "help"),
    "tables": NC_("command", "tables"),
    "new": NC_("command", "new"),
    "join": NC_("command", "join"),
    "watch": NC_("command", "watch"),
    "bot": NC_("command", "bot"),
    "start": NC_("command", "start"),
    "leave": NC_("command", "leave"),
    "lobby": NC_("command", "lobby"),
    "hand": NC_("command", "hand"),
    "table": NC_("command", "table"),
    "last": NC_("command", "last"),
    "history": NC_("command", "history"),
    "replay": NC_("command", "replay"),
    "next": NC_("command", "next"),
    "back": NC_("command", "back"),
    "stop": NC_("command", "stop"),
    "score": NC_("command", "score"),
    "time": NC_("command", "time"),
    "say": NC_("command", "say"),
    "mode": NC_("command", "mode"),
    "set": NC_("command", "set"),
    "profile": NC_("command", "profile"),
    "top": NC_("command", "top"),
    "friends": NC_("command", "friends"),
    "friend": NC_("command", "friend"),
    "unfriend": NC_("command", "unfriend"),
    "invite": NC_("command", "invite"),
    "events": NC_("command", "events"),
    "register": NC_("command", "register"),
    "withdraw": NC_("command", "withdraw"),
    "standings": NC_("command", "standings"),
    "quit": NC_("command", "quit"),
}

#: Cards in sentences: ASCII stand-ins, no colour (the plain mode says, it does not draw).
STYLE = CardStyle(ascii=True, theme="mono")

#: The two modes ``mode`` chooses between, and whether each is the plain one.
MODES: dict[str, bool] = {NC_("command", "plain"): True, NC_("command", "screen"): False}

#: Each action type of the protocol and the verb that types it.
VERBS: dict[str, str] = {
    "play": NC_("command", "play"),
    "bid": NC_("command", "bid"),
    "risk": NC_("command", "risk"),
    "discard": NC_("command", "discard"),
    "give": NC_("command", "give"),
    "pick": NC_("command", "pick"),
    "take": NC_("command", "take"),
    "target": NC_("command", "choose"),
    "draw": NC_("command", "draw"),
    "pass": NC_("command", "pass"),
    "replace": NC_("command", "replace"),
    "keep": NC_("command", "keep"),
    "highest": NC_("command", "highest"),
    "lowest": NC_("command", "lowest"),
    "kill": NC_("command", "kill"),
    "save": NC_("command", "save"),
    "stay": NC_("command", "stay"),
    "raise": NC_("command", "raise"),
    "fold": NC_("command", "fold"),
    "next_deal": NC_("command", "next"),
}


def is_number(word: str) -> bool:
    """A whole number typed in digits 0 to 9 (``str.isdigit`` takes "²" too, which ``int``
    refuses)."""
    return word.isascii() and word.isdigit()


def english(key: str) -> str:
    """The English word of a command-context key ("help")."""
    return key.partition("\x04")[2] or key


def card_name(game: str, code: str | None) -> str:
    """A card in words, in the player's language ("7 of Swords", "Seer", "Queen of Hearts")."""
    if not code:
        return _("no card")
    if game == "prophets_gambit":
        return tarokka_short_name(code)
    if game == "prophet":
        return french_card_name(code)
    if game == "fortunes":
        return fortunes_card_name(code)
    return code


def card_parts(game: str, code: Any) -> tuple[str, str] | None:
    """A card's suit and rank in words ("Hearts", "Queen"); None for a card of no suit (a
    High card, a Star) or no card."""
    if not isinstance(code, str) or len(code) < 2:
        return None
    if game == "prophets_gambit" and code[0] in TAROKKA_SUITS:
        return _(TAROKKA_SUITS[code[0]]), (_("Master") if code[1:] == "M" else code[1:])
    if game == "prophet" and code[1] in FRENCH_SUITS:
        rank = code[0]
        label = _(FRENCH_COURTS[rank]) if rank in FRENCH_COURTS else ("10" if rank == "T" else rank)
        return _(FRENCH_SUITS[code[1]]), label
    if game == "fortunes" and code[0] != FORTUNES_STAR and code[0] in FORTUNES_SUITS:
        n = fortunes_value(code)
        return _(FORTUNES_SUITS[code[0]]), (_(RANK_NAMES[n]) if n in RANK_NAMES else str(n))
    return None


def in_english(make: Callable[[], T]) -> T:
    """What ``make`` says in English (typed English words are always understood)."""
    token = plain_catalog.set(translations("en"))
    try:
        return make()
    finally:
        plain_catalog.reset(token)


def face(game: str) -> Any:
    """A sentence's card part, as its name (no symbol, no colour): for the game's text
    modules' ``face``."""

    def named(code: str | None, style: CardStyle) -> Text:
        return Text(card_name(game, code))

    return named


def action_label(game: str, action: dict[str, Any], names: list[str]) -> str:
    """One legal action in words: "7 of Swords", "3", "Ada", "kill"."""
    if "card" in action:
        return card_name(game, action["card"])
    if "tricks" in action:
        return str(action["tricks"])
    if "seat" in action:
        seat = action["seat"]
        return names[seat] if 0 <= seat < len(names) else str(seat + 1)
    return verb_word(action["type"])


def verb_word(kind: str) -> str:
    """The verb of an action type in the player's language ("play")."""
    return _(VERBS[kind]) if kind in VERBS else kind
