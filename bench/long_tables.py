"""Whether an app update costs more later in a run: whole games, several in a row.

    python bench/long_tables.py [--apps 20] [--game prophets_gambit|prophet] [--games 4]
                                [--calls] [--growth] [--profile PREFIX]

``bench/ssh_load.py`` measured more server CPU a minute into play than in its first minute
(issue 39). This bench looks for why in one process, no SSH: ``--apps`` Gambit apps on the
real driver (``table_updates.py``'s), seated at tables of five of ``--game``, play
``--games`` whole games in a row (a heuristic bot's choice for the pending seat, one action
per table at a time, every table together); each game's result is closed as soon as every
app shows it (Enter, as the bench players do), and the next game is dealt at once. Garbage is
collected as in the app workers (``server/gc_freeze.py``). The CPU (``time.process_time``:
the apps, the hub and the bench's own polling, as the server's process would count it) is
measured per round of moves, so that early and late compare within one run:

* per game (``games``): ``ms_per_update``, CPU per app update over the rounds where every
  table moved (the game's end, where tables finish one after another and results come up,
  is left out: see ``end_ms_per_app``); ``by_moves``, the same by the move's number in its
  game (rounds 0-9, 10-19, ...); ``end_ms_per_app``, the rest of the game (its last rounds,
  the results coming up and closing, the next deal) per app; ``gc_ms`` and
  ``gc_collections``, the collector's CPU time and its collections; ``objects``, the
  objects alive after it (``gc.get_objects``: all of them, frozen too); ``cache_hit``, the
  hit rate of every ``functools.lru_cache`` of Rich, Textual and this project over the
  game, and ``caches_missing_more``, those that missed notably more than in the first game;
* per game, ``hub_ms_per_action``: the hub's own CPU per action (its thread time in what
  it does for messages, actions, deals, commits and lobby flushes, as ``ssh_load.py``
  counts it), the game's end included;
* with ``--calls``, per game, ``calls_per_update`` and ``calls_by_moves``: the function
  calls per app update of its full rounds (cProfile: a figure a loaded machine cannot move;
  the CPU figures then include the profiler's);
* per minute of the run (``minutes``): all the CPU over all app updates in it, game ends
  included, as ``ssh_load.py``'s window counts it.

Prints each game's line on stderr as it ends, and one JSON line last (``last_to_first``: the
last game's ``ms_per_update`` over the first's).

``--growth`` lists the kinds of objects whose number grew most from the first game's end to
the last's. ``--profile PREFIX`` writes cProfiles of the first and the last game's full rounds
(``PREFIX-first.prof``, ``PREFIX-last.prof``) and prints, per app update, the functions
whose calls and own time grew most from the one to the other.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import gc
import json
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for folder in (ROOT, BENCH):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from table_updates import TABLE_SIZE, Seated, run_on_tables, seat_apps, settle  # noqa: E402

#: Moves are counted by tens in ``by_moves``.
BUCKET = 10
#: Waiting for the apps to draw a round of moves: quiet this long ...
QUIET = 0.05
#: ... and at most this long (an app that has nothing to draw for a move).
ROUND_LIMIT = 3.0


def lru_caches() -> dict[str, Callable[..., Any]]:
    """Every ``functools.lru_cache`` of Rich, Textual and this project loaded now, by name."""
    found: dict[str, Callable[..., Any]] = {}
    prefixes = ("rich", "textual", "gambit_tui", "server", "protocol")
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in prefixes:
            continue
        for attr, value in list(vars(module).items()):
            places = [(attr, value)]
            if isinstance(value, type) and value.__module__ == name:
                places = [(f"{attr}.{a}", v) for a, v in vars(value).items()]
            for label, thing in places:
                if isinstance(thing, staticmethod | classmethod):
                    thing = thing.__func__
                if hasattr(thing, "cache_info") and callable(thing):
                    found[f"{name}.{label}"] = thing
    return found


def object_kinds() -> collections.Counter[str]:
    """How many objects the collector tracks, by type, frozen ones too."""
    gc.unfreeze()
    try:
        return collections.Counter(type(o).__qualname__ for o in gc.get_objects())
    finally:
        gc.freeze()


def cache_counts(caches: dict[str, Callable[..., Any]]) -> dict[str, tuple[int, int]]:
    out = {}
    for name, cached in caches.items():
        info = cached.cache_info()  # type: ignore[attr-defined]
        out[name] = (info.hits, info.misses)
    return out


def hit_rates(
    before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]
) -> dict[str, tuple[float, int]]:
    """Each cache's hit rate between two counts, and its calls (those called at all)."""
    out = {}
    for name, (hits, misses) in after.items():
        was_hits, was_misses = before.get(name, (0, 0))
        calls = hits - was_hits + misses - was_misses
        if calls:
            out[name] = ((hits - was_hits) / calls, calls)
    return out


