"""Engine throughput on one core, and Fortunes' fairness; prints one JSON line last.

    python bench/engine.py [--seconds S] [--repeats R] [--fairness-games N]

Each speed is the median of R timed runs of about S seconds each. Games are driven exactly as
the hub drives them: the deciding seat's random bot reads ``state.view(seat)`` and the engine
applies its choice. ``treys_evals_per_s`` evaluates the same 5-card hands with the pure-Python
poker evaluator treys (ranks 1–9 and Master mapped to poker 2–T and J).

``fortunes_first_dealer_rubber_share`` is Fortunes ruling 11's figure: the share of N default
rubbers (fixed seeds, four heuristic bots) that the first dealer's partnership wins; the bar
is 0.45–0.55. ``fortunes_first_dealer_single_share`` is the same for N single deals (the
option the lobby marks as favouring the dealer's team).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time

from server.bots import RandomBot, make_bot
from server.bots.fortunes_fairness import first_dealer_record
from server.engine import get_game


def play_games(
    name: str, players: int, options: dict, seconds: float, seed0: int, bot: str = "random"
) -> float:
    game = get_game(name)
    bots = [RandomBot(i) if bot == "random" else make_bot(name, bot, i) for i in range(players)]
    done = 0
    start = time.perf_counter()
    while True:
        state = game.new_state(players, options, dealer=done % players, seed=seed0 + done)
        while not state.is_over:
            seat = min(state.pending())
            state.apply(seat, bots[seat].choose(state.view(seat)))
        done += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def eval_rates(seconds: float, seed: int) -> tuple[float, float]:
    from treys import Card, Evaluator

    from protocol.cards import TAROKKA_COMMON
    from server.engine.prophets_gambit.hands import hand_key

    rng = random.Random(seed)
    hands = [rng.sample(TAROKKA_COMMON, 5) for _ in range(20000)]
    rank_map = {str(i): "23456789T"[i - 1] for i in range(1, 10)} | {"M": "J"}
    suit_map = {"S": "s", "T": "h", "C": "d", "G": "c"}
    treys_hands = [[Card.new(rank_map[c[1]] + suit_map[c[0]]) for c in h] for h in hands]
    evaluator = Evaluator()

    def rate(fn, items) -> float:
        count = 0
        start = time.perf_counter()
        while True:
            for item in items:
                fn(item)
            count += len(items)
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return count / elapsed

    ours = rate(hand_key, hands)
    theirs = rate(lambda h: evaluator.evaluate(h[:2], h[2:]), treys_hands)
    return ours, theirs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--fairness-games", type=int, default=2000)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    runs: dict[str, list[float]] = {
        k: []
        for k in (
            "pg_deals_per_s",
            "prophet_games_per_s",
            "fortunes_deals_per_s",
            "pg_evals_per_s",
            "treys_evals_per_s",
            "pg_heuristic_deals_per_s",
        )
    }
    for r in range(args.repeats):
        runs["pg_deals_per_s"].append(play_games("prophets_gambit", 4, {}, args.seconds, 1000 * r))
        runs["prophet_games_per_s"].append(
            play_games("prophet", 4, {"deck": 32, "schedule": "ascending"}, args.seconds, 1000 * r)
        )
        runs["fortunes_deals_per_s"].append(
            play_games("fortunes", 4, {"betting": "ante"}, args.seconds, 1000 * r)
        )
        runs["pg_heuristic_deals_per_s"].append(
            play_games("prophets_gambit", 4, {}, args.seconds, 1000 * r, bot="heuristic")
        )
        ours, theirs = eval_rates(args.seconds, r)
        runs["pg_evals_per_s"].append(ours)
        runs["treys_evals_per_s"].append(theirs)
        print(
            f"run {r + 1}: " + ", ".join(f"{k}={v[-1]:.0f}" for k, v in runs.items()),
            file=sys.stderr,
        )
    result = {k: round(statistics.median(v), 1) for k, v in runs.items()}
    result["evals_ratio"] = round(result["pg_evals_per_s"] / result["treys_evals_per_s"], 2)
    for betting, key in (("rubber", "rubber"), ("ante", "single")):
        record = first_dealer_record(args.fairness_games, betting=betting)
        print(f"fortunes {betting}: {record}", file=sys.stderr)
        result[f"fortunes_first_dealer_{key}_share"] = round(record.share, 4)
    result["fortunes_fairness_games"] = args.fairness_games
    result["repeats"] = args.repeats
    result["cpu"] = "1 core (sched_setaffinity)" if hasattr(os, "sched_setaffinity") else "any"
    print(json.dumps(result))


if __name__ == "__main__":
    main()
