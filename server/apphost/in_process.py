"""Players' apps on this process's own event loop (``gambit serve --workers 0``, the tests).

Each app gets a trusted in-process connection to the hub and runs on a
:class:`~server.terminal.driver.ChannelDriver` whose terminal is the :class:`LocalApp` here,
which passes every frame on to the session's :class:`~.launcher.OutputSink`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from protocol.connection import Connection, queue_pair
from server.terminal.driver import bind_term
from server.terminal.early_input import EarlyInput

from .app_settings import app_language, make_app, prepare_app
from .ended_apps import take_apart_later
from .launcher import AppRequest, AppResult, OutputSink

if TYPE_CHECKING:  # for type hints only
    from textual.app import App

    from protocol.term import TermInfo

#: ``(conn, term, identity, wished_name) -> app``: how an in-process app is made.
AppFactory = Callable[[Connection, "TermInfo", "str | None", "str | None"], "App[Any]"]


def default_app_factory(
    conn: Connection,
    term: TermInfo,
    identity: str | None,
    name: str | None,
    resume: dict[str, Any] | None = None,
) -> App[Any]:
    """The Gambit app (``resume``: going on from where another left, see AppRequest)."""
    return make_app(conn, term, identity, name, resume=resume)


class LocalApp(EarlyInput):
    """One app running on this process's loop: a :class:`~.launcher.RunningApp`, and its
    driver's terminal, whose frames go to an :class:`~.launcher.OutputSink`: the SSH
    session's (in process), or the worker link's (in an app worker, ``app_worker.py``).

    The app is made in its own task (``context``: the one its start is measured in, see
    app_timing), so a failure to make it ends that task like a crash; keystrokes that come
    first wait for its driver (:class:`EarlyInput`)."""

    def __init__(
        self,
        factory: AppFactory,
        request: AppRequest,
        sink: OutputSink,
        conn: Connection | None = None,
        context: contextvars.Context | None = None,
    ) -> None:
        super().__init__()
        self.sink = sink
        self.request = request
        self._factory = factory
        #: The app's end of its hub connection (``conn`` if given: a worker's link), and the
        #: hub's end when it is made here.
        self._hub_conn: Connection | None = None
        if conn is None:
            conn, self._hub_conn = queue_pair(trusted=True, peer=request.peer)
        self.conn = conn
        #: The Textual app itself, once made.
        self.app: App[Any] | None = None
        self._stopped = False
        self._run = asyncio.get_running_loop().create_task(self._main(), context=context)

    @property
    def hub_conn(self) -> Connection:
        assert self._hub_conn is not None, "made with a connection of its own"
        return self._hub_conn

    async def _main(self) -> None:
        term = self.request.term
        request = self.request
        if request.resume is not None:  # (only the Gambit app takes one over)
            factory: Any = self._factory
            app = factory(self.conn, term, request.identity, request.name, resume=request.resume)
            # The app keeps what it needs of the state; the rest (views and lists the hub has
            # since sent anew) would otherwise stay as long as the app.
            self.request = replace(request, resume=None)
        else:
            app = self._factory(self.conn, term, request.identity, request.name)
        self.app = app
        prepare_app(app, term)
        bind_term(app, self, term)
        if not self._stopped:
            await app.run_async(size=(term.width, term.height), mouse=True)

    # --- the driver's terminal (see driver.Terminal) ---------------------------------------

    def send(self, data: bytes) -> None:
        self.sink.output(data)

    def frame_unchanged(self) -> None:
        self.sink.output(b"")

    def pending_output(self) -> int:
        return self.sink.pending_output()

    # --- the running app -------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        self.feed_input(data)

    def resize(self, width: int, height: int) -> None:
        if self.driver is not None:
            self.driver.resize(width, height)

    def exit(self) -> None:
        """End the app (a message to the app's own task: safe from any other task), or
        never run it if it is not made yet."""
        self._stopped = True
        if self.app is not None:
            self.app.exit()

    async def result(self) -> AppResult:
        await self._run  # (raises if the app could not be made or run)
        assert self.app is not None
        # return_code: it crashed (logged by prepare_app's handler).
        return AppResult(failed=bool(self.app.return_code), lang=app_language(self.app))

    async def close(self) -> None:
        if not self._run.done():  # (the session failed before the app ended)
            self.exit()
        with contextlib.suppress(Exception):
            await self.conn.close()
        if self.app is not None:
            take_apart_later(self.app, self._run)
        self.app = None  # (what it held goes now, not when the session is collected)
        self.driver = None


class InProcessLauncher:
    """Runs each app here, made by ``factory`` (the Gambit app unless a test says)."""

    def __init__(self, factory: AppFactory = default_app_factory) -> None:
        self.factory = factory

    def launch(self, request: AppRequest, sink: OutputSink) -> LocalApp:
        return LocalApp(self.factory, request, sink)