class Collections:
    """The collector's CPU time (``gc.callbacks``; thread time: a loaded machine's
    preemptions inflated the wall time of a collection tenfold)."""

    def __init__(self) -> None:
        self.ms = 0.0
        self.count = 0
        self._started = 0.0
        gc.callbacks.append(self.on_gc)

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.thread_time()
        else:
            self.ms += (time.thread_time() - self._started) * 1000
            self.count += 1

    def close(self) -> None:
        gc.callbacks.remove(self.on_gc)


class HubClock:
    """The hub's own CPU (thread time) in what it does for a message, an action, a deal
    starting, a commit (and the messages sent after it) and a lobby flush, as
    ``ssh_load.py`` counts it: counted once when one of them calls another."""

    def __init__(self, hub: Any) -> None:
        self.cpu = 0.0
        self.actions = 0
        self._depth = 0
        for owner, name in (
            (hub, "handle"),
            (hub, "commit"),
            (hub.lobby, "flush"),
            (hub.play, "start_game"),
            (hub.play, "apply_action"),
        ):
            setattr(owner, name, self._timed(getattr(owner, name), name == "apply_action"))

    def _timed(self, method: Callable[..., Any], action: bool) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            self.actions += action
            if self._depth:
                return method(*args, **kwargs)
            self._depth += 1
            started = time.thread_time()
            try:
                return method(*args, **kwargs)
            finally:
                self._depth -= 1
                self.cpu += time.thread_time() - started

        return timed


