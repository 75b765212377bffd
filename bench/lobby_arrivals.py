"""What one player's arrival costs the server: their app's start, their lobby, everyone else's.

    python bench/lobby_arrivals.py [--present 100] [--arrivals 30] [--ramp 10]
                                   [--profile out.prof] [--online-only N]

``ssh_load.py`` connects N players ten a second, and at N = 300 the last ones waited twenty
seconds for their lobby: arrivals cost more the more players are already there. This bench
takes an arrival apart, without SSH: ``--present`` Gambit apps (real driver, a terminal that
only counts bytes, one process with the hub, as ``table_updates.py``) sit in the lobby; then
``--arrivals`` more arrive ``--ramp`` a second, each through the welcome screen to the lobby
(Enter as soon as the welcome screen is drawn), until every screen is still. Each app's
callbacks are timed apart (``server/apphost/app_timing.py``: thread time by the callback's
context), so the CPU splits into the new apps' and the present apps'; the rest is the hub's
(and this bench's own polling, a little).

Prints one JSON line last, CPU in ms per arrival: ``app_start_cpu_ms`` (median: a new app,
made and run until its welcome screen is drawn), ``enter_lobby_cpu_ms`` (median: from Enter
until its lobby is drawn), ``present_apps_cpu_ms`` (what the present apps spent, all of them,
per arrival), ``other_cpu_ms`` (the hub and the rest), ``cpu_ms_per_arrival`` (all),
``present_frames_per_arrival``, ``present_bytes_per_arrival``,
``lobby_updates_per_present_app`` (lobby messages each present app got in all).

With ``--table-changes N`` no app arrives either: ``--organizers`` more apps open three
tables of five each (Prophet's Gambit), then a seat of one table after another is filled with
a bot or emptied again, N times, each change followed by the hub's lobby update and every
present app drawn (the organizers' apps are not counted); it prints
``cpu_ms_per_app_update`` and ``lines_per_app_update`` (lines of the tables list rendered).

With ``--online-only N`` no app arrives: N players come online without one (only the number
online changes in the present apps' lobbies), one at a time, each followed by the hub's lobby
update and every app drawn; it prints ``cpu_ms_per_app_update`` (the present apps' CPU per
app per update) instead.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from table_updates import CountingTerminal, settle  # noqa: E402


class Arrival:
    """One app on a counting terminal, its CPU counted apart, and what it has drawn."""

    def __init__(self, hub: Any, number: int) -> None:
        from gambit_tui.app import GambitApp
        from protocol.connection import queue_pair
        from protocol.term import TermInfo
        from server.apphost import app_timing
        from server.apphost.app_settings import prepare_app
        from server.terminal.driver import bind

        term = TermInfo(width=80, height=24, term="xterm-256color", lang="en_US.UTF-8")
        client, hub_end = queue_pair(trusted=True)
        hub.spawn(hub.serve(hub_end))
        made = time.thread_time()
        self.app = GambitApp(
            client, term=term, identity=f"SHA256:arrival{number}", name=f"load{number:04d}"
        )
        prepare_app(self.app, term)
        self.terminal = CountingTerminal()
        bind(self.app, self.terminal, erase=term.erases_in_colour)
        # Every callback in the app's context counts (app_timing), as an app worker's do.
        context, self.clock = app_timing.start_context()
        self.clock.cpu = time.thread_time() - made
        #: The app's CPU when its welcome screen, then its lobby, was first drawn.
        self.welcome_cpu: float | None = None
        self.lobby_cpu: float | None = None
        send = self.terminal.send

        def sent(data: bytes) -> None:
            if self.welcome_cpu is None and app_timing.shows_first_screen(self.app):
                self.welcome_cpu = self.clock.cpu
            send(data)

        self.terminal.send = sent  # type: ignore[method-assign]  # counted or timed
        self.task = asyncio.get_running_loop().create_task(
            self.app.run_async(size=(80, 24), mouse=True), context=context
        )
        self.lobby_messages = 0
        receive = self.app.receive

        def counted(message: dict[str, Any]) -> None:
            if message.get("t") == "lobby_update":
                self.lobby_messages += 1
            receive(message)

        self.app.receive = counted  # type: ignore[method-assign]  # counted or timed

    def screen_name(self) -> str:
        stack = self.app.screen_stack
        return type(stack[-1]).__name__ if stack else ""

    async def enter(self, limit: float = 300.0) -> None:
        """Through the welcome screen as soon as it is drawn, until the lobby is."""
        deadline = time.monotonic() + limit
        while self.screen_name() != "WelcomeScreen" or self.welcome_cpu is None:
            if time.monotonic() > deadline:
                raise TimeoutError("no welcome screen")
            await asyncio.sleep(0.01)
        frames = self.terminal.frames
        entered = self.clock.cpu
        self.terminal.driver.feed(b"\r")
        while self.screen_name() != "LobbyScreen" or self.terminal.frames == frames:
            if time.monotonic() > deadline:
                raise TimeoutError("no lobby")
            await asyncio.sleep(0.01)
        self.lobby_cpu = self.clock.cpu - entered


def median_ms(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(statistics.median(known) * 1000, 1) if known else None


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from server.apphost.app_settings import host_many_apps
    from server.hub import Hub, HubConfig
    from server.store import Store

    host_many_apps()
    store = Store.open(Path(tempfile.mkdtemp(prefix="gambit-arrivals-")))
    hub = Hub(store, HubConfig(bot_delay=0.0, turn_timer=0, seed=7))
    await hub.start()
    present = []
    for number in range(args.present):
        present.append(Arrival(hub, number))
        if number % 20 == 19:
            await asyncio.sleep(0.2)
    await asyncio.gather(*(a.enter() for a in present))
    await settle([a.terminal for a in present], quiet=0.5, fresh=False)
    await asyncio.sleep(2.0)  # the last lobbies' settling (focus, a call after refresh)
    for arrival in present:
        arrival.lobby_messages = 0
    profile = cProfile.Profile() if args.profile else None
    if args.online_only:
        return await online_only(args, hub, store, present, profile)
    if args.table_changes:
        return await table_changes(args, hub, store, present, profile)
    frames_before = sum(a.terminal.frames for a in present)
    bytes_before = sum(a.terminal.bytes for a in present)
    present_before = sum(a.clock.cpu for a in present)
    cpu, wall = time.process_time(), time.perf_counter()
    if profile:
        profile.enable()
    arriving, tasks = [], []
    for number in range(args.arrivals):
        arrival = Arrival(hub, args.present + number)
        arriving.append(arrival)
        tasks.append(asyncio.create_task(arrival.enter()))
        await asyncio.sleep(1 / args.ramp)
    await asyncio.gather(*tasks)
    await settle([a.terminal for a in present + arriving], quiet=1.0, fresh=False)
    if profile:
        profile.disable()
        profile.dump_stats(args.profile)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    n = args.arrivals
    present_cpu = sum(a.clock.cpu for a in present) - present_before
    arriving_cpu = sum(a.clock.cpu for a in arriving)
    result = {
        "present": args.present,
        "arrivals": n,
        "ramp": args.ramp,
        "app_start_cpu_ms": median_ms([a.welcome_cpu for a in arriving]),
        "enter_lobby_cpu_ms": median_ms([a.lobby_cpu for a in arriving]),
        "arriving_app_cpu_ms": round(arriving_cpu * 1000 / n, 1),
        "present_apps_cpu_ms": round(present_cpu * 1000 / n, 1),
        "other_cpu_ms": round((cpu - present_cpu - arriving_cpu) * 1000 / n, 1),
        "cpu_ms_per_arrival": round(cpu * 1000 / n, 1),
        "present_frames_per_arrival": round(
            (sum(a.terminal.frames for a in present) - frames_before) / n, 1
        ),
        "present_bytes_per_arrival": round(
            (sum(a.terminal.bytes for a in present) - bytes_before) / n
        ),
        "lobby_updates_per_present_app": round(
            statistics.mean(a.lobby_messages for a in present), 1
        )
        if present
        else 0,
        "wall_s": round(wall, 1),
    }
    await hub.stop()
    store.close()
    return result


async def online_only(
    args: argparse.Namespace, hub: Any, store: Any, present: list[Arrival], profile: Any
) -> dict[str, Any]:
    """Players come online without an app: the present apps' lobbies change their count."""
    from server.hub.limits import RateLimiter
    from server.hub.session import Player

    terminals = [a.terminal for a in present]
    frames_before = sum(t.frames for t in terminals)
    present_before = sum(a.clock.cpu for a in present)
    if profile:
        profile.enable()
    for number in range(args.online_only):
        pid = f"bench:{number}"
        hub.players[pid] = Player(pid, f"zz{number:04d}", True, "en", RateLimiter(1, 1))
        hub.lobby.players_changed()
        await settle(terminals, quiet=0.3)
    if profile:
        profile.disable()
        profile.dump_stats(args.profile)
    updates = args.online_only * len(present)
    cpu = sum(a.clock.cpu for a in present) - present_before
    frames = sum(t.frames for t in terminals) - frames_before
    result = {
        "present": args.present,
        "online_only": args.online_only,
        "cpu_ms_per_app_update": round(cpu * 1000 / updates, 2),
        "frames_per_app_update": round(frames / updates, 2),
        "lobby_updates_per_present_app": statistics.mean(a.lobby_messages for a in present),
    }
    for number in range(args.online_only):
        hub.players.pop(f"bench:{number}", None)
    await hub.stop()
    store.close()
    return result


