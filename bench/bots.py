"""The strong bots against the heuristic ones, on duplicate deals; prints one JSON line last.

    python bench/bots.py [--quick] [--think-ms MS] [--iterations N] [--sets PG,PROPHET,FORTUNES]
                         [--only pg|prophet|fortunes] [--workers W] [--start K] [--cpu-clock]
    python bench/bots.py --h2h KIND [--seeds N] [--quick] [--think-ms MS] [--iterations N] ...

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

* ``--h2h KIND``: Prophet head to head, 4 players, ascending schedule: the strong bot in two
  seats (across the table) and KIND in the other two (``heuristic``, ``random``, or
  ``previous``: the strong bot as it was before issue 45, ``bench/prophet_previous.py``), each
  of ``--seeds`` duplicate deals played twice with the two sides' seats swapped.
  ``h2h_pot_share`` is the strong side's share of the pots (winners tied on the top total
  split one), ``h2h_score_share`` its share of the points, ``h2h_margin`` its seats' mean total
  minus the other side's, a game (equal sides: 0.5, 0.5 and 0); intervals over the seeds.
  ``h2h_*_worlds_per_decision`` and ``h2h_*_worlds_per_s`` count the worlds each side's
  searched decisions played out (the same budget: how much more a faster search sees).

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

from server.bots import Bot, make_bot
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


#: ``--h2h``: four-player Prophet, the strong bot's seats in each of a deal's two games.
H2H_OPTIONS: dict[str, Any] = {"schedule": "ascending"}
H2H_SEATS = ({0, 2}, {1, 3})


def h2h_bot(kind: str, seed: str, think_ms: float | None, iterations: int | None) -> Bot:
    """A Prophet bot of ``kind``; ``previous`` is the frozen strong bot of before issue 45."""
    if kind == "previous":
        from prophet_previous import PreviousProphetBot

        return PreviousProphetBot(seed, think_ms=think_ms, iterations=iterations)
    return make_bot("prophet", kind, seed=seed, think_ms=think_ms, iterations=iterations)


def play_h2h(job: tuple[Any, ...]) -> dict[str, Any]:
    """One duplicate Prophet deal played twice, the strong side's seats swapped: per game the
    strong side's pot share and both sides' mean totals, and per side each searched
    decision's time and worlds. ``job``: kind, seed index, think ms, iterations, CPU clock
    (``--cpu-clock``) and the game's options."""
    kind, index, think_ms, iterations, cpu, options = job
    StrongBot.clock = staticmethod(time.process_time if cpu else time.perf_counter)
    clock = StrongBot.clock
    seed = duplicate.deal_seed("bench-h2h-prophet", index)
    rows = []
    decisions: dict[str, list[tuple[float, int]]] = {"strong": [], "other": []}
    for strong in H2H_SEATS:
        bots = [
            make_bot("prophet", "strong", f"h2h-{index}-{s}", think_ms, iterations)
            if s in strong
            else h2h_bot(kind, f"h2h-{index}-{s}", think_ms, iterations)
            for s in range(4)
        ]
        (state,) = duplicate.copies("prophet", 4, options, 0, seed, 1)
        while not state.is_over:
            seat = min(state.pending())
            view = state.view(seat)
            start = clock()
            action = bots[seat].choose(view)
            if len(view["legal"]) > 1:
                ms = (clock() - start) * 1000
                side = "strong" if seat in strong else "other"
                decisions[side].append((ms, getattr(bots[seat], "last_worlds", 0)))
            state.apply(seat, action)
        out = state.outcome()
        assert out is not None
        rows.append(
            {
                "strong": sorted(strong),
                "pot": sum(w in strong for w in out.winners) / len(out.winners),
                "mine": sum(out.scores[s] for s in strong) / len(strong),
                "theirs": sum(out.scores[s] for s in range(4) if s not in strong) / 2,
            }
        )
    return {"kind": kind, "index": index, "rows": rows, "decisions": decisions}


