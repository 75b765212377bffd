"""``bench/ssh_load.py --pace``: each seat asked to decide acts after its own time around the
pace (the bench's figures at a player's pace rest on it)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from ssh_load import DECIDE_SPREAD, PlayerPace, seat_arguments


def test_a_seat_decides_after_its_time_around_the_pace() -> None:
    pace = PlayerPace(4.0, random.Random(1))
    state = object()
    assert pace.ready({2}, state, now=100.0) == []  # first seen asked: its time starts
    due = pace.due[2][1]
    assert 100.0 + 4.0 * DECIDE_SPREAD[0] <= due <= 100.0 + 4.0 * DECIDE_SPREAD[1]
    assert pace.ready({2}, state, now=due - 0.01) == []
    assert pace.ready({2}, state, now=due) == [2]
    # Asked again (the next trick), it takes a new time from then.
    assert pace.ready({2}, state, now=due + 0.1) == []
    assert pace.due[2][1] > due + 0.1 + 4.0 * DECIDE_SPREAD[0] - 1e-9


def test_the_mean_decision_time_is_the_pace() -> None:
    pace = PlayerPace(4.0, random.Random(2))
    times = []
    for n in range(400):
        state = object()  # a new decision each time
        pace.ready({0}, state, now=float(n))
        times.append(pace.due[0][1] - n)
    assert 3.9 < sum(times) / len(times) < 4.1


def test_seats_not_asked_any_more_are_forgotten_and_a_new_deal_starts_afresh() -> None:
    pace = PlayerPace(4.0, random.Random(3))
    old = object()
    pace.ready({0, 1}, old, now=0.0)
    pace.ready({1}, old, now=1.0)
    assert set(pace.due) == {1}
    pace.ready({1}, object(), now=2.0)  # the next deal: a new state
    assert pace.due[1][1] >= 2.0 + 4.0 * DECIDE_SPREAD[0]


def test_the_seat_command_reads_its_stagger_and_pace() -> None:
    assert seat_arguments("seat") == (0.0, 0.0)
    assert seat_arguments("seat 30") == (30.0, 0.0)
    assert seat_arguments("seat 30 4") == (30.0, 4.0)
