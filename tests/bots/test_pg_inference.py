"""What a Prophet's Gambit opponent's turns say about its hand (the strong bot's inference).

The heuristic bot Risks exactly when its best Play earns no draw and keeps at most One pair,
so a Play without a draw says "Two pairs or better" and a Risk "One pair or worse". The
opponents' true hands must fit those signals (the inference would otherwise push the worlds
away from the truth), and random hands must fit them less often.
"""

from __future__ import annotations

import random

from protocol.cards import TAROKKA_COMMON
from server.bots import make_bot
from server.bots.strong.pg_inference import signal_misses, signals
from server.engine import get_game


def test_signals_read_plays_without_a_draw_and_risks():
    view = {
        "seat": 0,
        "events": [
            {"e": "bids", "cards": ["S1", "S2", "S3", "S4"]},
            {"e": "play", "seat": 1, "card": "C5", "bonus": False},
            {"e": "play", "seat": 0, "card": "C6", "bonus": False},
            {"e": "discard", "seat": 2, "card": "G2", "why": "risk"},
            {"e": "play", "seat": 3, "card": "G3", "bonus": True},
            {"e": "play", "seat": 1, "card": "C7", "bonus": True},
            {"e": "discard", "seat": 1, "card": "C8"},
        ],
    }
    # Seat 0 is this seat, seat 3 earned a draw: neither says anything.
    assert signals(view) == {1: [(True, ["C7", "C8"])], 2: [(False, [])]}


def test_a_hand_that_contradicts_a_signal_is_counted():
    fixed = ["S9", "C9"]
    two_pairs = ["G9", "S5", "C5"]  # with S9 C9: three 9s and a pair of 5s
    nothing = ["G1", "S3", "C6"]  # a pair of 9s at best
    assert signal_misses(two_pairs, fixed, [(True, [])]) == 0
    assert signal_misses(nothing, fixed, [(True, [])]) == 1
    assert signal_misses(nothing, fixed, [(False, [])]) == 0
    assert signal_misses(two_pairs, fixed, [(False, []), (True, [])]) == 1


def test_true_hands_fit_the_signals_better_than_random_hands():
    game = get_game("prophets_gambit")
    rng = random.Random(5)
    true_misses = random_misses = checked = 0
    for i in range(30):
        bots = [make_bot("prophets_gambit", "heuristic", seed=f"inf-{i}-{s}") for s in range(4)]
        state = game.new_state(4, {}, dealer=i % 4, seed=f"inf-{i}")
        while state.phase != "execution" and not state.is_over:
            seat = min(state.pending())
            state.apply(seat, bots[seat].choose(state.view(seat)))
        if state.is_over:
            continue  # a Donjon went straight to the Reveal
        view = state.view(0)
        for seat, sigs in signals(view).items():
            fixed = [state.fates[seat], state.focus]
            hand = state.hands[seat]
            pool = [c for c in TAROKKA_COMMON if c not in hand and c not in fixed]
            true_misses += signal_misses(hand, fixed, sigs)
            random_misses += signal_misses(rng.sample(pool, len(hand)), fixed, sigs)
            checked += len(sigs)
    assert checked > 40
    # Measured when written: 10 of 80 signals missed by the true hands (draws since a turn
    # are not undone), 53 by random ones.
    assert true_misses <= 0.25 * checked, (true_misses, checked)
    assert random_misses >= true_misses + 0.3 * checked, (random_misses, true_misses, checked)


def test_a_card_that_left_a_hand_twice_since_a_signal_was_held_once():
    """A fuzz run's fault: seat 1 Risked, then discarded G8, took it back with the Ghost and
    discarded it again; the hand rebuilt for that Risk held G8 twice, and with C8 in the
    candidate hand, T8 its Fate and S8 the Focus made five 8s (``hand_key`` refused it)."""
    view = {
        "seat": 0,
        "events": [
            {"e": "discard", "seat": 1, "card": "S2", "why": "risk"},
            {"e": "high", "seat": 1, "card": "HHO"},
            {"e": "discard", "seat": 1, "card": "G8"},
            {"e": "discard", "seat": 1, "card": "C3"},
            {"e": "discard", "seat": 1, "card": "S5", "why": "risk"},
            {"e": "high", "seat": 1, "card": "HGH"},
            {"e": "take", "seat": 1, "card": "G8"},
            {"e": "discard", "seat": 1, "card": "G8"},
        ],
    }
    sigs = signals(view)[1]
    assert sigs[0] == (False, ["G8", "C3", "S5", "G8"])
    # Then: C8 G8 C3 S5 with the Fate T8 and the Focus S8: three 8s, more than One pair.
    assert signal_misses(["C8"], ["T8", "S8"], sigs[:1]) == 1
