"""What a notice (a toast) costs an app at a table, in machine instructions.

    python bench/notice_instructions.py [--notices 6]

Like ``update_instructions.py``: Gambit apps on the real driver, seated at a Prophet's Gambit
table of five at 80x24, under valgrind's callgrind (counts, which the machine's noise cannot
move). Counted: every app puts up a notice ("Back at the tables.", as after a reconnection)
and draws it, then it is taken down and every app draws the table again, ``--notices``
times; each new notice comes while the one before it is gone. Since 2026-12-07 a table lays
its notices over a panel (gambit_tui/screens/notice_place.py: a look after every layout).

Prints one JSON line last: ``instructions_per_notice`` (millions, one app's notice up and
down), ``notices`` (per app), ``apps``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from callgrind import counted, instrument  # noqa: E402
from chat_instructions import _quiet  # noqa: E402

APPS = 5


async def _notices(notices: int, count: Callable[[bool], None]) -> dict[str, int]:
    """Seat five apps; ``count(True)`` before the notices, ``count(False)`` after."""
    from table_updates import seat_apps

    from server.gc_freeze import FrozenSessions

    seated = await seat_apps(APPS, "gambit-notices-")
    apps: list[Any] = seated.apps
    memory = FrozenSessions()
    memory.started()
    count(True)
    for _ in range(notices):
        for app in apps:
            app.notify("Back at the tables.", timeout=60)
        await _quiet(seated.terminals)
        for app in apps:
            app.clear_notifications()
        await _quiet(seated.terminals)
    count(False)
    memory.close()
    await seated.close()
    return {"notices": notices, "apps": APPS}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--notices", type=int, default=6, help="notices per app, counted")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = asyncio.run(_notices(args.notices, instrument))
        assert sys.__stdout__ is not None
        print(json.dumps(result), file=sys.__stdout__)
        return
    _, instructions = counted(__file__, [f"--notices={args.notices}", "--child"])
    result: dict[str, Any] = {
        "notices": args.notices,
        "apps": APPS,
        "instructions_per_notice": round(instructions / args.notices / APPS / 1e6, 3),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
