"""What a session asks of wherever players' apps run: start one, and drive it while it runs.

A front end (the SSH session) knows nothing of where an app runs. It gives an
:class:`AppLauncher` what it knows of the player (:class:`AppRequest`) and where the app's
frames go (an :class:`OutputSink`), and gets back a :class:`RunningApp`: it feeds it
keystrokes and window changes, asks it to end, and waits for its :class:`AppResult`. The
app's connection to the hub (:attr:`RunningApp.hub_conn`) is served by whoever launched it.

Two launchers: :class:`~.in_process.InProcessLauncher` (the app on this process's event loop)
and :class:`~.workers.AppWorkers` (the app in a worker process; which worker is the pool's
decision, made in its ``launch``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # for type hints only
    from protocol.connection import Connection
    from protocol.term import TermInfo


@dataclass(frozen=True, slots=True)
class AppRequest:
    """The app a player's session needs: their terminal, who they are, what they asked."""

    term: TermInfo
    #: The player's key fingerprint (None: a guest).
    identity: str | None
    #: The display name they would like (None: no wish).
    name: str | None
    #: Who the hub's end of the app's connection says it serves (logs): ``ssh ADDRESS``.
    peer: str
    #: An app this one takes over from left this (see gambit_tui/resume.py): it goes on
    #: from there without a hello (an app moved to another worker, ``workers.py``).
    resume: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class AppResult:
    """How an app ended."""

    #: It crashed (or its worker died): the player is told sorry.
    failed: bool
    #: The language it last spoke (the session's goodbye is said in it), if it said.
    lang: str | None = None


class OutputSink(Protocol):
    """Where a running app's frames go: the player's terminal."""

    def output(self, data: bytes) -> None:
        """A frame for the player (empty: their screen already shows it)."""

    def pending_output(self) -> int:
        """Bytes written to the player that they have not taken yet (the app skips frames
        while they fall behind)."""


class RunningApp(Protocol):
    """One player's app while it runs, wherever it runs."""

    @property
    def hub_conn(self) -> Connection:
        """The hub's end of the app's connection: the launcher's caller has the hub serve it."""

    def feed(self, data: bytes) -> None:
        """Bytes the player typed."""

    def resize(self, width: int, height: int) -> None:
        """The player's window changed (already clamped)."""

    def exit(self) -> None:
        """End the app (safe from any task; the app ends on its own)."""

    async def result(self) -> AppResult:
        """Wait until the app has ended; how it ended."""

    async def close(self) -> None:
        """Close the app's side of its hub connection (after :meth:`result`; the hub's
        connection ends with it)."""


class AppLauncher(Protocol):
    """Starts players' apps."""

    def launch(self, request: AppRequest, sink: OutputSink) -> RunningApp:
        """Start an app for ``request``, drawing into ``sink``. Raises if it cannot."""
