"""Seating a round: everyone once, no repeat meeting while it can be avoided, byes spread."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from server.nights.pairing import repeats, seat_round, seat_tables


def _repeat_free_exists(players: list[str], size: int, met: dict[str, set[str]]) -> bool:
    """The reference: try every way to split the players into tables (small fields only)."""
    if not players:
        return True
    head, rest = players[0], players[1:]
    for mates in itertools.combinations(rest, size - 1):
        table = (head, *mates)
        if any(b in met.get(a, ()) for a, b in itertools.combinations(table, 2)):
            continue
        if _repeat_free_exists([p for p in rest if p not in mates], size, met):
            return True
    return False


@st.composite
def fields(draw: st.DrawFn) -> tuple[list[str], int, dict[str, set[str]]]:
    size = draw(st.sampled_from([3, 4]))
    tables = draw(st.integers(1, 3))
    players = [f"p{i}" for i in range(size * tables)]
    pairs = list(itertools.combinations(players, 2))
    chosen = draw(st.lists(st.sampled_from(pairs), max_size=len(pairs)) if pairs else st.just([]))
    met: dict[str, set[str]] = {}
    for a, b in chosen:
        met.setdefault(a, set()).add(b)
        met.setdefault(b, set()).add(a)
    order = draw(st.permutations(players))
    return list(order), size, met


@settings(max_examples=150, deadline=None)
@given(fields())
def test_no_repeat_opponents_while_avoidable(field: tuple[list[str], int, dict[str, set[str]]]):
    order, size, met = field
    tables = seat_tables(order, size, met)
    assert sorted(p for t in tables for p in t) == sorted(order)
    assert all(len(t) == size for t in tables)
    if _repeat_free_exists(order, size, met):
        assert repeats(tables, met) == 0


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 23),
    st.sampled_from([3, 4, 5]),
    st.sampled_from(["bots", "byes"]),
    st.dictionaries(st.integers(0, 22).map(lambda i: f"p{i}"), st.integers(0, 3)),
)
def test_everyone_is_seated_once_or_has_a_bye(n, size, fill, byes_had):
    order = [f"p{i}" for i in range(n)]
    seating = seat_round(order, size, {}, byes_had, fill=fill)
    seated = [p for t in seating.tables for p in t if p is not None]
    assert sorted(seated + seating.byes) == sorted(order)
    assert len(set(seated)) == len(seated)
    assert all(len(t) == size for t in seating.tables)
    bots = sum(p is None for t in seating.tables for p in t)
    if fill == "byes":
        assert bots == 0 and len(seating.byes) == n % size
        # The byes go to those who had fewest.
        if seating.byes:
            most = max(byes_had.get(p, 0) for p in seating.byes)
            assert all(byes_had.get(p, 0) >= most for p in order if p in seated)
    else:
        assert not seating.byes and bots == (-n) % size


def test_with_no_history_equal_standings_sit_together():
    """Swiss: with nobody met yet, the tables are the standing order cut in slices."""
    order = [f"p{i}" for i in range(12)]
    assert seat_tables(order, 4, {}) == [order[0:4], order[4:8], order[8:12]]


def test_a_large_field_is_seated_fast_enough_to_fall_back():
    """400 players at tables of four, after rounds where everyone met three others: a seating
    comes back with no repeats (the bounded search finds one)."""
    order = [f"p{i}" for i in range(400)]
    met: dict[str, set[str]] = {}
    for table in seat_tables(order, 4, met):
        for p in table:
            met.setdefault(p, set()).update(q for q in table if q != p)
    assert repeats(seat_tables(order, 4, met), met) == 0
