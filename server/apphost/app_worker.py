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

from . import app_timing
from . import worker_link as wl
from .in_process import LocalApp, default_app_factory
from .launcher import AppRequest
from .memo_ages import MemoAges

log = logging.getLogger(__name__)

#: Set in the environment, every frame the driver finds already on the player's screen is
#: reported to the SSH process as an empty OUTPUT frame (the load benchmark counts them).
REPORT_UNCHANGED = "GAMBIT_REPORT_UNCHANGED_FRAMES"
#: Once the link has closed, the apps have this long to end before the worker exits anyway.
STOP_TIMEOUT = 5.0
#: A table no app shows: a resumed app's first frame always says its table (TABLE).
NOT_SAID = -1
#: An app being handed over has this many turns of the loop to read the hub's messages.
HANDOFF_TURNS = 100


class LinkSink:
    """Where an app in this worker draws (an :class:`~.launcher.OutputSink`): its session's
    frames, over the link to the SSH process. The app itself is the same
    :class:`~.in_process.LocalApp` as in process; only its sink and its hub connection (a
    :class:`~.worker_link.LinkConnection`) are the worker's."""

    __slots__ = (
        "app",
        "link",
        "pending",
        "report_unchanged",
        "session",
        "start_clock",
        "table",
    )

    def __init__(self, link: wl.Link, session: int, report_unchanged: bool) -> None:
        self.link = link
        self.session = session
        self.report_unchanged = report_unchanged
        #: Bytes the player has not taken yet, as the SSH process last said (PENDING).
        self.pending = 0
        #: Counts the app's CPU until its first frame, when measured (see app_timing).
        self.start_clock: app_timing.StartClock | None = None
        self.app: LocalApp | None = None
        #: The table the app showed when last told (see :meth:`report_table`).
        self.table: int | None = None

    def report_table(self) -> None:
        """Tell the SSH process when the table the app shows changes (``shown_table``: the
        Gambit app's; checked at each frame drawn, as a new screen is one): it keeps a
        table's apps in one worker (``workers.py``)."""
        app = self.app.app if self.app is not None else None
        if self.table == NOT_SAID and not app_timing.shows_first_screen(app):
            return  # a resumed app's set-up, before its screens are up
        table = getattr(app, "shown_table", None)
        if table != self.table:
            self.table = table
            self.link.send(self.session, wl.TABLE, wl.pack(table))

    def output(self, data: bytes) -> None:
        if not data:  # a frame already on the player's screen
            if self.report_unchanged:
                self.link.send(self.session, wl.OUTPUT)
            return
        clock = self.start_clock
        if (
            clock is not None
            and self.app is not None
            and app_timing.shows_first_screen(self.app.app)
        ):
            self.start_clock = None
            self.link.send(self.session, wl.STARTED, wl.pack(clock.stop()))
        self.link.send(self.session, wl.OUTPUT, data)
        self.report_table()

    def pending_output(self) -> int:
        return self.pending


