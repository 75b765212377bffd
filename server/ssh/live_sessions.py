"""The sessions an SSH front door runs now: how many, from where, and which hub connection
is whose.

Made before the hub (``gambit serve``) or the gateway's remote hub, so that each is given
:meth:`LiveSessions.describe` when it is built, and the host is given the same
:class:`LiveSessions` to fill: the hub's admins see players' addresses and idle times without
the host reaching into the hub.

Which session a hub connection is is kept as an index, updated as sessions come
(:meth:`LiveSessions.add`, :meth:`LiveSessions.serving`) and go (:meth:`LiveSessions.discard`):
the metrics ask it at every action, for every seated player's sessions (a map of every session
built at each action held the loop at 500 sessions: issue 43's soak).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from .session_host import HostedSession


class LiveSessions:
    """The running sessions, and their count by address."""

    def __init__(self) -> None:
        self._sessions: set[HostedSession] = set()
        self._per_address: Counter[str] = Counter()
        #: hub connection → its session, and back (the session's ``hub_conn`` is None again
        #: by the time it is discarded).
        self._by_hub_conn: dict[Any, HostedSession] = {}
        self._hub_conn_of: dict[HostedSession, Any] = {}
        #: Told of each session as it goes (the metrics forget what waited for it).
        self.ended: list[Callable[[HostedSession], None]] = []

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
        self.serving(session)

    def serving(self, session: HostedSession) -> None:
        """``session`` has its hub connection now (``session.hub_conn``): know it by it."""
        conn = session.hub_conn
        if conn is None or session not in self._sessions:
            return
        old = self._hub_conn_of.pop(session, None)
        if old is not None:
            self._by_hub_conn.pop(old, None)
        self._by_hub_conn[conn] = session
        self._hub_conn_of[session] = conn

    def of_hub_conn(self, hub_conn: Any) -> HostedSession | None:
        """The running session whose hub connection ``hub_conn`` is, if any."""
        return self._by_hub_conn.get(hub_conn)

    def discard(self, session: HostedSession) -> bool:
        """Forget ``session``; False if it was not here."""
        if session not in self._sessions:
            return False
        self._sessions.discard(session)
        self._per_address[session.address] -= 1
        if self._per_address[session.address] <= 0:
            del self._per_address[session.address]
        conn = self._hub_conn_of.pop(session, None)
        if conn is not None:
            self._by_hub_conn.pop(conn, None)
        for ended in list(self.ended):
            ended(session)
        return True

    def describe(self, hub_conn: Any) -> dict[str, Any]:
        """What the SSH side knows of a hub connection: the player's address and idle time
        (the hub's admins ask; empty for a connection that is none of these sessions')."""
        session = self._by_hub_conn.get(hub_conn)
        if session is None:
            return {}
        return {"address": session.address, "idle": round(time.monotonic() - session.last_input)}
