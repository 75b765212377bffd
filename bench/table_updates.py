"""What one action at a table costs each seated player's app, without SSH in the way.

    python bench/table_updates.py [--apps 20] [--actions 200] [--profile out.prof]
                                  [--without PATCH ...]

The load benchmark (``ssh_load.py``) measures the whole server; this one isolates the app: it
runs ``--apps`` Gambit apps in one process, each on the real ``ChannelDriver`` over a terminal
that only counts bytes, seats them at Prophet's Gambit tables of five, lets each table act
(a heuristic bot's choice for the pending seat) one action at a time, waits until every app
has drawn it, and reports the server CPU and the bytes each app's update cost. Prints one
JSON line last: ``cpu_ms_per_update`` (median over rounds: CPU time / app updates),
``bytes_per_update`` (median), ``frames_per_update`` (mean: frames written per app
update), ``full_frames`` (whole-screen repaints during the actions), ``all_drawn_ms_p50``
(median over rounds: every table acting at once until the last app has written its frame).

``--without`` takes out one of the app host's corrections to Textual for the run, to measure
what it saves (docs/textual-patches.md): ``divide``, ``count_parameters``, ``changed_rows``,
``hidden_screens``, ``shown_bindings``, ``laid_out_map``, ``quiet_prompts``,
``lru_cache``.
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
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TABLE_SIZE = 5


class CountingTerminal:
    """A terminal that takes everything at once and counts it."""

    def __init__(self) -> None:
        self.bytes = 0
        self.frames = 0
        self.first_frame_at: float | None = None
        self.driver: Any = None

    def send(self, data: bytes) -> None:
        self.bytes += len(data)
        self.frames += 1
        if self.first_frame_at is None:
            self.first_frame_at = time.perf_counter()

    def pending_output(self) -> int:
        return 0

    def frame_unchanged(self) -> None:
        pass

    def attach(self, driver: Any) -> None:
        self.driver = driver

    def detach(self, driver: Any) -> None:
        self.driver = None


async def settle(
    terminals: list[CountingTerminal],
    quiet: float = 0.15,
    limit: float = 30.0,
    fresh: bool = True,
) -> None:
    """Until every terminal has received something (unless not ``fresh``: they already
    have) and then nothing for ``quiet`` seconds."""
    deadline = time.monotonic() + limit
    before = [t.frames for t in terminals]
    while (
        fresh
        and time.monotonic() < deadline
        and any(t.frames == b for t, b in zip(terminals, before, strict=True))
    ):
        await asyncio.sleep(0.01)
    last = -1
    while time.monotonic() < deadline:
        total = sum(t.frames for t in terminals)
        if total == last:
            return
        last = total
        await asyncio.sleep(quiet)


async def until(predicate: Any, limit: float = 120.0) -> None:
    """Until ``predicate()`` holds (at most ``limit`` seconds)."""
    deadline = time.monotonic() + limit
    while not predicate() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


def _welcome_ready(app: Any) -> bool:
    screen = app.screen
    return type(screen).__name__ == "WelcomeScreen" and bool(screen.query("#name"))


class Seated(NamedTuple):
    """Apps on counting terminals, seated at started Prophet's Gambit tables of five."""

    store: Any
    hub: Any
    apps: list[Any]
    terminals: list[CountingTerminal]
    runs: list[asyncio.Task[Any]]
    tables: list[int]

    def move(self, table_id: int, seed: Any = None) -> bool:
        """A heuristic bot's choice for the table's next pending seat, applied through the
        hub, seeded by ``seed`` (default: the table) and the move's number; False when the
        table waits for nobody (its game over, or not dealt)."""
        from server.bots import make_bot

        table = self.hub.tables[table_id]
        state = table.state
        if state is None or state.is_over or not state.pending():
            return False
        seat = min(state.pending())
        tag = table_id if seed is None else seed
        bot = make_bot(table.game, "heuristic", seed=f"{tag}:{len(state.history)}")
        self.hub.play.apply_action(table, seat, bot.choose(state.view(seat)))
        return True

    async def close(self) -> None:
        """Every app ended, then the hub and its store."""
        for app in self.apps:
            app.exit()
        try:
            for run in self.runs:
                await run  # (an app that failed says so here)
        finally:
            await self.hub.stop()
            self.store.close()


