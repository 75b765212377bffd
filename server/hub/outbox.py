"""Messages that wait for the commit of what they show.

The store holds a burst's writes in one transaction (see ``Store.hold_commits``), so a message
that shows one of them must not leave before that commit: "stored before shown". While writes
are held, every message to a client waits here, in order, and goes out once they are
committed; when nothing is held, a message goes out at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .table_change import TableChange

if TYPE_CHECKING:  # for type hints only
    from server.store import Store

    from .session import Outgoing, Session


class Outbox:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._waiting: list[tuple[Session, Outgoing] | TableChange | Callable[[], None]] = []

    def send(self, session: Session, message: Outgoing) -> None:
        if self.store.holding:
            self._waiting.append((session, message))
        else:
            session.deliver(message)

    def send_change(self, change: TableChange) -> None:
        """A table's message to each of its readers (see table_change.py), as one item."""
        if self.store.holding:
            self._waiting.append(change)
        else:
            change.deliver()

    def then(self, action: Callable[[], None]) -> None:
        """Run ``action`` once everything sent before it has gone out (hanging up after a
        goodbye)."""
        if self.store.holding:
            self._waiting.append(action)
        else:
            action()

    def flush(self) -> None:
        """The held writes are committed: send what waited for them, in order."""
        waiting, self._waiting = self._waiting, []
        for item in waiting:
            if isinstance(item, tuple):
                session, message = item
                session.deliver(message)
            elif isinstance(item, TableChange):
                item.deliver()
            else:
                item()

    def drop(self) -> None:
        """The held writes are lost: what would have shown them is never sent (but every
        hang-up still happens)."""
        waiting, self._waiting = self._waiting, []
        for item in waiting:
            if not isinstance(item, tuple) and not isinstance(item, TableChange):
                item()

    def __len__(self) -> int:
        return len(self._waiting)
