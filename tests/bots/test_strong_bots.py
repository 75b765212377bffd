"""The strong bots: legal, fed views only, repeatable in iterations mode.

Every test runs the search with a fixed number of worlds (``iterations``), so a choice depends
only on the seed and the view, and the file takes a few seconds.
"""

from __future__ import annotations

import copy
import random

import pytest

from server.bots import bot_kinds, make_bot
from server.engine import get_game

SETUPS = {
    "prophets_gambit": (4, {}),
    "prophet": (4, {"schedule": "ascending", "cap": 3}),
    "fortunes": (4, {"betting": "ante"}),
}


def play(game_name, players, options, kinds, seed, iterations=2, check=None):
    """One game, each seat's bot reading ``state.view(seat)``; every choice must be legal."""
    game = get_game(game_name)
    bots = [
        make_bot(game_name, kind, seed=f"{seed}-{s}", iterations=iterations)
        for s, kind in enumerate(kinds)
    ]
    state = game.new_state(players, options, dealer=0, seed=seed)
    while not state.is_over:
        seat = min(state.pending())
        view = state.view(seat)
        before = copy.deepcopy(view)
        action = bots[seat].choose(view)
        assert action.to_wire() in view["legal"], (game_name, seat, action, view["ask"])
        assert view == before, "a bot changed the view it was given"
        if check:
            check(state, seat, bots[seat])
        state.apply(seat, action)
    return state


def test_every_game_has_a_strong_bot():
    for name in SETUPS:
        assert "strong" in bot_kinds(name)


@pytest.mark.parametrize("game_name", sorted(SETUPS))
def test_strong_bots_choose_only_legal_actions(game_name):
    players, options = SETUPS[game_name]
    kinds = ["strong", "heuristic", "strong", "random"]
    state = play(game_name, players, options, kinds, seed=f"legal-{game_name}")
    assert state.outcome() is not None


def test_prophets_gambit_strong_bots_at_three_and_five_seats():
    for n in (3, 5):
        for i in range(2):
            play("prophets_gambit", n, {}, ["strong"] * n, seed=f"pg{n}-{i}", iterations=1)


def _twin_states(game_name, seed):
    """Two games whose seat 0 sees the same cards, and whose seats 1 and 2 hold different
    ones: the same full deck order with one card of seat 1's hand swapped for one of seat 2's.
    """
    game = get_game(game_name)
    players, options = SETUPS[game_name]
    resolved = game.resolve_options(players, options)
    deck = list(game.cards(resolved))
    random.Random(seed).shuffle(deck)
    if game_name == "prophets_gambit":
        deck = [c for c in deck if not c.startswith("H")]
    first = game.new_state(players, options, dealer=players - 1, seed=0, deck=deck)
    hands = first.hands
    a, b = hands[1][0], hands[2][0]
    other = [b if c == a else a if c == b else c for c in deck]
    second = game.new_state(players, options, dealer=players - 1, seed=0, deck=other)
    assert second.hands[1] != first.hands[1]
    return first, second


@pytest.mark.parametrize("game_name", sorted(SETUPS))
def test_a_choice_depends_on_the_view_only(game_name):
    """Hidden cards that differ between two games do not change what the bot does: it never
    reads them (its input is the seat's view, the same in both)."""
    for i in range(3):
        first, second = _twin_states(game_name, f"twin-{i}")
        seat = 0
        if seat not in first.pending():  # Fortunes: the dealer leads first
            seat = min(first.pending())
        assert first.view(seat) == second.view(seat)
        one = make_bot(game_name, "strong", seed=i, iterations=3)
        two = make_bot(game_name, "strong", seed=i, iterations=3)
        assert one.choose(first.view(seat)) == two.choose(second.view(seat))


def test_iterations_mode_repeats_exactly():
    players, options = SETUPS["prophet"]
    worlds = []

    def record(state, seat, bot):
        if seat == 0:
            worlds.append(bot.last_worlds)

    one = play("prophet", players, options, ["strong"] + ["heuristic"] * 3, "rep", 3, record)
    first = list(worlds)
    worlds.clear()
    two = play("prophet", players, options, ["strong"] + ["heuristic"] * 3, "rep", 3, record)
    assert one.history == two.history
    assert worlds == first and max(first) == 3


def test_the_race_drops_only_clearly_trailing_actions():
    """``race_z``: an action that trails the leader by more standard errors of the paired
    difference is searched no more; a close one, and the heuristic's, stay."""
    bot = make_bot("prophets_gambit", "strong", seed=0, iterations=1)
    rng = random.Random(3)
    base = [rng.random() for _ in range(40)]
    values = [
        [b + 0.3 for b in base],  # the leader
        [b + 0.3 + (0.1 if i % 2 else -0.1) for i, b in enumerate(base)],  # level with it
        list(base),  # far behind: dropped
        [b - 0.2 for b in base],  # far behind, but the heuristic's choice: kept
    ]
    assert bot._race([0, 1, 2, 3], values, anchor=3) == [0, 1, 3]
    assert bot._race([0, 1, 2, 3], values, anchor=None) == [0, 1]
