"""Hub fuzz at scale: 10^6 malformed and hostile frames while an honest table plays on.

    python bench/fuzz.py [--frames 1000000] [--round 200] [--procs 2]

Not a timed test. It runs tests/hub/test_fuzz.py's attack for as long as it takes to send
``--frames`` frames, with the same generators and checks (tests/hub/fuzzing.py): a hub with a
frozen table A (Prophet's Gambit, stake 10) whose two human seats are the fuzzers, one over the
in-process queue transport and one over a unix socket, and a live table B (Prophet, stake 5, an
honest client and two bots) that keeps playing; every attack also has a guest send frames
(before or after its hello) until it is cut off. Hypothesis draws the attacks, ``--round`` at
a time (each round a fresh Hypothesis run, so its memory does not grow), with no shrinking:
a failed check is counted and written down, and the run goes on. ``--procs`` processes (one
per core by default) each run that whole world, hub and Hypothesis of their own, and send
their share of the frames; their counts are added up.

After every attack each frame must have had exactly one answer, in order, of the right kind;
after every round the hub must be as it was (table A's snapshot, seats, stored actions, the
balances, names, friends, invites: ``World.fingerprint``) and the ledger must sum to zero. At
the end table A is played out by honest clients and its record must hold no action of the
attack.

Prints, as its last line, one JSON object: ``frames``, ``crashes`` (a session of the hub's
ended by an exception, an honest or fuzzing connection lost, the hub not answering; target
0), ``internal_errors`` (answers ``internal`` and errors the hub logged; target 0),
``check_failures`` (an answer missing, out of order or of the wrong kind, or the hub changed;
with the first few in ``samples``), ``ledger_sum`` (target 0), ``games_finished`` (table B's,
and table A's at the end, in each process), ``codes`` (the answers' error codes),
``cpu_seconds`` (the processes'), ``procs``, ``seconds`` and ``frames_per_second``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.hub.fuzzing import World, draw_attack, finish

SAMPLES = 5


class Logged(logging.Handler):
    """Counts the errors the hub logs, keeping the first few."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0
        self.samples: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        if len(self.samples) < SAMPLES:
            self.samples.append(f"{record.name}: {record.getMessage()}"[:500])


class Run:
    def __init__(self, world: World, frames: int) -> None:
        self.world = world
        self.frames = frames
        self.crashes = 0
        self.check_failures = 0
        self.samples: list[str] = []
        self.internal_answers = 0

    def note(self, kind: str, err: BaseException) -> None:
        if kind == "crash":
            self.crashes += 1
        else:
            self.check_failures += 1
        if len(self.samples) < SAMPLES:
            tail = "".join(traceback.format_exception(err)[-3:])
            self.samples.append(f"{kind} after {self.world.frames_sent} frames: {tail}"[-1500:])

    def alive(self) -> bool:
        """The fuzzers' and the honest client's connections and sessions still stand."""
        w = self.world
        tasks = [c.hub_task for c in (w.q, w.d)]  # type: ignore[attr-defined]  # noted on the harness's client
        return not any(t.done() for t in tasks) and not any(c.closed for c in (w.q, w.u, w.d))

    def trim(self) -> None:
        """The clients' logs hold what the checks have read; a long run keeps none of it."""
        for client in (self.world.q, self.world.u, self.world.d):
            self.internal_answers += sum(
                1 for m in client.log if m["t"] == "error" and m.get("code") == "internal"
            )
            client.log.clear()
            client._seen = 0


