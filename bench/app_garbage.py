"""The cyclic garbage the apps make while their players stay (issue 43), in one process.

    python bench/app_garbage.py [--scenario table|lobby|ended] [--apps 10] [--rounds 20]
                                [--blocks 3] [--trace] [--top 12] [--without PATCH ...]

The app workers freeze what survives each young collection (``server/gc_freeze.py``), so an
object that lives half a second and then dies in a reference cycle waits for a *sweep*
(unfreeze, a full collection, freeze): in ``bench/soak.py`` the workers' sweeps found
200,000-440,000 such objects every minute or two, each stalling every player of the worker
for 0.5-1.2 s. This bench counts that garbage without SSH: Gambit apps on the real driver
(``table_updates.py``'s), the app workers' own ``FrozenSessions`` policy running, and after
each block of ``--rounds`` rounds a sweep under ``gc.DEBUG_SAVEALL`` that keeps what it finds
for counting. The scenarios:

* ``table``: ``--apps`` apps seated at Prophet's Gambit tables of five; a round is one action
  at every table (a heuristic bot's choice for the pending seat) and a table chat line from
  one seat, until every app has drawn it; a game that ends has its results closed and the
  next one dealt.
* ``lobby``: ``--apps`` apps in the lobby; a round is a light client (no app) opening a table,
  another joining it and leaving, the table closed, and a lobby chat line, each drawn.
* ``ended``: ``--apps`` apps seated as in ``table``; a round is one action per table; at the
  block's end the first table's five apps exit (a player hanging up), and the block counts
  garbage per ended app instead.

Prints per block the objects found and a line per type; with ``--trace`` (``tracemalloc``,
12 frames, started after the warm-up) also where the found objects were made (the first
frames in this project or in Textual). One JSON line last: ``garbage_per_app_round`` (median
over blocks: objects the sweep found / apps / rounds; for ``ended``, ``garbage_per_ended_app``),
``top_types`` (the last block's most numerous types).

``--without`` takes out one of the app host's corrections to Textual for the run, as in
``table_updates.py`` (``lru_cache``: ``LRUCache.clear`` and ``discard`` leave their entries
in a cycle again, as Textual does), to measure old and new side by side; ``ended_apps``: an
ended app is left whole for the sweep, not taken apart (``server/apphost/ended_apps.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import json
import statistics
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for folder in (ROOT, BENCH):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from table_updates import lobby_apps, seat_apps, settle, without  # noqa: E402

#: Frames kept per traced allocation with ``--trace``.
FRAMES = 12
#: Where a traced allocation is attributed: its first frame in one of these (else its first).
OURS = ("gambit_tui/", "server/", "protocol/", "textual/", "rich/")


@contextlib.contextmanager
def policy_paused() -> Iterator[None]:
    """The bench's own collections without the policy's callback (``FrozenSessions`` freezes
    after every collection: what a counting sweep keeps would be frozen, never freed, and
    counted again by the next)."""
    saved = list(gc.callbacks)
    gc.callbacks.clear()
    try:
        yield
    finally:
        gc.callbacks[:] = saved


def swept() -> list[Any]:
    """A sweep as the app workers make it (unfrozen, a full collection), keeping what it finds
    (``gc.garbage``) for counting; :func:`freed` then frees it and freezes the rest."""
    with policy_paused():
        gc.unfreeze()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            found = list(gc.garbage)
            gc.garbage.clear()
        finally:
            gc.set_debug(0)
    return found


def freed() -> None:
    """What :func:`swept` kept, freed once its list is dropped, and everything alive frozen,
    as after a worker's sweep."""
    with policy_paused():
        gc.collect()
        gc.freeze()


def type_name(obj: Any) -> str:
    kind = type(obj)
    return (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )


def site(obj: Any) -> str:
    """Where ``obj`` was made (tracing): the first frame in our code or Textual's or Rich's."""
    trace = tracemalloc.get_object_traceback(obj)
    if trace is None:
        return "(not traced)"
    frames = list(trace)  # most recent first
    chosen = [f for f in frames if any(part in f.filename for part in OURS)] or frames
    names = []
    for frame in chosen[:3]:
        name = frame.filename
        for part in OURS:
            if part in name:
                name = part + name.split(part, 1)[1]
                break
        names.append(f"{name}:{frame.lineno}")
    return " < ".join(names)


def report(found: list[Any], top: int, trace: bool) -> list[tuple[str, int]]:
    """The found objects by type, and by where they were made (to stderr)."""
    from textual.dom import DOMNode

    types = collections.Counter(type_name(obj) for obj in found).most_common(top)
    for name, count in types:
        print(f"  {count:7d} {name}", file=sys.__stderr__)
    nodes = collections.Counter(type_name(obj) for obj in found if isinstance(obj, DOMNode))
    for name, count in nodes.most_common(top):
        print(f"  {count:7d} widgets {name}", file=sys.__stderr__)
    if trace:
        sites = collections.Counter(site(obj) for obj in found).most_common(top)
        for name, count in sites:
            print(f"  {count:7d} made at {name}", file=sys.__stderr__)
    return types


