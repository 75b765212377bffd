"""Where the Prophet's Gambit strong bot wins or loses value, decision by decision.

    python bench/pg_oracle.py collect --sets 0,60 --out /tmp/pg_decisions.pkl
    python bench/pg_oracle.py score --data /tmp/pg_decisions.pkl [--iterations 100]
                                    [--base MODULE.ATTR=VALUE ...] [--variant NAME:A=V,B=W ...]

A game A/B of the strong bot (``bench/bots.py``'s duplicate sets) needs about 100 sets to
measure ± 0.04 of win share, and the changes worth trying are worth 0.005–0.02. This tool
measures decisions instead of games. ``collect`` plays the bench's PG sets with the strong
bot in each seat in turn (a fixed number of worlds a decision) and keeps, at each of its
decisions with a choice, its view, the true deal and the heuristic bot's choice, with an
**oracle Q** for every legal action: the win rate of taking it on the *true* hands, the deck
and the High deck reshuffled, the heuristic bot in every seat afterwards (``--rollouts`` deals
an action, common random numbers across the actions). ``score`` asks a bot (the shipped one,
or one with module settings changed) for its choice at every kept decision and sums, per deal,
``Q(its choice) − Q(the heuristic's choice)``. By the performance-difference lemma that sum is
what the bot's choices add to the heuristic's win rate (first order: the decisions are the
collected bot's), with the deal's luck taken out, so two variants compare to about ± 0.01 in
a minute or two. It also prints the search's bias: its mean estimate of the heuristic's action
minus that action's oracle value (win plus the place weight), per decision kind and round —
how much too well the worlds think the seat is doing. ``oracle best`` is the ceiling of a
bot that knew the hands (biased upward by the rollouts' noise). Run it under ``nice``: one
process, about 9 s a set to collect at 300 rollouts.
"""

from __future__ import annotations

import argparse
import collections
import copy
import math
import os
import pickle
import random
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from protocol.actions import action_from_wire
from server.bots import make_bot
from server.bots import prophets_gambit as heuristic_bot
from server.bots.strong import pg_sim
from server.engine import duplicate

sys.path.insert(0, os.path.dirname(__file__))
# the variants' settings: one parser, pg_worlds'
from pg_worlds import apply as apply_settings
from pg_worlds import settings as parse_settings

#: Opponents the heuristic samples at the Execution (its own number), in the oracle's rollouts.
EXECUTION_SAMPLES = heuristic_bot.EXECUTION_SAMPLES


def oracle_q(
    sim: pg_sim.Sim, seat: int, legal: list[dict[str, Any]], rollouts: int, seed: int
) -> tuple[list[float], list[float]]:
    """Each legal action's win rate and mean place (0 last … 1 first) on the true deal, the
    decks reshuffled in each rollout (hidden from every seat), the heuristic playing on."""
    actions = [pg_sim.action_of(action_from_wire(a)) for a in legal]
    rng = random.Random(seed)
    wins = [0] * len(actions)
    places = [0.0] * len(actions)
    for _ in range(rollouts):
        s = rng.getrandbits(32)
        base = sim.copy()
        shuffle = random.Random(s)
        shuffle.shuffle(base.deck)
        shuffle.shuffle(base.high_deck)
        for i, action in enumerate(actions):
            trial = base.copy()
            trial.rng = trial.deal_rng = random.Random(s)
            trial.apply(seat, action)
            trial.play_out(EXECUTION_SAMPLES)
            wins[i] += trial.scores[seat] == trial.n - 1
            places[i] += trial.scores[seat] / (trial.n - 1)
    return [w / rollouts for w in wins], [p / rollouts for p in places]


def collect_set(index: int, iterations: int, rollouts: int) -> list[dict[str, Any]]:
    """The strong seat's decisions with a choice in one duplicate set (four rotations)."""
    seed = duplicate.deal_seed("bench-prophets_gambit", index)
    out = []
    for rotation in range(4):
        bots = [
            make_bot(
                "prophets_gambit",
                "strong" if s == rotation else "heuristic",
                seed=f"{index}-{rotation}-{s}",
                iterations=iterations,
            )
            for s in range(4)
        ]
        (state,) = duplicate.copies("prophets_gambit", 4, {}, 0, seed, 1)
        k = 0
        while not state.is_over:
            seat = min(state.pending())
            view = state.view(seat)
            if seat == rotation and len(view["legal"]) > 1:
                sim = pg_sim.Sim.of_state(state, random.Random(0))
                tag = f"{index}-{rotation}-{k}"
                heuristic = make_bot("prophets_gambit", "heuristic", seed=f"h-{tag}")
                q, place = oracle_q(sim, seat, view["legal"], rollouts, hash((index, rotation, k)))
                out.append(
                    {
                        "set": index,
                        "rot": rotation,
                        "k": k,
                        "view": copy.deepcopy(view),
                        "heur": view["legal"].index(heuristic.choose(view).to_wire()),
                        "q": q,
                        "qp": place,
                    }
                )
                k += 1
            state.apply(seat, bots[seat].choose(view))
    return out


