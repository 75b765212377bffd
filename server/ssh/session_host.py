"""What a session of an SSH connection asks of the server it runs in, and what the server
knows of each session: two small interfaces, so that sessions and the host do not hold each
other's classes.

:class:`~.host.SSHHost` is a :class:`SessionHost`; :class:`~.session.GameSession` (a player's
terminal) is a :class:`HostedSession`, and so would be any other kind of session a channel
may carry (protocol frames straight to the hub, say): the host counts them, ends them, and
tells the hub's admins where each came from, through this and nothing else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # for type hints only
    from protocol.connection import Connection


class HostedSession(Protocol):
    """One running session, as the host sees it."""

    #: The client's address (as the front door judged it).
    address: str
    #: The hub's end of the session's connection, while it has one.
    hub_conn: Connection | None
    #: When the player last sent anything (``time.monotonic()``).
    last_input: float
    #: What runs the session, once it runs (the host waits for it when it stops).
    task: asyncio.Task[None] | None

    def stop(self, goodbye: str | None = None) -> None:
        """End the session, telling the player why (a sentence of ``messages.py``)."""


#: Called with a session and the size of each frame written to its player (0: a frame their
#: screen already showed): metrics, the load benchmark.
FrameObserver = Callable[[Any, int], None]


class SessionHost(Protocol):
    """What a session needs of its server."""

    #: Seconds without a key press before a session is ended (0: never).
    idle_timeout: float
    #: Told of every frame written to a player (owned by the host: one list per server).
    frame_observers: list[FrameObserver]

    def session_refusal(self, address: str) -> tuple[str, dict[str, Any]] | None:
        """Why a new session from ``address`` may not start (a sentence of ``messages.py``
        and its gaps), if it may not."""

    def session_opened(self, session: HostedSession) -> None: ...

    def session_closed(self, session: HostedSession) -> None: ...

    def serve_hub(self, session: HostedSession) -> asyncio.Task[Any]:
        """Have the hub serve ``session.hub_conn`` (the hub's end of the session's
        connection), and know the session by it from now on."""

    def session_language(self, conn: Connection) -> str | None:
        """The language the hub speaks on ``conn``, if it can tell."""

    def stored_language(self, identity: str | None) -> str | None:
        """The language stored with a key, if the hub can tell at once."""

    def stored_plain(self, identity: str | None) -> bool:
        """Whether the player of a key chose the plain mode, if the hub can tell at once."""

    def shown_address(self) -> tuple[str, int]:
        """The host name and port to show players in messages."""
