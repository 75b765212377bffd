"""What a line the player typed asks for: a command, or one of the legal actions.

Forgiving: a command is its word or any unique start of it, in the player's language or in
English; an action is its number in the listed choices, a verb and a card ("play 7 swords",
"play 7s"), or the card alone when that is clear. Nothing here knows a rule: the choices are
the hub's legal actions as the view lists them (:func:`choices_of`). What is not understood
comes back as one sentence saying why and what would be.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..i18n import _
from .words import (
    COMMANDS,
    VERBS,
    action_label,
    card_parts,
    english,
    in_english,
    is_number,
    verb_word,
)


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal action, as the prompt lists it."""

    number: int
    action: dict[str, Any]
    #: Its words in the player's language ("7 of Swords"), and in English.
    label: str
    english: str
    #: A card's rank and suit as a prompt said by suit says them ("7 Swords", "Swords 7"),
    #: in the player's language and in English (a suit's name may not be its form in a
    #: card's name: Ukrainian "Mechi" and "7 Mechiv").
    said: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        return str(self.action["type"])


@dataclass(frozen=True, slots=True)
class Parsed:
    """A command (``command``, with the rest of the line in ``arg``), an action to send, or a
    refusal (a sentence); all None: an empty line."""

    command: str | None = None
    arg: str = ""
    action: dict[str, Any] | None = None
    refusal: str | None = None
    #: Choices that the line might have meant (for a refusal's list).
    candidates: list[Choice] = field(default_factory=list)


