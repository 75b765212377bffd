"""Guests' chips: the one rule that sends them home, and where a guest's seats end.

A guest (no SSH key, or a TCP client) is who they are for one connection only: the next
connection is a new guest, and nobody survives a restart as the same guest. So once a guest
holds no session and no seat, their chips can never be played again, and they go back to the
bank in one ledger transfer (:meth:`Guests.send_guest_chips_home`). Until then the game's
own rules come first: a guest's seat in a running game stays theirs (taken while they are
away, then reserved for them with a stand-in bot in it), and a pot that seat wins is paid to
the guest. When that game is over the stand-in keeps the seat for good and the chips go home.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, TypeGuard

from .money import PLAYER, Account, Money
from .table import Seat, Table

if TYPE_CHECKING:  # for type hints only
    from collections.abc import Callable

    from .runtime import HubRuntime

log = logging.getLogger(__name__)

GUEST_PREFIX = "guest:"
#: Why a guest's chips left their account, in the ledger.
GUEST_LEFT = "guest_left"
#: Candidates :meth:`Guests.forget_gone_guests` reads, and forgets, at a time: each guest is a
#: dozen statements on the hub's event loop (every player's), so a backlog (a day's guests,
#: after a restart) goes a batch at a time between other turns, not a hundred in one.
FORGET_BATCH = 10


def is_guest(player_id: str | None) -> TypeGuard[str]:
    return player_id is not None and player_id.startswith(GUEST_PREFIX)


def running(table: Table) -> bool:
    """A game whose pot is not settled yet: its seats' antes are still in play."""
    return table.status == "playing" and table.state is not None and not table.state.is_over


