"""The screen crawler's long run: ``python bench/crawl.py --steps 20000 --seed 1``.

Sessions of one player (Ada) on a populated hub, each in the next language, random keys each
screen offers, every step checked (tests/tui/crawler.py says what is checked). Prints progress
and the failures as found; its last line is one JSON object: ``steps``, ``screens_seen``,
``failures`` (with ``seconds``, ``sessions`` and the failures' kinds).

``--procs N`` splits the steps over N processes, each crawling its own hubs with its own seed
(``seed * 1000 + index``): a step is mostly the app's own layout work, one core's worth, so a
long run goes N times as fast on N free cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.tui.crawler import LOCALES, build_template, crawl_session

T = TypeVar("T")


class RandomChooser:
    """Choices from a seeded random (a run is repeatable up to the hub's timing)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: Sequence[T]) -> T:
        return self.rng.choice(list(options))

    def chance(self, one_in: int) -> bool:
        return self.rng.randrange(one_in) == 0


async def crawl(args: argparse.Namespace, prefix: str = "") -> dict:
    rng = random.Random(args.seed)
    langs = args.langs.split(",")
    steps = sessions = 0
    screens: set[str] = set()
    failures = []
    started = time.monotonic()
    last_print = started
    with tempfile.TemporaryDirectory(prefix="crawl-template-") as tmp:
        template = await build_template(Path(tmp) / "data")
        while steps < args.steps and time.monotonic() - started < args.seconds:
            lang = langs[sessions % len(langs)]
            sessions += 1
            want = min(args.session_steps, args.steps - steps)
            report = await crawl_session(
                template, RandomChooser(rng), lang, want, quit_one_in=args.quit_one_in
            )
            steps += report.steps
            screens |= report.screens
            for failure in report.failures:
                failures.append((lang, failure))
                print(f"{prefix}FAILURE ({lang}, session {sessions}):\n{failure}\n", flush=True)
                if args.first:
                    break
            now = time.monotonic()
            if now - last_print > 10 or steps >= args.steps:
                last_print = now
                print(
                    f"{prefix}{steps} steps, {sessions} sessions, {len(screens)} screens, "
                    f"{len(failures)} failures, {now - started:.0f} s",
                    flush=True,
                )
            if failures and args.first:
                break
    kinds = Counter(f.kind for _, f in failures)
    return {
        "steps": steps,
        "screens_seen": sorted(screens),
        "failures": len(failures),
        "failure_kinds": dict(kinds),
        "failure_details": sorted({f"{f.kind}: {f.screen}: {f.detail}" for _, f in failures}),
        "failure_reports": [f"{lang}: {f}" for lang, f in failures],
        "sessions": sessions,
        "seconds": round(time.monotonic() - started, 1),
        "seed": args.seed,
    }


def _crawl_in_process(args: argparse.Namespace, index: int) -> dict:
    return asyncio.run(crawl(args, prefix=f"[{index}] "))


def run(args: argparse.Namespace) -> dict:
    """One crawl, or ``--procs`` crawls side by side summed into one report."""
    if args.procs <= 1:
        result = asyncio.run(crawl(args))
    else:
        started = time.monotonic()
        parts = []
        for index in range(args.procs):
            part = argparse.Namespace(**vars(args))
            part.seed = args.seed * 1000 + index
            part.steps = args.steps // args.procs + (index < args.steps % args.procs)
            parts.append(part)
        with ProcessPoolExecutor(args.procs) as pool:
            results = list(pool.map(_crawl_in_process, parts, range(args.procs)))
        kinds: Counter[str] = Counter()
        for one in results:
            kinds.update(one["failure_kinds"])
        result = {
            "steps": sum(r["steps"] for r in results),
            "screens_seen": sorted({s for r in results for s in r["screens_seen"]}),
            "failures": sum(r["failures"] for r in results),
            "failure_kinds": dict(kinds),
            "failure_details": sorted({d for r in results for d in r["failure_details"]}),
            "failure_reports": [f for r in results for f in r["failure_reports"]],
            "sessions": sum(r["sessions"] for r in results),
            "seconds": round(time.monotonic() - started, 1),
            "seed": args.seed,
            "procs": args.procs,
        }
    # The reports in full, before the one JSON line (which keeps only their summary).
    for report in result.pop("failure_reports"):
        print(f"FAILURE {report}", flush=True)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="steps in all (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--session-steps", type=int, default=200, help="most steps a session")
    parser.add_argument("--langs", default=",".join(LOCALES), help="comma-separated locales")
    parser.add_argument("--first", action="store_true", help="stop at the first failure")
    parser.add_argument(
        "--quit-one-in", type=int, default=40, help="a quit key once in this many steps"
    )
    parser.add_argument(
        "--seconds", type=float, default=float("inf"), help="start no session after this long"
    )
    parser.add_argument("--procs", type=int, default=1, help="crawls side by side (default 1)")
    print(json.dumps(run(parser.parse_args())))
