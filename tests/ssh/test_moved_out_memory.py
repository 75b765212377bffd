"""Issue 39: an app moved out of its worker gives its memory back soon.

A move (server/apphost/workers.py) ends the old app unseen; the worker froze its objects
(server/gc_freeze.py) like everything else alive, so only a sweep frees them. Here, in one
process: the real hub, and an app worker's ``Worker`` running the real Gambit app, its link
wired straight to the hub's ends as the SSH process carries it. Players at a table move out;
the sweep the moves' own rule brings must free their old apps (nothing else keeps them: not
even the cancelled timer of a notice that was up), while as many ended sessions would still
wait for turnover.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import asdict
from typing import Any

from protocol.codec import MAX_CLIENT_FRAME
from protocol.term import TermInfo
from server import gc_freeze
from server.apphost import worker_link as wl
from server.apphost.app_worker import Worker
from server.hub import Hub

from ..hub.conftest import fast_config

TABLE = ["Ada", "Bo", "Cy", "Di", "Ed"]
LOBBY = ["Fa", "Gu", "Ho"]
MOVING = ["Bo", "Cy", "Ed"]


class SSHSide:
    """The SSH process's part of the link, cut short: each session's hub end, served by the
    hub; once a session's app is handed over (STATE) its frames go nowhere, as in
    ``workers.py`` (its new app would run on another worker)."""

    transport = True  # (a link that is up: the worker's connections write through it)

    def __init__(self, hub: Hub, worker: Worker) -> None:
        self.hub = hub
        self.worker = worker
        self.ends: dict[int, wl.LinkConnection] = {}
        self.tables: dict[int, Any] = {}
        self.states: dict[int, Any] = {}
        worker.link.send = self.from_worker  # type: ignore[method-assign]  # wired here
        worker.link.transport = self  # type: ignore[assignment]  # (up: see above)

    def open(self, session: int, name: str) -> None:
        end = wl.LinkConnection(self, session, max_frame=MAX_CLIENT_FRAME, trusted=True)  # type: ignore[arg-type]  # this side's link
        self.ends[session] = end
        self.hub.spawn(self.hub.serve(end))
        self.worker.on_frame(session, wl.OPEN, wl.pack(self.spec(name)))

    def resume(self, old: int, new: int, name: str) -> None:
        """``old``'s app goes on as ``new``, from its state, on the same hub connection (as
        ``workers.py`` opens it on its new worker)."""
        end = self.ends[new] = self.ends[old]
        spec = {**self.spec(name), "resume": self.states[old]}
        self.worker.on_frame(new, wl.OPEN, wl.pack(spec))
        end.rebind(self, new)  # type: ignore[arg-type]  # (as in open)

    @staticmethod
    def spec(name: str) -> dict[str, Any]:
        return {"term": asdict(TermInfo(width=80, height=24)), "identity": None, "name": name}

    def send(self, session: int, kind: int, payload: bytes = b"") -> None:
        """What the hub's end of a session writes: to the worker."""
        if session not in self.states:
            self.worker.on_frame(session, kind, payload)

    def from_worker(self, session: int, kind: int, payload: bytes = b"") -> None:
        if session in self.states:
            return
        if kind == wl.HUB:
            self.ends[session].received(payload)
        elif kind == wl.HUB_END:
            self.ends[session].received(None)
        elif kind == wl.TABLE:
            self.tables[session] = wl.unpack(payload)
        elif kind == wl.STATE:
            self.states[session] = wl.unpack(payload)

    def hand_off(self, session: int) -> None:
        self.ends[session].hold()
        self.worker.on_frame(session, wl.HANDOFF, b"")


