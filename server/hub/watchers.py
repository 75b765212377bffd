"""Who watches which table (spectators): one owner for both directions, as
:class:`~server.hub.tables.Tables` is for seats.

Seating adds and removes watchers; the lobby, chat, duplicate sets and play read them; the
hub tells it of a session that ended. A session is counted by identity (``Session`` has
``eq=False``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for type hints only
    from .session import Player, Session

_NONE: frozenset[int] = frozenset()


class Watchers:
    """The sessions watching each table, and the tables each session watches."""

    __slots__ = ("_by_session", "by_table")

    def __init__(self) -> None:
        #: Table id → the sessions watching it (read only: change it through the methods).
        self.by_table: dict[int, set[Session]] = {}
        self._by_session: dict[Session, set[int]] = {}

    def watch(self, session: Session, table_id: int) -> None:
        self.by_table.setdefault(table_id, set()).add(session)
        self._by_session.setdefault(session, set()).add(table_id)

    def unwatch(self, session: Session, table_id: int) -> None:
        watching = self.by_table.get(table_id)
        if watching is not None:
            watching.discard(session)
        tables = self._by_session.get(session)
        if tables is not None:
            tables.discard(table_id)
            if not tables:
                del self._by_session[session]

    def tables_of(self, session: Session) -> frozenset[int] | set[int]:
        """The tables ``session`` watches (empty if none)."""
        return self._by_session.get(session, _NONE)

    def is_watching(self, player: Player, table_id: int) -> bool:
        """Whether any of ``player``'s sessions watches the table."""
        return any(table_id in self.tables_of(s) for s in player.sessions)

    def count(self, table_id: int) -> int:
        return len(self.by_table.get(table_id, ()))

    def session_gone(self, session: Session) -> set[int]:
        """Forget a session that ended: the tables it watched."""
        tables = self._by_session.pop(session, set())
        for table_id in tables:
            watching = self.by_table.get(table_id)
            if watching is not None:
                watching.discard(session)
        return tables

    def table_closed(self, table_id: int) -> set[Session]:
        """Forget a table that closed: the sessions that watched it."""
        sessions = self.by_table.pop(table_id, set())
        for session in sessions:
            tables = self._by_session.get(session)
            if tables is not None:
                tables.discard(table_id)
                if not tables:
                    del self._by_session[session]
        return sessions
