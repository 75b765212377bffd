"""The plain mode's parser over random game states (issue 44): every legal action can be typed
from its prompt, by its number and by its words (a card also by rank and suit, as a prompt
said by suit says it), and is understood as exactly that action;
garbage, a verb of no open choice and a verb alone of several get a refusal of one sentence
on one line; in English, Ukrainian and German.

A state is a seeded game of one of the three games, played by random and heuristic bots up to
a random point; the prompt is the line the plain client says to the seat to act
(:func:`~gambit_tui.plain.prompt.turn_prompt`), its choices the view's legal actions as the
client numbers them (:func:`~gambit_tui.plain.parser.choices_of`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gambit_tui.i18n import _, plain_catalog, translations
from gambit_tui.plain.parser import Choice, choices_of, parse
from gambit_tui.plain.prompt import turn_prompt
from gambit_tui.plain.words import COMMANDS, VERBS, card_parts, english, verb_word
from server.bots import make_bot
from server.engine import get_game
from server.engine.fortunes.game import BETTING
from server.engine.prophet import SCHEDULES

LANGUAGES = ("en", "uk", "de")
NAMES = ["Ada", "Bohdan", "Clara", "Dmytro", "Eve", "Farid"]

#: Each game's table: its players and options, drawn.
TABLES = {
    "prophets_gambit": st.tuples(st.integers(3, 5), st.just({})),
    "prophet": st.tuples(
        st.integers(3, 6),
        st.builds(lambda s, c: {"schedule": s, "cap": c}, st.sampled_from(SCHEDULES), st.just(5)),
    ),
    "fortunes": st.tuples(
        st.just(4), st.builds(lambda b: {"betting": b}, st.sampled_from(BETTING))
    ),
}

#: Characters a typed line may hold (the line editor keeps no control character).
TYPED = st.characters(blacklist_categories=("Cc", "Cs"))
#: Lines no command and no choice starts: a sign first, or a word of letters no word begins
#: with (no command, verb, card or name starts "x" or "q" followed by one of these).
GARBAGE = st.one_of(
    st.builds(str.__add__, st.sampled_from("#%&*+=/<>@^_`|~$"), st.text(TYPED, max_size=20)),
    st.builds(
        str.__add__,
        st.from_regex(r"\A[xq][xzqjw]{1,6}\Z"),
        st.text(TYPED, max_size=20).map(lambda t: " " + t if t.strip() else ""),
    ),
)


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    token = plain_catalog.set(translations(lang))
    try:
        yield
    finally:
        plain_catalog.reset(token)


def state_at(
    game: str, players: int, options: dict[str, Any], seed: int, steps: int
) -> tuple[dict[str, Any], list[str]]:
    """The view of the seat to act after up to ``steps`` bot decisions of a seeded game (the
    last state still asking, if the game ends sooner), and the seats' names."""
    rng = random.Random(seed)
    state = get_game(game).new_state(players, options, dealer=seed % players, seed=seed)
    bots = {
        kind: [make_bot(game, kind, seed=f"{seed}-{s}") for s in range(players)]
        for kind in ("random", "heuristic")
    }
    view: dict[str, Any] = {}
    for _step in range(steps + 1):
        if state.is_over:
            break
        seat = rng.choice(sorted(state.pending()))
        view = state.view(seat)
        if _step == steps:
            break
        kind = "heuristic" if rng.random() < 0.5 else "random"
        state.apply(seat, bots[kind][seat].choose(view))
    assert view.get("legal"), view
    return view, NAMES[:players]


def is_bids(choices: list[Choice]) -> bool:
    """A bid of tricks is typed as its number of tricks (the prompt lists those numbers)."""
    return all("tricks" in c.action for c in choices)


def number_typed(choice: Choice, choices: list[Choice]) -> str:
    return str(choice.action["tricks"] if is_bids(choices) else choice.number)


def words_typed(choice: Choice) -> str:
    """The verb and the choice's words ("play 7 of Swords", "choose Ada"; "kill" alone)."""
    verb = verb_word(choice.kind)
    return verb if choice.label == verb else f"{verb} {choice.label}"


