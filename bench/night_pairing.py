"""Game nights' pure core at the issue's size: a Swiss of 400 players at tables of four over
five rounds, random game scores, seated and ranked by ``server.nights`` alone.

    python bench/night_pairing.py [--players 400] [--size 4] [--rounds 5] [--seed 1]

Not a timed test, and not yet the issue's ``bench/event.py`` (that one drives a hub with bots
playing): this measures what the hub's event loop spends on an event besides the games. Prints,
as its last line, one JSON object: ``players``, ``rounds``, ``pairing_ms_max`` (seating one
round; target of issue 42: at most 100 ms), ``standings_ms_max`` (the standings after one
table's result, as every table's end asks them), ``repeats`` (pairs who met again, over the
event) and ``byes`` (0 here: bots fill the seats left over).
"""

from __future__ import annotations

import argparse
import json
import random
import time

from server.nights.night import Night
from server.nights.pairing import repeats
from server.nights.rules import NightRules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    night = Night(1, NightRules("Bench", "prophet", args.size, "swiss", args.rounds), "host")
    for i in range(args.players):
        night.register(f"p{i}")
    pairing: list[float] = []
    standings: list[float] = []
    met_again = 0
    for number in range(1, args.rounds + 1):
        before = night.met()
        start = time.perf_counter()
        rnd = night.seat_next_round()
        pairing.append((time.perf_counter() - start) * 1000)
        met_again += repeats(rnd.tables, before)
        for index, seats in enumerate(rnd.tables):
            night.record(index, [float(rng.randrange(60)) for _ in seats])
            if index % 10 == 0 or index == len(rnd.tables) - 1:  # (a sample: each is alike)
                start = time.perf_counter()
                night.standings()
                standings.append((time.perf_counter() - start) * 1000)
        print(f"round {number}: seated in {pairing[-1]:.1f} ms, {len(rnd.tables)} tables")
    result = {
        "players": args.players,
        "rounds": args.rounds,
        "pairing_ms_max": round(max(pairing), 1),
        "standings_ms_max": round(max(standings), 1),
        "repeats": met_again,
        "byes": sum(len(r.byes) for r in night.rounds),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