def choices_of(game: str, legal: list[dict[str, Any]], names: list[str]) -> list[Choice]:
    """The legal actions of a view as numbered choices (from 1, in the hub's order)."""

    def label(action: dict[str, Any]) -> Callable[[], str]:
        return lambda: action_label(game, action, names)

    def said(action: dict[str, Any]) -> tuple[str, ...]:
        def parts() -> tuple[str, str] | None:
            return card_parts(game, action.get("card"))

        return tuple(
            f"{first} {second}"
            for suit, rank in filter(None, (parts(), in_english(parts)))
            for first, second in ((rank, suit), (suit, rank))
        )

    return [
        Choice(i + 1, action, label(action)(), in_english(label(action)), said(action))
        for i, action in enumerate(legal)
    ]


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[\s,.;:!?()'\"]+", text.casefold()) if t]


#: Words left out when a card's name is matched ("7 of swords" as "7 swords").
FILLERS = {"of", "der", "des", "the", "a"}


def _words(label: str) -> list[str]:
    return [t for t in _tokens(label) if t not in FILLERS]


def _prefix_match(typed: list[str], words: list[str]) -> bool:
    """Each typed word starts a different word of ``words``, in order."""
    if not typed:
        return False
    at = 0
    for word in typed:
        while at < len(words) and not words[at].startswith(word):
            at += 1
        if at == len(words):
            return False
        at += 1
    return True


def _compact(choice: Choice) -> set[str]:
    """Short forms of a card choice: its code ("s7") and the code turned round ("7s")."""
    code = choice.action.get("card")
    if not isinstance(code, str):
        return set()
    code = code.casefold()
    return {code, code[1:] + code[:1]}


def _names(choice: Choice) -> tuple[str, ...]:
    return (choice.label, choice.english, *choice.said)


def match_choice(text: str, choices: list[Choice]) -> list[Choice]:
    """The choices ``text`` may mean: exact short forms first, then names by their words."""
    typed = _words(text)
    if not typed:
        return []
    squashed = "".join(typed)
    for test in (
        lambda c: squashed in _compact(c),
        lambda c: squashed in ("".join(_words(n)) for n in _names(c)),
        lambda c: any(_prefix_match(typed, _words(n)) for n in _names(c)),
    ):
        found = [c for c in choices if test(c)]
        if found:
            return found
    return []


def listing(choices: list[Choice]) -> str:
    """Choices as the prompt says them: "1 7 of Swords, 2 Seer"."""
    return ", ".join(f"{c.number} {c.label}" for c in choices)


def _command_words() -> dict[str, set[str]]:
    """Each command and action type by the words that type it (player's language, English)."""
    out: dict[str, set[str]] = {}
    for key, word in (*COMMANDS.items(), *VERBS.items()):
        out[key] = {english(word).casefold(), _(word).casefold()}
    return out


def command_of(word: str) -> tuple[list[str], bool]:
    """The commands ``word`` may start, and whether one is typed in full."""
    word = word.casefold()
    words = _command_words()
    exact = [key for key, said in words.items() if word in said]
    if exact:
        return exact[:1], True
    return [key for key, said in words.items() if any(s.startswith(word) for s in said)], False


def command_name(key: str) -> str:
    """A command's word in the player's language."""
    if key in COMMANDS:
        return _(COMMANDS[key])
    return verb_word(key)


def _one_of(words: list[str]) -> str:
    """ "a, b or c" in the player's language."""
    if len(words) == 1:
        return words[0]
    return _("{some} or {last}").format(some=", ".join(words[:-1]), last=words[-1])


def parse(line: str, choices: list[Choice]) -> Parsed:
    """What ``line`` asks for, given the choices now listed (none: nothing is asked)."""
    text = line.strip()
    if not text:
        return Parsed()
    first, _sep, rest = text.partition(" ")
    rest = rest.strip()
    if is_number(first) and not rest:
        return _by_number(int(first), choices)
    keys, exact = command_of(first)
    if exact and keys[0] in COMMANDS:
        # a word both a command and an open action's verb ("next": a replay's step, or
        # Fortunes' next deal) is the action: the table is asking
        words = _command_words()
        verbs = [c.kind for c in choices if first.casefold() in words.get(c.kind, ())]
        keys = verbs[:1] or keys
    if not exact:
        meant = _same_card(match_choice(text, choices))
        if len(meant) == 1:
            return Parsed(action=meant[0].action)
        open_now = [k for k in keys if k in COMMANDS or any(c.kind == k for c in choices)]
        if len(open_now) == 1:
            keys = open_now
    if len(keys) > 1:
        return Parsed(
            refusal=_("{word} could be {commands}: type more of it.").format(
                word=first, commands=_one_of([command_name(k) for k in keys])
            )
        )
    if not keys:
        meant = _same_card(match_choice(text, choices))
        return _one_or_refusal(text, meant, choices, unknown=first)
    key = keys[0]
    if key in COMMANDS:
        return Parsed(command=key, arg=rest)
    return _verb(key, rest, choices)


def _same_card(meant: list[Choice]) -> list[Choice]:
    """A card named alone, that more than one verb may take: the first (the hub lists
    playing a card before anything else done with it)."""
    cards = {c.action.get("card") for c in meant}
    if len(meant) > 1 and len(cards) == 1 and None not in cards:
        return meant[:1]
    return meant


def _by_number(n: int, choices: list[Choice]) -> Parsed:
    if not choices:
        return Parsed(refusal=_("Nothing is asked of you now."))
    if all("tricks" in c.action for c in choices):
        found = [c for c in choices if c.action["tricks"] == n]
        if found:
            return Parsed(action=found[0].action)
        return Parsed(
            refusal=_("You cannot bid {n}: the choices are {choices}.").format(
                n=n, choices=_one_of([c.label for c in choices])
            )
        )
    if 1 <= n <= len(choices):
        return Parsed(action=choices[n - 1].action)
    return Parsed(
        refusal=_("There is no choice {n}: type a number from 1 to {max}.").format(
            n=n, max=len(choices)
        )
    )


def _verb(kind: str, rest: str, choices: list[Choice]) -> Parsed:
    if not choices:
        return Parsed(refusal=_("Nothing is asked of you now."))
    mine = [c for c in choices if c.kind == kind]
    if not mine:
        return Parsed(
            refusal=_("You cannot {verb} now: the choices are {choices}.").format(
                verb=verb_word(kind), choices=listing(choices)
            )
        )
    if not rest:
        if len(mine) == 1:
            return Parsed(action=mine[0].action)
        return Parsed(
            refusal=_("{verb} what: the choices are {choices}.").format(
                verb=verb_word(kind), choices=listing(mine)
            ),
            candidates=mine,
        )
    if is_number(rest) and all("tricks" in c.action for c in mine):
        return _by_number(int(rest), mine)
    if is_number(rest) and not any(c.label.casefold().startswith(rest) for c in mine):
        return _by_number(int(rest), choices)
    return _one_or_refusal(rest, match_choice(rest, mine), mine, unknown=None)


def _one_or_refusal(
    text: str, meant: list[Choice], choices: list[Choice], unknown: str | None
) -> Parsed:
    if len(meant) == 1:
        return Parsed(action=meant[0].action)
    if len(meant) > 1:
        return Parsed(
            refusal=_("{text} could be {choices}: type more of it, or its number.").format(
                text=text, choices=_one_of([f"{c.number} {c.label}" for c in meant])
            ),
            candidates=meant,
        )
    if unknown is not None and not choices:
        return Parsed(
            refusal=_("There is no command {word}: type help to hear the commands.").format(
                word=unknown
            )
        )
    return Parsed(
        refusal=_("Nothing matches {text}: the choices are {choices}.").format(
            text=text, choices=listing(choices)
        )
    )
