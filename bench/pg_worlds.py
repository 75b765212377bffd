"""Worlds a decision: the strong Prophet's Gambit bot at a fixed CPU budget, settings varied.

    python bench/pg_worlds.py [--deals D] [--think-ms MS] [--variant NAME:module.ATTR=V,...]

The decisions with a choice of every seat in ``--deals`` four-player deals played by heuristic
bots are given to the strong bot, thinking ``--think-ms`` of its process's CPU time (the
figures of an unloaded core, on a machine others share), once as shipped and once per
``--variant`` (settings of modules under ``server.bots.strong``, a Python literal each, as
``bench/pg_oracle.py`` takes them), the variants taking turns decision by decision (each on
its own copy of the view, each first as often) so a drift in the machine's pace and cold
caches meet them all alike. Prints for each: the mean worlds a searched
decision (a search may stop early when one action is clearly best), the mean over decisions
that used (nearly) their whole budget, the worlds a second of searched decisions' CPU time,
the CPU a decision (p50, p99), and the CPU of the decision's shared candidate hands
(``pg_world.shared_candidates``, where the Fate choices are weighed); then one JSON line.
More worlds in the same time is strength per CPU: the search gains about +0.01 of win
share a doubling (docs/benchmarks.md, "Strong bots").
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import os
import random
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from server.bots import make_bot
from server.bots.strong import StrongBot, pg_world
from server.engine import get_game


def views(deals: int) -> list[dict[str, Any]]:
    """Every decision with a choice in ``deals`` heuristic deals, as its seat's view."""
    game = get_game("prophets_gambit")
    out = []
    for d in range(deals):
        bots = [make_bot("prophets_gambit", "heuristic", seed=f"pgw-{d}-{s}") for s in range(4)]
        state = game.new_state(4, {}, dealer=d % 4, seed=f"pg-worlds-{d}")
        while not state.is_over:
            seat = min(state.pending())
            view = state.view(seat)
            if len(view["legal"]) > 1:
                out.append(view)
            state.apply(seat, bots[seat].choose(view))
    return out


def settings(text: str) -> dict[str, Any]:
    """``module.ATTR=value,...`` (module under ``server.bots.strong``; value a literal)."""
    out: dict[str, Any] = {}
    for part in filter(None, text.split(",")):
        key, _, value = part.partition("=")
        out[key.strip()] = eval(value)  # a benchmark's own command line
    return out


def apply(changes: dict[str, Any]) -> dict[tuple[Any, str], Any]:
    """Set ``changes``; returns what they replaced (for :func:`restore`)."""
    saved = {}
    for key, value in changes.items():
        module_name, _, attr = key.rpartition(".")
        module = importlib.import_module(f"server.bots.strong.{module_name}")
        saved[(module, attr)] = getattr(module, attr)
        setattr(module, attr, value)
    return saved


def restore(saved: dict[tuple[Any, str], Any]) -> None:
    for (module, attr), value in saved.items():
        setattr(module, attr, value)


def _percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--think-ms", type=float, default=100.0)
    parser.add_argument(
        "--variant", action="append", default=[], help="NAME:module.ATTR=value,... (repeatable)"
    )
    args = parser.parse_args(argv)
    StrongBot.clock = staticmethod(time.process_time)
    decisions = views(args.deals)
    variants = [("shipped", {})] + [
        (spec.partition(":")[0], settings(spec.partition(":")[2])) for spec in args.variant
    ]
    rows: dict[str, dict[str, list[float]]] = {
        name: {"worlds": [], "full": [], "ms": [], "searched_ms": [], "shared_ms": []}
        for name, _ in variants
    }
    for k, shown in enumerate(decisions):
        turn = k % len(variants)  # each variant first as often: the first pays cold caches
        for name, changes in variants[turn:] + variants[:turn]:
            view = copy.deepcopy(shown)  # a view's reading is kept per view object
            saved = apply(changes)
            try:
                row = rows[name]
                start = time.process_time()
                pg_world.shared_candidates(view, random.Random(k))
                row["shared_ms"].append(1000 * (time.process_time() - start))
                bot = make_bot("prophets_gambit", "strong", seed=k, think_ms=args.think_ms)
                start = time.process_time()
                bot.choose(view)
                took = 1000 * (time.process_time() - start)
                row["ms"].append(took)
                if bot.last_worlds:
                    row["worlds"].append(bot.last_worlds)
                    row["searched_ms"].append(took)
                    if took >= 0.9 * args.think_ms:
                        row["full"].append(bot.last_worlds)
            finally:
                restore(saved)
    summary: dict[str, Any] = {"think_ms": args.think_ms, "decisions": len(decisions)}
    for name, _ in variants:
        row = rows[name]
        worlds = statistics.fmean(row["worlds"]) if row["worlds"] else 0.0
        full = statistics.fmean(row["full"]) if row["full"] else 0.0
        rate = 1000 * sum(row["worlds"]) / sum(row["searched_ms"]) if row["searched_ms"] else 0.0
        p50, p99 = _percentile(row["ms"], 0.5), _percentile(row["ms"], 0.99)
        shared = statistics.fmean(row["shared_ms"])
        print(
            f"{name}: {len(decisions)} decisions at {args.think_ms:.0f} ms of CPU: worlds a"
            f" searched decision {worlds:.0f}, {full:.0f} in the {len(row['full'])} that used"
            f" their budget; {rate:.0f} worlds a CPU second; CPU a decision p50 {p50:.1f} ms,"
            f" p99 {p99:.1f} ms; shared candidates {shared:.2f} ms a decision"
        )
        summary[name] = {
            "worlds_per_decision": round(worlds, 1),
            "full_budget_worlds": round(full, 1),
            "full_budget_decisions": len(row["full"]),
            "worlds_per_cpu_s": round(rate),
            "cpu_ms_p50": round(p50, 2),
            "cpu_ms_p99": round(p99, 2),
            "shared_candidates_ms": round(shared, 3),
        }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
