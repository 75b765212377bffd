"""The SSH process's side of the app workers (see ``app_worker``): start them, give each new
session to the least busy one, keep a table's apps together, carry their bytes, and restart
a worker that dies.

Placement (the rule is :mod:`.placement`'s): an app starts on the least busy worker; each
time the table its app shows changes (its worker says: TABLE), the app moves to that table's
home worker, unless that worker is far fuller than the others. Moves wait in line, one at a
time (:mod:`.move_pacing`: each is an app start on the table's worker).

Moving (:meth:`RemoteApp.move_to`), unseen by the player and by the hub: the hub's end of the
app's connection stays the same object, so the hub never sees a session end or start (no
seat is left, nobody is told of a drop or a return). From the HANDOFF on, what the hub sends
is held here and what the player types is kept here; the old worker waits until the app has
taken in the hub's earlier messages, sends its state (STATE: the model, the table screens
open; ``gambit_tui/resume.py``) and ends the app without a word (its frames are no longer
listened to). A new app is opened on the new worker with that state and the terminal's
present size; it shows the same screens in its first frame, which repaints every cell; then
the held messages and keys go to it, in order. Until the new app draws, the player's screen
keeps the old app's last frame.

The pool is an :class:`~.launcher.AppLauncher`: an app on a worker is a
:class:`RemoteApp` (a :class:`~.launcher.RunningApp`) that writes the frames its worker sends
to the session's :class:`~.launcher.OutputSink`, and its hub connection is a
:class:`~.worker_link.LinkConnection` the hub serves like any other. Which worker takes an app
is decided in one place, :meth:`AppWorkers.place`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
import sys
import time
from dataclasses import asdict, replace
from typing import Any

from protocol.codec import MAX_CLIENT_FRAME

from . import worker_link as wl
from .launcher import AppRequest, AppResult, OutputSink
from .move_pacing import MovePacer
from .placement import TablePlacement
from .recycling import MB, RecycleRule

log = logging.getLogger(__name__)

#: A worker has this long to load the app and say it is ready.
START_TIMEOUT = 60.0
#: A worker that dies this soon after it started is replaced only after a pause (a worker
#: that cannot run must not be restarted in a tight loop).
SHORT_LIFE = 10.0
RESTART_PAUSE = 2.0
#: While a player's connection has output waiting, their worker hears how much this often.
PENDING_POLL = 0.05
#: ... and between polls, whenever it grew by this much.
PENDING_STEP = 16 * 1024
#: An app on a worker being recycled that could not be handed over (it stays) is asked
#: again after this long, this many times at most (then it is given up on: the worker ends
#: when its player leaves, and no longer holds up the recycling of others).
RETRY_STAYED = 5.0
MAX_STAYS = 3


class RemoteApp:
    """One session's app on a worker: a :class:`~.launcher.RunningApp`."""

    def __init__(
        self,
        worker: AppWorker,
        session_id: int,
        peer: str,
        sink: OutputSink,
        request: AppRequest | None = None,
    ) -> None:
        self.worker = worker
        self.id = session_id
        self.sink = sink
        #: What the app was started with (a move starts the new app from it).
        self.request = request
        self.size = (request.term.width, request.term.height) if request else (80, 24)
        #: The table the app shows (its worker says), for the placement.
        self.table: int | None = None
        #: While the app moves: the worker it goes to, and what the player typed meanwhile.
        self.moving_to: AppWorker | None = None
        #: The worker it waits in line to move to (move_pacing.py): placed there already, as
        #: far as the placement's choices for its table's other apps go.
        self.planned: AppWorker | None = None
        self._typed: list[bytes] = []
        #: A new app here has not drawn yet (keys wait for its screens: :meth:`drawn`).
        self._starting = False
        self._started_at = self.size
        self._exit_asked = False
        #: Times the app could not be handed over off a worker being recycled.
        self.stays = 0
        self.hub_conn = wl.LinkConnection(
            worker.link, session_id, max_frame=MAX_CLIENT_FRAME, trusted=True, peer=peer
        )
        self.ended_with: asyncio.Future[AppResult] = asyncio.get_running_loop().create_future()
        self._reported = 0
        self._poll: asyncio.TimerHandle | None = None
        #: The app's CPU time until its first frame, when the worker measures it (app_timing).
        self.start_cpu_ms: float | None = None

    def place_now(self) -> AppWorker:
        """The worker it runs on, or the one it is moving (or waits to move) to."""
        return self.moving_to or self.planned or self.worker

    @property
    def starting(self) -> bool:
        """A new app (moved here) has not drawn yet."""
        return self._starting

    def feed(self, data: bytes) -> None:
        if self.moving_to is not None or self._starting:
            self._typed.append(data)  # for the new app, in order
            return
        self.worker.link.send(self.id, wl.INPUT, data)

    def resize(self, width: int, height: int) -> None:
        self.size = (width, height)
        if self.moving_to is None and not self._starting:  # (else see drawn)
            self.worker.link.send(self.id, wl.RESIZE, wl.pack([width, height]))

    def exit(self) -> None:
        self._exit_asked = True
        if self.moving_to is None:  # (else it ends once the old app is gone)
            self.worker.link.send(self.id, wl.STOP)

    # --- moving to another worker (see the module docstring) -------------------------------

    def move_to(self, target: AppWorker) -> None:
        """Start handing the app over to ``target``."""
        self.moving_to = target
        self.hub_conn.hold()
        self.worker.link.send(self.id, wl.HANDOFF)

    def handed_off(self, state: dict[str, Any] | None) -> None:
        """The old worker's STATE: open the new app with it (None: the app stays)."""
        target, self.moving_to = self.moving_to, None
        old = self.worker
        if target is None or self.ended_with.done():
            return
        if state is None or self.request is None:  # (an app that cannot be handed over)
            self.hub_conn.rebind(old.link, self.id)
            self._deliver_typed()
            if self._exit_asked:
                self.exit()
            old.pool.pacer.done(self)
            old.pool.stayed(self)
            return
        old.sessions.pop(self.id, None)  # its frames, goodbye and end go nowhere now
        self.stays = 0  # (a later recycling of its new worker asks afresh)
        pool = old.pool
        pool.emptied(old)
        if self._exit_asked:  # the player left meanwhile: nothing to open
            lang = (state.get("you") or {}).get("lang")
            pool.placement.forget(self)
            self.ended(AppResult(False, lang if isinstance(lang, str) else None))
            return
        if target not in pool.ready_workers():  # it died (or is being recycled) meanwhile
            target = pool.place(self.request)
        width, height = self.size
        term = replace(self.request.term, width=width, height=height)
        self.worker, self.id = target, pool.new_id()
        target.adopt(self, replace(self.request, term=term, resume=state))
        self.hub_conn.rebind(target.link, self.id)
        self._starting = True  # the keys go to it once it has drawn its screens
        self._started_at = self.size
        pool.moved(self)

    def drawn(self) -> None:
        """The app's worker said which table it shows: a new app has drawn its first frame,
        its screens are up, and the keys typed during the move go to them now."""
        if self._starting:
            self._starting = False
            if self.size != self._started_at:  # the window changed meanwhile
                self.resize(*self.size)
            self._deliver_typed()
            self.worker.pool.pacer.done(self)

    def _deliver_typed(self) -> None:
        typed, self._typed = self._typed, []
        for data in typed:
            self.feed(data)

    async def result(self) -> AppResult:
        return await self.ended_with

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.hub_conn.close()

    def output(self, data: bytes) -> None:
        """A frame from the worker, for the player."""
        self.sink.output(data)
        if data:
            self.output_written()

    def output_written(self) -> None:
        """Tell the worker when the player's connection falls behind, and when it catches up
        (its driver then skips frames, as it does in-process)."""
        pending = self.sink.pending_output()
        if abs(pending - self._reported) >= PENDING_STEP or (pending == 0) != (self._reported == 0):
            self._report(pending)

    def _report(self, pending: int) -> None:
        self._reported = pending
        self.worker.link.send(self.id, wl.PENDING, wl.pack(pending))
        if pending and self._poll is None:
            self._poll = asyncio.get_running_loop().call_later(PENDING_POLL, self._check)

    def _check(self) -> None:
        self._poll = None
        if not self.ended_with.done():
            self._report(self.sink.pending_output())

    def ended(self, result: AppResult) -> None:
        self.worker.pool.pacer.forget(self)
        if self._poll is not None:
            self._poll.cancel()
        self.hub_conn.received(None)
        if not self.ended_with.done():
            self.ended_with.set_result(result)


