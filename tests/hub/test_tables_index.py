"""The hub's index of which tables hold a seat for whom (``server.hub.tables``), against the
seats themselves, through every way a seat changes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.hub.table import Seat, Table
from server.hub.tables import Tables

PLAYERS = ("ada", "bo", "cy", "di")

seats = st.builds(
    Seat,
    player=st.sampled_from((None, *PLAYERS)),
    bot=st.sampled_from((None, "heuristic")),
    reserved=st.sampled_from((None, *PLAYERS)),
)

operations = st.lists(
    st.one_of(
        st.tuples(st.just("open"), st.integers(0, 5), st.lists(seats, min_size=3, max_size=5)),
        st.tuples(st.just("close"), st.integers(0, 5)),
        st.tuples(st.just("sit"), st.integers(0, 5), st.integers(0, 4), seats),
        st.tuples(st.just("rotate"), st.integers(0, 5), st.integers(1, 4)),
        st.tuples(st.just("slice"), st.integers(0, 5), seats),
    ),
    max_size=40,
)


def brute_force(tables: Tables, player: str) -> list[int]:
    return [
        t.id
        for t in sorted(tables.values(), key=lambda t: t.id)
        if any(player in (s.player, s.reserved) for s in t.seats)
    ]


@settings(max_examples=200, deadline=None)
@given(operations)
def test_the_index_is_what_the_seats_say_after_any_changes(ops):
    tables = Tables()
    closed: list[Table] = []  # a closed table's seats change the index no more
    for op, table_id, *rest in ops:
        table = tables.get(table_id)
        if op == "open":
            owner = PLAYERS[table_id % len(PLAYERS)]
            tables[table_id] = Table(table_id, "prophet", len(rest[0]), {}, owner, seats=rest[0])
        elif table is None:
            continue
        elif op == "close":
            if table_id % 2:
                del tables[table_id]
            else:
                tables.pop(table_id)
            closed.append(table)
        elif op == "sit":
            table.seats[rest[0] % len(table.seats)] = rest[1]
        elif op == "rotate":
            move = rest[0] % len(table.seats)
            table.seats = table.seats[move:] + table.seats[:move]
        elif op == "slice":
            table.seats[:] = [rest[0]] * len(table.seats)
        for old in closed:
            old.seats[0] = Seat(player="ada")
        tables.check()
        for player in PLAYERS:
            assert [t.id for t in tables.holding(player)] == brute_force(tables, player)
            owned = {t.id for t in tables.values() if t.owner == player}
            involving = sorted(owned.union(brute_force(tables, player)))
            assert [t.id for t in tables.involving(player)] == involving


def test_a_table_keeps_its_number_of_seats():
    tables = Tables()
    tables[1] = table = Table(1, "prophet", 3, {}, "ada")
    for change in (
        lambda: table.seats.append(Seat()),
        lambda: table.seats.pop(),
        lambda: table.seats.__setitem__(slice(0, 1), []),
    ):
        with pytest.raises(TypeError):
            change()
    assert len(table.seats) == 3
    tables.check()


def test_a_seat_changes_only_by_a_new_one():
    seat = Seat(player="ada")
    with pytest.raises(AttributeError):
        seat.player = "bo"  # type: ignore[misc]  # frozen: the test shows it
