"""What the end of a deal costs each seated player's app: showing the result, and closing it.

    python bench/deal_end.py [--apps 20]

Like ``table_updates.py``: ``--apps`` Gambit apps in one process on the real driver, no SSH,
seated at Prophet's Gambit tables of five. Each table plays its deal to the last action; then
the server CPU is measured from that action until every app at the table has drawn the
result, from the players pressing Enter until the result is closed, and from the hub starting
the next deal until every app has drawn it. Prints one JSON line last: ``show_ms_per_app``,
``close_ms_per_app`` and ``start_ms_per_app`` (medians over the tables; the first
includes drawing the last move itself, and the apps' idle ticks in the second before the
result comes up, about 0.5 ms), and ``full_frames_show`` / ``full_frames_close``
(whole-screen repaints per app).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for folder in (ROOT, BENCH):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from table_updates import TABLE_SIZE, run_on_tables, seat_apps, settle  # noqa: E402


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from server.bots import make_bot
    from server.engine import get_game

    store, hub, apps, terminals, runs, tables = await seat_apps(args.apps, "gambit-deal-end-")
    gc.collect()
    gc.freeze()  # as the server does once sessions have settled
    by_name = {app.wished_name: terminal for app, terminal in zip(apps, terminals, strict=True)}
    app_of = {id(terminal): app for app, terminal in zip(apps, terminals, strict=True)}
    show: list[float] = []
    close: list[float] = []
    full_show: list[float] = []
    full_close: list[float] = []
    start: list[float] = []
    profile = cProfile.Profile() if args.profile else None
    for table_id in tables:
        table = hub.tables[table_id]
        seated = [by_name[hub.players[s.player].name] for s in table.seats]
        while True:
            state = table.state
            seat = min(state.pending())
            bot = make_bot(table.game, "heuristic", seed=f"{table_id}:{len(state.history)}")
            action = bot.choose(state.view(seat))
            trial = get_game(table.game).restore(state.snapshot())
            trial.apply(seat, action)
            if not trial.is_over:
                hub.play.apply_action(table, seat, action)
                await settle(seated, quiet=0.03)
                continue
            full = sum(t.driver.frames_full for t in seated)
            started = time.process_time()
            hub.play.apply_action(table, seat, action)
            # The result comes up a moment after the last move (RESULT_DELAY).
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not all(
                getattr(app_of[id(t)].screen, "result_open", False) for t in seated
            ):
                await asyncio.sleep(0.05)
            await settle(seated, quiet=0.3, fresh=False)
            show.append((time.process_time() - started) * 1000 / TABLE_SIZE)
            full_show.append((sum(t.driver.frames_full for t in seated) - full) / TABLE_SIZE)
            full = sum(t.driver.frames_full for t in seated)
            started = time.process_time()
            for terminal in seated:
                terminal.driver.feed(b"\r")  # Close
            await settle(seated, quiet=0.3)
            close.append((time.process_time() - started) * 1000 / TABLE_SIZE)
            full_close.append((sum(t.driver.frames_full for t in seated) - full) / TABLE_SIZE)
            started = time.process_time()
            if profile:
                profile.enable()
            hub.play.next_game(table_id)  # without the pause between deals
            await settle(seated, quiet=0.3)
            if profile:
                profile.disable()
            start.append((time.process_time() - started) * 1000 / TABLE_SIZE)
            break
    if profile:
        profile.dump_stats(args.profile)
    for app in apps:
        app.exit()
    await asyncio.gather(*runs, return_exceptions=True)
    await hub.stop()
    store.close()
    return {
        "apps": args.apps,
        "tables": len(tables),
        "show_ms_per_app": round(statistics.median(show), 1),
        "close_ms_per_app": round(statistics.median(close), 1),
        "start_ms_per_app": round(statistics.median(start), 1),
        "full_frames_show": round(statistics.mean(full_show), 2),
        "full_frames_close": round(statistics.mean(full_close), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=int, default=20)
    parser.add_argument("--profile", help="write a cProfile of the next deals' start here")
    run_on_tables(parser, run)


if __name__ == "__main__":
    main()
