"""Players who drop and come back: a seat is kept for the grace period after a player's last
connection closes, then a stand-in bot plays it (reserved for them) until they sit again.

A player who connects within the grace period has their seats back as if nothing happened;
either way they are told of any moves a stand-in made for them (:meth:`Turns.tell_stood_in`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from .table import Seat

if TYPE_CHECKING:  # for type hints only
    from .guests import Guests
    from .runtime import HubRuntime
    from .seating import Seating
    from .session import Player
    from .table_events import TableEvents
    from .turns import Turns


class Absence:
    """Seats kept for players who are gone, and given back when they return."""

    def __init__(
        self, run: HubRuntime, seating: Seating, guests: Guests, turns: Turns, play: TableEvents
    ) -> None:
        # Collaborators: the config, who is online, the tables, timers; seating to free or
        # hand over a seat, guests (a guest cannot come back), turns (stand-ins' moves), and
        # play to show a table that changed.
        self.timers = run.timers
        self.config = run.config
        self.players = run.players
        self.tables = run.tables
        self.seating = seating
        self.guests = guests
        self.turns = turns
        self.play = play

    def player_gone(self, player: Player) -> None:
        """A player's last connection closed: keep their seats for the grace period."""
        pid = player.id
        for table in self.tables.holding(pid):
            index = table.seat_of(pid)
            if index is None:  # (only reserved for them: a bot plays it already)
                continue
            if table.status == "waiting":
                table.seats[index] = Seat()
                self.seating.after_seat_change(table)
                continue
            self.keep_seat(table.id, pid)
            self.play.table_changed(table)

    def keep_seat(self, table_id: int, player_id: str) -> None:
        """Give an absent player the grace period to come back to their seat at this table.
        After a start with games on (a restart, a standby taking over) it lasts at least until
        their sessions can be back (:data:`~.turns.RETURN_AFTER_START`): it runs from before
        the hub listens, and a grace shorter than that gave a player who came straight back
        a stand-in in their seat instead of their table."""
        now = asyncio.get_running_loop().time()
        wait = max(self.config.grace, self.turns.returns_until - now)
        self.timers.later(
            ("grace", table_id, player_id), wait, self.grace_over, table_id, player_id
        )

    def grace_over(self, table_id: int, player_id: str) -> None:
        table = self.tables.get(table_id)
        if table is None or player_id in self.players:
            return
        index = table.seat_of(player_id)
        if index is None:
            return
        table.seats[index] = Seat(bot=self.config.standin_bot, reserved=player_id)
        self.turns.stood_in.pop(
            (table.id, player_id), None
        )  # (``stand_in`` tells them, on joining)
        self.seating.after_seat_change(table)
        self.guests.guest_left(
            player_id, self.seating.after_seat_change
        )  # a guest cannot come back for the seat

    def player_back(self, player: Player) -> None:
        """A player connected within the grace period: their seats are theirs again.

        A seat a bot took over (after the grace period, or after standing up) is only
        reclaimed on purpose, with ``join``; the table still shows it reserved for them.
        """
        # Every hello comes here: only the tables holding a seat for them (the grace timers
        # are those of the tables where they sat).
        pid = player.id
        for table in self.tables.holding(pid):
            self.timers.cancel(("grace", table.id, pid))
            self.play.table_changed(table)
            self.turns.tell_stood_in(table.id, pid)
