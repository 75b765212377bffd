"""The strong Fortunes pair outscores the heuristic pair on the same cards.

Six duplicate deals, each played twice: the strong pair North–South, then East–West, against
heuristic bots. Between equal pairs the two plays' margins cancel exactly (the same cards, the
same bots), so the mean margin over both is what the strong pair gains. Eight worlds a
decision (iterations mode: the result is fixed by the seeds; about 5 s of one core). Measured
when written: +9.5 points a deal on these six deals (sets from -0.5 to +17);
``bench/bots.py --iterations 24`` measures about +14 ± 3 over 40 sets, so a bar of 0 fails
only if the bot really gets worse.
"""

from __future__ import annotations

from server.bots import make_bot
from server.engine import duplicate


def test_strong_fortunes_pair_gains_points_on_duplicate_deals():
    margins = []
    for i in range(6):
        seed = duplicate.deal_seed("test-fortunes", i)
        for rotation in range(2):
            strong = {rotation, rotation + 2}
            bots = [
                make_bot(
                    "fortunes",
                    "strong" if s in strong else "heuristic",
                    f"{i}-{rotation}-{s}",
                    iterations=8,
                )
                for s in range(4)
            ]
            (state,) = duplicate.copies("fortunes", 4, {"betting": "ante"}, 0, seed, 1)
            while not state.is_over:
                seat = min(state.pending())
                state.apply(seat, bots[seat].choose(state.view(seat)))
            scores = state.outcome().scores
            margins.append(sum(scores[s] if s in strong else -scores[s] for s in range(4)))
    assert sum(margins) / len(margins) > 0, margins
