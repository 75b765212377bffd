"""What the end of a deal costs each seated player's app: showing the result, and closing it.

    python bench/deal_end.py [--apps 20]

Like ``table_updates.py``: ``--apps`` Gambit apps in one process on the real driver, no SSH,
seated at Prophet's Gambit tables of five. Each table plays its deal to the last action; then
the server CPU is measured from that action until every app at the table has drawn the
result, and again from the players pressing Enter until the result is closed. Prints one JSON
line last: ``show_ms_per_app`` and ``close_ms_per_app`` (medians over the tables; the first
includes drawing the last move itself), and ``full_frames_show`` / ``full_frames_close``
(whole-screen repaints per app).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for folder in (ROOT, BENCH):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from table_updates import TABLE_SIZE, CountingTerminal, settle  # noqa: E402


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from gambit_tui.app import GambitApp
    from gambit_tui.term import TermInfo
    from protocol.connection import queue_pair
    from server.bots import make_bot
    from server.engine import get_game
    from server.hub import Hub, HubConfig
    from server.ssh.app_settings import prepare_app
    from server.ssh.driver import bind
    from server.store import Store

    store = Store.open(Path(tempfile.mkdtemp(prefix="gambit-deal-end-")))
    hub = Hub(store, HubConfig(bot_delay=0.0, turn_timer=0, between_games=3600.0, seed=7))
    await hub.start()
    apps: list[Any] = []
    terminals: list[CountingTerminal] = []
    runs: list[asyncio.Task[Any]] = []
    term = TermInfo(width=80, height=24, term="xterm-256color", lang="en_US.UTF-8")
    for i in range(args.apps):
        client, hub_end = queue_pair(trusted=True)
        hub.spawn(hub.serve(hub_end))
        app = GambitApp(client, term=term, identity=f"SHA256:bench{i}", name=f"load{i:04d}")
        prepare_app(app, term)
        terminal = CountingTerminal()
        bind(app, terminal, erase=term.erases_in_colour)  # as gambit serve does
        apps.append(app)
        terminals.append(terminal)
        runs.append(asyncio.create_task(app.run_async(size=(80, 24), mouse=True)))
    await settle(terminals)
    for terminal in terminals:
        terminal.driver.feed(b"\r")  # welcome → lobby
    await settle(terminals)
    players = sorted(
        (p for p in hub.players.values() if p.name.startswith("load")), key=lambda p: p.name
    )
    tables = []
    for start in range(0, len(players) - TABLE_SIZE + 1, TABLE_SIZE):
        group = players[start : start + TABLE_SIZE]
        owner = next(iter(group[0].sessions))
        create = {"t": "create_table", "game": "prophets_gambit", "players": 5, "timer": 0}
        hub.handle(owner, create)
        table_id = max(t.id for t in hub.tables.values() if t.owner == group[0].id)
        for player in group[1:]:
            hub.handle(next(iter(player.sessions)), {"t": "join", "table": table_id})
        hub.handle(owner, {"t": "start", "table": table_id})
        tables.append(table_id)
    await settle(terminals, quiet=0.5)
    gc.collect()
    gc.freeze()  # as the server does once sessions have settled
    by_name = {app.wished_name: terminal for app, terminal in zip(apps, terminals, strict=True)}
    show: list[float] = []
    close: list[float] = []
    full_show: list[float] = []
    full_close: list[float] = []
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
                hub.apply_action(table, seat, action)
                await settle(seated, quiet=0.03)
                continue
            full = sum(t.driver.frames_full for t in seated)
            started = time.process_time()
            hub.apply_action(table, seat, action)
            await settle(seated, quiet=0.3)
            show.append((time.process_time() - started) * 1000 / TABLE_SIZE)
            full_show.append((sum(t.driver.frames_full for t in seated) - full) / TABLE_SIZE)
            full = sum(t.driver.frames_full for t in seated)
            started = time.process_time()
            for terminal in seated:
                terminal.driver.feed(b"\r")  # Close
            await settle(seated, quiet=0.3)
            close.append((time.process_time() - started) * 1000 / TABLE_SIZE)
            full_close.append((sum(t.driver.frames_full for t in seated) - full) / TABLE_SIZE)
            break
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
        "full_frames_show": round(statistics.mean(full_show), 2),
        "full_frames_close": round(statistics.mean(full_close), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=int, default=20)
    result = asyncio.run(run(parser.parse_args()))
    # Textual points sys.stdout at its apps while they run; the real one is still there.
    assert sys.__stdout__ is not None
    print(json.dumps(result), file=sys.__stdout__)


if __name__ == "__main__":
    main()