async def until(check, what: str, timeout: float = 30.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(what)


def screen_of(worker: Worker, session: int) -> str | None:
    app = worker.sessions[session][0].app
    return type(app.screen).__name__ if app is not None and app.is_running else None


def notice(app: Any) -> None:
    """A notice, put up in the app's own task (a chat line or a round's call would be)."""
    app.notify("a notice", timeout=12)


def notices_up(worker: Worker, session: int) -> bool:
    return bool(len(worker.sessions[session][0].app._notifications))


def hub_session(hub: Hub, name: str) -> Any:
    player = next(p for p in hub.players.values() if p.name == name)
    return next(iter(player.sessions))


@asynccontextmanager
async def a_worker_beside_a_hub(
    store, side: type[SSHSide] = SSHSide, **config: Any
) -> AsyncIterator[tuple[Hub, Worker, SSHSide]]:
    """A started hub (``fast_config(**config)``), an app worker's ``Worker`` and the SSH
    side's link between them; after the block, every app ended, each link's hub end closed,
    the worker's memory policy closed and nothing left frozen. Apps have a minute to say
    hello (a wave of them starts at once; under the suite's load 2 s is not enough)."""
    hub = Hub(store, fast_config(**{"hello_timeout": 60.0, **config}))
    await hub.start()
    worker = Worker()
    link = side(hub, worker)
    worker.memory.started()  # as a worker does: everything alive from now on gets frozen
    try:
        yield hub, worker, link
    finally:
        worker.stop_all()
        await until(lambda: not worker.sessions, "every app ended", timeout=10)
        for end in link.ends.values():
            await end.close()
        worker.memory.close()
        gc.unfreeze()
        await hub.stop()


async def to_the_lobby(worker: Worker, sessions: Iterable[int]) -> None:
    """Enter, on each app's welcome screen: each goes to the lobby."""
    sessions = list(sessions)
    for session in sessions:
        await until(lambda s=session: screen_of(worker, s) == "WelcomeScreen", "welcome")
        worker.on_frame(session, wl.INPUT, b"\r")
    for session in sessions:
        await until(lambda s=session: screen_of(worker, s) == "LobbyScreen", "the lobby")


async def test_apps_moved_out_of_a_worker_are_swept_soon_and_nothing_keeps_them(store, monkeypatch):
    monkeypatch.setattr(gc_freeze, "SWEEP_AFTER_MOVED", len(MOVING), raising=False)
    monkeypatch.setattr(gc_freeze, "MOVES_SETTLE", 0.1, raising=False)
    async with a_worker_beside_a_hub(store) as (hub, worker, side):
        names = TABLE + LOBBY
        sessions = dict(zip(names, range(1, len(names) + 1), strict=True))
        for name, session in sessions.items():
            side.open(session, name)
        await until(lambda: {p.name for p in hub.players.values()} >= set(names), "all in")
        await to_the_lobby(worker, sessions.values())
        owner = hub_session(hub, TABLE[0])
        create = {"t": "create_table", "game": "prophets_gambit", "players": 5, "timer": 0}
        hub.handle(owner, create)
        table = max(t.id for t in hub.tables.values() if t.owner == owner.player.id)
        for name in TABLE[1:]:
            hub.handle(hub_session(hub, name), {"t": "join", "table": table})
        at_table = [sessions[name] for name in TABLE]
        await until(lambda: all(side.tables.get(s) == table for s in at_table), "seated")
        moving = [sessions[name] for name in MOVING]
        old_apps = [weakref.ref(worker.sessions[s][0].app) for s in moving]
        for session in moving:  # a notice up as it moves: its timer is cancelled at the end
            worker.sessions[session][0].app.call_later(notice, worker.sessions[session][0].app)
        await until(lambda: all(notices_up(worker, s) for s in moving), "the notices")
        gc.freeze()  # (as the worker does every half minute: these apps are long-lived)

        for session in moving:
            side.hand_off(session)
        await until(lambda: len(side.states) == len(moving), "handed over")
        assert all(isinstance(state, dict) for state in side.states.values())
        # Three moved out, five still open: the old rule waited for five to end (or 20).
        await until(lambda: worker.memory.sweeps == 1, "a sweep for the moves", timeout=10)
        # (freed by that sweep, or taken apart a second after they ended: ended_apps.AFTER)
        await until(lambda: [ref() for ref in old_apps] == [None] * len(moving), "freed", 5)
        assert len(worker.sessions) == len(names) - len(moving)
        assert worker.moved_out == set()
        assert all(app.app is not None for app, _, _ in worker.sessions.values())

        # Bo's new app, from the state (here on this worker: a move back) keeps the app's
        # model, not the state it came in (views and lists the hub has since sent anew).
        side.resume(sessions["Bo"], 100, "Bo")
        await until(lambda: side.tables.get(100) == table, "the new app at its table")
        assert worker.sessions[100][0].request.resume is None