class AppWorker:
    """One worker process and its link."""

    def __init__(self, pool: AppWorkers, number: int) -> None:
        self.pool = pool
        self.number = number
        self.sessions: dict[int, RemoteApp] = {}
        self.link = wl.Link(self.on_frame, self.on_lost)
        self.process: asyncio.subprocess.Process | None = None
        self.ready = asyncio.get_running_loop().create_future()
        self.started = time.monotonic()
        #: A fresh worker is starting to take this one's place (recycling.py) ...
        self.replacing = False
        #: ... and now it has: this one's apps move out, it takes no new ones, and it ends
        #: once it has none.
        self.retiring = False
        #: It has been asked to end (its last app gone, or the server stops).
        self.stopping = False

    async def start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        command = [sys.executable, "-m", "server.apphost.app_worker", "--fd", str(theirs.fileno())]
        if self.pool.log_file:
            command += ["--log-file", self.pool.log_file]
        if self.pool.verbose:
            command.append("--verbose")
        if self.pool.log_json:
            command.append("--log-json")
        try:
            self.process = await asyncio.create_subprocess_exec(
                *command, pass_fds=(theirs.fileno(),), stdin=asyncio.subprocess.DEVNULL
            )
        finally:
            theirs.close()
        loop = asyncio.get_running_loop()
        await loop.create_unix_connection(lambda: self.link, sock=ours)
        await asyncio.wait_for(asyncio.shield(self.ready), START_TIMEOUT)

    def on_frame(self, session_id: int, kind: int, payload: bytes) -> None:
        if session_id == 0:
            if kind == wl.READY and not self.ready.done():
                self.ready.set_result(None)
            elif kind == wl.SWEPT:
                report = wl.unpack(payload)
                rss = report.get("rss") if isinstance(report, dict) else None
                self.pool.swept(self, rss if isinstance(rss, int) else None)
            return
        remote = self.sessions.get(session_id)
        if remote is None:
            return
        if kind == wl.OUTPUT:
            remote.output(payload)
        elif kind == wl.HUB:
            remote.hub_conn.received(payload)
        elif kind == wl.HUB_END:
            remote.hub_conn.received(None)
        elif kind == wl.STARTED:
            remote.start_cpu_ms = wl.unpack(payload)
        elif kind == wl.TABLE:
            table = wl.unpack(payload)
            remote.drawn()
            self.pool.table_shown(remote, table if isinstance(table, int) else None)
        elif kind == wl.STATE:
            state = wl.unpack(payload)
            remote.handed_off(state if isinstance(state, dict) else None)
        elif kind == wl.EXITED:
            self.sessions.pop(session_id, None)
            self.pool.placement.forget(remote)
            ended = wl.unpack(payload)
            lang = ended.get("lang")
            remote.ended(
                AppResult(bool(ended.get("failed")), lang if isinstance(lang, str) else None)
            )
            self.pool.emptied(self)

    def on_lost(self) -> None:
        """The worker died or was stopped: its sessions end (their players are told)."""
        if not self.ready.done():
            self.ready.set_exception(ConnectionError("the app worker exited while starting"))
        sessions, self.sessions = self.sessions, {}
        for remote in sessions.values():
            self.pool.placement.forget(remote)
            remote.ended(AppResult(failed=True))
        self.pool.worker_lost(self)

    def open(self, session_id: int, request: AppRequest, sink: OutputSink) -> RemoteApp:
        remote = RemoteApp(self, session_id, request.peer, sink, request)
        self.adopt(remote, request)
        return remote

    def adopt(self, remote: RemoteApp, request: AppRequest) -> None:
        """Run ``remote``'s app here (under its id), started from ``request``."""
        self.sessions[remote.id] = remote
        spec: dict[str, Any] = {
            "term": asdict(request.term),
            "identity": request.identity,
            "name": request.name,
        }
        if request.resume is not None:
            spec["resume"] = request.resume
        self.link.send(remote.id, wl.OPEN, wl.pack(spec))

    def moving_out(self) -> bool:
        """It is being recycled and some of its apps are still to move (not those given up
        on: :meth:`AppWorkers.stayed`)."""
        return self.retiring and any(r.stays <= MAX_STAYS for r in self.sessions.values())

    def retire(self) -> None:
        """Its last app has gone (it is being recycled): end it."""
        if not self.stopping:
            self.stopping = True
            self.pool.spawn(self.stop())

    async def stop(self, timeout: float = 5.0) -> None:
        """Ask the worker to end; kill it if it has not within ``timeout`` (it ignores
        SIGTERM and SIGINT, so this is how it ends)."""
        self.link.send(0, wl.STOP)
        self.link.close()
        if self.process is not None:
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except TimeoutError:
                log.error("app worker %d did not stop; killing it", self.number)
                await self.kill()

    async def kill(self) -> None:
        self.link.close()
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()


