"""An opponent's choices replayed by the heuristic's rules on a candidate hand (the strong
Prophet's Gambit bot's exact opponent model).

Heuristic opponents' true hands must fit their own past choices (the model rebuilds each
earlier hand from today's: a removed card was held, a drawn one not yet), and random hands
from the cards the seat has not seen must fit them far less often.
"""

from __future__ import annotations

import random

from server.bots import make_bot
from server.bots.strong.pg_replay import replay_misses, timeline
from server.bots.strong.pg_world import _places
from server.engine import get_game


def test_a_bid_that_breaks_a_pair_is_a_miss():
    # With C7 bid, S9 C9 G4 S5 S8 were left: the pair of 9s and the 8 keep as well as after
    # any other bid but the 8's or a 9's, and of the cards that tie the 7 is the highest.
    assert replay_misses([("bid", "C7", None)], ["S9", "C9", "G4", "S5", "S8"], "C1", "G2") == 0
    assert replay_misses([("bid", "G4", None)], ["S9", "C9", "C7", "S5", "S8"], "C1", "G2") == 1
    assert replay_misses([("bid", "S9", None)], ["S8", "C9", "G4", "S5", "C7"], "C1", "G2") == 1


def test_a_draw_is_taken_back_in_every_way():
    # Played the 3 (earning a draw), drew a card and discarded the 2: whichever card of today's
    # hand was the drawn one, the replay finds the way that fits.
    steps = [("play", "S3", 9), ("draw", 1, None), ("keep", "G2", None)]
    assert replay_misses(steps, ["S9", "C9", "G9", "S5"], "C1", "G6") == 0


def test_true_hands_fit_their_choices_and_random_hands_do_not():
    game = get_game("prophets_gambit")
    rng = random.Random(3)
    true_misses = random_misses = checked = 0
    for i in range(20):
        bots = [make_bot("prophets_gambit", "heuristic", seed=f"rp-{i}-{s}") for s in range(4)]
        state = game.new_state(4, {}, dealer=i % 4, seed=f"replay-{i}")
        while not state.is_over:
            seat = min(state.pending())
            view = state.view(seat)
            if seat == 0 and view["phase"] == "round" and len(view["legal"]) > 1:
                pool = _places(view)[3]
                for s in range(1, 4):
                    steps = timeline(view, s)
                    if steps is None:
                        continue
                    hand, fate = state.hands[s], state.fates[s]
                    true_misses += replay_misses(steps, hand, fate, state.focus) > 0
                    other = rng.sample(pool, len(hand) + 1)
                    random_misses += replay_misses(steps, other[1:], other[0], state.focus) > 0
                    checked += 1
            state.apply(seat, bots[seat].choose(view))
    assert checked > 150
    # Measured when written: about 2 % of true hands miss a choice, 80 % of random ones.
    assert true_misses <= 0.08 * checked, (true_misses, checked)
    assert random_misses >= 0.6 * checked, (random_misses, checked)
