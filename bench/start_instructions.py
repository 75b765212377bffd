"""What starting a player's app costs in machine instructions: welcome screen, then lobby.

    python bench/start_instructions.py [--present 5] [--arrivals 10]

``lobby_arrivals.py`` measures an arrival's CPU time, which on this shared machine moves by
10–30 % between runs. This runs its arrivals under valgrind's callgrind instead, which counts
the instructions executed, and counts them only while the arrivals come: ``--present`` apps
enter the lobby first (so modules are imported and the process's caches warm, as in a worker
that has run for a while), then ``--arrivals`` apps arrive one at a time, each from its start
through its welcome screen (Enter as soon as it is drawn) until its lobby is drawn and every
screen is still. The count includes the hub's work for them and the asyncio loop (slow polls,
as ``update_instructions.py``). Garbage is collected as in the app workers
(``server/gc_freeze.py``). Needs valgrind; about a minute.

Prints one JSON line last: ``instructions_per_arrival`` (millions), ``arrivals``,
``instructions`` (millions, in all).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from callgrind import counted, instrument  # noqa: E402


async def _arrive(present: int, arrivals: int) -> int:
    """Under callgrind: fill the lobby, then count ``arrivals`` apps' arrivals."""
    from lobby_arrivals import Arrival
    from table_updates import settle

    from server.apphost.app_settings import host_many_apps
    from server.gc_freeze import FrozenSessions
    from server.hub import Hub, HubConfig
    from server.store import Store

    host_many_apps()
    store = Store.open(Path(tempfile.mkdtemp(prefix="gambit-start-instructions-")))
    hub = Hub(store, HubConfig(bot_delay=0.0, turn_timer=0, seed=7))
    await hub.start()
    apps = [Arrival(hub, number) for number in range(present)]
    for arrival in apps:
        await arrival.enter()
    await settle([a.terminal for a in apps], quiet=0.5, fresh=False)
    await asyncio.sleep(1.0)
    memory = FrozenSessions()
    memory.started()
    instrument(True)
    for number in range(present, present + arrivals):
        arrival = Arrival(hub, number)
        apps.append(arrival)
        await arrival.enter()
        await settle([a.terminal for a in apps], quiet=0.3, fresh=False)
    instrument(False)
    memory.close()
    for arrival in apps:
        arrival.app.exit()
    await asyncio.gather(*(a.task for a in apps), return_exceptions=True)
    await hub.stop()
    store.close()
    return arrivals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--present", type=int, default=5, help="apps in the lobby first")
    parser.add_argument("--arrivals", type=int, default=10, help="apps that arrive, counted")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        arrivals = asyncio.run(_arrive(args.present, args.arrivals))
        assert sys.__stdout__ is not None
        print(json.dumps({"arrivals": arrivals}), file=sys.__stdout__)
        return
    child, instructions = counted(
        __file__, ["--child", f"--present={args.present}", f"--arrivals={args.arrivals}"]
    )
    arrivals = child["arrivals"]
    print(
        json.dumps(
            {
                "present": args.present,
                "arrivals": arrivals,
                "instructions": round(instructions / 1e6, 1),
                "instructions_per_arrival": round(instructions / arrivals / 1e6, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
