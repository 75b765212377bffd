"""Players' apps on this process's own event loop (``gambit serve --workers 0``, the tests).

Each app gets a trusted in-process connection to the hub and runs on a
:class:`~server.terminal.driver.ChannelDriver` whose terminal is the :class:`LocalApp` here,
which passes every frame on to the session's :class:`~.launcher.OutputSink`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from protocol.connection import Connection, queue_pair
from server.terminal.driver import bind_term
from server.terminal.early_input import EarlyInput

from .app_settings import app_language, make_app, prepare_app
from .launcher import AppRequest, AppResult, OutputSink

if TYPE_CHECKING:  # for type hints only
    from textual.app import App

    from protocol.term import TermInfo

#: ``(conn, term, identity, wished_name) -> app``: how an in-process app is made.
AppFactory = Callable[[Connection, "TermInfo", "str | None", "str | None"], "App[Any]"]


def default_app_factory(
    conn: Connection, term: TermInfo, identity: str | None, name: str | None
) -> App[Any]:
    """The Gambit app."""
    return make_app(conn, term, identity, name)


class LocalApp(EarlyInput):
    """One app running here: a :class:`~.launcher.RunningApp`, and its driver's terminal."""

    def __init__(self, factory: AppFactory, request: AppRequest, sink: OutputSink) -> None:
        super().__init__()
        self.sink = sink
        term = request.term
        self._client, self.hub_conn = queue_pair(trusted=True, peer=request.peer)
        #: The Textual app itself.
        self.app = app = factory(self._client, term, request.identity, request.name)
        prepare_app(app, term)
        bind_term(app, self, term)
        self._run = asyncio.get_running_loop().create_task(
            app.run_async(size=(term.width, term.height), mouse=True)
        )

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
        self.app.exit()  # a message to the app's own task: safe from any other task

    async def result(self) -> AppResult:
        await self._run
        # return_code: it crashed (logged by prepare_app's handler).
        return AppResult(failed=bool(self.app.return_code), lang=app_language(self.app))

    async def close(self) -> None:
        if not self._run.done():  # (the session failed before the app ended)
            self.app.exit()
        with contextlib.suppress(Exception):
            await self._client.close()


class InProcessLauncher:
    """Runs each app here, made by ``factory`` (the Gambit app unless a test says)."""

    def __init__(self, factory: AppFactory = default_app_factory) -> None:
        self.factory = factory

    def launch(self, request: AppRequest, sink: OutputSink) -> LocalApp:
        return LocalApp(self.factory, request, sink)
