"""Plain mode's turn prompts are short (issue 44: at most 40 words, counted as bench/plain.py
counts them) in whole bot games of all three games, and still say every legal choice."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.hub import Hub
from tests.hub.conftest import fast_config

from .plain_session import plain, play

#: The issue's target: words in a turn prompt.
MOST_WORDS = 40

GAMES = [
    # (the game opened, its bots): Prophet's whole schedule deals up to 10 cards each
    ("new", 2),
    ("new prophet", 2),
    ("new fortunes betting ante", 3),
]


@pytest.fixture(params=[3, 11])
async def hub(store, request) -> AsyncIterator[Hub]:
    h = Hub(store, fast_config(seed=request.param, between_games=60.0))
    await h.start()
    yield h
    await h.stop()


@pytest.mark.parametrize(("new", "bots"), GAMES, ids=["pg", "prophet", "fortunes"])
async def test_every_turn_prompt_is_short(hub, new, bots):
    ada = await plain(hub, "Ada")
    await play(ada, new, bots)
    await ada.close()
    assert len(ada.prompts) >= 5
    long = [p for p in ada.prompts if len(p.split()) > MOST_WORDS]
    assert not long, long


def _choices(game: str, cards: list[str], verb: str = "play"):
    from gambit_tui.plain.parser import choices_of

    return choices_of(game, [{"type": verb, "card": c} for c in cards], ["Ada", "Bob", "Cy"])


def test_long_lists_said_by_suit_then_as_the_whole_hand():
    from gambit_tui.plain.prompt import numbered_hand, prompt_line

    hand = ["AS", "KS", "7S", "QH", "TH", "9D", "8D", "7D", "JC", "8C"]
    said = prompt_line("Your turn: lead a card.", _choices("prophet", hand), "prophet", hand)
    assert said == (
        "Your turn: lead a card. Choices: Spades: 1 Ace, 2 King, 3 7; Hearts: 4 Queen, 5 10; "
        "Diamonds: 6 9, 7 8, 8 7; Clubs: 9 Jack, 10 8; or type hand."
    )
    fortunes = [f"{s}{n}" for s in "WCSP" for n in (1, 3, 5, 12)] + ["*3", "*7"]
    said = prompt_line("You lead trick 2.", _choices("fortunes", fortunes), "fortunes", fortunes)
    assert said == "You lead trick 2. Choices: any card, 1 to 18; or type hand."
    # ... and hand says each card with its number
    assert numbered_hand("fortunes", fortunes[:2], _choices("fortunes", fortunes)) == [
        "1 Ace of Wands",
        "2 3 of Wands",
    ]
    assert numbered_hand("prophet", ["AS"], []) == ["Ace of Spades"]


def test_bids_said_as_the_numbers_typed():
    from gambit_tui.plain.parser import choices_of
    from gambit_tui.plain.prompt import prompt_line

    bids = choices_of("prophet", [{"type": "bid", "tricks": n} for n in (1, 2, 3)], [])
    assert prompt_line("Your bid?", bids, "prophet", []) == (
        "Your bid? Choices: 1, 2, 3; or type hand."
    )