class InLobby(NamedTuple):
    """Apps on counting terminals, each through its welcome screen to the lobby."""

    store: Any
    hub: Any
    apps: list[Any]
    terminals: list[CountingTerminal]
    runs: list[asyncio.Task[Any]]


async def lobby_apps(
    count: int,
    prefix: str,
    terms: list[Any] | None = None,
    **hub_settings: Any,
) -> InLobby:
    """``count`` Gambit apps on the real driver, through the welcome screen to the lobby (the
    hub's store in a new temporary folder named with ``prefix``); ``terms``: each app's
    terminal (default: an 80×24 xterm-256color for all); ``hub_settings``: the hub's settings
    (``HubConfig``) that differ from this bench's."""
    from gambit_tui.app import GambitApp
    from protocol.connection import queue_pair
    from protocol.term import TermInfo
    from server.apphost.app_settings import host_many_apps, prepare_app

    host_many_apps()
    from server.hub import Hub, HubConfig
    from server.store import Store
    from server.terminal.driver import bind

    store = Store.open(Path(tempfile.mkdtemp(prefix=prefix)))
    settings: dict[str, Any] = {
        "bot_delay": 0.0,
        "turn_timer": 0,
        "between_games": 3600.0,
        "seed": 7,
        **hub_settings,
    }
    hub = Hub(store, HubConfig(**settings))
    await hub.start()
    apps: list[Any] = []
    terminals: list[CountingTerminal] = []
    runs: list[asyncio.Task[Any]] = []
    term = TermInfo(width=80, height=24, term="xterm-256color", lang="en_US.UTF-8")
    for i in range(count):
        if terms is not None:
            term = terms[i]
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
    # Enter only once each welcome screen is composed (on a slow or loaded machine a quiet
    # moment came before that, and an early Enter found no name field: the app crashed, and
    # the measured actions waited for a screen that never drew).
    await until(lambda: all(_welcome_ready(app) for app in apps))
    for terminal in terminals:
        terminal.driver.feed(b"\r")  # welcome → lobby
    await until(lambda: all(type(app.screen).__name__ == "LobbyScreen" for app in apps))
    await settle(terminals, fresh=False)
    return InLobby(store, hub, apps, terminals, runs)