async def table_round(seated: Any, chat: bool) -> int:
    """One action at every table (and a chat line from its owner), drawn; a result on
    screen closed (Enter, as a player does; the next game is dealt once all have). The
    actions made."""
    hub = seated.hub
    acted = 0
    for table_id in seated.tables:
        table = hub.tables[table_id]
        acted += seated.move(table_id)
        if chat:
            session = next(iter(hub.players[table.owner].sessions))
            text = {"t": "chat", "channel": "table", "table": table_id, "text": "gl all"}
            hub.handle(session, text)
    for app, terminal in zip(seated.apps, seated.terminals, strict=True):
        if app.is_running and getattr(app.screen, "result_open", False):
            terminal.driver.feed(b"\r")
    await settle(seated.terminals, quiet=0.05, fresh=False)
    return acted


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from server.apphost.ended_apps import take_apart
    from server.gc_freeze import FrozenSessions

    lobby_round: Any = None
    if args.scenario == "lobby":
        # (the organiser opens a table every round: no limit on that here)
        limits: dict[str, Any] = {
            "tables_burst": 10_000,
            "seat_changes_burst": 10_000,
            "messages_burst": 10_000,
            "chat_limit": False,
        }
        present = await lobby_apps(args.apps, "gambit-garbage-", **limits)
        store, hub, apps, terminals, runs = present
        lobby_round = await lobby_churn(hub, terminals)
    else:
        seated = await seat_apps(
            args.apps,
            "gambit-garbage-",
            after_results_read=0.0,
            chat_limit=False,
            standin_bot="heuristic",  # (for the players gone in ``ended``: no process pool)
        )
        store, hub, apps, terminals, runs, _ = seated
    taking_apart = "ended_apps" not in args.without
    for patch in args.without:
        if patch != "ended_apps":
            without(patch)
    memory = FrozenSessions()
    memory.started()
    for _ in apps:
        memory.session_started()
    for _ in range(3):  # warm-up: the first draws of every kind, caches filling
        if lobby_round is not None:
            await lobby_round()
        else:
            await table_round(seated, chat=args.scenario == "table")
    swept()
    freed()
    if args.trace:
        tracemalloc.start(FRAMES)
    per_block: list[float] = []
    types: list[tuple[str, int]] = []
    for block in range(args.blocks):
        rounds = 0
        for _ in range(args.rounds):
            if lobby_round is not None:
                await lobby_round()
            else:
                await table_round(seated, chat=args.scenario == "table")
            rounds += 1
            await asyncio.sleep(0.6)  # a young collection by the clock (every 0.5 s) between
        ended = 0
        if args.scenario == "ended":
            gone = [i for i, app in enumerate(apps) if app.is_running][:5]
            for i in gone:
                apps[i].exit()
            await asyncio.gather(*(runs[i] for i in gone), return_exceptions=True)
            if taking_apart:  # as the app host does when an app has ended (ended_apps.py)
                for i in gone:
                    take_apart(apps[i])
            await asyncio.sleep(0.6)
            ended = len(gone)
        found = swept()
        if args.scenario == "ended":
            figure = len(found) / max(1, ended)
            print(
                f"block {block}: {len(found)} objects, {figure:.0f} per ended app",
                file=sys.__stderr__,
            )
        else:
            live = sum(app.is_running for app in apps)
            figure = len(found) / live / rounds
            print(
                f"block {block}: {len(found)} objects, {figure:.1f} per app per round",
                file=sys.__stderr__,
            )
        types = report(found, args.top, args.trace)
        per_block.append(figure)
        del found
        freed()
    if args.trace:
        tracemalloc.stop()
    memory.close()
    tables = len(hub.tables)
    games = sum(table.games_played for table in hub.tables.values())
    for app in apps:
        if app.is_running:  # (an app taken apart is asked nothing else)
            app.exit()
    await asyncio.gather(*runs, return_exceptions=True)
    await hub.stop()
    store.close()
    key = "garbage_per_ended_app" if args.scenario == "ended" else "garbage_per_app_round"
    return {
        "scenario": args.scenario,
        "apps": args.apps,
        "rounds": args.rounds,
        "blocks": args.blocks,
        key: round(statistics.median(per_block), 1),
        "per_block": [round(x, 1) for x in per_block],
        "tables": tables,
        "games_played": games,
        "top_types": dict(types[:6]),
        "without": args.without,
    }


async def lobby_churn(hub: Any, terminals: list[Any]) -> Any:
    """A round for the ``lobby`` scenario: two light clients (no app) open a table, join it,
    leave it (the table closes), and chat in the lobby; each drawn by the apps."""
    from tests.hub.harness import connect

    owner, guest = await connect(hub), await connect(hub)
    await owner.hello(name="organiser")
    await guest.hello(name="passerby")

    opened = [0]

    async def one() -> None:
        await owner.send("create_table", game="prophets_gambit", players=5)
        made = await owner.until(lambda m: m["t"] == "table" and m["table"] > opened[0])
        table = opened[0] = made["table"]
        await settle(terminals, quiet=0.05, fresh=False)
        await guest.send("join", table=table)
        await settle(terminals, quiet=0.05, fresh=False)
        await guest.send("chat", channel="lobby", text="anyone for a game?")
        await guest.send("leave", table=table)
        await owner.send("leave", table=table)
        await settle(terminals, quiet=0.05, fresh=False)

    return one


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scenario", choices=("table", "lobby", "ended"), default="table")
    parser.add_argument("--apps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--trace", action="store_true", help="where the garbage was made")
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--without", action="append", default=[], help="a correction to leave out")
    args = parser.parse_args()
    if args.scenario != "lobby" and (args.apps < 5 or args.apps % 5):
        parser.error("--apps must be a multiple of 5 (whole tables)")
    result = asyncio.run(run(args))
    assert sys.__stdout__ is not None
    print(json.dumps(result), file=sys.__stdout__)


if __name__ == "__main__":
    main()
