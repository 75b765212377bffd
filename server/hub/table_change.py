"""One change of a table, as every reader at it gets it: one item for the outbox.

At every move each seat at the table (and each spectator) gets the table's message. Handing
the outbox a message per reader made a move's cost grow by the layers every message went
through (the player, each session, the outbox, the session again); a :class:`TableChange`
holds the parts every reader shares (``protocol.event_log.Shared``), each seat's own part of
the view, built once per seat, and who reads which seat, and it is delivered as one item, in
its place among the other messages that wait for the same commit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type hints only
    from protocol.event_log import Shared

    from .session import Session


class TableChange:
    __slots__ = ("added", "privates", "readers", "shared", "since", "table")

    def __init__(
        self,
        table: int,
        shared: Shared,
        privates: dict[int | None, dict[str, Any]],
        readers: list[tuple[Session, int | None]],
        since: dict[int | None, dict[str, Any]] | None = None,
        added: list[Any] | None = None,
    ) -> None:
        self.table = table
        self.shared = shared
        #: Each seat's own part of the view (None: a spectator's), as of this change.
        self.privates = privates
        #: Each reader's session and the seat it reads (None: it watches).
        self.readers = readers
        #: The seats this change did not touch: each one's own part at the table's previous
        #: change, which differs from this one's only by ``added``, the events every seat
        #: sees that came since (``State.private_view_since``).
        self.since = since or {}
        self.added = added

    def deliver(self) -> None:
        table, shared, privates, added = self.table, self.shared, self.privates, self.added
        since = self.since
        for session, seat in self.readers:
            session.deliver_view(table, seat, shared, privates[seat], since.get(seat), added)