class Guests:
    """Where guests' chips, seats and rows end. It keeps no state of its own (but where the
    retention's sweep is): who is a guest is in their id, and who is here and where they sit
    is the hub's (players, tables)."""

    def __init__(self, run: HubRuntime, money: Money) -> None:
        # Collaborators: the store, who is online, the tables, and saving a table; money, to
        # send a guest's chips home.
        self.run = run
        self.store = run.store
        self.players = run.players
        self.tables = run.tables
        self.money = money
        #: The last guest id of a full batch of :meth:`forget_gone_guests` (the next starts
        #: after it); "" from the first.
        self._forget_after = ""
        #: Guests who left while the database was away: their chips go home once it is back
        #: (:meth:`send_owed_home`), or at the next start (:meth:`retire_guests`).
        self.owed: set[str] = set()

    def guest_is_gone(self, player_id: str) -> bool:
        """A guest with no session: they cannot come back (a new connection is a new guest)."""
        return is_guest(player_id) and player_id not in self.players

    def holds_seat(self, player_id: str) -> bool:
        return bool(self.tables.holding(player_id))

    def send_guest_chips_home(self, player_id: str) -> int:
        """The rule: a guest with no session and no seat (taken or reserved) anywhere has their
        whole balance moved to the bank, in one transfer. Returns the chips moved."""
        if not self.guest_is_gone(player_id) or self.holds_seat(player_id):
            return 0
        if self.store.fenced:  # (the database away: nothing moves now; see :attr:`owed`)
            self._owed(player_id, self.store.fence_reason)
            return 0
        account = Account.player(player_id)
        try:
            balance = self.money.balance(account)
            if balance > 0:
                self.money.to_bank(account, balance, GUEST_LEFT)
        except Exception as err:  # (the one transfer kept nothing)
            # (the database found away as it wrote; inside a larger transaction the failure
            # is that transaction's, which keeps nothing)
            if self.store.in_transaction or not self.run.timers.away(err):
                raise
            self._owed(player_id, str(err))
            return 0
        self.owed.discard(player_id)
        return balance

    def _owed(self, player_id: str, why: str) -> None:
        self.owed.add(player_id)
        log.warning(
            "guest %s left; their chips go home once the database is back: %s", player_id, why
        )

    def send_owed_home(self) -> tuple[int, int]:
        """The database is back: the chips of every guest who left meanwhile go home (each in
        one transfer, by the rule). Returns (guests, chips)."""
        guests = chips = 0
        for player_id in sorted(self.owed):
            moved = self.send_guest_chips_home(player_id)
            self.owed.discard(player_id)
            guests, chips = guests + (moved > 0), chips + moved
        return guests, chips

    def end_gone_guests_reservations(self, table: Table) -> list[str]:
        """Seats reserved for guests who are gone pass to their stand-ins for good once no
        pot of theirs is in play at this table. Returns those guests (the caller saves the
        table and then sends their chips home)."""
        if running(table):
            return []
        ended = []
        for index, seat in enumerate(table.seats):
            if seat.player is None and seat.reserved and self.guest_is_gone(seat.reserved):
                ended.append(seat.reserved)
                table.seats[index] = Seat(bot=seat.bot or "heuristic")
        return ended

    def guests_at(self, table: Table) -> set[str]:
        """Every guest a table knows: seated, reserved for, or paid from its pot."""
        ids = {pid for seat in table.seats for pid in (seat.player, seat.reserved)}
        ids.update(account.removeprefix(PLAYER) for account in table.accounts)
        return {pid for pid in ids if is_guest(pid)}

    def retire_guests(self) -> tuple[int, int]:
        """The server stops (or has restarted): every guest is gone for good. Their seats pass
        to stand-ins (or are freed at a table that has not started), what a running pot would
        pay them goes to the bank, and every guest balance goes home.

        Returns (guests whose chips moved, chips moved).
        """
        guests = chips = 0
        self.store.need_writable()  # (nothing changes while the database is away)
        with self.store.transaction():
            for table in self.tables.values():
                changed = False
                for index, seat in enumerate(table.seats):
                    if is_guest(seat.player):
                        started = table.status != "waiting"
                        table.seats[index] = Seat(bot="heuristic") if started else Seat()
                        changed = True
                    elif is_guest(seat.reserved):
                        table.seats[index] = Seat(bot=seat.bot or "heuristic")
                        changed = True
                for index, account in enumerate(table.accounts):
                    if is_guest(account.removeprefix(PLAYER)):
                        table.accounts[index] = Account.BANK
                        changed = True
                if changed:
                    self.run.save(table)
            for account, balance in self.store.balances(PLAYER + GUEST_PREFIX).items():
                if balance > 0:
                    self.money.to_bank(account, balance, GUEST_LEFT)
                    guests += 1
                    chips += balance
        self.owed.clear()
        return guests, chips

    def forget_gone_guests(self, quiet_for: float) -> tuple[int, bool]:
        """The owner's retention (``--guest-retention``): forget guests who are gone, hold
        no seat and no chips, and whose chips have not moved for ``quiet_for`` seconds (see
        :meth:`server.store.Store.forget_guest`), one batch of candidates at a time.
        Returns how many it forgot, and whether candidates are left for the next batch."""
        candidates = self.store.gone_guests(quiet_for, after=self._forget_after, limit=FORGET_BATCH)
        self._forget_after = candidates[-1] if len(candidates) >= FORGET_BATCH else ""
        forgotten = 0
        for player_id in candidates:
            account = Account.player(player_id)
            if (
                self.guest_is_gone(player_id)
                and not self.holds_seat(player_id)
                and not any(account in table.accounts for table in self.tables.values())
                and self.store.forget_guest(player_id)
            ):
                forgotten += 1
        return forgotten, bool(self._forget_after)

    def guest_left(self, player_id: str, seats_changed: Callable[[Table], None]) -> int:
        """A guest's last session closed, or their grace period ran out: end what they can no
        longer come back to (``seats_changed`` is told of each table whose seats that changed),
        then apply the rule. Returns the chips sent home."""
        if not self.guest_is_gone(player_id):
            return 0
        for table in self.tables.holding(player_id):
            if table.reserved_seat_of(player_id) is not None and self.end_gone_guests_reservations(
                table
            ):
                seats_changed(table)
        return self.send_guest_chips_home(player_id)