async def table_changes(
    args: argparse.Namespace, hub: Any, store: Any, present: list[Arrival], profile: Any
) -> dict[str, Any]:
    """Seats filled and emptied at tables nobody present sits at: a row of every present
    app's tables list changes."""
    from textual.widgets import DataTable

    organizers = [Arrival(hub, len(present) + n) for n in range(args.organizers)]
    await asyncio.gather(*(a.enter() for a in organizers))
    tables: list[tuple[Any, int]] = []
    by_name = {p.name: p for p in hub.players.values()}
    for number in range(len(present), len(present) + len(organizers)):
        player = by_name[f"load{number:04d}"]
        session = next(iter(player.sessions))
        for _ in range(3):
            create = {"t": "create_table", "game": "prophets_gambit", "players": 5, "timer": 0}
            hub.handle(session, create)
        tables += [(session, t.id) for t in hub.tables.values() if t.owner == player.id]
    terminals = [a.terminal for a in present + organizers]
    await settle(terminals, quiet=1.0, fresh=False)
    lines = 0
    render_lines = DataTable.render_lines

    def counted(self: DataTable, crop: Any) -> Any:
        nonlocal lines
        if self.app in watching:
            lines += crop.height
        return render_lines(self, crop)

    watching = {a.app for a in present}
    DataTable.render_lines = counted  # type: ignore[method-assign]  # counted or timed
    frames_before = sum(a.terminal.frames for a in present)
    present_before = sum(a.clock.cpu for a in present)
    if profile:
        profile.enable()
    for number in range(args.table_changes):
        session, table_id = tables[number % len(tables)]
        seat = 1 + (number // len(tables)) % 4
        if hub.tables[table_id].seats[seat].bot is None:
            hub.handle(session, {"t": "add_bot", "table": table_id, "seat": seat})
        else:
            hub.handle(session, {"t": "remove_bot", "table": table_id, "seat": seat})
        # (Not until every app has drawn: a row out of sight need not be drawn.)
        await asyncio.sleep(hub.config.lobby_interval)
        await settle(terminals, quiet=0.3, fresh=False)
    if profile:
        profile.disable()
        profile.dump_stats(args.profile)
    DataTable.render_lines = render_lines  # type: ignore[method-assign]  # Textual's own, put back
    updates = args.table_changes * len(present)
    cpu = sum(a.clock.cpu for a in present) - present_before
    frames = sum(a.terminal.frames for a in present) - frames_before
    result = {
        "present": args.present,
        "tables": len(tables),
        "table_changes": args.table_changes,
        "cpu_ms_per_app_update": round(cpu * 1000 / updates, 2),
        "lines_per_app_update": round(lines / updates, 2),
        "frames_per_app_update": round(frames / updates, 2),
        "lobby_updates_per_present_app": statistics.mean(a.lobby_messages for a in present),
    }
    await hub.stop()
    store.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--present", type=int, default=100, help="apps already in the lobby")
    parser.add_argument("--arrivals", type=int, default=30, help="apps that arrive, measured")
    parser.add_argument("--ramp", type=float, default=10.0, help="arrivals per second")
    parser.add_argument("--profile", help="write a cProfile of the arrivals here")
    parser.add_argument(
        "--online-only", type=int, default=0, help="players online without an app, one by one"
    )
    parser.add_argument(
        "--table-changes", type=int, default=0, help="seats filled or emptied, one by one"
    )
    parser.add_argument("--organizers", type=int, default=10, help="apps that open the tables")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    assert sys.__stdout__ is not None
    print(json.dumps(result), file=sys.__stdout__)


if __name__ == "__main__":
    main()
