"""One connection's state in the hub, and the online player it belongs to."""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from protocol.connection import Connection, ConnectionClosed

if TYPE_CHECKING:
    from .chat import RateLimiter

log = logging.getLogger(__name__)
_ids = itertools.count(1)


@dataclass(eq=False, slots=True)
class Session:
    conn: Connection
    id: int = field(default_factory=lambda: next(_ids))
    player: Player | None = None
    bad_frames: int = 0
    spectating: set[int] = field(default_factory=set)
    lobby_dirty: bool = False
    alive: bool = True

    def push(self, message: dict[str, Any]) -> None:
        """Send without blocking; a dead connection is noticed by its reader task."""
        if not self.alive:
            return
        try:
            self.conn.send_nowait(message)
        except ConnectionClosed:
            self.alive = False


@dataclass(eq=False, slots=True)
class Player:
    """A player online, with one or more sessions (a second terminal, a reconnect)."""

    id: str
    name: str
    guest: bool
    lang: str
    chat: RateLimiter
    sessions: set[Session] = field(default_factory=set)
    prefs: dict[str, Any] = field(default_factory=dict)  # guests' prefs live only this long

    def push(self, message: dict[str, Any]) -> None:
        for session in list(self.sessions):
            session.push(message)
