"""How often the rollouts' Execution decides as the heuristic bot's does (Prophet's Gambit).

    python bench/pg_execution.py [--deals D] [--repeats R] [--samples 8,24,60]

The heuristic bot kills or saves the Focus at the Execution by sampling
``EXECUTION_SAMPLES`` (60) opponents; the strong bot's rollouts play that decision for every
seat with fewer samples (``ROLLOUT_EXECUTION_SAMPLES``), since a rollout meets it once a
deal and a decision searches hundreds. This plays ``--deals`` deals by the heuristic on the
fast deal (:mod:`server.bots.strong.pg_sim`) to each Execution, and there estimates, for each
sample count, the chance ``p`` of a kill over ``--repeats`` draws. It prints, per count, how
often a rollout's decision agrees with the heuristic's own (60 samples, drawn apart: ``p p60 +
(1 - p)(1 - p60)``), against the agreement of two independent 60-sample decisions (the
heuristic with itself), and the CPU of one decision; then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from server.bots.prophets_gambit import EXECUTION_SAMPLES
from server.bots.strong import pg_sim
from server.engine import get_game


def executions(deals: int) -> list[tuple[pg_sim.Sim, int]]:
    """The deal and the deciding seat at each Execution of ``deals`` heuristic deals."""
    game = get_game("prophets_gambit")
    out = []
    for d in range(deals):
        state = game.new_state(4, {}, dealer=d % 4, seed=f"pg-exec-{d}")
        sim = pg_sim.Sim.of_state(state, random.Random(d))
        while sim.phase not in (pg_sim.EXECUTION, pg_sim.OVER):
            seat = next(s for s, a in enumerate(sim.asks) if a is not None)
            sim.apply(seat, sim.choose(seat))
        if sim.phase == pg_sim.EXECUTION:
            out.append((sim, next(s for s, a in enumerate(sim.asks) if a is not None)))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--samples", default=f"8,24,{EXECUTION_SAMPLES}")
    args = parser.parse_args(argv)
    counts = [int(x) for x in args.samples.split(",")]
    if EXECUTION_SAMPLES not in counts:
        counts.append(EXECUTION_SAMPLES)
    found = executions(args.deals)
    kills: dict[int, list[float]] = {n: [] for n in counts}
    cpu: dict[int, float] = dict.fromkeys(counts, 0.0)
    for i, (sim, seat) in enumerate(found):
        for n in counts:
            trial = sim.copy()
            trial.rng = random.Random(f"{i}-{n}")
            start = time.process_time()
            killed = sum(trial.choose(seat, n)[0] == "kill" for _ in range(args.repeats))
            cpu[n] += time.process_time() - start
            kills[n].append(killed / args.repeats)
    ref = kills[EXECUTION_SAMPLES]
    summary: dict[str, object] = {"executions": len(found), "repeats": args.repeats}
    for n in counts:
        agree = statistics.fmean(
            p * q + (1 - p) * (1 - q) for p, q in zip(kills[n], ref, strict=True)
        )
        us = 1e6 * cpu[n] / (len(found) * args.repeats)
        print(
            f"{n} samples: agrees with the heuristic's Execution ({EXECUTION_SAMPLES} samples)"
            f" in {agree:.1%} of {len(found)} Executions; {us:.0f} us of CPU a decision"
        )
        summary[f"agree_{n}"] = round(agree, 4)
        summary[f"us_{n}"] = round(us, 1)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