def summarize_h2h(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The strong side's pot share, point share and margin with 95 % intervals (a deal's
    two games are one sample), and each side's decision times and worlds searched."""
    out: dict[str, Any] = {"h2h_kind": results[0]["kind"] if results else None}
    pots = [statistics.fmean(r["pot"] for r in res["rows"]) for res in results]
    out["h2h_pot_share"], out["h2h_pot_share_ci95"] = _mean_ci(pots)
    mine = [statistics.fmean(r["mine"] for r in res["rows"]) for res in results]
    both = [statistics.fmean(r["mine"] + r["theirs"] for r in res["rows"]) for res in results]
    out["h2h_score_share"], out["h2h_score_share_ci95"] = _ratio_ci(mine, both)
    margins = [statistics.fmean(r["mine"] - r["theirs"] for r in res["rows"]) for res in results]
    out["h2h_margin"], out["h2h_margin_ci95"] = _mean_ci(margins)
    out["h2h_seeds"] = len(results)
    out["h2h_games"] = sum(len(res["rows"]) for res in results)
    for side in ("strong", "other"):
        made = [d for res in results for d in res["decisions"][side]]
        times = [ms for ms, _ in made]
        searched = [(ms, w) for ms, w in made if w]
        out[f"h2h_{side}_decision_ms_p50"] = _percentile(times, 0.50)
        out[f"h2h_{side}_decision_ms_p99"] = _percentile(times, 0.99)
        worlds = sum(w for _, w in searched)
        out[f"h2h_{side}_worlds_per_decision"] = worlds / len(searched) if searched else 0.0
        ms = sum(ms for ms, _ in searched)
        out[f"h2h_{side}_worlds_per_s"] = 1000 * worlds / ms if ms else 0.0
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in out.items()}


def h2h_line(s: dict[str, Any]) -> str:
    """The head-to-head figures in words."""
    kind = s["h2h_kind"]
    return (
        f"Prophet, strong (2 seats) against {kind} (2 seats): pot share"
        f" {s['h2h_pot_share']:.1%} ± {s['h2h_pot_share_ci95']:.1%}, point share"
        f" {s['h2h_score_share']:.1%} ± {s['h2h_score_share_ci95']:.1%}, margin"
        f" {s['h2h_margin']:+.1f} ± {s['h2h_margin_ci95']:.1f} points a seat a game (equal"
        f" sides: 50 %, 50 %, 0), {s['h2h_games']} games on {s['h2h_seeds']} deals; worlds a"
        f" searched decision: strong {s['h2h_strong_worlds_per_decision']:.0f}"
        f" ({s['h2h_strong_worlds_per_s']:.0f}/s), {kind}"
        f" {s['h2h_other_worlds_per_decision']:.0f} ({s['h2h_other_worlds_per_s']:.0f}/s);"
        f" strong decisions p50 {s['h2h_strong_decision_ms_p50']:.0f} ms,"
        f" p99 {s['h2h_strong_decision_ms_p99']:.0f} ms"
    )


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
        f" ± {s['pg_strong_win_share_ci95']:.1%} of deals (chance 25 %, target >= 30 %: issue 45),"
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
        f" p99 {s['decision_ms_p99']:.0f} ms (target <= 150)"
    ]


def main(argv: list[str] | None = None) -> None:
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
    parser.add_argument(
        "--h2h",
        metavar="KIND",
        default=None,
        help="Prophet head to head: the strong bot against KIND (heuristic, random, previous)",
    )
    parser.add_argument("--seeds", type=int, default=None, help="--h2h deals (default 105)")
    args = parser.parse_args(argv)
    if args.h2h:
        run_h2h(args)
        return
    if args.sets:
        counts = [int(x) for x in args.sets.split(",")]
    else:
        counts = [12, 2, 6] if args.quick else [150, 20, 200]
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


def run_h2h(args: argparse.Namespace) -> None:
    """``--h2h KIND``: the deals in a pool, the figures in words and as one JSON line."""
    h2h_bot(args.h2h, "check", args.think_ms, args.iterations)  # (an unknown kind fails here)
    seeds = args.seeds if args.seeds is not None else (2 if args.quick else 105)
    think = args.think_ms if args.think_ms is not None else (60.0 if args.quick else None)
    jobs = [
        (args.h2h, args.start + i, think, args.iterations, args.cpu_clock, H2H_OPTIONS)
        for i in range(seeds)
    ]
    started = time.perf_counter()
    results = []
    with multiprocessing.Pool(args.workers) as pool:
        for done, res in enumerate(pool.imap_unordered(play_h2h, jobs), 1):
            results.append(res)
            if done % 10 == 0:
                print(
                    f"{done}/{len(jobs)} deals, {time.perf_counter() - started:.0f} s", flush=True
                )
    summary = summarize_h2h(sorted(results, key=lambda r: r["index"]))
    print(h2h_line(summary))
    summary["think_ms"] = think
    summary["iterations"] = args.iterations
    summary["cpu_clock"] = args.cpu_clock
    summary["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
