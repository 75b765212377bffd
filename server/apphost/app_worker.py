"""An app worker: a process that runs Gambit apps for sessions of the SSH process.

    python -m server.apphost.app_worker --fd N [--log-file F] [--verbose] [--log-json]

One Python process is one core, and a hundred apps redrawing after every move at twenty
tables need more than one. ``gambit serve`` keeps the hub, the store and every SSH connection
in one process and starts workers that each run some of the players' apps; an app talks to
the one hub through the protocol's messages, exactly as it does in-process (see
``worker_link``). A worker's garbage collections stall only its own players, over a heap a
fraction of the size.

The worker knows nothing of SSH: it is told a session's terminal, gets its keystrokes and
window changes, and sends back what to draw. When the link closes (the SSH process stopped or
died), every app ends and so does the worker. It ignores SIGINT and SIGTERM: only the SSH
process, or the end of the link, stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
from typing import Any

from protocol.codec import MAX_SERVER_FRAME
from protocol.term import TermInfo
from server.gc_freeze import FrozenSessions
from server.terminal.driver import ChannelDriver, bind_term
from server.terminal.early_input import EarlyInput

from . import app_timing
from . import worker_link as wl
from .app_settings import app_language, make_app, prepare_app

log = logging.getLogger(__name__)

#: Set in the environment, every frame the driver finds already on the player's screen is
#: reported to the SSH process as an empty OUTPUT frame (the load benchmark counts them).
REPORT_UNCHANGED = "GAMBIT_REPORT_UNCHANGED_FRAMES"
#: Once the link has closed, the apps have this long to end before the worker exits anyway.
STOP_TIMEOUT = 5.0


class WorkerSession(EarlyInput):
    """One session's app in this worker, and the driver's :class:`~.driver.Terminal`."""

    def __init__(self, worker: Worker, session: int, spec: dict[str, Any]) -> None:
        super().__init__()
        self.worker = worker
        self.session = session
        self.spec = spec
        self.driver: ChannelDriver | None = None
        self.pending = 0
        self.app: Any = None
        self.conn = wl.LinkConnection(worker.link, session, max_frame=MAX_SERVER_FRAME, peer="hub")
        self._stopped = False
        #: Counts the app's CPU until its first frame, when measured (see app_timing).
        self.start_clock: app_timing.StartClock | None = None

    # --- the driver's terminal -------------------------------------------------------------

    def send(self, data: bytes) -> None:
        if self.start_clock is not None and app_timing.shows_first_screen(self.app):
            ms = self.start_clock.stop()
            self.start_clock = None
            self.worker.link.send(self.session, wl.STARTED, wl.pack(ms))
        self.worker.link.send(self.session, wl.OUTPUT, data)

    def frame_unchanged(self) -> None:
        if self.worker.report_unchanged:
            self.worker.link.send(self.session, wl.OUTPUT)

    def pending_output(self) -> int:
        return self.pending

    # --- from the SSH process --------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        self.feed_input(data)

    def resize(self, width: int, height: int) -> None:
        if self.driver is not None:
            self.driver.resize(width, height)

    def stop(self) -> None:
        self._stopped = True
        if self.app is not None:
            self.app.exit()

    # --- running ---------------------------------------------------------------------------

    async def run(self) -> None:
        spec = self.spec
        term = TermInfo(**spec["term"])
        failed = False
        lang = None
        try:
            self.app = app = make_app(self.conn, term, spec.get("identity"), spec.get("name"))
            prepare_app(app, term)
            bind_term(app, self, term)
            if not self._stopped:
                await app.run_async(size=(term.width, term.height), mouse=True)
            failed = bool(app.return_code)  # it crashed (logged by prepare_app's handler)
            lang = app_language(app)
        except Exception:
            log.exception("session %d failed", self.session)
            failed = True
        finally:
            with contextlib.suppress(Exception):
                await self.conn.close()
            self.app = None
            self.driver = None
            self.worker.session_ended(self, failed, lang)


class Worker:
    """The sessions of this process, fed by the link."""

    def __init__(self) -> None:
        self.link = wl.Link(self.on_frame, self.on_lost)
        self.sessions: dict[int, WorkerSession] = {}
        self.report_unchanged = bool(os.environ.get(REPORT_UNCHANGED))
        self.measure_starts = app_timing.enabled()
        self.memory = FrozenSessions()
        self.done = asyncio.Event()

    def on_frame(self, session: int, kind: int, payload: bytes) -> None:
        ws: WorkerSession | None
        if kind == wl.OPEN:
            ws = WorkerSession(self, session, wl.unpack(payload))
            self.sessions[session] = ws
            self.memory.session_started()
            context = None
            if self.measure_starts:
                context, ws.start_clock = app_timing.start_context()
            asyncio.get_running_loop().create_task(ws.run(), context=context)
            return
        if kind == wl.STOP and session == 0:
            self.stop_all()
            return
        ws = self.sessions.get(session)
        if ws is None:
            return  # a session that has just ended
        if kind == wl.INPUT:
            ws.feed(payload)
        elif kind == wl.HUB:
            ws.conn.received(payload)
        elif kind == wl.HUB_END:
            ws.conn.received(None)
        elif kind == wl.RESIZE:
            width, height = wl.unpack(payload)
            ws.resize(int(width), int(height))
        elif kind == wl.PENDING:
            ws.pending = int(wl.unpack(payload))
        elif kind == wl.STOP:
            ws.stop()

    def session_ended(self, ws: WorkerSession, failed: bool, lang: str | None = None) -> None:
        """Tell the SSH process the app has ended: whether it failed, and the language it
        spoke (the session's goodbye is said in it)."""
        if self.sessions.pop(ws.session, None) is not None:
            self.link.send(ws.session, wl.EXITED, wl.pack({"failed": failed, "lang": lang}))
            self.memory.session_ended(len(self.sessions))
        if not self.sessions and self.link.transport is None:
            self.done.set()

    def stop_all(self) -> None:
        for ws in list(self.sessions.values()):
            ws.stop()

    def on_lost(self) -> None:
        self.stop_all()
        if not self.sessions:
            self.done.set()


def _preload() -> None:
    """Import every screen now, not when the first player opens one (a worker starts once)."""
    import gambit_tui.app
    import gambit_tui.screens.fortunes_table
    import gambit_tui.screens.lobby
    import gambit_tui.screens.pg_table
    import gambit_tui.screens.prophet_table
    import gambit_tui.screens.welcome  # noqa: F401


async def serve(fd: int) -> None:
    _preload()
    loop = asyncio.get_running_loop()
    worker = Worker()
    sock = socket.socket(fileno=fd)
    await loop.create_unix_connection(lambda: worker.link, sock=sock)
    worker.memory.started()
    worker.link.send(0, wl.READY)
    await worker.link.closed
    # The SSH process is gone: end every app (their hub connections are gone too).
    worker.stop_all()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(worker.done.wait(), STOP_TIMEOUT)
    worker.memory.close()
    if worker.sessions:
        # An app that does not end must not keep this process (it ignores SIGTERM) alive.
        log.error("%d apps did not end; exiting anyway", len(worker.sessions))
        logging.shutdown()
        os._exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--log-file")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--log-json", action="store_true")
    # Ctrl+C at the server's terminal, and a service manager's stop (systemd sends SIGTERM to
    # every process of the service), reach the workers too: the SSH process decides when
    # apps end (it says goodbye to each player first), and a worker ends when its link does.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    args = parser.parse_args()
    from server.logs import setup_logging

    setup_logging(args.log_file, args.verbose, args.log_json)
    asyncio.run(serve(args.fd))


if __name__ == "__main__":
    main()