class Worker:
    """The sessions of this process, fed by the link."""

    def __init__(self) -> None:
        self.link = wl.Link(self.on_frame, self.on_lost)
        #: Each session's app, its hub connection and its sink.
        self.sessions: dict[int, tuple[LocalApp, wl.LinkConnection, LinkSink]] = {}
        #: Sessions whose app was handed over to another worker and is ending here.
        self.moved_out: set[int] = set()
        self.report_unchanged = bool(os.environ.get(REPORT_UNCHANGED))
        self.measure_starts = app_timing.enabled()
        self.memory = FrozenSessions()
        self.memory.on_swept = self.report_swept
        self.done = asyncio.Event()

    def report_swept(self) -> None:
        """Tell the SSH process this worker's memory right after a sweep (SWEPT): a worker
        that keeps too much is recycled (``recycling.py``)."""
        report = {"rss": self.memory.resident_after_sweep, "apps": len(self.sessions)}
        self.link.send(0, wl.SWEPT, wl.pack(report))

    def on_frame(self, session: int, kind: int, payload: bytes) -> None:
        if kind == wl.OPEN:
            self.open(session, wl.unpack(payload))
            return
        if kind == wl.STOP and session == 0:
            self.stop_all()
            return
        held = self.sessions.get(session)
        if held is None:
            return  # a session that has just ended
        app, conn, sink = held
        if kind == wl.INPUT:
            app.feed(payload)
        elif kind == wl.HUB:
            conn.received(payload)
        elif kind == wl.HUB_END:
            conn.received(None)
        elif kind == wl.RESIZE:
            width, height = wl.unpack(payload)
            app.resize(int(width), int(height))
        elif kind == wl.PENDING:
            sink.pending = int(wl.unpack(payload))
        elif kind == wl.STOP:
            app.exit()
        elif kind == wl.HANDOFF:
            asyncio.get_running_loop().create_task(self.hand_off(session))

    async def hand_off(self, session: int) -> None:
        """Send the app's state (STATE) for a new app elsewhere, then end this one unseen:
        the SSH process no longer listens to this session (its frames, its goodbye and its
        hub connection's end go nowhere). The state is taken once the hub's messages sent
        before the HANDOFF are in the app's model (the SSH process holds later ones)."""
        held = self.sessions.get(session)
        if held is None:
            return
        app, conn, _ = held
        for _ in range(HANDOFF_TURNS):  # bounded: the app reads its inbox in its own task
            if conn.inbox_empty():
                break
            await asyncio.sleep(0)
        for _ in range(3):  # keys fed before the HANDOFF reach their screen
            await asyncio.sleep(0)
        state = None
        take = getattr(app.app, "resume_state", None)
        if take is not None:
            try:
                state = take()
            except Exception:
                log.exception("session %d: could not take the app's state", session)
        self.link.send(session, wl.STATE, wl.pack(state))
        if state is None:
            return  # it stays: the SSH process goes on with it here
        self.sessions.pop(session, None)
        self.moved_out.add(session)
        app.exit()

    def open(self, session: int, spec: dict[str, Any]) -> None:
        """Start a session's app, as in process, drawing into the link."""
        sink = LinkSink(self.link, session, self.report_unchanged)
        context = None
        if self.measure_starts and "resume" not in spec:  # (a session's start, not a move's)
            context, sink.start_clock = app_timing.start_context()
        conn = wl.LinkConnection(self.link, session, max_frame=MAX_SERVER_FRAME, peer="hub")
        request = AppRequest(
            TermInfo(**spec["term"]),
            spec.get("identity"),
            spec.get("name"),
            peer="hub",
            resume=spec.get("resume"),
        )
        if request.resume is not None:
            sink.table = NOT_SAID  # its first frame says its table: the new app is drawn
        app = LocalApp(default_app_factory, request, sink, conn=conn, context=context)
        sink.app = app
        self.sessions[session] = (app, conn, sink)
        self.memory.session_started()
        asyncio.get_running_loop().create_task(self._until_ended(session, app))

    async def _until_ended(self, session: int, app: LocalApp) -> None:
        failed, lang = True, None
        try:
            result = await app.result()
            failed, lang = result.failed, result.lang
        except Exception:
            log.exception("session %d failed", session)
        finally:
            await app.close()
            self.session_ended(session, failed, lang)

    def session_ended(self, session: int, failed: bool, lang: str | None = None) -> None:
        """Tell the SSH process the app has ended: whether it failed, and the language it
        spoke (the session's goodbye is said in it). An app handed over to another worker
        ends unseen, its memory counted for a sweep of its own (``gc_freeze``): it is garbage
        only now that it has closed."""
        if self.sessions.pop(session, None) is not None:
            self.link.send(session, wl.EXITED, wl.pack({"failed": failed, "lang": lang}))
            self.memory.session_ended(len(self.sessions))
        elif session in self.moved_out:
            self.moved_out.discard(session)
            self.memory.session_ended(len(self.sessions), moved=True)
        if not self.sessions and self.link.transport is None:
            self.done.set()

    def stop_all(self) -> None:
        for app, _, _ in list(self.sessions.values()):
            app.exit()

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
    memos = MemoAges()
    memos.start()
    worker.link.send(0, wl.READY)
    await worker.link.closed
    memos.close()
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
    from server.mem_trace import start_from_env

    start_from_env("worker")  # GAMBIT_TRACEMALLOC=DIR (inherited): a diagnosis, off by default
    asyncio.run(serve(args.fd))


if __name__ == "__main__":
    main()