def run_share(args: tuple[int, int, int]) -> dict[str, Any]:
    """One process's share of the frames: its own hub, tables, fuzzers and Hypothesis runs
    (drawn from its own randomness), checked as :func:`main` describes."""
    frames, round_size, index = args
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    folder = Path(tempfile.mkdtemp(prefix="fuzz-bench-", dir=shm))
    logged = Logged()
    logging.getLogger().addHandler(logged)
    logging.getLogger().setLevel(logging.WARNING)
    started = time.monotonic()
    out: dict[str, Any] = {}
    with asyncio.Runner() as runner:
        world = runner.run(World.create(folder))
        run = Run(world, frames)
        before = world.fingerprint()
        table_b = world.hub.tables[world.b_id]
        games_before = table_b.games_played
        ledger = 0
        try:
            while world.frames_sent < frames and run.alive():
                left = frames - world.frames_sent
                attacks = max(1, min(round_size, left // 40))  # an attack has ~40-100 frames

                @settings(
                    max_examples=attacks,
                    deadline=None,
                    suppress_health_check=list(HealthCheck),
                    database=None,
                    phases=[Phase.generate],
                )
                @given(data=st.data())
                def attack(data: Any) -> None:
                    try:
                        runner.run(world.attack(draw_attack(data, world)))
                    except AssertionError as err:
                        run.note("check", err)
                    except Exception as err:
                        run.note("crash", err)
                    run.trim()

                attack()
                now = world.fingerprint()
                changed = {k: (before[k], now[k]) for k in before if now[k] != before[k]}
                if changed:
                    run.note("check", AssertionError(f"the hub changed: {str(changed)[:800]}"))
                    before = now
                ledger = world.store.ledger_total()
                if ledger or world.store.audit():
                    run.note("check", AssertionError(f"ledger {ledger}: {world.store.audit()}"))
                print(
                    f"[{index}] {world.frames_sent} frames, "
                    f"{table_b.games_played - games_before} games, "
                    f"{time.monotonic() - started:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
            if not run.alive():
                run.note("crash", RuntimeError("a fuzzer's or the honest client's session ended"))
            games_b = table_b.games_played - games_before
            try:
                runner.run(finish(world, games_before, before["a_row"]["actions"]))
            except AssertionError as err:
                run.note("check", err)
            except Exception as err:
                run.note("crash", err)
            run.trim()
            ledger = world.store.ledger_total()
            games_a = world.hub.tables[world.a_id].games_played
            out = {
                "frames": world.frames_sent,
                "crashes": run.crashes,
                "internal_errors": run.internal_answers + logged.count,
                "check_failures": run.check_failures,
                "ledger_sum": ledger,
                "ledger_audit": len(world.store.audit()),
                "games_finished": games_b + games_a,
                "codes": Counter(world.codes),
                "samples": run.samples + logged.samples,
                "cpu_seconds": time.process_time(),
            }
        finally:
            runner.run(world.close())
            shutil.rmtree(folder, ignore_errors=True)
    return out


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The processes' counts added up (their samples joined, the first few kept)."""
    out: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            if key not in out:
                out[key] = value
            elif key == "samples":
                out[key] = (out[key] + value)[: SAMPLES * 2]
            else:
                out[key] = out[key] + value
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1_000_000)
    parser.add_argument("--round", type=int, default=200, help="attacks per Hypothesis run")
    parser.add_argument(
        "--procs",
        type=int,
        default=os.cpu_count() or 1,
        help="processes, each with its own hub and world sent its share of the frames",
    )
    args = parser.parse_args()
    procs = max(1, min(args.procs, args.frames))
    shares = [args.frames // procs + (i < args.frames % procs) for i in range(procs)]
    jobs = [(n, args.round, i) for i, n in enumerate(shares)]
    started = time.monotonic()
    if len(jobs) == 1:
        parts = [run_share(jobs[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(len(jobs)) as pool:
            parts = pool.map(run_share, jobs)
    seconds = time.monotonic() - started
    out = merge(parts)
    out["codes"] = dict(out["codes"].most_common())
    out["cpu_seconds"] = round(out["cpu_seconds"], 1)
    out["procs"] = procs
    out["seconds"] = round(seconds, 1)
    out["frames_per_second"] = round(out["frames"] / seconds) if seconds else None
    print(json.dumps(out))


if __name__ == "__main__":
    main()
