"""Issue 43: nothing of an app stays alive in its worker once its player has gone.

In one process: the real hub, and an app worker's ``Worker`` running the real Gambit app (its
link wired to the hub's ends as in ``test_moved_out_memory.py``). Waves of guests arrive, sit
at tables of the three games, see some moves, chat; some of their apps move (handed over,
going on as new apps from their state); then they leave and the worker sweeps. Nothing of
their apps may be left then: no widget, and no widget's drawing cache (Textual's
``StylesCache``, with the lines it drew, which an ``lru_cache`` on one of its methods kept,
1,024 of them: ``server/apphost/textual_patches.py``). What stays are the process's bounded
caches of shared lines (``bench/worker_churn.py`` measures where they level off).
"""

from __future__ import annotations

import asyncio
import collections
import gc

from textual._styles_cache import StylesCache
from textual.app import App
from textual.dom import DOMNode

from server.apphost import ended_apps
from server.apphost import worker_link as wl
from server.apphost.app_worker import Worker
from server.bots import make_bot
from server.gc_freeze import YOUNG_THRESHOLD
from server.hub import Hub

from .test_moved_out_memory import SSHSide, a_worker_beside_a_hub, hub_session, to_the_lobby, until

PER_WAVE = 8  # two tables of four
WAVES = 1


class Side(SSHSide):
    """As the SSH process does: an app that has ended closes its hub connection."""

    def from_worker(self, session: int, kind: int, payload: bytes = b"") -> None:
        if kind == wl.EXITED and session not in self.states:
            end = self.ends.pop(session, None)
            self.tables.pop(session, None)
            if end is not None:
                end.received(None)
            return
        if session in self.ends or session in self.states:
            super().from_worker(session, kind, payload)


def apps_alive() -> list[object]:
    """Widgets, apps and widgets' drawing caches alive (the frozen too; no collection here:
    what is left at the end must have gone with the worker's own sweep)."""
    gc.unfreeze()
    try:
        return [o for o in gc.get_objects() if isinstance(o, DOMNode | StylesCache)]
    finally:
        gc.freeze()


def left_of_apps(before: list[object]) -> collections.Counter[str]:
    """What :func:`apps_alive` finds now that was not alive ``before`` (what earlier tests in
    this process left, such as an app of theirs still ending, is not this worker's)."""
    known = {id(o) for o in before}  # (``before`` holds them: no id is reused meanwhile)
    return collections.Counter(type(o).__qualname__ for o in apps_alive() if id(o) not in known)


def holders_of_apps(before: list[object]) -> list[str]:
    """What holds each app left (on a failure: the next run says where to look)."""
    known = {id(o) for o in before}
    apps = [o for o in apps_alive() if isinstance(o, App) and id(o) not in known]
    return [
        f"{type(app).__qualname__} held by "
        + ", ".join(sorted({type(r).__qualname__ for r in gc.get_referrers(app)}))
        for app in apps
    ]


async def wave(
    hub: Hub, worker: Worker, side: Side, number: int, ids, before_leaving=lambda: None
) -> None:
    names = [f"W{number}p{i}" for i in range(PER_WAVE)]
    sessions = {name: next(ids) for name in names}
    for name, session in sessions.items():
        side.open(session, name)
    await to_the_lobby(worker, sessions.values())
    tables = []
    for start in range(0, PER_WAVE, 4):
        group = names[start : start + 4]
        owner = hub_session(hub, group[0])
        game = ("prophet", "prophets_gambit", "fortunes")[(number + start) % 3]
        hub.handle(owner, {"t": "create_table", "game": game, "players": 4, "timer": 0})
        table = max(t.id for t in hub.tables.values() if t.owner == owner.player.id)
        for name in group[1:]:
            hub.handle(hub_session(hub, name), {"t": "join", "table": table})
        hub.handle(owner, {"t": "chat", "channel": "table", "table": table, "text": "hi"})
        hub.handle(owner, {"t": "start", "table": table})
        tables.append(table)
    for session in sessions.values():
        await until(lambda s=session: side.tables.get(s) in tables, "seated")
    for step in range(12):
        for table_id in tables:
            table = hub.tables[table_id]
            state = table.state
            if state is not None and not state.is_over and state.pending():
                seat = min(state.pending())
                bot = make_bot(table.game, "heuristic", seed=f"{table_id}:{step}")
                hub.play.apply_action(table, seat, bot.choose(state.view(seat)))
        await asyncio.sleep(0.05)
    moving = list(sessions)[:2]
    for name in moving:
        side.hand_off(sessions[name])
    await until(lambda: all(sessions[n] in side.states for n in moving), "handed over")
    for name in moving:
        old, new = sessions[name], next(ids)
        side.resume(old, new, name)
        side.ends.pop(old)
        sessions[name] = new
        await until(lambda s=new: side.tables.get(s) in tables, "the moved app at its table")
    await asyncio.sleep(0.3)
    before_leaving()
    for session in sessions.values():
        worker.on_frame(session, wl.STOP, b"")
    await until(lambda: not set(sessions.values()) & set(worker.sessions), "every app ended")
    await until(lambda: not worker.moved_out, "the moved apps ended")


async def test_players_who_came_and_went_leave_nothing_alive_in_their_worker(store):
    ids = iter(range(1, 10_000))
    before = apps_alive()
    async with a_worker_beside_a_hub(store, Side, guest_retention=0.0) as (hub, worker, side):
        for number in range(WAVES):
            await wave(hub, worker, side, number, ids)
            await asyncio.sleep(ended_apps.AFTER + 0.5)  # (until then a timer holds each app)
            worker.memory.sweep()
            assert not worker.sessions
            left = left_of_apps(before)
            assert left == {}, holders_of_apps(before)


async def test_an_ended_app_is_freed_at_once_not_at_a_sweep(store):
    """Everything alive frozen before the players leave (as the worker freezes every half
    minute), no collection of the older generations meanwhile: once their apps have ended
    (and ``ended_apps.AFTER`` has passed), no app and no drawing cache is left, with no sweep,
    and any widget still alive is an empty shell (held by a layout's closure that a young
    collection froze while the layout ran: ``Compositor._arrange_root``). Textual's cycles
    alone kept every widget of every app, with all it held, until the worker's next sweep."""
    ids = iter(range(1, 10_000))
    before = apps_alive()
    async with a_worker_beside_a_hub(store, Side, guest_retention=0.0) as (hub, worker, side):
        _, older, oldest = gc.get_threshold()
        gc.set_threshold(YOUNG_THRESHOLD, 1 << 30, 1 << 30)  # (young collections only)
        try:
            # (a young collection: what survives is frozen, as at the worker's freezes)
            await wave(hub, worker, side, 0, ids, before_leaving=lambda: gc.collect(0))
            assert not worker.sessions
            await asyncio.sleep(ended_apps.AFTER + 0.5)
            known = {id(o) for o in before}
            left = [o for o in apps_alive() if id(o) not in known]
        finally:
            gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
        whole = collections.Counter(type(o).__qualname__ for o in left if vars(o))
        assert whole == {}, holders_of_apps(before)
        assert not any(isinstance(o, App) for o in left)
