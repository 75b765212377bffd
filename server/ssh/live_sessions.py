"""The sessions an SSH front door runs now: how many, from where, and which hub connection
is whose.

Made before the hub (``gambit serve``) or the gateway's remote hub, so that each is given
:meth:`LiveSessions.describe` when it is built, and the host is given the same
:class:`LiveSessions` to fill: the hub's admins see players' addresses and idle times without
the host reaching into the hub.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from .session_host import HostedSession


class LiveSessions:
    """The running sessions, and their count by address."""

    def __init__(self) -> None:
        self._sessions: set[HostedSession] = set()
        self._per_address: Counter[str] = Counter()

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._sessions))

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, session: object) -> bool:
        return session in self._sessions

    def from_address(self, address: str) -> int:
        return self._per_address[address]

    def add(self, session: HostedSession) -> None:
        self._sessions.add(session)
        self._per_address[session.address] += 1

    def discard(self, session: HostedSession) -> bool:
        """Forget ``session``; False if it was not here."""
        if session not in self._sessions:
            return False
        self._sessions.discard(session)
        self._per_address[session.address] -= 1
        if self._per_address[session.address] <= 0:
            del self._per_address[session.address]
        return True

    def describe(self, hub_conn: Any) -> dict[str, Any]:
        """What the SSH side knows of a hub connection: the player's address and idle time
        (the hub's admins ask; empty for a connection that is none of these sessions')."""
        for session in self._sessions:
            if session.hub_conn is hub_conn:
                return {
                    "address": session.address,
                    "idle": round(time.monotonic() - session.last_input),
                }
        return {}
