"""Group commit: what a burst of writes costs the hub's event loop, held or not.

    python bench/group_commit.py [--burst 2000] [--runs 5]

Not a timed test. A hub on a real SQLite file (``synchronous=FULL``: every commit waits for
the disk), with its per-player budgets lifted so that every message of the burst is handled
and written: one client sends ``--burst`` ``add_bot``/``remove_bot`` messages in one write
while the loop's lateness is watched. Run twice, the same way, with the store holding commits (one
commit per turn of the event loop: the hub as it runs) and without (a commit per write: the
hub before). Prints, as its last line, one JSON object with, for each: ``commits`` for the
burst, ``commit_ms_total`` (the time the loop waited on the disk), ``commit_ms_max``,
``burst_ms`` (from the write to the last answer) and ``loop_block_ms_max``: the longest the
event loop went without a turn for anyone else (a task that asks to wake every millisecond
measures how late it wakes); medians over ``--runs``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol.codec import encode
from server.hub import Hub, HubConfig
from server.store import Store
from tests.hub.harness import connect


async def one_run(burst: int, hold: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "gambit.sqlite3")
        config = HubConfig(
            bot_delay=600,
            lobby_interval=0.05,
            messages_burst=10**9,
            seat_changes_burst=10**9,
            max_refused=10**9,
        )
        hub = Hub(store, config)
        if not hold:
            store.hold_commits(None)  # a commit per write, as before group commit
        await hub.start()
        try:
            ada = await connect(hub)
            await ada.hello("Ada")
            await ada.send("create_table", game="prophets_gambit", players=5)
            table = (await ada.expect("table"))["table"]
            await asyncio.sleep(0.1)
            messages = []
            for _ in range(burst // 2):
                messages.append({"t": "add_bot", "table": table, "seat": 1})
                messages.append({"t": "remove_bot", "table": table, "seat": 1})
            commits, store.commit_ms_total, store.commit_ms_max = store.commits, 0.0, 0.0
            lateness: list[float] = []
            done = asyncio.Event()

            async def watch() -> None:
                while not done.is_set():
                    asked = time.perf_counter()
                    await asyncio.sleep(0.001)
                    lateness.append((time.perf_counter() - asked) * 1000 - 1)

            watching = asyncio.create_task(watch())
            await asyncio.sleep(0.05)
            started = time.perf_counter()
            ada.conn.write(b"".join(encode(m) for m in messages))
            await ada.until(
                lambda m: (
                    m["t"] == "table" and sum(1 for x in ada.log if x["t"] == "table") == burst + 1
                ),
                timeout=120,
            )
            burst_ms = (time.perf_counter() - started) * 1000
            await asyncio.sleep(0.05)
            done.set()
            await watching
            return {
                "commits": store.commits - commits,
                "commit_ms_total": round(store.commit_ms_total, 1),
                "commit_ms_max": round(store.commit_ms_max, 2),
                "burst_ms": round(burst_ms, 1),
                "loop_block_ms_max": round(max(lateness), 1),
            }
        finally:
            await hub.stop()
            store.close()


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    held, unheld = [], []
    for _ in range(args.runs):  # side by side, alternating
        held.append(await one_run(args.burst, hold=True))
        unheld.append(await one_run(args.burst, hold=False))
        print(json.dumps({"held": held[-1], "commit_per_write": unheld[-1]}), flush=True)
    return {"burst": args.burst, "held": median_of(held), "commit_per_write": median_of(unheld)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst", type=int, default=2000, help="messages in the burst")
    parser.add_argument("--runs", type=int, default=5)
    print(json.dumps(asyncio.run(main_async(parser.parse_args()))))


if __name__ == "__main__":
    main()
