"""Chips: the accounts they move between, and every move the hub makes (the only caller of
``store.transfer``), so the ledger's rules read in one place.

An :class:`Account` is the store's account name (``player:<id>``, ``pot:<table>``, ``bank``)
as a value: it is a ``str``, so the store and a table's record keep it unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:  # for type hints only
    from server.store import Store

    from .table import Seat, Table

PLAYER = "player:"
POT = "pot:"


class Account(str):
    """One account of the ledger."""

    __slots__ = ()
    BANK: ClassVar[Account]

    @classmethod
    def player(cls, player_id: str) -> Account:
        return cls(PLAYER + player_id)

    @classmethod
    def pot(cls, table_id: int) -> Account:
        return cls(f"{POT}{table_id}")

    @classmethod
    def of_seat(cls, seat: Seat) -> Account:
        """Whose chips a seat plays with: its human's, or the bank's for a bot."""
        return cls.player(seat.player) if seat.player is not None else cls.BANK

    @staticmethod
    def player_id(account: str) -> str | None:
        """The player whose account this is (None: the bank's or a pot)."""
        return account[len(PLAYER) :] if account.startswith(PLAYER) else None


Account.BANK = Account("bank")


class Money:
    """Every move of chips the hub makes, named by why."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def balance(self, account: str) -> int:
        return self.store.balance(account)

    def can_pay(self, account: str, chips: int) -> bool:
        """The bank always can (bots play with its chips); a player needs the chips."""
        return account == Account.BANK or self.store.balance(account) >= chips

    def collect_antes(self, table: Table) -> None:
        """Each seat's account pays the stake into the pot (inside the caller's transaction);
        the table notes whose chips each seat plays with."""
        table.accounts = [Account.of_seat(seat) for seat in table.seats]
        table.paid = [table.stake] * table.players
        if table.stake:
            pot = Account.pot(table.id)
            for account in table.accounts:
                self.store.transfer(account, pot, table.stake, "ante", ref=str(table.id))

    def bet(self, table: Table, seat: int, chips: int, why: str) -> None:
        """A seat's action puts ``chips`` in the pot (inside the caller's transaction)."""
        self.store.transfer(
            table.accounts[seat], Account.pot(table.id), chips, why, ref=str(table.id)
        )
        if seat < len(table.paid):
            table.paid[seat] += chips

    def pay_out(self, table: Table, payouts: list[int]) -> None:
        """The pot goes to the seats' accounts; what rounding leaves goes to the bank."""
        pot = Account.pot(table.id)
        for account, amount in zip(table.accounts, payouts, strict=True):
            if amount:
                self.store.transfer(pot, account, amount, "payout", ref=str(table.id))
        self._rest_to_bank(table)

    def refund_pot(self, table: Table) -> None:
        """A game abandoned before its end shares its pot back among the seats' accounts."""
        pot = Account.pot(table.id)
        left = self.store.balance(pot)
        if not left:
            return
        share = left // table.players
        with self.store.transaction():
            for account in table.accounts or [Account.of_seat(seat) for seat in table.seats]:
                if share:
                    self.store.transfer(pot, account, share, "refund", ref=str(table.id))
            self._rest_to_bank(table)

    def _rest_to_bank(self, table: Table) -> None:
        pot = Account.pot(table.id)
        rest = self.store.balance(pot)
        if rest:
            self.store.transfer(pot, Account.BANK, rest, "rounding", ref=str(table.id))

    def grant(self, account: str, chips: int, why: str) -> None:
        """The bank gives ``chips`` (taken back if negative)."""
        if chips > 0:
            self.store.transfer(Account.BANK, account, chips, why)
        else:
            self.store.transfer(account, Account.BANK, -chips, why)

    def to_bank(self, account: str, chips: int, why: str) -> None:
        self.store.transfer(account, Account.BANK, chips, why)