async def seat_apps(
    count: int,
    prefix: str,
    terms: list[Any] | None = None,
    game: str = "prophets_gambit",
    **hub_settings: Any,
) -> Seated:
    """``count`` Gambit apps on the real driver, through the welcome screen, at tables of five
    of ``game`` that have started (the hub's store in a new temporary folder named with
    ``prefix``); ``terms``: each app's terminal (default: an 80×24 xterm-256color for all);
    ``hub_settings``: the hub's settings (``HubConfig``) that differ from this bench's."""
    store, hub, apps, terminals, runs = await lobby_apps(count, prefix, terms, **hub_settings)
    players = sorted(
        (p for p in hub.players.values() if p.name.startswith("load")), key=lambda p: p.name
    )
    tables = []
    for start in range(0, len(players) - TABLE_SIZE + 1, TABLE_SIZE):
        group = players[start : start + TABLE_SIZE]
        owner = next(iter(group[0].sessions))
        create = {"t": "create_table", "game": game, "players": 5, "timer": 0}
        hub.handle(owner, create)
        table_id = max(t.id for t in hub.tables.values() if t.owner == group[0].id)
        for player in group[1:]:
            hub.handle(next(iter(player.sessions)), {"t": "join", "table": table_id})
        hub.handle(owner, {"t": "start", "table": table_id})
        tables.append(table_id)
    # Until every table is dealt (the deal may first wait for the players' entropy), and
    # every app has drawn it: a table's first deal drawn while actions were measured counted
    # as an update's cost.
    await until(
        lambda: all(
            hub.tables[t].state is not None and hub.tables[t].status == "playing" for t in tables
        )
    )
    await settle(terminals, quiet=0.5)
    return Seated(store, hub, apps, terminals, runs, tables)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    seated = await seat_apps(args.apps, "gambit-updates-")
    store, hub, apps, terminals, runs, tables = seated
    for patch in getattr(args, "without", ()):
        without(patch)
    screens = {type(app.screen).__name__ for app in apps}
    profile = cProfile.Profile() if args.profile else None
    cpu_per_update: list[float] = []
    bytes_per_update: list[float] = []
    frames_per_update: list[float] = []
    latencies: list[float] = []
    full_before = sum(t.driver.frames_full for t in terminals)
    done = 0
    while done < args.actions:
        if all(
            hub.tables[t].state is None
            or hub.tables[t].state.is_over
            or not hub.tables[t].state.pending()
            for t in tables
        ):
            break  # every game is over: fewer actions than asked
        frames_before = sum(t.frames for t in terminals)
        for terminal in terminals:
            terminal.bytes = 0
            terminal.first_frame_at = None
        start_cpu = time.process_time()
        started = time.perf_counter()
        if profile:
            profile.enable()
        for table_id in tables:
            done += seated.move(table_id)
        await settle(terminals, quiet=0.05)
        if profile:
            profile.disable()
        cpu = (time.process_time() - start_cpu) * 1000
        cpu_per_update.append(cpu / (len(tables) * TABLE_SIZE))
        bytes_per_update.append(sum(t.bytes for t in terminals) / (len(tables) * TABLE_SIZE))
        frames = sum(t.frames for t in terminals) - frames_before
        drawn = [t.first_frame_at for t in terminals if t.first_frame_at is not None]
        if drawn:
            latencies.append((max(drawn) - started) * 1000)
        frames_per_update.append(frames / (len(tables) * TABLE_SIZE))
    full = sum(t.driver.frames_full for t in terminals) - full_before
    if profile:
        profile.dump_stats(args.profile)
    for app in apps:
        app.exit()
    await asyncio.gather(*runs, return_exceptions=True)
    await hub.stop()
    store.close()
    return {
        "apps": args.apps,
        "actions": done,
        "screens": sorted(screens),
        "cpu_ms_per_update": round(statistics.median(cpu_per_update), 2),
        "bytes_per_update": round(statistics.median(bytes_per_update)),
        "frames_per_update": round(statistics.mean(frames_per_update), 2),
        "full_frames": full,
        "all_drawn_ms_p50": round(statistics.median(latencies), 1),
    }


#: The patches (server/apphost/textual_layer.py) each ``--without`` takes out.
WITHOUT = {
    "divide": ["textual_patches.divide"],
    "count_parameters": ["textual_patches.count_parameters"],
    "changed_rows": ["textual_patches.changed_rows"],
    "hidden_screens": ["hidden_screens.background_screens"],
    "laid_out_map": ["laid_out_map.full_map", "laid_out_map.reflow", "laid_out_map.clear"],
    "quiet_prompts": ["quiet_prompts.check_idle"],
    "lru_cache": ["textual_patches.lru_clear", "textual_patches.lru_discard"],
}


def without(patch: str) -> None:
    """Put Textual's own code back in place of one of the host's corrections."""
    from gambit_tui.widgets.footer import GambitFooter
    from server.apphost import textual_layer

    if patch == "shown_bindings":
        GambitFooter.shown_bindings = None
    elif patch in WITHOUT:
        for name in WITHOUT[patch]:
            textual_layer.restore(name)
    else:
        raise SystemExit(f"no such patch: {patch}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=int, default=20)
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--profile", help="write a cProfile of the actions here")
    parser.add_argument("--without", action="append", default=[], help="a correction to leave out")
    run_on_tables(parser, run, extra=lambda args: {"without": args.without})


def run_on_tables(
    parser: argparse.ArgumentParser,
    run: Any,
    table_size: int = TABLE_SIZE,
    extra: Any = None,
) -> None:
    """A bench's ``main``: its arguments (``--apps`` whole tables of ``table_size``), ``run``
    (a coroutine function of them) and its result as the JSON line (with ``extra(args)``)."""
    args = parser.parse_args()
    if args.apps < table_size or args.apps % table_size:
        parser.error(f"--apps must be a multiple of {table_size} (whole tables)")
    result = asyncio.run(run(args))
    if extra is not None:
        result.update(extra(args))
    # Textual points sys.stdout at its apps while they run; the real one is still there.
    assert sys.__stdout__ is not None
    print(json.dumps(result), file=sys.__stdout__)


if __name__ == "__main__":
    main()
