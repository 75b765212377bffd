"""The lobby: tables and players online, pushed to every client, coalesced.

A burst of changes (a table filling with bots, ten players arriving) marks tables and the
player list dirty; one flush per ``lobby_interval`` sends each client at most one
``lobby_update`` with only what changed.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from . import ratings

if TYPE_CHECKING:
    from .hub import Hub
    from .table import Table


class LobbyMixin:
    def _init_lobby(self: Hub) -> None:
        self._dirty_tables: set[int] = set()
        self._removed_tables: set[int] = set()
        self._players_dirty = False
        self._lobby_rows: dict[int, dict[str, Any]] = {}  # the rows clients were last sent
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
        """Send one coalesced update of everything that changed since the last flush."""
        if not (self._dirty_tables or self._removed_tables or self._players_dirty):
            return
        # A move at a table usually leaves its lobby row as it was: send only rows that changed.
        tables = []
        for table_id in sorted(self._dirty_tables):
            if table_id in self.tables:
                info = self.table_info(self.tables[table_id])
                if self._lobby_rows.get(table_id) != info:
                    self._lobby_rows[table_id] = info
                    tables.append(info)
        for table_id in self._removed_tables:
            self._lobby_rows.pop(table_id, None)
        update: dict[str, Any] = {
            "t": "lobby_update",
            "tables": tables,
            "removed": sorted(self._removed_tables),
            "players": self.players_info() if self._players_dirty else None,
        }
        self._dirty_tables.clear()
        self._removed_tables.clear()
        self._players_dirty = False
        if not (tables or update["removed"] or update["players"] is not None):
            return
        for session in list(self.sessions):
            if session.player is not None:
                session.push(update)

    def lobby_message(self: Hub) -> dict[str, Any]:
        return {
            "t": "lobby",
            "tables": [
                self.table_info(t) for t in sorted(self.tables.values(), key=lambda t: t.id)
            ],
            "players": self.players_info(),
        }

    def players_info(self: Hub) -> list[dict[str, Any]]:
        return sorted(
            ({"name": p.name, "guest": p.guest} for p in self.players.values()),
            key=lambda p: p["name"].casefold(),
        )

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
        }

    def rating_of(self: Hub, player_id: str, game: str) -> int:
        return ratings.display(self.store.rating(player_id, game))
