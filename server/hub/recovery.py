"""Recovery after a restart (or a crash): the stored tables rebuilt, their games replayed to
the last stored action, then absent players given their grace period and games resumed.

Runs once, at :meth:`Hub.start`; kept out of play, which it drives like any other caller."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from server.engine import fairness, get_game
from server.engine.fairness import DealLog

from .table import Seat, Table

if TYPE_CHECKING:  # for type hints only
    from .absence import Absence
    from .duplicate import Duplicate
    from .play import Play
    from .runtime import HubRuntime
    from .seating import Seating
    from .turns import Turns

log = logging.getLogger(__name__)


class Recovery:
    """Rebuilds and resumes the tables that were open when the server stopped."""

    def __init__(
        self,
        run: HubRuntime,
        duplicate: Duplicate,
        seating: Seating,
        play: Play,
        turns: Turns,
        absence: Absence,
    ) -> None:
        # Collaborators: the store, the config, who is online, the tables and players'
        # names, timers, saving a table; duplicate sets to restore; seating to close a table
        # no one is left at; play to settle and deal the next game; turns to arm bots and
        # timers; absence to keep absent players' seats for the grace period.
        self.run = run
        self.store = run.store
        self.config = run.config
        self.players = run.players
        self.tables = run.tables
        self.names = run.names
        self.timers = run.timers
        self.duplicate = duplicate
        self.seating = seating
        self.play = play
        self.turns = turns
        self.absence = absence

    def restore_tables(self) -> None:
        """Rebuild every stored table; a game replays to its last stored action."""
        for row in self.store.live_tables():
            table = Table.from_record(row["info"])
            for seat in table.seats:
                for pid in (seat.player, seat.reserved):
                    if pid and pid not in self.names:
                        record = self.store.get_player(pid)
                        self.names[pid] = (record or {}).get("name") or "?"
            self.names.setdefault(
                table.owner, (self.store.get_player(table.owner) or {}).get("name") or "?"
            )
            # Between games the finished game stays on show, as it was before the restart.
            if row["params"] is not None and table.status in ("playing", "between"):
                table.state, dealt, failed, _ = fairness.replay_deals(row["params"], row["actions"])
                if failed is not None:  # a damaged record: fail as a plain replay would
                    get_game(table.game).replay(row["params"], row["actions"])
                table.deal_log = DealLog(table.state)
                table.deal_log.deals = dealt
            self.tables[table.id] = table
            log.info("restored table %s (%s, %s)", table.id, table.game, table.status)
        self.duplicate.restore()

    def resume_tables(self) -> None:
        """After a restart: absent players get their grace period, games go on (without
        stand-ins for them, nor their grace running out, while their sessions come back)."""
        if any(table.status in ("playing", "between") for table in self.tables.values()):
            self.turns.wait_for_returns()
        for table in list(self.tables.values()):
            if table.status == "waiting":
                for i, seat in enumerate(table.seats):
                    if seat.player is not None and seat.player not in self.players:
                        table.seats[i] = Seat()
                if not table.humans():
                    self.seating.close_table(table)
                    continue
                self.run.save(table)
            elif table.status == "playing" and table.state is not None and table.state.is_over:
                self.play.settle(table)  # killed between the last action and the payout
            elif table.status == "between":
                between = self.config.between_games
                self.timers.later(("next", table.id), between, self.play.next_game, table.id)
            for seat in table.seats:
                if seat.player is not None and seat.player not in self.players:
                    self.absence.keep_seat(table.id, seat.player)
            if table.id in self.tables:
                self.turns.arm(table)
