"""Points at the table and matchpoints across tables that held the same cards."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from server.nights.scoring import matchpoints, table_points


def test_points_per_place_at_a_table_of_four():
    assert table_points([10, 30, 20, 0]) == [1.0, 3.0, 2.0, 0.0]
    assert table_points([5, 5, 1, 9]) == [1.5, 1.5, 0.0, 3.0]


def test_matchpoints_of_two_tables_on_the_same_cards():
    # Seat 0's cards: 10 at table A against 4 at B; seat 1 tied; seat 2 lost at A.
    assert matchpoints([[10, 7, 1], [4, 7, 3]]) == [[1.0, 0.5, 0.0], [0.0, 0.5, 1.0]]


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda seats: st.lists(
            st.lists(st.integers(-5, 5), min_size=seats, max_size=seats), min_size=1, max_size=8
        )
    )
)
def test_matchpoints_sum_to_the_pairs_of_tables(rows):
    tables, seats = len(rows), len(rows[0])
    got = matchpoints(rows)
    assert sum(map(sum, got)) == seats * tables * (tables - 1) / 2
    for seat in range(seats):
        assert sum(row[seat] for row in got) == tables * (tables - 1) / 2
        assert all(0 <= row[seat] <= tables - 1 for row in got)
