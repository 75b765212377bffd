"""Players' entropy at the hub: take each seated app's commitment, then its value, and deal.

The exchange runs while a table waits for its next game (it fills, or the last game's result
is up), so a deal seldom waits for it: when a game is due, the hub deals at once unless a
player who committed has not revealed yet, and then waits at most ``entropy_wait`` seconds
for them. A table of bots (or of players whose apps take no part) never waits. See
``server.hub.deals`` and ``docs/fair-deals.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol.requests import Entropy as EntropyRequest

from . import deals
from .errors import HubError
from .session import need_player
from .table_events import NotConnected

if TYPE_CHECKING:  # for type hints only
    from .runtime import HubRuntime
    from .session import Session
    from .table import Table
    from .table_events import TableEvents


class Entropy:
    """Players' commitments and reveals for the next deal, and the tables whose deal waits
    for reveals. The deals themselves are kept with their tables (``table.deal``)."""

    def __init__(self, run: HubRuntime) -> None:
        # Collaborators: the config, who is online, the tables, saving a table and its timer;
        # play (connected once built) to show a table and start its game.
        self.run = run
        self.timers = run.timers
        self.config = run.config
        self.players = run.players
        self.tables = run.tables
        self.play: TableEvents = NotConnected()  # (see connect)
        #: Tables whose game is due and waits (briefly) for players' reveals.
        self.waiting: set[int] = set()

    def connect(self, play: TableEvents) -> None:
        """Play, built after entropy (it holds entropy), is what entropy tells of changes."""
        self.play = play

    def taking_part(self, table: Table) -> list[int]:
        """Seats whose player is seated and connected: their apps take part."""
        here = self.players
        return [i for i, s in enumerate(table.seats) if s.player is not None and s.player in here]

    def on_entropy(self, session: Session, message: EntropyRequest) -> None:
        player = need_player(session)
        table = self.tables.need(message.table)
        seat = table.seat_of(player.id)
        if seat is None:
            raise HubError("not_seated", "Only a seated player adds entropy to a deal.")
        deal = table.deal
        if deal is None or table.status == "playing" or message.deal != deal["commitment"]:
            raise HubError("entropy_stale", "That deal is no longer waiting to be dealt.")
        if (message.commit is None) == (message.reveal is None):
            raise HubError("invalid", "entropy carries either a commit or a reveal.")
        try:
            if message.commit is not None:
                deals.commit(deal, seat, message.commit)
                # Who committed for the seat (kept with the table, never in a record).
                self.committers(table)[str(seat)] = player.id
                if table.full and deals.all_committed(deal, self.taking_part(table)):
                    deals.close_commits(deal)  # everyone is in: reveals may come now
            else:
                assert message.reveal is not None  # (a commit or a reveal: checked above)
                deals.reveal(deal, seat, message.reveal)
        except deals.EntropyError as err:
            raise HubError.untranslated(err.code, str(err)) from None
        self.run.save(table)
        if table.id in self.waiting and not self.pending(table):
            self.stop_waiting(table.id)
            self.play.start_game(table, waited=True)
            return
        self.play.table_changed(table)

    def committers(self, table: Table) -> dict[str, str]:
        """Seat (as text: the table is stored as msgpack) → the player whose app committed
        for it, for the table's next deal."""
        assert table.deal is not None
        return table.deal.setdefault("by", {})

    def seats_changed(self, table: Table) -> None:
        """Someone sat down or left: a leaver's commitment goes (while commitments are open),
        and once every seated player's app has committed at a full table, reveals may come."""
        deal = table.deal
        if deal is None or table.status == "playing":
            return
        by = self.committers(table)
        for seat, pid in list(by.items()):
            if table.seats[int(seat)].player != pid and deal.get("phase") == deals.COMMIT:
                deals.forget(deal, int(seat))
                del by[seat]
        if table.full and deals.all_committed(deal, self.taking_part(table)):
            deals.close_commits(deal)

    def pending(self, table: Table) -> list[int]:
        """Seats whose reveal the deal waits for: their player (the one who committed) is
        still there."""
        if table.deal is None:
            return []
        by = self.committers(table)
        here = [s for s in self.taking_part(table) if by.get(str(s)) == table.seats[s].player]
        return deals.unrevealed(table.deal, here)

    def wait(self, table: Table) -> bool:
        """The game is due: close commitments and, if reveals are missing, wait for them (at
        most ``entropy_wait`` seconds). True if the deal waits."""
        if table.deal is None:
            return False
        deals.close_commits(table.deal)
        if not self.pending(table) or self.config.entropy_wait <= 0:
            return False
        if table.id not in self.waiting:
            self.waiting.add(table.id)
            self.timers.later(("entropy", table.id), self.config.entropy_wait, self.due, table.id)
            self.play.table_updated(table)  # the apps see that reveals are open
        return True

    def stop_waiting(self, table_id: int) -> None:
        """The table's game is dealt: its deal waits for no reveal any more."""
        self.timers.cancel(("entropy", table_id))
        self.waiting.discard(table_id)

    def due(self, table_id: int) -> None:
        """Time is up: deal without the values that did not come (while the database is
        away: refused before anything changes, the deal still waiting, and due again once
        it is back)."""
        table = self.tables.get(table_id)
        if table is not None and table.status != "playing":
            self.run.store.need_writable()
            self.play.start_game(table, waited=True)
        self.waiting.discard(table_id)
