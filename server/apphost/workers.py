"""The SSH process's side of the app workers (see ``app_worker``): start them, give each new
session to the least busy one, carry its bytes, and restart a worker that dies.

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
from dataclasses import asdict

from protocol.codec import MAX_CLIENT_FRAME

from . import worker_link as wl
from .launcher import AppRequest, AppResult, OutputSink

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


class RemoteApp:
    """One session's app on a worker: a :class:`~.launcher.RunningApp`."""

    def __init__(self, worker: AppWorker, session_id: int, peer: str, sink: OutputSink) -> None:
        self.worker = worker
        self.id = session_id
        self.sink = sink
        self.hub_conn = wl.LinkConnection(
            worker.link, session_id, max_frame=MAX_CLIENT_FRAME, trusted=True, peer=peer
        )
        self.ended_with: asyncio.Future[AppResult] = asyncio.get_running_loop().create_future()
        self._reported = 0
        self._poll: asyncio.TimerHandle | None = None
        #: The app's CPU time until its first frame, when the worker measures it (app_timing).
        self.start_cpu_ms: float | None = None

    def feed(self, data: bytes) -> None:
        self.worker.link.send(self.id, wl.INPUT, data)

    def resize(self, width: int, height: int) -> None:
        self.worker.link.send(self.id, wl.RESIZE, wl.pack([width, height]))

    def exit(self) -> None:
        self.worker.link.send(self.id, wl.STOP)

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
        elif kind == wl.EXITED:
            self.sessions.pop(session_id, None)
            ended = wl.unpack(payload)
            lang = ended.get("lang")
            remote.ended(
                AppResult(bool(ended.get("failed")), lang if isinstance(lang, str) else None)
            )

    def on_lost(self) -> None:
        """The worker died or was stopped: its sessions end (their players are told)."""
        if not self.ready.done():
            self.ready.set_exception(ConnectionError("the app worker exited while starting"))
        sessions, self.sessions = self.sessions, {}
        for remote in sessions.values():
            remote.ended(AppResult(failed=True))
        self.pool.worker_lost(self)

    def open(self, session_id: int, request: AppRequest, sink: OutputSink) -> RemoteApp:
        remote = RemoteApp(self, session_id, request.peer, sink)
        self.sessions[session_id] = remote
        spec = {"term": asdict(request.term), "identity": request.identity, "name": request.name}
        self.link.send(session_id, wl.OPEN, wl.pack(spec))
        return remote

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

    async def start(self) -> None:
        self.workers = [AppWorker(self, next(self._numbers)) for _ in range(self.count)]
        await asyncio.gather(*(w.start() for w in self.workers))
        log.info("%d app workers ready", self.count)

    @property
    def pids(self) -> list[int]:
        return [w.process.pid for w in self.workers if w.process is not None]

    def launch(self, request: AppRequest, sink: OutputSink) -> RemoteApp:
        """Start a session's app on the worker :meth:`place` chooses."""
        return self.place(request).open(next(self._ids), request, sink)

    def place(self, request: AppRequest) -> AppWorker:
        """The worker an app runs on: the least busy of those ready."""
        ready = [w for w in self.workers if w.ready.done() and not w.ready.exception()]
        if not ready:
            raise RuntimeError("no app worker is running")
        return min(ready, key=lambda w: len(w.sessions))

    def worker_lost(self, worker: AppWorker) -> None:
        if worker in self.workers:
            self.workers.remove(worker)
        if self._closing:
            return
        self.lost += 1
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

    async def close(self, timeout: float = 5.0) -> None:
        self.stop_restarts()
        await asyncio.gather(*(w.stop(timeout) for w in self.workers), return_exceptions=True)
        self.workers = []

    async def kill(self) -> None:
        self.stop_restarts()
        await asyncio.gather(*(w.kill() for w in self.workers), return_exceptions=True)
        self.workers = []
