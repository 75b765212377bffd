"""The choices of a turn prompt, said in few words (issue 44: at most 40 words a prompt).

A prompt lists every legal choice with its number. When that is too long, it is said more
compactly, step by step until it fits: cards of one suit are said under their suit once
("Hearts: 1 7, 2 Queen"); then a verb open for every card of the hand is said as "any card,
1 to 10" (``hand`` then says the cards with their numbers). Nothing here knows a rule: the
choices are the hub's legal actions (:func:`~.parser.choices_of`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import fortunes_text, pg_text, prophet_text
from ..i18n import _
from .parser import Choice, choices_of, command_name
from .words import STYLE, card_name, card_parts, face

#: The issue's target: words in a turn prompt (the question, the choices and the rest).
MOST_WORDS = 40


def words(text: str) -> int:
    """Words as bench/plain.py counts them."""
    return len(text.split())


def turn_prompt(game: str, view: dict[str, Any], names: list[str]) -> str:
    """What a seat's view asks of it, as the line said when its turn comes: the question, then
    the view's legal actions as the numbered choices :func:`~.parser.parse` takes."""
    ask = view.get("ask") or {}
    if game == "prophets_gambit":
        question = pg_text.ask_text(ask, view, lambda s: names[s], STYLE, face(game)).plain
    elif game == "prophet":
        question = prophet_text.ask_text(ask, view, STYLE).plain
    elif game == "fortunes":
        question = fortunes_text.ask_text(ask, view, STYLE, spoken=True).plain
    else:
        question = _("Decide.")
    choices = choices_of(game, view.get("legal", []), names)
    return prompt_line(question, choices, game, view.get("hand") or [])


def prompt_line(question: str, choices: list[Choice], game: str, hand: list[str]) -> str:
    """The whole prompt: the question and its choices, as compact as it needs to be."""
    line = ""
    for say in (_listed, _by_suit, _whole_hand):
        line = _("{question} Choices: {choices}; or type hand.").format(
            question=question, choices=say(choices, game, hand)
        )
        if words(line) <= MOST_WORDS:
            break
    return line


def numbered_hand(game: str, hand: list[str], choices: list[Choice]) -> list[str]:
    """The cards of a hand by name, each with its choice's number when every card is one
    (after a prompt said "any card, 1 to 10")."""
    number: dict[str, int] = {}
    for choice in choices:
        card = choice.action.get("card")
        if isinstance(card, str):
            number.setdefault(card, choice.number)
    names = [card_name(game, c) for c in hand]
    if not hand or any(c not in number for c in hand):
        return names
    return [f"{number[c]} {name}" for c, name in zip(hand, names, strict=True)]


# --- the ways of saying the choices, longest first --------------------------------------------

Say = Callable[[list[Choice], str, list[str]], str]


def _listed(choices: list[Choice], game: str, hand: list[str]) -> str:
    return grouped(choices)


def _by_suit(choices: list[Choice], game: str, hand: list[str]) -> str:
    return grouped(choices, game=game)


def _whole_hand(choices: list[Choice], game: str, hand: list[str]) -> str:
    return grouped(choices, hand=hand, game=game)


def grouped(choices: list[Choice], *, hand: list[str] | None = None, game: str = "") -> str:
    """The choices of a prompt, grouped by verb where more than one verb is open: "play: 1 7
    of Swords, 2 Seer; risk: 3 7 of Swords". With ``hand``: a verb open for every card of it
    is "any card, 1 to 6"; with ``game``: cards of one suit are said under it once."""
    if choices and all("tricks" in c.action for c in choices):
        # a bid is typed as its number of tricks: the choices are those numbers
        return ", ".join(c.label for c in choices)
    kinds = list(dict.fromkeys(c.kind for c in choices))
    parts = []
    seen: list[list[str]] = []
    for kind in kinds:
        mine = [c for c in choices if c.kind == kind]
        labels = [c.label for c in mine]
        if len(mine) > 1 and labels in seen:
            parts.append(
                _("{verb}: {first} to {last}, the same cards").format(
                    verb=command_name(kind), first=mine[0].number, last=mine[-1].number
                )
            )
            continue
        seen.append(labels)
        cards = sorted(str(c.action.get("card")) for c in mine)
        numbers = [c.number for c in mine]
        if (
            hand
            and len(mine) > 1
            and cards == sorted(hand)
            and numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        ):
            listed = _("any card, {first} to {last}").format(first=numbers[0], last=numbers[-1])
        elif game:
            listed = _by_suits(game, mine)
        else:
            listed = ", ".join(f"{c.number} {c.label}" for c in mine)
        if len(kinds) > 1 and any(len(c.action) > 1 for c in mine):
            listed = f"{command_name(kind)}: {listed}"
        parts.append(listed)
    return "; ".join(parts)


def _by_suits(game: str, choices: list[Choice]) -> str:
    """Cards under their suits, in the order each suit first comes: "Hearts: 1 7, 2 Queen;
    3 Seer" (a card of no suit on its own)."""
    groups: dict[str, list[str]] = {}
    for choice in choices:
        parts = card_parts(game, choice.action.get("card"))
        if parts is None:
            groups[f"-{choice.number}"] = [f"{choice.number} {choice.label}"]
        else:
            suit, rank = parts
            groups.setdefault(suit, []).append(f"{choice.number} {rank}")
    return "; ".join(
        ", ".join(said)
        if key.startswith("-")
        else _("{suit}: {cards}").format(suit=key, cards=", ".join(said))
        for key, said in groups.items()
    )
