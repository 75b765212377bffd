"""The strong Prophet bot outscores the heuristic bots on a small duplicate set.

Three deck orders, each played four times with the strong bot in each seat in turn (the other
three heuristic), so every seat's cards meet it once. Eight worlds a decision (iterations
mode: the result is fixed by the seeds). Measured when written: 1.27 times the heuristic
bots' mean total on these sets; over sixteen such sets the three-set ratio ranged 1.11–1.33,
and ``bench/bots.py`` measures 1.2–1.4 at the default time budget, so the bar of 1.0 fails
only if the bot really gets worse.
"""

from __future__ import annotations

from server.bots import make_bot
from server.engine import get_game

OPTIONS = {"schedule": "ascending"}


def test_strong_prophet_outscores_the_heuristic_on_duplicate_deals():
    game = get_game("prophet")
    mine = theirs = 0.0
    for i in range(3):
        for hero in range(4):
            bots = [
                make_bot(
                    "prophet", "strong" if s == hero else "heuristic", f"{i}-{s}", iterations=8
                )
                for s in range(4)
            ]
            state = game.new_state(4, OPTIONS, dealer=0, seed=f"beat-{i}")
            while not state.is_over:
                seat = min(state.pending())
                state.apply(seat, bots[seat].choose(state.view(seat)))
            scores = state.outcome().scores
            mine += scores[hero]
            theirs += (sum(scores) - scores[hero]) / 3
    assert mine / theirs > 1.0, (mine, theirs)