def score(
    decisions: list[dict[str, Any]], iterations: int, settings: dict[str, Any]
) -> dict[str, Any]:
    """Per set, the summed advantage over the heuristic's choices a deal; per kind, the sum;
    per (kind, round), the search's bias on the heuristic's action."""
    from server.bots.strong import prophets_gambit as spg

    saved = apply_settings(settings)
    per_set: dict[int, float] = collections.defaultdict(float)
    per_kind: dict[str, float] = collections.defaultdict(float)
    bias: dict[tuple[str, int], list[float]] = collections.defaultdict(list)
    started = time.process_time()
    try:
        for d in decisions:
            view = d["view"]
            kind = view["ask"]["kind"]
            bot = make_bot(
                "prophets_gambit",
                "strong",
                seed=f"v-{d['set']}-{d['rot']}-{d['k']}",
                iterations=iterations,
            )
            i = view["legal"].index(bot.choose(view).to_wire())
            gain = d["q"][i] - d["q"][d["heur"]]
            per_set[d["set"]] += gain / 4
            per_kind[kind] += gain
            h = d["heur"]
            if h in bot.last_means:
                truth = d["q"][h] + spg.PLACE_WEIGHT * d["qp"][h]
                bias[(kind, view["round"])].append(bot.last_means[h] - truth)
    finally:
        for (module, attr), value in saved.items():
            setattr(module, attr, value)
    return {
        "per_set": dict(per_set),
        "per_kind": dict(per_kind),
        "bias": {k: statistics.fmean(v) for k, v in bias.items()},
        "seconds": time.process_time() - started,
    }


def _ci(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def _print_oracle(decisions: list[dict[str, Any]]) -> None:
    deals = 4 * len({d["set"] for d in decisions})
    best: dict[str, float] = collections.defaultdict(float)
    count: collections.Counter[str] = collections.Counter()
    for d in decisions:
        kind = d["view"]["ask"]["kind"]
        best[kind] += max(d["q"]) - d["q"][d["heur"]]
        count[kind] += 1
    print(f"{len(decisions)} decisions in {deals} deals; oracle best over the heuristic a deal:")
    for kind, gap in sorted(best.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:16s} {count[kind]:5d} decisions  {gap / deals:+.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--sets", default="0,60", help="first,end (the bench's set indexes)")
    c.add_argument("--iterations", type=int, default=100, help="the strong seat's worlds")
    c.add_argument("--rollouts", type=int, default=300, help="oracle rollouts an action")
    c.add_argument("--out", required=True)
    s = sub.add_parser("score")
    s.add_argument("--data", required=True, nargs="+")
    s.add_argument("--iterations", type=int, default=100)
    s.add_argument("--base", default="", help="settings of the base, module.ATTR=value,...")
    s.add_argument(
        "--variant", action="append", default=[], help="NAME:module.ATTR=value,... (repeatable)"
    )
    args = parser.parse_args()
    if args.command == "collect":
        first, end = (int(x) for x in args.sets.split(","))
        decisions: list[dict[str, Any]] = []
        started = time.process_time()
        for index in range(first, end):
            decisions += collect_set(index, args.iterations, args.rollouts)
            with open(args.out, "wb") as f:
                pickle.dump(decisions, f)
            print(f"set {index}: {len(decisions)} decisions, {time.process_time() - started:.0f} s")
        _print_oracle(decisions)
        return
    decisions = []
    for path in args.data:
        with open(path, "rb") as f:
            decisions += pickle.load(f)
    _print_oracle(decisions)
    deals = 4 * len({d["set"] for d in decisions})
    base = None
    for spec in ["base:" + args.base, *args.variant]:
        name, _, text = spec.partition(":")
        res = score(decisions, args.iterations, parse_settings(text))
        sets = sorted(res["per_set"])
        mean, ci = _ci([res["per_set"][k] for k in sets])
        line = f"{name}: gain over the heuristic {mean:+.4f} ± {ci:.4f} a deal"
        if base is not None:
            diff, dci = _ci([res["per_set"][k] - base["per_set"][k] for k in sets])
            line += f", paired vs base {diff:+.4f} ± {dci:.4f}"
        print(line + f" ({res['seconds']:.0f} s CPU)")
        kinds = sorted(res["per_kind"].items(), key=lambda kv: -abs(kv[1]))
        print("  by kind: " + ", ".join(f"{k} {v / deals:+.4f}" for k, v in kinds if v))
        print(
            "  search bias (estimate - oracle, heuristic's action): "
            + ", ".join(f"{k}{r} {v:+.3f}" for (k, r), v in sorted(res["bias"].items()))
        )
        if base is None:
            base = res


if __name__ == "__main__":
    main()