class AppWorkers:
    """The pool: ``count`` workers, kept at that number while the server runs; an
    :class:`~.launcher.AppLauncher`."""

    def __init__(
        self,
        count: int,
        *,
        log_file: str | None = None,
        verbose: bool = False,
        log_json: bool = False,
        max_rss_mb: int = 0,
    ) -> None:
        self.count = count
        self.log_file = log_file
        self.verbose = verbose
        self.log_json = log_json
        self.workers: list[AppWorker] = []
        self._ids = itertools.count(1)
        self._numbers = itertools.count(1)
        self._closing = False
        self._restarts: set[asyncio.Task[None]] = set()
        #: Workers that died while the server ran (each was replaced): for the metrics.
        self.lost = 0
        #: When a worker is recycled (recycling.py), and how many have been.
        self.recycle_rule = RecycleRule(max_rss_mb * MB)
        self.recycled = 0
        #: Which table each app shows; where a table's apps should run (placement.py).
        self.placement: TablePlacement[RemoteApp] = TablePlacement(self._load)
        #: Apps moved to another worker so far (the load benchmark reports it).
        self.moves = 0
        #: Apps waiting to move, moved one at a time (move_pacing.py).
        self.pacer: MovePacer[RemoteApp] = MovePacer(self._start_move)
        #: Whether apps move to their table's home (the load benchmark turns it off to
        #: measure what moving gains; the tables are followed either way).
        self.by_table = True

    async def start(self) -> None:
        self.workers = [AppWorker(self, next(self._numbers)) for _ in range(self.count)]
        await asyncio.gather(*(w.start() for w in self.workers))
        log.info("%d app workers ready", self.count)

    @property
    def pids(self) -> list[int]:
        return [w.process.pid for w in self.workers if w.process is not None]

    def launch(self, request: AppRequest, sink: OutputSink) -> RemoteApp:
        """Start a session's app on the worker :meth:`place` chooses."""
        return self.place(request).open(self.new_id(), request, sink)

    def new_id(self) -> int:
        return next(self._ids)

    def ready_workers(self) -> list[AppWorker]:
        """The workers that take apps: started, and not being recycled."""
        return [
            w for w in self.workers if w.ready.done() and not w.ready.exception() and not w.retiring
        ]

    def place(self, request: AppRequest) -> AppWorker:
        """The worker a new app runs on: the least busy of those ready (it moves once it
        shows a table: :meth:`table_shown`)."""
        ready = self.ready_workers()
        if not ready:
            raise RuntimeError("no app worker is running")
        return min(ready, key=self._load)

    def _load(self, worker: Any) -> int:
        """The apps ``worker`` runs, and those moving to it."""
        coming = sum(
            1
            for w in self.workers
            for r in w.sessions.values()
            if (r.moving_to or r.planned) is worker
        )
        return len(worker.sessions) + coming

    def table_shown(self, remote: RemoteApp, table: int | None) -> None:
        """``remote``'s app shows ``table`` now: move it to the table's home, if it is not
        there, and the table's other apps too if its home changed (see placement.py). Not
        when it shows the table it showed (the first frame of a moved app). An app on a
        worker being recycled moves out, whatever it shows."""
        self._follow_table(remote, table)
        if remote.worker.retiring:
            self._move_out(remote)

    def _follow_table(self, remote: RemoteApp, table: int | None) -> None:
        if table == remote.table:
            return
        if remote.planned is not None:  # (it waited to move for the table it showed before)
            remote.planned = None
            self.pacer.forget(remote)
        self.placement.shows(remote, table)
        if not self.by_table:
            return
        home = self._consider(remote)
        if table is None or home is None:
            return
        for other in list(self.placement.tables.get(table, ())):
            if other is not remote and other.place_now() is not home:
                self._consider(other)

    def moved(self, remote: RemoteApp) -> None:
        """``remote`` runs on its new worker (which tells the table it shows once it has
        drawn: :meth:`table_shown` then looks again)."""
        self.moves += 1

    def _consider(self, remote: RemoteApp) -> AppWorker | None:
        """Move ``remote`` to its table's home if it is elsewhere; the home (None: none)."""
        if remote.moving_to is not None or remote.ended_with.done() or remote.table is None:
            return None
        home = self.placement.home(remote, self.ready_workers())
        if not isinstance(home, AppWorker):
            return None
        if home is not remote.worker:
            remote.planned = home
            self.pacer.want(remote)
        elif remote.planned is not None:  # (it belongs where it is after all)
            remote.planned = None
            self.pacer.forget(remote)
        return home

    def _start_move(self, remote: RemoteApp) -> bool:
        """``remote``'s turn to move (move_pacing.py): start it if it should still move
        (to its table's home, or off a worker being recycled)."""
        home, remote.planned = remote.planned, None
        leaving = remote.worker.retiring
        if remote.moving_to is not None or remote.ended_with.done():
            return False
        if remote.table is None and not leaving:
            return False
        if home not in self.ready_workers():  # (it died meanwhile)
            home = self._new_home(remote)
        if not isinstance(home, AppWorker) or home is remote.worker:
            return False
        remote.move_to(home)
        return True

    def _new_home(self, remote: RemoteApp) -> AppWorker | None:
        """Where ``remote`` should run now, of the workers that take apps: its table's home,
        or (no table, and leaving a worker being recycled) the least busy."""
        ready = self.ready_workers()
        home = self.placement.home(remote, ready)
        if home in ready:
            return home  # (one of ready: an AppWorker)
        return min(ready, key=self._load) if ready else None

    # --- recycling a worker (recycling.py) -------------------------------------------------

    def swept(self, worker: AppWorker, rss: int | None) -> None:
        """``worker`` has just swept and keeps ``rss`` bytes: recycle it if the rule says.
        Another worker is being recycled while it starts its fresh one or moves its apps out;
        one whose last apps could not move (given up on: :meth:`stayed`) only waits for
        them to end, and holds up nothing."""
        if worker.replacing or worker.retiring:
            return  # (being recycled already)
        recycling = any(w.replacing or w.moving_out() for w in self.workers)
        age = time.monotonic() - worker.started
        if self._closing or not self.recycle_rule.due(rss, age, recycling):
            return
        assert rss is not None
        log.info(
            "app worker %d keeps %d MB after a sweep (limit %d MB) with %d apps: recycling it",
            worker.number,
            rss // MB,
            self.recycle_rule.max_rss // MB,
            len(worker.sessions),
        )
        worker.replacing = True
        self.spawn(self._recycle(worker))

    async def _recycle(self, old: AppWorker) -> None:
        """Start a fresh worker in ``old``'s place, then move ``old``'s apps to it."""
        fresh = AppWorker(self, next(self._numbers))
        self.workers.append(fresh)
        try:
            await fresh.start()
        except Exception:
            log.exception("could not start an app worker to recycle app worker %d", old.number)
            if fresh in self.workers:
                self.workers.remove(fresh)
            old.replacing = False
            return
        old.replacing = False
        if old not in self.workers:
            return  # it died meanwhile: the fresh one has taken its place
        old.retiring = True
        for remote in list(old.sessions.values()):
            self._move_out(remote, fresh)
        self.emptied(old)

    def _move_out(self, remote: RemoteApp, to: AppWorker | None = None) -> None:
        """``remote``, on a worker being recycled, waits in line to move (to ``to``, or
        wherever is best when its turn comes)."""
        if remote.moving_to is not None or remote.ended_with.done() or remote.starting:
            return  # (a new app here moves once it has drawn: table_shown)
        if remote.planned is None or remote.planned not in self.ready_workers():
            remote.planned = to or self._new_home(remote)
        self.pacer.want(remote)

    def stayed(self, remote: RemoteApp) -> None:
        """``remote``'s app could not be handed over: off a worker being recycled, it is
        asked again a little later (a few times; then it is given up on, and the worker,
        which ends when its last app does, no longer holds up recycling others)."""
        worker = remote.worker
        if not worker.retiring:
            return
        remote.stays += 1
        if remote.stays > MAX_STAYS:
            log.warning(
                "app worker %d: session %d's app cannot move; given up on (the worker ends"
                " after it, and other workers may be recycled meanwhile)",
                worker.number,
                remote.id,
            )
            return

        def again() -> None:
            if worker.sessions.get(remote.id) is remote:
                self._move_out(remote)

        asyncio.get_running_loop().call_later(RETRY_STAYED, again)

    def emptied(self, worker: AppWorker) -> None:
        """An app has left ``worker``: a worker being recycled ends with its last."""
        if worker.retiring and not worker.sessions:
            worker.retire()

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._restarts.add(task)
        task.add_done_callback(self._restarts.discard)

    def colocation(self) -> dict[str, Any]:
        """How well tables are kept together: apps showing a table, the share of them on
        the worker that holds most of their table's apps, and the moves made so far."""
        total, together = self.placement.with_their_table()
        return {
            "apps_at_tables": total,
            "apps_with_their_table": round(together / total, 3) if total else None,
            "app_moves": self.moves,
        }

    def worker_lost(self, worker: AppWorker) -> None:
        if worker in self.workers:
            self.workers.remove(worker)
        if self._closing:
            return
        if worker.retiring and worker.stopping:  # recycled: a fresh one has its place already
            self.recycled += 1
            log.info("app worker %d recycled (%d so far)", worker.number, self.recycled)
            return
        self.lost += 1
        if worker.retiring:  # it died, apps and all, before its last app left
            log.error("app worker %d exited while its apps moved out", worker.number)
            return  # (the fresh worker took its place already)
        if worker.replacing:  # (the fresh worker starting for it takes its place)
            log.error("app worker %d exited while being recycled", worker.number)
            return
        log.error("app worker %d exited; starting another", worker.number)
        pause = RESTART_PAUSE if time.monotonic() - worker.started < SHORT_LIFE else 0.0
        task = asyncio.get_running_loop().create_task(self._replace(pause))
        self._restarts.add(task)
        task.add_done_callback(self._restarts.discard)

    async def _replace(self, pause: float) -> None:
        await asyncio.sleep(pause)
        worker = AppWorker(self, next(self._numbers))
        self.workers.append(worker)
        try:
            await worker.start()
        except Exception:
            log.exception("could not start an app worker")
            if worker in self.workers:
                self.workers.remove(worker)

    def stop_restarts(self) -> None:
        """The server is stopping: a worker that ends from now on is not replaced."""
        self._closing = True
        for task in list(self._restarts):
            task.cancel()
        self.pacer.close()

    async def close(self, timeout: float = 5.0) -> None:
        self.stop_restarts()
        await asyncio.gather(*(w.stop(timeout) for w in self.workers), return_exceptions=True)
        self.workers = []

    async def kill(self) -> None:
        self.stop_restarts()
        await asyncio.gather(*(w.kill() for w in self.workers), return_exceptions=True)
        self.workers = []
