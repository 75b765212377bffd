"""What an app update costs in machine instructions: a figure the machine's noise cannot move.

    python bench/update_instructions.py [--apps 5] [--actions 10]

``table_updates.py`` measures CPU time, which on a shared machine moves by 10–20 % from run to
run, more than most single changes save. This benchmark runs the same thing (Gambit apps on
the real driver, seated at Prophet's Gambit tables of five, one action per table at a time, a
heuristic bot choosing) under valgrind's callgrind, which counts the instructions executed,
and counts them only while the tables act (not while the apps start). Two runs of the same
code agree within about 0.5 %; the count includes the asyncio loop and the apps' own timers.
Garbage is collected as in the app workers (``server/gc_freeze.py``: everything alive at
the start is frozen), so a full collection does not land in the count by chance.
It needs valgrind (``apt-get install valgrind``) and takes about a minute.

Prints one JSON line last: ``instructions_per_app_update`` (millions), ``app_updates``
(seated apps times actions), ``instructions`` (millions, in all).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from callgrind import counted, instrument  # noqa: E402


async def _settle(terminals: list[Any], poll: float = 0.05, limit: float = 120.0) -> None:
    """Until every app has drawn since the action, then nothing for ``poll`` seconds. Slow
    polls: under callgrind every poll's instructions count, and there are more of them the
    slower the run."""
    deadline = time.monotonic() + limit
    before = [t.frames for t in terminals]
    while time.monotonic() < deadline and any(
        t.frames == b for t, b in zip(terminals, before, strict=True)
    ):
        await asyncio.sleep(poll)
    last = -1
    while time.monotonic() < deadline and (total := sum(t.frames for t in terminals)) != last:
        last = total
        await asyncio.sleep(poll)


async def _act(apps: int, actions: int) -> int:
    """Under callgrind: seat the apps, then count the instructions of ``actions`` actions."""
    from table_updates import TABLE_SIZE, seat_apps

    from server.bots import bot_kinds
    from server.gc_freeze import FrozenSessions

    seated = await seat_apps(apps, "gambit-instructions-")
    # The bots' modules imported now, not by the first bot's move inside the count: the
    # strong bots come with them, and under PYTHONDONTWRITEBYTECODE=1 they are compiled from
    # source (4 of the 15 million instructions an app update seemed to cost).
    bot_kinds("prophets_gambit")
    # The app workers' garbage collection policy: everything alive is frozen. Without it a
    # full collection (walking every object of the five apps and the hub, some hundreds of
    # millions of instructions) fell inside the measured actions or not, by chance: runs of
    # the same code on a loaded machine gave 400M to 770M.
    memory = FrozenSessions()
    memory.started()
    instrument(True)
    done = 0
    while done < actions:
        for table_id in seated.tables:
            assert seated.move(table_id), "a table stopped"
            done += 1
        await _settle(seated.terminals)
    instrument(False)
    memory.close()
    for app in seated.apps:
        app.exit()
    await asyncio.gather(*seated.runs, return_exceptions=True)
    await seated.hub.stop()
    seated.store.close()
    return done * TABLE_SIZE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=int, default=5, help="seated apps (a multiple of 5)")
    parser.add_argument("--actions", type=int, default=10, help="actions, over all tables")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.apps < 5 or args.apps % 5:  # (table_updates.TABLE_SIZE: imported by the child)
        parser.error("--apps must be a multiple of 5 (whole tables)")
    if args.child:
        updates = asyncio.run(_act(args.apps, args.actions))
        assert sys.__stdout__ is not None
        print(json.dumps({"app_updates": updates}), file=sys.__stdout__)
        return
    child, instructions = counted(
        __file__, ["--child", f"--apps={args.apps}", f"--actions={args.actions}"]
    )
    updates = child["app_updates"]
    print(
        json.dumps(
            {
                "apps": args.apps,
                "actions": args.actions,
                "app_updates": updates,
                "instructions": round(instructions / 1e6, 1),
                "instructions_per_app_update": round(instructions / updates / 1e6, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
