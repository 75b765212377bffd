"""Sending a table's views: what every seat and watcher of a table is shown at each change,
each built once and shared (the table's info, the public view) or made from the last change's
(each seat's own part), handed to the outbox as one item.

Play says when (a change, after arming bots and timers); this says what."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from protocol.event_log import Shared, TableMessage
from protocol.server_messages import Table as TableMessageOf

from . import deals
from .table_change import TableChange

if TYPE_CHECKING:  # for type hints only
    from .duplicate import Duplicate
    from .lobby import Lobby
    from .runtime import HubRuntime
    from .session import Session
    from .table import Table
    from .watchers import Watchers


class TableViews:
    """Builds and sends tables' messages."""

    def __init__(
        self,
        run: HubRuntime,
        watchers: Watchers,
        lobby: Lobby,
        duplicate: Duplicate,
        deadlines: dict[tuple[int, int], float],
    ) -> None:
        # Collaborators: who is online, the outbox; who watches; the lobby's row of a table
        # and a duplicate set's part of it; the turn timers' deadlines (play's) to show.
        self.run = run
        self.players = run.players
        self.watchers = watchers
        self.lobby = lobby
        self.duplicate = duplicate
        self.deadlines = deadlines

    def table_message(
        self,
        table: Table,
        seat: int | None,
        info: dict[str, Any] | None = None,
        public: dict[str, Any] | None = None,
    ) -> TableMessageOf:
        """What ``seat`` (None: a spectator) is sent of ``table``; ``info`` is the table's part
        every reader shares (:meth:`shared_table_info`) and ``public`` the game view's
        (``State.public_view``), both made once per change by the caller that sends them to
        many."""
        if info is None:
            info = self.shared_table_info(table)
        view = table.state.view(seat, public) if table.state is not None else None
        return {"t": "table", "table": table.id, "info": info, "seat": seat, "view": view}

    def table_messages(self, table: Table, *, moved: bool = False) -> Shared:
        """The parts of ``table``'s messages every reader of this change shares, made once
        (see :class:`~protocol.event_log.Shared`: their delta is made once too); ``moved``:
        see :meth:`shared_table_info`."""
        info = self.shared_table_info(table, moved=moved)
        state = table.state
        public = state.public_view() if state is not None else None
        table.shared = Shared(info, public, table.shared)
        table.public_of = (state, len(state.history)) if state is not None else None
        return table.shared

    def seat_message(
        self, table: Table, seat: int | None, shared: Shared
    ) -> TableMessageOf | TableMessage:
        """What ``seat`` (None: a spectator) is sent of this change: the shared parts and its
        own part of the view."""
        state = table.state
        if state is None or shared.public is None:
            info = shared.info
            return {"t": "table", "table": table.id, "info": info, "seat": seat, "view": None}
        return TableMessage(table.id, seat, shared, state.private_view(seat))

    def shared_table_info(self, table: Table, *, moved: bool = False) -> dict[str, Any]:
        """The table as every seat and spectator sees it, with what only the table shows (the
        deal's commitment, the turn timers) beside what the lobby shows.

        ``moved``: only the game moved since the last change (an action that did not end
        it). That changes none of it but the turn timers, so the info is kept between such
        changes (the very same object, which :class:`~protocol.event_log.Shared` then takes
        as unchanged) instead of being built and compared again at every move; any other
        change (seats, status, names, spectators, the deal's entropy: everything that calls
        ``table_changed`` or ``Lobby.table_changed``) builds it anew."""
        watchers = self.watchers.by_table.get(table.id)
        # (a guard beside the rule above: what would change the info without a move)
        key = (table.status, table.dealer, table.games_played, len(watchers or ()), *table.seats)
        kept = table.shown_info
        if moved and kept is not None and kept[0] == key:
            info = kept[1]
        else:
            info = self.lobby.table_info(table)
            # The commitment to the deal in play (or the next one): at the table, not in the
            # lobby.
            info["deal"] = deals.public(table.deal)
            info["duplicate"] = self.duplicate.info(table)
            info["deadlines"] = {}
            table.shown_info = (key, info)
        deadlines = self.deadlines
        if not deadlines:
            return info
        now = asyncio.get_running_loop().time()
        # (each seat's own key, not a pass over every table's deadlines at every move)
        due = {
            str(s): round(max(0.0, t - now), 1)
            for s in range(len(table.seats))
            if (t := deadlines.get((table.id, s))) is not None
        }
        if not due:
            return info
        info = dict(info)  # (the kept one stays without them)
        info["deadlines"] = due
        return info

    def send(self, table: Table, *, moved: bool = False) -> None:
        """Everyone at the table (and watching it) gets their own view of this change."""
        # The parts every reader shares, once per change.
        kept = table.shown_info
        shared = self.table_messages(table, moved=moved)
        players = self.players
        state = table.state
        if state is None or shared.public is None:
            for index, seat in enumerate(table.seats):
                if seat.player is not None and seat.player in players:
                    players[seat.player].push(self.seat_message(table, index, shared))
            watchers = self.watchers.by_table.get(table.id)
            if watchers:
                message = self.seat_message(table, None, shared)
                for session in list(watchers):
                    session.push(message)
        else:
            # Each seat's own part once, and every reader's message as one outbox item. A
            # seat the change did not touch (most, at most moves) has its part made from
            # the last change's: the events every seat sees added, nothing compared again.
            views = table.seat_views
            news = state.public_events_since(views[0]) if views is not None else None
            added = news[0] if news is not None else None
            privates: dict[int | None, dict[str, Any]] = {}
            since: dict[int | None, dict[str, Any]] = {}
            readers: list[tuple[Session, int | None]] = []
            for index, seat in enumerate(table.seats):
                player = players.get(seat.player) if seat.player is not None else None
                if player is not None and player.sessions:
                    privates[index] = self._seat_view(state, index, views, news, since)
                    for session in player.sessions:
                        readers.append((session, index))
            watchers = self.watchers.by_table.get(table.id)
            if watchers:
                privates[None] = self._seat_view(state, None, views, news, since)
                for session in watchers:
                    readers.append((session, None))
            table.seat_views = (state.events_mark(), privates)
            if readers:
                change = TableChange(table.id, shared, privates, readers, since, added)
                self.run.outbox.send_change(change)
        if not moved or table.shown_info is not kept:  # (a kept info: the lobby's row too)
            self.lobby.table_changed(table, info_made=True)

    @staticmethod
    def _seat_view(
        state: Any,
        seat: int | None,
        views: tuple[Any, dict[int | None, dict[str, Any]]] | None,
        news: tuple[list[Any], set[Any]] | None,
        since: dict[int | None, dict[str, Any]],
    ) -> dict[str, Any]:
        """``seat``'s own part of the view now; made from its part at the last change when
        the change did not touch it (noted in ``since``)."""
        if news is not None and views is not None and seat not in news[1]:
            before = views[1].get(seat)
            if before is not None:
                private = state.private_view_since(seat, before, news[0])
                if private is not None:
                    since[seat] = before
                    return private
        return state.private_view(seat)
