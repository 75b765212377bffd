"""Plain sessions (issue 44): the plain client of ``gambit_tui.plain`` as a running app.

It needs no Textual app, no driver and no worker: it is a hub client that writes lines, so it
runs on this process's loop, with a trusted in-process connection to the hub like any app.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars

from gambit_tui.plain.client import PlainClient
from protocol.connection import Connection, queue_pair

from .launcher import AppRequest, AppResult, OutputSink


class PlainApp:
    """One plain session while it runs (a :class:`~.launcher.RunningApp`)."""

    def __init__(self, request: AppRequest, sink: OutputSink) -> None:
        conn, self._hub_conn = queue_pair(trusted=True, peer=request.peer)
        self.conn = conn
        term = request.term
        self.client = PlainClient(
            conn,
            sink.output,
            lang=term.language,
            identity=request.identity,
            name=request.name,
            unicode=term.unicode,
        )
        # Its own context: the catalog it sets is its own (gambit_tui.i18n.plain_catalog).
        self._run = asyncio.get_running_loop().create_task(
            self.client.run(), context=contextvars.Context()
        )

    @property
    def hub_conn(self) -> Connection:
        return self._hub_conn

    def feed(self, data: bytes) -> None:
        self.client.feed(data)

    def resize(self, width: int, height: int) -> None:
        """Lines do not care how wide the window is (the terminal wraps them)."""

    def exit(self) -> None:
        self.client.exit()

    async def result(self) -> AppResult:
        try:
            await self._run
        except Exception:
            return AppResult(failed=True, lang=self.client.lang)
        return AppResult(failed=False, lang=self.client.lang)

    async def close(self) -> None:
        if not self._run.done():
            self.exit()
        with contextlib.suppress(Exception):
            await self.conn.close()


class PlainLauncher:
    """Starts plain sessions."""

    def launch(self, request: AppRequest, sink: OutputSink) -> PlainApp:
        return PlainApp(request, sink)


#: The modes a username may ask for (``NAME+plain``, ``NAME+screen``), and whether each is plain.
MODES = {"plain": True, "screen": False}


def plain_wish(username: str) -> tuple[bool | None, str]:
    """Whether an SSH username asks for the plain mode (``plain``, ``NAME+plain``: True), for
    the full screen (``screen``, ``NAME+screen``: False, whatever the player's settings say)
    or for neither (None: their settings decide), and the username without it."""
    if username.lower() in MODES:
        return MODES[username.lower()], ""
    base, plus, mode = username.rpartition("+")
    if plus and mode.lower() in MODES:
        return MODES[mode.lower()], base
    return None, username
