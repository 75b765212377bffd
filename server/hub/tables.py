"""The hub's open tables, by id and by the players their seats hold.

A player's drop and return (every hello) concern only the tables that hold a seat for them
(as its player, or reserved for them while a bot plays it). Looking through every open table
for them cost 0.5 ms a player at 2,000 tables: seconds of the hub's one thread when a gateway
with thousands of players dies and they all come back through another. So the tables keep an
index, told of every seat put in (:class:`SeatList`) and of every table opened or closed.
A :class:`~server.hub.table.Seat` is frozen: a seat changes only by a new one put in its place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from .errors import HubError

if TYPE_CHECKING:  # for type hints only
    from .table import Seat, Table


class SeatList(list["Seat"]):
    """A table's seats: seats put in (``seats[i] = Seat(…)``, or a slice) tell the table's
    index. The list never grows or shrinks (a table keeps its number of seats); a new order is a new
    list (``table.seats = …``), which the table tells its index of. It knows its table's id
    and index, not the table (no reference cycle to leave behind when a table closes)."""

    __slots__ = ("table_id", "tables")

    def __init__(
        self, seats: Iterable[Seat] = (), table_id: int = 0, tables: Tables | None = None
    ) -> None:
        super().__init__(seats)
        self.table_id = table_id
        self.tables = tables

    def __setitem__(self, index: Any, seat: Any) -> None:
        old: Sequence[Seat]
        if isinstance(index, slice):
            old, n = list(self), len(self)
            list.__setitem__(self, index, seat)
            if len(self) != n:
                list.__setitem__(self, slice(None), old)
                self._fixed()
        else:
            old = (list.__getitem__(self, index),)
            list.__setitem__(self, index, seat)
        if self.tables is not None:
            self.tables.seats_replaced(
                self.table_id, old, self if isinstance(index, slice) else (seat,)
            )

    def _fixed(self, *_: Any, **__: Any) -> NoReturn:
        raise TypeError("a table keeps its number of seats; put a new list in its place")

    append = extend = insert = pop = remove = clear = sort = reverse = __delitem__ = _fixed
    __iadd__ = __imul__ = _fixed


def _holders(seat: Seat) -> tuple[str, ...]:
    """The players a seat is held for: its player, and whom it is reserved for."""
    player, reserved = seat.player, seat.reserved
    if reserved is None or reserved == player:
        return () if player is None else (player,)
    return (reserved,) if player is None else (player, reserved)


class Tables(dict[int, "Table"]):
    """``{table id: Table}`` that knows which tables hold a seat for whom, and whose they
    are (a table's owner never changes)."""

    def __init__(self) -> None:
        super().__init__()
        #: {player id: {table id: seats there held for them}}
        self._held: dict[str, dict[int, int]] = {}
        #: {player id: ids of the tables they opened}
        self._owned: dict[str, set[int]] = {}

    def need(self, table_id: int) -> Table:
        """The open table ``table_id``; refused if there is none."""
        table = self.get(table_id)
        if table is None:
            raise HubError("no_table", "There is no such table.")
        return table

    def holding(self, player_id: str) -> list[Table]:
        """The open tables that hold a seat for ``player_id`` (seated, or reserved for them),
        in the order they were opened."""
        held = self._held.get(player_id)
        if not held:
            return []
        return [self[table_id] for table_id in sorted(held)]

    def involving(self, player_id: str) -> list[Table]:
        """The open tables ``player_id`` opened or that hold a seat for them, in the order
        they were opened."""
        ids = self._owned.get(player_id, set()).union(self._held.get(player_id, ()))
        return [self[table_id] for table_id in sorted(ids)]

    # --- kept in step --------------------------------------------------------------------------

    def __setitem__(self, table_id: int, table: Table) -> None:
        old = self.get(table_id)
        if old is not None:
            self._forget(old)
        super().__setitem__(table_id, table)
        seats = table.seats
        assert isinstance(seats, SeatList)  # (Table makes every list of seats one)
        table.index = seats.tables = self
        self._count(table.id, table.seats, 1)
        self._owned.setdefault(table.owner, set()).add(table.id)

    def __delitem__(self, table_id: int) -> None:
        self._forget(self[table_id])
        super().__delitem__(table_id)

    def pop(self, table_id: int, *default: Any) -> Any:
        if table_id in self:
            self._forget(self[table_id])
        return super().pop(table_id, *default)

    def _fixed(self, *_: Any, **__: Any) -> NoReturn:
        raise TypeError("tables are opened and closed one at a time")

    popitem = clear = update = setdefault = __ior__ = _fixed

    def _forget(self, table: Table) -> None:
        self._count(table.id, table.seats, -1)
        owned = self._owned[table.owner]
        owned.discard(table.id)
        if not owned:
            del self._owned[table.owner]
        seats = table.seats
        assert isinstance(seats, SeatList)  # (Table makes every list of seats one)
        table.index = seats.tables = None

    def seats_replaced(self, table_id: int, old: Iterable[Seat], new: Iterable[Seat]) -> None:
        self._count(table_id, old, -1)
        self._count(table_id, new, 1)

    def _count(self, table_id: int, seats: Iterable[Seat], step: int) -> None:
        held = self._held
        for seat in seats:
            for player_id in _holders(seat):
                mine = held.get(player_id)
                if mine is None:
                    mine = held[player_id] = {}
                n = mine.get(table_id, 0) + step
                if n > 0:
                    mine[table_id] = n
                else:
                    del mine[table_id]
                    if not mine:
                        del held[player_id]

    def check(self) -> None:
        """Raise if the index is not what the seats say (for tests)."""
        want: dict[str, dict[int, int]] = {}
        owned: dict[str, set[int]] = {}
        for table_id, table in self.items():
            seats = table.seats
            assert isinstance(seats, SeatList), table_id
            assert table.index is self and seats.tables is self, table_id
            assert seats.table_id == table_id == table.id, table_id
            owned.setdefault(table.owner, set()).add(table_id)
            for seat in table.seats:
                for player_id in _holders(seat):
                    mine = want.setdefault(player_id, {})
                    mine[table_id] = mine.get(table_id, 0) + 1
        assert want == self._held, (want, self._held)
        assert owned == self._owned, (owned, self._owned)
