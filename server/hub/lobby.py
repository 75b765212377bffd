"""The lobby: tables and players online, pushed to every client, coalesced, and bounded.

A burst of changes (a table filling with bots, ten players arriving) marks tables and the
player list dirty; one flush per ``lobby_interval`` sends each client at most one
``lobby_update`` with only what changed for them.

What a client is shown is bounded by design, whatever others do: at most ``lobby_tables``
tables (their own first: where they sit, are kept a seat, own or watch; then tables with a
free seat, newest first; then the rest, newest first) and at most ``lobby_players`` players
(them, their friends online, then by name), with the totals of both. One player opening
thousands of tables once made the lobby larger than a frame may be, and nobody got one.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from . import ratings

if TYPE_CHECKING:
    from .hub import Hub
    from .session import Player, Session
    from .table import Table


class LobbyMixin:
    def _init_lobby(self: Hub) -> None:
        self._dirty_tables: set[int] = set()
        self._removed_tables: set[int] = set()
        self._players_dirty = False
        self._lobby_rows: dict[int, dict[str, Any]] = {}  # each table's row as last sent
        self._lobby_task: asyncio.Task | None = None
        self._lobby_wakeup = asyncio.Event()

    def _start_lobby(self: Hub) -> None:
        self._lobby_task = self.spawn(self._lobby_loop())

    def _stop_lobby(self: Hub) -> None:
        if self._lobby_task is not None:
            self._lobby_task.cancel()

    async def _lobby_loop(self: Hub) -> None:
        while True:
            await self._lobby_wakeup.wait()
            self._lobby_wakeup.clear()
            with contextlib.suppress(Exception):
                self.flush_lobby()
            await asyncio.sleep(self.config.lobby_interval)

    def lobby_table_changed(self: Hub, table: Table) -> None:
        self._dirty_tables.add(table.id)
        self._lobby_wakeup.set()

    def lobby_table_removed(self: Hub, table_id: int) -> None:
        self._dirty_tables.discard(table_id)
        self._removed_tables.add(table_id)
        self._lobby_wakeup.set()

    def lobby_players_changed(self: Hub) -> None:
        self._players_dirty = True
        self._lobby_wakeup.set()

    def flush_lobby(self: Hub) -> None:
        """Send each client one coalesced update of what changed in the lobby it is shown."""
        if not (self._dirty_tables or self._removed_tables or self._players_dirty):
            return
        # A move at a table usually leaves its lobby row as it was: send only rows that changed.
        changed = set()
        for table_id in self._dirty_tables:
            if table_id in self.tables:
                info = self.table_info(self.tables[table_id])
                if self._lobby_rows.get(table_id) != info:
                    self._lobby_rows[table_id] = info
                    changed.add(table_id)
        for table_id in self._removed_tables:
            self._lobby_rows.pop(table_id, None)
        players_dirty = self._players_dirty
        self._dirty_tables.clear()
        self._removed_tables.clear()
        self._players_dirty = False
        listing = self._lobby_listing()
        by_name = self.players_by_name() if players_dirty else []
        for session in list(self.sessions):
            if session.player is None or not session.lobby_watching:
                continue  # not in the lobby now: it gets a fresh one when it comes back
            shown = self._tables_for(session, listing)
            rows = [
                self.lobby_row(t) for t in shown if t in changed or t not in session.lobby_shown
            ]
            gone = sorted(session.lobby_shown.difference(shown))
            session.lobby_shown = set(shown)
            if not (rows or gone or players_dirty):
                continue
            session.push(
                {
                    "t": "lobby_update",
                    "tables": rows,
                    "removed": gone,
                    "players": self.players_for(session.player, by_name) if players_dirty else None,
                    "online": len(self.listed_players()),
                    "tables_total": len(self.tables),
                }
            )

    def on_lobby_watch(self: Hub, session: Session, message: dict[str, Any]) -> None:
        """The client shows the lobby, or stops showing it (it is at a table, say)."""
        self.need_player(session)
        was, session.lobby_watching = session.lobby_watching, message["on"]
        if message["on"] and not was:
            session.push(self.lobby_message(session))

    def lobby_message(self: Hub, session: Session) -> dict[str, Any]:
        """The whole lobby as ``session`` is shown it (sent once, after ``welcome``)."""
        assert session.player is not None
        shown = self._tables_for(session, self._lobby_listing())
        session.lobby_shown = set(shown)
        return {
            "t": "lobby",
            "tables": [self.lobby_row(t) for t in shown],
            "players": self.players_for(session.player),
            "online": len(self.listed_players()),
            "tables_total": len(self.tables),
        }

    def lobby_row(self: Hub, table_id: int) -> dict[str, Any]:
        row = self._lobby_rows.get(table_id)
        if row is None:
            row = self._lobby_rows[table_id] = self.table_info(self.tables[table_id])
        return row

    # --- what each client is shown -----------------------------------------------------------

    def _lobby_listing(self: Hub) -> tuple[list[int], dict[str, list[int]]]:
        """Every table in the order the lobby offers them (a free seat first, newest first),
        and each player's own tables (they sit, are kept a seat, or own it), newest first."""
        order = sorted(
            self.tables.values(),
            key=lambda t: (not (t.status == "waiting" and any(s.empty for s in t.seats)), -t.id),
        )
        own: dict[str, list[int]] = {}
        for table in sorted(self.tables.values(), key=lambda t: -t.id):
            ids = {table.owner} | {p for s in table.seats for p in (s.player, s.reserved) if p}
            for pid in ids:
                own.setdefault(pid, []).append(table.id)
        return [t.id for t in order], own

    def _tables_for(
        self: Hub, session: Session, listing: tuple[list[int], dict[str, list[int]]]
    ) -> list[int]:
        """The tables ``session`` is shown: its own, then the offered ones, at most so many."""
        order, own = listing
        assert session.player is not None
        limit = self.config.lobby_tables
        mine = own.get(session.player.id, [])
        watched = sorted((t for t in session.spectating if t in self.tables), reverse=True)
        shown: list[int] = []
        seen: set[int] = set()
        for table_id in (*mine, *watched, *order):
            if len(shown) >= limit:
                break
            if table_id not in seen:
                seen.add(table_id)
                shown.append(table_id)
        return shown

    def players_for(
        self: Hub, player: Player, by_name: list[Player] | None = None
    ) -> list[dict[str, Any]]:
        """Players online as ``player`` is shown them: themself, friends, then others by name,
        at most so many (the total is in the message's ``online``). ``by_name``: everyone
        online sorted by name, made once for all clients of a flush."""
        if by_name is None:
            by_name = self.players_by_name()
        limit = self.config.lobby_players
        friends = sorted(
            (self.players[f] for f in player.friends if f in self.players),
            key=lambda p: p.name.casefold(),
        )
        listed = [player, *friends][:limit]
        first = {p.id for p in listed}
        for other in by_name:
            if len(listed) >= limit:
                break
            if other.id not in first:
                listed.append(other)
        return [{"name": p.name, "guest": p.guest} for p in listed]

    def players_by_name(self: Hub) -> list[Player]:
        return sorted(self.listed_players(), key=lambda p: p.name.casefold())

    def listed_players(self: Hub) -> list[Player]:
        """Players the lobby shows: not ``gambit admin`` (a tool, not a player)."""
        return [p for p in self.players.values() if not p.id.startswith("admin:")]

    def table_info(self: Hub, table: Table) -> dict[str, Any]:
        """What the lobby (and the table header) shows of a table; no card, no hidden fact."""
        seats = []
        for i, seat in enumerate(table.seats):
            seats.append(
                {
                    "seat": i,
                    "name": self.names.get(seat.player) if seat.player else None,
                    "bot": seat.bot,
                    "away": seat.player is not None and seat.player not in self.players,
                    "reserved": self.names.get(seat.reserved) if seat.reserved else None,
                }
            )
        return {
            "id": table.id,
            "game": table.game,
            "title": table.title,
            "players": table.players,
            "options": table.options,
            "owner": self.names.get(table.owner, "?"),
            "access": table.access,
            "max_rating": table.max_rating,
            "stake": table.stake,
            "timer": table.timer,
            "status": table.status,
            "dealer": table.dealer,
            "games_played": table.games_played,
            "seats": seats,
            "spectators": len(self.spectators.get(table.id, ())),
            "rating_changes": list(table.rating_changes),
            "duplicate": table.duplicate["set"] if table.duplicate else None,
        }

    def rating_of(self: Hub, player_id: str, game: str) -> int:
        return ratings.display(self.store.rating(player_id, game))
