"""Worlds a decision: the strong Prophet bot against its previous version at the same budget.

    python bench/prophet_worlds.py [--games G] [--think-ms MS]

The decisions of ``--games`` four-player Prophet games (ascending schedule, heuristic bots
at every seat, so both bots meet the same views) are given to today's strong bot and to the
frozen one of before issue 45 (``bench/prophet_previous.py``), each thinking ``--think-ms``
of its process's CPU time (the figures of an unloaded core). Prints, for each, the mean worlds
a searched decision (a search may stop early when one action is clearly best: most do), the
mean over the decisions that used (nearly) their whole budget, and the worlds a second of its
searched decisions' CPU time, the ratios, and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from prophet_previous import PreviousProphetBot

from server.bots import make_bot
from server.bots.strong import StrongBot
from server.engine import get_game


def views(games: int) -> list[dict]:
    """Every decision with a choice in ``games`` heuristic games, as its seat's view."""
    game = get_game("prophet")
    out = []
    for g in range(games):
        bots = [make_bot("prophet", "heuristic", seed=s) for s in range(4)]
        state = game.new_state(4, {"schedule": "ascending"}, dealer=g % 4, seed=f"worlds-{g}")
        while not state.is_over:
            seat = state.turn
            view = state.view(seat)
            if len(view["legal"]) > 1:
                out.append(view)
            state.apply(seat, bots[seat].choose(view))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--think-ms", type=float, default=100.0)
    args = parser.parse_args()
    StrongBot.clock = staticmethod(time.process_time)
    decisions = views(args.games)
    worlds, rate, most = {}, {}, {}
    for name, bot in (
        ("strong", make_bot("prophet", "strong", seed=1, think_ms=args.think_ms)),
        ("previous", PreviousProphetBot(1, think_ms=args.think_ms)),
    ):
        counts, full, spent = [], [], 0.0
        for view in decisions:
            start = time.process_time()
            bot.choose(view)
            took = time.process_time() - start
            if bot.last_worlds:
                spent += took
                counts.append(bot.last_worlds)
                if took >= 0.9 * args.think_ms / 1000:
                    full.append(bot.last_worlds)
        worlds[name] = statistics.fmean(counts)
        most[name] = statistics.fmean(full) if full else 0.0
        rate[name] = sum(counts) / spent
    ratio = worlds["strong"] / worlds["previous"]
    rate_ratio = rate["strong"] / rate["previous"]
    print(
        f"Prophet, {len(decisions)} decisions at {args.think_ms:.0f} ms of CPU: worlds a"
        f" searched decision {worlds['strong']:.0f} (strong) against {worlds['previous']:.0f}"
        f" (previous), {ratio:.1f} times as many; in the decisions that used their"
        f" budget {most['strong']:.0f} against {most['previous']:.0f}; worlds a CPU second"
        f" {rate['strong']:.0f} against {rate['previous']:.0f}, {rate_ratio:.1f} times as many"
    )
    summary = {
        "think_ms": args.think_ms,
        "decisions": len(decisions),
        "strong_worlds_per_decision": round(worlds["strong"], 1),
        "previous_worlds_per_decision": round(worlds["previous"], 1),
        "worlds_ratio": round(ratio, 2),
        "strong_full_budget_worlds": round(most["strong"], 1),
        "previous_full_budget_worlds": round(most["previous"], 1),
        "strong_worlds_per_cpu_s": round(rate["strong"]),
        "previous_worlds_per_cpu_s": round(rate["previous"]),
        "worlds_per_cpu_s_ratio": round(rate_ratio, 2),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
