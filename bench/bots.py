"""The strong bots against the heuristic ones, on duplicate deals; prints one JSON line last.

    python bench/bots.py [--quick] [--think-ms MS] [--iterations N] [--sets PG,PROPHET,FORTUNES]
                         [--only pg|prophet|fortunes] [--workers W] [--start K] [--cpu-clock]

Every *set* is one duplicate deal (``server.engine.duplicate``: one seed, the same cards to the
same seats) played once per seat rotation, so each seat's cards meet the strong bot once: the
luck of the deal cancels within a set, and a set's mean is one sample. The 95 % intervals are
1.96 standard errors of those set means (the Prophet ratio's by the delta method, sets being
independent).

* Prophet's Gambit, 4 players: one strong bot among three heuristic ones, in each of the four
  seats. ``pg_strong_win_share`` is the share of deals it wins (chance 25 %).
* Prophet, 4 players, ascending schedule: one strong bot in each of the four seats.
  ``prophet_strong_score_ratio`` is its mean total over the heuristic bots' mean total;
  ``prophet_strong_exact_bid_rate`` the share of its rounds that took exactly the bid.
* Fortunes, single deals: a strong partnership against a heuristic one, each deck played with
  the strong pair North–South and then East–West. ``fortunes_strong_deal_share`` is the share
  of the decided deals (a drawn deal is left out) that the strong pair wins;
  ``fortunes_strong_margin`` its points minus the heuristic pair's, a deal (0 between equals:
  a set plays the same cards both ways).

``decision_ms_p50``/``p99`` time the strong bots' decisions that had a choice (one legal
action is answered at once), also per game (``pg_decision_ms_p99``…); a line per game says
the figures in words before the JSON line. Sets run in a pool of ``--workers`` processes
(default: one per core), each strong bot on one core. ``--cpu-clock`` measures the budgets and
decision times in each process's CPU time: on a machine loaded by others, the figures of an
unloaded core (wall time counts the time other processes hold the core).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from server.bots import make_bot
from server.bots.strong import StrongBot
from server.engine import duplicate

GAMES = ("prophets_gambit", "prophet", "fortunes")
SETUP: dict[str, tuple[int, dict[str, Any]]] = {
    "prophets_gambit": (4, {}),
    "prophet": (4, {"schedule": "ascending"}),
    "fortunes": (4, {"betting": "ante"}),
}


def _strong_seats(game: str, rotation: int) -> set[int]:
    if game == "fortunes":
        return {rotation % 2, rotation % 2 + 2}
    return {rotation}


def _rotations(game: str) -> int:
    return 2 if game == "fortunes" else SETUP[game][0]


def play_set(job: tuple[Any, ...]) -> dict[str, Any]:
    """One deck order played once per rotation: the strong seats' results and timings.
    ``job``: game, set index, think ms, iterations and (optional) whether the strong bots'
    budget and the decision times are CPU time (``--cpu-clock``)."""
    game_name, index, think_ms, iterations = job[:4]
    cpu = len(job) > 4 and job[4]
    StrongBot.clock = staticmethod(time.process_time if cpu else time.perf_counter)
    clock = StrongBot.clock
    players, options = SETUP[game_name]
    # One duplicate deal: the same seed deals the same cards to each seat in every rotation.
    seed = duplicate.deal_seed(f"bench-{game_name}", index)
    rows = []
    times: list[float] = []
    for rotation in range(_rotations(game_name)):
        strong = _strong_seats(game_name, rotation)
        bots = [
            make_bot(
                game_name,
                "strong" if s in strong else "heuristic",
                seed=f"{index}-{rotation}-{s}",
                think_ms=think_ms,
                iterations=iterations,
            )
            for s in range(players)
        ]
        (state,) = duplicate.copies(game_name, players, options, 0, seed, 1)
        exact = rounds = 0
        while not state.is_over:
            seat = min(state.pending())
            view = state.view(seat)
            start = clock()
            action = bots[seat].choose(view)
            if seat in strong and len(view["legal"]) > 1:
                times.append((clock() - start) * 1000)
            state.apply(seat, action)
        out = state.outcome()
        row: dict[str, Any] = {"strong": sorted(strong)}
        if game_name == "prophet":
            hero = rotation
            for line in state.sheet:
                rounds += 1
                exact += line[hero] > 0
            row["mine"] = out.scores[hero]
            row["theirs"] = sum(out.scores[s] for s in range(players) if s != hero) / (players - 1)
            row["exact"] = exact / rounds
        elif game_name == "fortunes":
            row["decided"] = not out.refund
            row["won"] = (not out.refund) and out.winners[0] in strong
            # The strong pair's points minus the heuristic pair's (ruling 9's team scores).
            row["margin"] = sum(out.scores[s] if s in strong else -out.scores[s] for s in range(4))
        else:
            row["won"] = out.winners == [rotation]
        rows.append(row)
    return {"game": game_name, "index": index, "rows": rows, "times": times}


def _mean_ci(samples: list[float]) -> tuple[float, float]:
    if not samples:
        return float("nan"), float("nan")
    mean = statistics.fmean(samples)
    if len(samples) < 2:
        return mean, float("nan")
    return mean, 1.96 * statistics.stdev(samples) / math.sqrt(len(samples))


def _ratio_ci(nums: list[float], dens: list[float]) -> tuple[float, float]:
    """Ratio of means with a delta-method 95 % interval over independent sets."""
    k = len(nums)
    if k < 2 or not sum(dens):
        return (sum(nums) / sum(dens) if sum(dens) else float("nan")), float("nan")
    mx, my = statistics.fmean(nums), statistics.fmean(dens)
    r = mx / my
    resid = [x - r * y for x, y in zip(nums, dens, strict=True)]
    se = math.sqrt(statistics.variance(resid) / k) / my
    return r, 1.96 * se


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


#: Each game's short name in the JSON line's per-game keys.
SHORT = {"prophets_gambit": "pg", "prophet": "prophet", "fortunes": "fortunes"}


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    by_game: dict[str, list[dict[str, Any]]] = {g: [] for g in GAMES}
    times: list[float] = []
    out: dict[str, Any] = {}
    for res in results:
        by_game[res["game"]].append(res)
        times.extend(res["times"])
    for game in GAMES:
        mine = [t for res in by_game[game] for t in res["times"]]
        out[f"{SHORT[game]}_decision_ms_p50"] = _percentile(mine, 0.50)
        out[f"{SHORT[game]}_decision_ms_p99"] = _percentile(mine, 0.99)
    pg = [statistics.fmean(r["won"] for r in res["rows"]) for res in by_game["prophets_gambit"]]
    out["pg_strong_win_share"], out["pg_strong_win_share_ci95"] = _mean_ci(pg)
    out["pg_sets"] = len(pg)
    out["pg_deals"] = 4 * len(pg)
    nums = [statistics.fmean(r["mine"] for r in res["rows"]) for res in by_game["prophet"]]
    dens = [statistics.fmean(r["theirs"] for r in res["rows"]) for res in by_game["prophet"]]
    out["prophet_strong_score_ratio"], out["prophet_strong_score_ratio_ci95"] = _ratio_ci(
        nums, dens
    )
    exact = [statistics.fmean(r["exact"] for r in res["rows"]) for res in by_game["prophet"]]
    out["prophet_strong_exact_bid_rate"], out["prophet_strong_exact_bid_rate_ci95"] = _mean_ci(
        exact
    )
    out["prophet_sets"] = len(nums)
    out["prophet_games"] = 4 * len(nums)
    shares = []
    for res in by_game["fortunes"]:
        decided = [r for r in res["rows"] if r["decided"]]
        if decided:
            shares.append(statistics.fmean(r["won"] for r in decided))
    out["fortunes_strong_deal_share"], out["fortunes_strong_deal_share_ci95"] = _mean_ci(shares)
    out["fortunes_sets"] = len(shares)
    # A set's margin (both ways, per deal) is what the strong pair gains on the same cards.
    margins = [statistics.fmean(r["margin"] for r in res["rows"]) for res in by_game["fortunes"]]
    out["fortunes_strong_margin"], out["fortunes_strong_margin_ci95"] = _mean_ci(margins)
    out["fortunes_deals"] = sum(
        sum(r["decided"] for r in res["rows"]) for res in by_game["fortunes"]
    )
    out["decision_ms_p50"] = _percentile(times, 0.50)
    out["decision_ms_p99"] = _percentile(times, 0.99)
    out["decisions"] = len(times)
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in out.items()}


def report_lines(s: dict[str, Any]) -> list[str]:
    """Per game, in words: the strong bot's result against the heuristic ones, its 95 %
    interval, how many duplicate sets it rests on, and the decision times (a game that
    played no set is left out)."""

    def times(short: str) -> str:
        p50, p99 = s[f"{short}_decision_ms_p50"], s[f"{short}_decision_ms_p99"]
        return f"decisions p50 {p50:.0f} ms, p99 {p99:.0f} ms"

    lines = [
        f"Prophet's Gambit: strong wins {s['pg_strong_win_share']:.1%}"
        f" ± {s['pg_strong_win_share_ci95']:.1%} of deals (chance 25 %, target >= 35 %),"
        f" {s['pg_deals']} deals in {s['pg_sets']} sets; {times('pg')}",
        f"Prophet: strong/heuristic score ratio {s['prophet_strong_score_ratio']:.2f}"
        f" ± {s['prophet_strong_score_ratio_ci95']:.2f} (target >= 1.20), exact bids"
        f" {s['prophet_strong_exact_bid_rate']:.1%}, {s['prophet_games']} games in"
        f" {s['prophet_sets']} sets; {times('prophet')}",
        f"Fortunes: strong pair wins {s['fortunes_strong_deal_share']:.1%}"
        f" ± {s['fortunes_strong_deal_share_ci95']:.1%} of decided deals (target >= 60 %),"
        f" {s['fortunes_deals']} deals in {s['fortunes_sets']} sets, a margin of"
        f" {s['fortunes_strong_margin']:.1f} ± {s['fortunes_strong_margin_ci95']:.1f} points"
        f" a deal (equal pairs: 0); {times('fortunes')}",
    ]
    played = [s[f"{short}_sets"] > 0 for short in ("pg", "prophet", "fortunes")]
    return [line for line, did in zip(lines, played, strict=True) if did] + [
        f"All strong decisions: p50 {s['decision_ms_p50']:.0f} ms,"
        f" p99 {s['decision_ms_p99']:.0f} ms (target <= 300)"
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run of about a minute")
    parser.add_argument("--think-ms", type=float, default=None, help="default: the bots' own")
    parser.add_argument("--iterations", type=int, default=None, help="worlds, not time")
    parser.add_argument("--sets", type=str, default=None, help="PG,PROPHET,FORTUNES set counts")
    parser.add_argument(
        "--only",
        choices=sorted(SHORT.values()),
        default=None,
        help="play only this game (the others' set counts become 0)",
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--start", type=int, default=0, help="the first set's index")
    parser.add_argument(
        "--cpu-clock",
        action="store_true",
        help="budgets and decision times in each process's CPU time (a loaded machine)",
    )
    args = parser.parse_args()
    if args.sets:
        counts = [int(x) for x in args.sets.split(",")]
    else:
        counts = [12, 2, 6] if args.quick else [150, 20, 150]
    if args.only:
        counts = [c if SHORT[g] == args.only else 0 for g, c in zip(GAMES, counts, strict=True)]
    think = args.think_ms if args.think_ms is not None else (60.0 if args.quick else None)
    jobs = []
    for game, count in zip(GAMES, counts, strict=True):
        first = args.start
        jobs += [(game, first + i, think, args.iterations, args.cpu_clock) for i in range(count)]
    # The longest sets (Prophet's whole games) first, so the pool finishes together.
    jobs.sort(key=lambda j: GAMES.index(j[0]) != 1)
    started = time.perf_counter()
    results = []
    with multiprocessing.Pool(args.workers) as pool:
        for done, res in enumerate(pool.imap_unordered(play_set, jobs), 1):
            results.append(res)
            if done % 10 == 0:
                print(f"{done}/{len(jobs)} sets, {time.perf_counter() - started:.0f} s", flush=True)
    summary = summarize(results)
    for line in report_lines(summary):
        print(line)
    summary["think_ms"] = think
    summary["iterations"] = args.iterations
    summary["cpu_clock"] = args.cpu_clock
    summary["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