def by_suit_typed(game: str, choice: Choice) -> list[str]:
    """A card as a prompt said by suit says it ("Hearts: 1 8"): verb, rank and suit."""
    parts = card_parts(game, choice.action.get("card"))
    return [] if parts is None else [f"{verb_word(choice.kind)} {parts[1]} {parts[0]}"]


def numbers_said(line: str) -> set[int]:
    """Every number a prompt says, a range ("any card, 1 to 10") as all of its numbers."""
    said = {int(n) for n in re.findall(r"\d+", line)}
    for template in (
        _("any card, {first} to {last}"),
        _("{verb}: {first} to {last}, the same cards"),
    ):
        pattern = (
            re.escape(template)
            .replace(re.escape("{verb}"), ".*?")
            .replace(re.escape("{first}"), r"(\d+)")
            .replace(re.escape("{last}"), r"(\d+)")
        )
        for first, last in re.findall(pattern, line):
            said |= set(range(int(first), int(last) + 1))
    return said


def is_one_sentence(refusal: str, typed: str) -> bool:
    """One line, ending a sentence, with no sentence ending before (the typed text it
    repeats set aside)."""
    body = refusal.replace(typed.strip(), "TYPED")
    return (
        "\n" not in refusal
        and "\r" not in refusal
        and body.endswith(".")
        and not re.search(r"[.?!]\s", body[:-1])
    )


def check_state(game: str, view: dict[str, Any], names: list[str], lang: str) -> None:
    with speaking(lang):
        line = turn_prompt(game, view, names)
        choices = choices_of(game, view["legal"], names)
        said = numbers_said(line)
        for choice in choices:
            number = number_typed(choice, choices)
            assert int(number) in said, (number, line)
            for typed in (number, words_typed(choice), *by_suit_typed(game, choice)):
                parsed = parse(typed, choices)
                assert parsed.action == choice.action, (lang, typed, parsed, line)


def check_garbage(lines: list[str], view: dict[str, Any], game: str, names: list[str]) -> None:
    choices = choices_of(game, view["legal"], names)
    too_big = str(len(choices) + 1 if not is_bids(choices) else 999)
    closed = [
        english(word)
        for kind, word in VERBS.items()
        if kind not in {c.kind for c in choices}
        and english(word) not in map(english, COMMANDS.values())
    ]
    kinds = [c.kind for c in choices]
    for lang in LANGUAGES:
        with speaking(lang):
            # (a verb alone, open for several choices, is refused too: "play what: ...")
            several = [verb_word(k) for k in dict.fromkeys(kinds) if kinds.count(k) > 1]
            for typed in [*lines, too_big, *closed[:3], *several]:
                parsed = parse(typed, choices)
                assert parsed.action is None and parsed.command is None, (lang, typed, parsed)
                assert parsed.refusal and is_one_sentence(parsed.refusal, typed), (
                    lang,
                    typed,
                    parsed.refusal,
                )


@pytest.mark.parametrize("game", list(TABLES))
@settings(max_examples=30, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32), steps=st.integers(0, 120))
def test_every_legal_action_typed_from_its_prompt(game, data, seed, steps):
    players, options = data.draw(TABLES[game])
    view, names = state_at(game, players, options, seed, steps)
    for lang in LANGUAGES:
        check_state(game, view, names, lang)
    check_garbage(data.draw(st.lists(GARBAGE, min_size=1, max_size=4)), view, game, names)


@settings(max_examples=40, deadline=None)
@given(line=st.text(TYPED, max_size=30), lang=st.sampled_from(LANGUAGES), seed=st.integers(0, 99))
def test_any_line_is_understood_or_refused_on_one_line(line, lang, seed):
    game = ("prophets_gambit", "prophet", "fortunes")[seed % 3]
    view, names = state_at(game, 4, {}, seed, seed % 40)
    choices = choices_of(game, view["legal"], names)
    with speaking(lang):
        parsed = parse(line, choices)
    if parsed.action is not None:
        assert parsed.action in view["legal"]
    elif parsed.command is not None:
        assert parsed.command in COMMANDS
    elif line.strip():
        assert parsed.refusal and "\n" not in parsed.refusal and "\r" not in parsed.refusal