class Timeline:
    """CPU and app updates as the run goes, for the per-minute figures."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.cpu_start = time.process_time()
        #: (seconds into the run, CPU seconds so far, app updates so far)
        self.points: list[tuple[float, float, int]] = [(0.0, 0.0, 0)]

    def mark(self, updates: int) -> None:
        self.points.append(
            (
                time.perf_counter() - self.start,
                time.process_time() - self.cpu_start,
                self.points[-1][2] + updates,
            )
        )

    def minutes(self) -> list[dict[str, Any]]:
        out = []
        minute = 1
        last = self.points[0]
        for point in self.points[1:]:
            if point[0] >= 60 * minute or point is self.points[-1]:
                updates = point[2] - last[2]
                if updates:
                    out.append(
                        {
                            "minute": minute,
                            "seconds": round(point[0] - last[0], 1),
                            "updates": updates,
                            "ms_per_update": round((point[1] - last[1]) * 1000 / updates, 2),
                        }
                    )
                last = point
                minute += 1
        return out


def playing(seated: Seated, table_id: int) -> bool:
    state = seated.hub.tables[table_id].state
    return state is not None and not state.is_over and bool(state.pending())


async def play_game(
    seated: Seated, timeline: Timeline, profile: cProfile.Profile | None, calls: bool
) -> dict[str, Any]:
    """One game at every table, to its end: its rounds' CPU, then the results shown, closed
    at once, and the next game dealt. ``profile``: of the full rounds; ``calls``: count the
    function calls of the full rounds too, by tens of moves (a profile each)."""
    hub, tables = seated.hub, seated.tables
    by_table = {
        t: [
            term
            for app, term in zip(seated.apps, seated.terminals, strict=True)
            if app.screen.__class__.__name__ != "LobbyScreen"
            and getattr(app.screen, "table_id", None) == t
        ]
        for t in tables
    }
    full_cpu = 0.0
    full_updates = 0
    buckets: dict[int, list[float]] = {}
    counters: dict[int, cProfile.Profile] = {}
    move = 0
    end_started = time.process_time()
    end_updates = 0
    while True:
        movers = [t for t in tables if playing(seated, t)]
        if not movers:
            break
        full = len(movers) == len(tables)
        if not full and not end_updates:
            end_started = time.process_time()
        counter = profile if profile is not None and full else None
        if calls and full and counter is None:
            counter = counters.setdefault(move // BUCKET, cProfile.Profile(time.process_time))
        started = time.process_time()
        if counter is not None:
            counter.enable()
        for table_id in movers:
            seated.move(table_id)
        terminals = [term for t in movers for term in by_table[t]]
        await settle(terminals, quiet=QUIET, limit=ROUND_LIMIT)
        if counter is not None:
            counter.disable()
        cpu = time.process_time() - started
        updates = len(movers) * TABLE_SIZE
        timeline.mark(updates)
        if full:
            full_cpu += cpu
            full_updates += updates
            spent = buckets.setdefault(move // BUCKET, [0.0, 0, 0])
            spent[0] += cpu
            spent[1] += updates
        else:
            end_updates += updates
        move += 1
    if not end_updates:
        end_started = time.process_time()
    played = {t: hub.tables[t].games_played for t in tables}
    await until_all(lambda: all(getattr(app.screen, "result_open", False) for app in seated.apps))
    await settle(seated.terminals, quiet=0.2, fresh=False)
    for terminal in seated.terminals:
        terminal.driver.feed(b"\r")  # the result closed (the hub deals once all have)
    await until_all(
        lambda: all(hub.tables[t].games_played == played[t] and playing(seated, t) for t in tables)
    )
    await settle(seated.terminals, quiet=0.3, fresh=False)
    timeline.mark(0)
    end_cpu = time.process_time() - end_started
    out: dict[str, Any] = {
        "moves": move,
        "updates": full_updates + end_updates,
        "full_updates": full_updates,
        "ms_per_update": round(full_cpu * 1000 / max(1, full_updates), 3),
        "by_moves": {
            f"{b * BUCKET}-{b * BUCKET + BUCKET - 1}": round(c * 1000 / max(1, n), 3)
            for b, (c, n, _) in sorted(buckets.items())
        },
        "end_ms_per_app": round(end_cpu * 1000 / len(seated.apps), 2),
    }
    if profile is not None:
        out["calls_per_update"] = round(calls_in(profile) / max(1, full_updates))
    elif counters:
        for bucket, counter in counters.items():
            buckets[bucket][2] = calls_in(counter)
        out["calls_per_update"] = round(sum(k for _, _, k in buckets.values()) / full_updates)
        out["calls_by_moves"] = {
            f"{b * BUCKET}-{b * BUCKET + BUCKET - 1}": round(k / max(1, n))
            for b, (_, n, k) in sorted(buckets.items())
        }
    return out


def calls_in(profile: cProfile.Profile) -> int:
    """The function calls a profile counted."""
    return sum(entry.callcount for entry in profile.getstats())


async def until_all(predicate: Callable[[], bool], limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("the tables stopped: a game's end was not reached")
        await asyncio.sleep(0.02)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from server.bots import bot_kinds
    from server.gc_freeze import FrozenSessions

    seated = await seat_apps(args.apps, "gambit-long-", game=args.game, after_results_read=0.0)
    bot_kinds(args.game)  # (the bots' modules imported before anything is measured)
    memory = FrozenSessions()  # the app workers' collector (server/gc_freeze.py)
    memory.started()
    collections = Collections()
    caches = lru_caches()
    counts = cache_counts(caches)
    first_rates: dict[str, tuple[float, int]] | None = None
    hub_clock = HubClock(seated.hub)
    timeline = Timeline()
    profiles = None
    if args.profile:  # (CPU time: the rounds' waits for the apps are not the apps' work)
        profiles = [cProfile.Profile(time.process_time), cProfile.Profile(time.process_time)]
    updates_profiled = [0, 0]
    games = []
    kinds: list[collections.Counter[str]] = []
    for number in range(1, args.games + 1):
        profile = None
        if profiles is not None and number in (1, args.games):
            profile = profiles[0 if number == 1 else 1]
        gc_before, count_before = collections.ms, collections.count
        hub_before = (hub_clock.cpu, hub_clock.actions)
        game = await play_game(seated, timeline, profile, args.calls)
        actions = hub_clock.actions - hub_before[1]
        game["hub_ms_per_action"] = round(
            (hub_clock.cpu - hub_before[0]) * 1000 / max(1, actions), 3
        )
        if profile is not None:  # (its full rounds: before the first table's game ended)
            updates_profiled[0 if number == 1 else 1] = game["full_updates"]
        game["gc_ms"] = round(collections.ms - gc_before, 1)
        game["gc_collections"] = collections.count - count_before
        game["objects"] = len(gc.get_objects()) + gc.get_freeze_count()
        if args.growth:
            kinds.append(object_kinds())
        later = cache_counts(caches)
        rates = hit_rates(counts, later)
        counts = later
        calls = sum(n for _, n in rates.values())
        hits = sum(rate * n for rate, n in rates.values())
        game["cache_hit"] = round(hits / max(1, calls), 4)
        if first_rates is None:
            first_rates = rates
        else:
            game["caches_missing_more"] = {
                name: [round(first_rates[name][0], 3), round(rate, 3)]
                for name, (rate, n) in rates.items()
                if name in first_rates and rate < first_rates[name][0] - 0.05 and n > 100
            }
        games.append({"game": number, **game})
        print(json.dumps(games[-1]), file=sys.__stderr__)
    collections.close()
    memory.close()
    await seated.close()
    if profiles is not None:
        compare(args.profile, profiles, updates_profiled)
    if len(kinds) > 1:
        grew = kinds[-1] - kinds[0]
        print(f"objects that grew from game 1's end to game {len(kinds)}'s:", file=sys.__stderr__)
        for kind, n in grew.most_common(20):
            print(f"  {n:8d}  {kind}", file=sys.__stderr__)
    first, last = games[0], games[-1]
    return {
        "apps": args.apps,
        "game": args.game,
        "games": games,
        "minutes": timeline.minutes(),
        "last_to_first": round(last["ms_per_update"] / first["ms_per_update"], 3),
    }


def where(func: tuple[str, int, str]) -> str:
    """A profiled function as ``pstats`` names it: file:line(name)."""
    path, line, name = func
    return f"{path}:{line}({name})" if line else name


def compare(prefix: str, profiles: list[cProfile.Profile], updates: list[int]) -> None:
    """Write both profiles and print what grew most per app update from the first to the
    last game."""
    stats = []
    for profile, which in zip(profiles, ("first", "last"), strict=True):
        path = f"{prefix}-{which}.prof"
        profile.dump_stats(path)
        stats.append(pstats.Stats(path).stats)  # type: ignore[attr-defined]
    first, last = stats
    n_first, n_last = (max(1, n) for n in updates)
    rows = []
    for func, (_, calls, own, _cum, _) in last.items():
        was = first.get(func, (0, 0, 0.0, 0.0, None))
        rows.append(
            (
                func,
                was[1] / n_first,
                calls / n_last,
                was[2] * 1000 / n_first,
                own * 1000 / n_last,
            )
        )
    out = sys.__stderr__
    print(f"per app update (first game: {n_first} updates, last: {n_last})", file=out)
    print("calls that grew most:", file=out)
    for func, c0, c1, _, _ in sorted(rows, key=lambda r: r[1] - r[2])[:20]:
        print(f"  {c0:9.1f} -> {c1:9.1f}  {where(func)}", file=out)
    print("own time (ms) that grew most:", file=out)
    for func, _, _, t0, t1 in sorted(rows, key=lambda r: r[3] - r[4])[:20]:
        print(f"  {t0:8.4f} -> {t1:8.4f}  {where(func)}", file=out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=int, default=20)
    parser.add_argument("--game", default="prophets_gambit")
    parser.add_argument("--games", type=int, default=4, help="whole games played in a row")
    parser.add_argument("--profile", help="write cProfiles of the first and last game here")
    parser.add_argument(
        "--growth", action="store_true", help="the kinds of objects that grew over the games"
    )
    parser.add_argument(
        "--calls", action="store_true", help="count function calls per app update (cProfile)"
    )
    run_on_tables(parser, run)


if __name__ == "__main__":
    main()
