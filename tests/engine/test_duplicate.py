"""Duplicate deals: the same seed deals the same cards to the same seats, every deal of the
game; rotations put every player on every seat; comparisons are seat by seat."""

from __future__ import annotations

import pytest

from server.engine import duplicate
from server.engine.fairness import replay_deals, where_cards_are

SETUPS = [
    ("prophets_gambit", 4, {}),
    ("prophet", 3, {"schedule": "ascending"}),
    ("fortunes", 4, {}),
]


def _first_legal(player: int, state, seat: int) -> dict:
    return state.legal_actions(seat)[0]


@pytest.mark.parametrize(("game", "players", "options"), SETUPS)
def test_copies_deal_the_same_cards_to_the_same_seats(game, players, options):
    seed = duplicate.deal_seed("set-secret", 0)
    states = duplicate.copies(game, players, options, 1, seed, 3)
    first = where_cards_are(states[0])
    assert all(where_cards_are(s) == first for s in states[1:])
    # Another deal of the set deals other cards.
    other = duplicate.copies(game, players, options, 1, duplicate.deal_seed("set-secret", 1), 1)
    assert where_cards_are(other[0]) != first


@pytest.mark.parametrize(("game", "players", "options"), SETUPS)
def test_every_deal_of_a_game_repeats_not_only_the_first(game, players, options):
    """Played the same way, two copies meet the same cards at every later deal too."""
    seed = duplicate.deal_seed("s", 4)
    logs = []
    for _ in range(2):
        (state,) = duplicate.copies(game, players, options, 0, seed, 1)
        while not state.is_over:
            seat = min(state.pending())
            state.apply(seat, _first_legal(0, state, seat))
        logs.append(replay_deals(state.params, state.history)[1])
    assert logs[0] == logs[1]


def test_deal_seeds_are_one_way_and_distinct():
    seeds = [duplicate.deal_seed("secret", i) for i in range(5)]
    assert len(set(seeds)) == 5
    assert all("secret" not in s and len(s) == 64 for s in seeds)
    assert duplicate.deal_seed("secret", 2) == seeds[2]
    assert duplicate.deal_seed("other", 2) != seeds[2]


def test_rotations_put_every_player_on_every_seat():
    n = 4
    table = [duplicate.seating(n, shift) for shift in range(n)]
    assert table[0] == [0, 1, 2, 3]
    assert table[1] == [3, 0, 1, 2]  # player 0 moved to seat 1
    for player in range(n):
        assert sorted(row.index(player) for row in table) == list(range(n))


def test_compare_is_seat_by_seat():
    results = [[10, 0, 5], [4, 2, 5], [1, 4, 5]]
    deltas = duplicate.compare(results)
    assert deltas[0] == [10 - 2.5, 0 - 3, 0]
    assert deltas[2][1] == 4 - 1
    assert duplicate.compare([[3, 1]]) == [[None, None]]


def test_play_rotated_same_policy_same_results():
    """Everyone playing the same way: each copy's outcome is the same, so nobody gains."""
    rotated = duplicate.play_rotated("prophets_gambit", 4, {}, 0, "dup", _first_legal)
    assert len(rotated) == 4
    scores = [outcome.scores for _, outcome in rotated]
    assert all(s == scores[0] for s in scores)
    assert duplicate.by_player([(who, o.scores) for who, o in rotated], 4) == [0.0] * 4


def test_play_rotated_shows_a_better_player():
    """Player 0 plays its seat's last legal action, the others the first: the comparison
    sees a difference, and what one player gains with some cards the others lose with them."""

    def chooser(player, state, seat):
        legal = state.legal_actions(seat)
        return legal[-1] if player == 0 else legal[0]

    rotated = duplicate.play_rotated("prophet", 3, {"schedule": "ascending"}, 0, "x", chooser)
    totals = duplicate.by_player([(who, o.scores) for who, o in rotated], 3)
    assert any(abs(t) > 0 for t in totals)
    assert sum(totals) == pytest.approx(0)
    assert [who[0] for who, _ in rotated] == [0, 2, 1]
