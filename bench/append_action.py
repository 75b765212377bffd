"""What storing an accepted action costs the hub's event loop, per action.

    python bench/append_action.py [--batches 400] [--batch 8] [--tables 40] [--runs 5]

Not a timed test. A store on a real SQLite file, used as the hub uses it (``hold_commits``:
one batch per turn of the loop; ``sync_off_loop``: the fsync is the outbox's thread's), with
``--tables`` live tables, each game ``--game`` actions long before its table starts the next
(``start_game``, in the batch as the hub does). Each batch is ``--batch`` actions at tables
taken in turn (``append_action`` with the sequence number the hub passes), then the batch's
commit (``commit_held``). Measured on the calling thread (the loop's): its CPU time
(``time.thread_time``) and wall time in ``append_action`` and in ``commit_held``; and, in a
run of its own, the SQL statements it ran (``set_trace_callback``): each one releases the
GIL and takes it back, where ``--debug-lag`` saw the loop held under load. Prints, as its
last line, one JSON object with the medians over ``--runs`` of the per-action figures:
``append_cpu_us``, ``commit_cpu_us`` (the batch's commit shared out), ``loop_cpu_us`` (the
two), their wall times, and ``statements_per_action``.

To compare two trees, run this file with ``PYTHONPATH`` set to the other tree.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Last on the path: a tree named by PYTHONPATH (or installed) is the one measured.
sys.path.append(str(Path(__file__).resolve().parents[1]))

from server.store import Store

#: An action as the hub stores it (``Action.to_wire()``: a Prophet's Gambit play).
ACTION = {"type": "play", "card": "QH"}


def one_run(batches: int, batch: int, tables: int, game: int, trace: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        store = Store.open(folder)
        try:
            return _measure(store, batches, batch, tables, game, trace)
        finally:
            store.close()


def _measure(
    store: Store, batches: int, batch: int, tables: int, game: int, trace: bool
) -> dict[str, float]:
    store.sync_off_loop()
    ids = []
    for _ in range(tables):
        table_id = store.next_table_id()
        store.save_table(table_id, {"game": "prophets_gambit", "seats": [None] * 4})
        store.start_game(table_id, {"players": 4, "seed": table_id})
        ids.append(table_id)
    store.hold_commits(lambda: None)
    statements = 0

    def traced(_sql: str) -> None:
        nonlocal statements
        statements += 1

    if trace:  # (a run of its own: the callback costs the loop's thread time too)
        store._conn.set_trace_callback(traced)
    seqs = dict.fromkeys(ids, 0)
    append_cpu = append_wall = commit_cpu = commit_wall = 0.0
    turn = 0
    for _ in range(batches):
        for _ in range(batch):
            table_id = ids[turn % tables]
            turn += 1
            if seqs[table_id] == game:  # (the next game: its actions start again at 0)
                store.start_game(table_id, {"players": 4, "seed": turn})
                seqs[table_id] = 0
            cpu, wall = time.thread_time(), time.perf_counter()
            store.append_action(table_id, turn % 4, ACTION, seqs[table_id])
            append_cpu += time.thread_time() - cpu
            append_wall += time.perf_counter() - wall
            seqs[table_id] += 1
        cpu, wall = time.thread_time(), time.perf_counter()
        store.commit_held()
        commit_cpu += time.thread_time() - cpu
        commit_wall += time.perf_counter() - wall
    store._conn.set_trace_callback(None)
    actions = batches * batch
    us = 1e6 / actions
    return {
        "append_cpu_us": append_cpu * us,
        "commit_cpu_us": commit_cpu * us,
        "loop_cpu_us": (append_cpu + commit_cpu) * us,
        "append_wall_us": append_wall * us,
        "commit_wall_us": commit_wall * us,
        "loop_wall_us": (append_wall + commit_wall) * us,
        "statements_per_action": statements / actions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=400)
    parser.add_argument("--batch", type=int, default=8, help="actions per commit")
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--game", type=int, default=40, help="actions per game")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    shape = (args.batches, args.batch, args.tables, args.game)
    runs = [one_run(*shape, trace=False) for _ in range(args.runs)]
    result: dict[str, Any] = {
        key: round(statistics.median(run[key] for run in runs), 2)
        for key in runs[0]
        if key != "statements_per_action"
    }
    result["statements_per_action"] = round(one_run(*shape, trace=True)["statements_per_action"], 3)
    result["batch"] = args.batch
    result["tree"] = str(Path(sys.modules["server"].__file__ or "").resolve().parents[1])
    print(json.dumps(result))


if __name__ == "__main__":
    main()
