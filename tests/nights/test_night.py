"""An event round after round: seating, late joining, withdrawing, standings, saving."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.nights.night import Night, NightError
from server.nights.pairing import repeats
from server.nights.rules import NightRules, problems

from .test_pairing import _repeat_free_exists


def _night(fmt: str = "swiss", size: int = 4, rounds: int = 3, fill: str = "byes") -> Night:
    rules = NightRules("Friday", "prophet", size, fmt, rounds, fill=fill)
    assert problems(rules) == []
    return Night(1, rules, "host")


def _reference_swiss(night: Night) -> dict[str, tuple[float, float]]:
    """Points (one per player beaten, half per tie) and Buchholz, counted directly."""
    points = dict.fromkeys(night.entrants, 0.0)
    mates: dict[str, set[str]] = {p: set() for p in night.entrants}
    for rnd in night.rounds:
        for seats, scores in zip(rnd.tables, rnd.scores, strict=True):
            for a, b in itertools.permutations(range(len(seats)), 2):
                if seats[a] is not None and scores is not None:
                    points[seats[a]] += (
                        1 if scores[a] > scores[b] else 0.5 * (scores[a] == scores[b])
                    )
                if seats[a] is not None and seats[b] is not None:
                    mates[seats[a]].add(seats[b])
        for p in rnd.byes:
            points[p] += night.rules.points_for_bye
    return {p: (points[p], sum(points[m] for m in mates[p])) for p in night.entrants}


def test_a_twelve_player_swiss_follows_the_score_groups_and_repeats_nobody():
    night = _night(size=3)
    for i in range(12):
        night.register(f"p{i}")
    rng = random.Random(4)
    for _ in range(3):
        order = night.next_order()
        before = night.met()
        rnd = night.seat_next_round()
        for index, seats in enumerate(rnd.tables):
            night.record(index, [rng.randrange(0, 40) for _ in seats])
            rows = night.standings()
            ref = _reference_swiss(night)
            assert {r.player: (r.points, r.tiebreak) for r in rows} == ref
            assert [r.points for r in rows] == sorted((r.points for r in rows), reverse=True)
        # The first seated of each table is the best placed of those not yet seated.
        seated: set[str] = set()
        for seats in rnd.tables:
            assert seats[0] == next(p for p in order if p not in seated)
            seated.update(p for p in seats if p is not None)
        if _repeat_free_exists(order, 3, before):
            assert repeats(rnd.tables, before) == 0
    met_pairs = [
        frozenset((a, b))
        for rnd in night.rounds
        for seats in rnd.tables
        for a, b in itertools.combinations(seats, 2)
    ]
    assert len(met_pairs) == len(set(met_pairs))  # 12 at threes over 3 rounds: no repeats
    assert night.status == "finished"
    with pytest.raises(NightError):
        night.seat_next_round()


def test_a_duplicate_night_of_eight_scores_matchpoints():
    night = _night("duplicate", rounds=1)
    for i in range(8):
        night.register(f"p{i}")
    rnd = night.seat_next_round()
    assert len(rnd.tables) == 2
    night.record(0, [10, 20, 30, 40])
    got = {r.player: r.points for r in night.standings()}
    assert set(got.values()) == {0.0}  # nobody else has held the cards yet
    night.record(1, [15, 20, 25, 50])
    got = {r.player: r.points for r in night.standings()}
    a, b = rnd.tables
    assert [got[p] for p in a] == [0.0, 0.5, 1.0, 0.0]
    assert [got[p] for p in b] == [1.0, 0.5, 0.0, 1.0]
    tiebreak = {r.player: r.tiebreak for r in night.standings()}
    assert tiebreak[a[3]] == 3.0  # first at their own table


def test_late_join_plays_from_the_next_round_and_withdrawal_sits_out():
    night = _night(size=3, fill="bots")
    for p in ("a", "b", "c", "d", "e", "f", "g"):
        night.register(p)
    assert sum(p is None for t in night.seat_next_round().tables for p in t) == 2
    assert night.register("late") == 2
    night.withdraw("b")
    for i, _seats in enumerate(night.rounds[-1].tables):
        night.record(i, [1, 2, 3])
    rnd = night.seat_next_round()
    seated = {p for t in rnd.tables for p in t}
    assert "late" in seated and "b" not in seated
    assert None in seated  # 7 players at threes: one table with two bots
    rows = {r.player: r for r in night.standings()}
    assert rows["late"].games == 0 and rows["b"].games == 1 and rows["b"].withdrawn
    with pytest.raises(NightError):
        night.withdraw("b")
    assert Night.from_record(night.to_record()) == night


@settings(max_examples=60, deadline=None)
@given(
    st.integers(3, 14),
    st.sampled_from([3, 4]),
    st.sampled_from(["swiss", "round_robin", "duplicate"]),
    st.sampled_from(["bots", "byes"]),
    st.randoms(use_true_random=False),
)
def test_every_registered_player_is_seated_or_has_a_bye(n, size, fmt, fill, rng):
    night = _night(fmt, size, rounds=4, fill=fill)
    for i in range(n):
        night.register(f"p{i}")
    if n < night.minimum_players():
        with pytest.raises(NightError):
            night.seat_next_round()
        return
    while night.status not in ("finished",):
        if rng.random() < 0.3:
            night.register(f"late{len(night.rounds)}")
        active = [p for p in night.active() if night.entrants[p].since <= len(night.rounds) + 1]
        if len(active) < night.minimum_players():
            return
        rnd = night.seat_next_round()
        seated = [p for t in rnd.tables for p in t if p is not None]
        assert sorted(seated + rnd.byes) == sorted(night.active())
        for index, seats in enumerate(rnd.tables):
            night.record(index, [rng.randrange(5) for _ in seats])
        if not night.over and rng.random() < 0.2 and len(night.active()) > night.minimum_players():
            night.withdraw(night.active()[0])
        assert Night.from_record(night.to_record()) == night
    # Byes are spread: among those there from the start, at most one apart.
    first = [p for p, e in night.entrants.items() if e.since == 1 and not e.withdrawn]
    had = night.byes_had()
    counts = [had.get(p, 0) for p in first]
    if counts:
        assert max(counts) - min(counts) <= 1
    total = sum(r.points for r in night.standings())
    if fmt != "duplicate":
        # Every table hands out k(k-1)/2 points, humans' share of it, plus the byes.
        expected = 0.0
        for rnd in night.rounds:
            for seats, scores in zip(rnd.tables, rnd.scores, strict=True):
                assert scores is not None
                for a, b in itertools.permutations(range(size), 2):
                    if seats[a] is not None:
                        expected += 1 if scores[a] > scores[b] else 0.5 * (scores[a] == scores[b])
            expected += len(rnd.byes) * night.rules.points_for_bye
        assert total == pytest.approx(expected)


def test_rules_problems_are_said():
    assert problems(NightRules("x", "prophet", 9)) != []
    assert problems(NightRules("", "prophet", 4)) != []
    assert problems(NightRules("x", "nope", 4)) != []
    assert problems(NightRules("x", "prophet", 4, "knockout")) != []


def test_the_hosts_changes_extend_pause_remove_and_cancel_are_kept_and_bounded():
    night = _night(rounds=1)
    for pid in "abcd":
        night.register(pid)
    night.seat_next_round()
    night.extend(2)
    night.pause()
    night.remove("d")
    assert night.record(0, [3, 2, 1, 0]) is True
    assert night.status == "between"  # extended: the first round was not the last
    again = Night.from_record(night.to_record())
    assert (again.rules.rounds, again.paused, again.entrants["d"].withdrawn) == (3, True, True)
    with pytest.raises(NightError) as err:
        night.extend(30)
    assert err.value.code == "event_rounds"
    night.resume()
    night.cancel()
    with pytest.raises(NightError):
        night.cancel()
    with pytest.raises(NightError):
        night.extend(1)


def test_invitations_are_kept_with_the_event_and_taken_back():
    night = _night()
    night.invite("ada")
    night.invite("bob")
    night.invite("ada")  # (once is enough)
    night.uninvite("bob")
    assert Night.from_record(night.to_record()).invited == ["ada"]
    old = night.to_record()
    del old["invited"]  # an event kept before invitations existed
    assert Night.from_record(old).invited == []
    with pytest.raises(NightError) as err:
        night.uninvite("bob")
    assert err.value.code == "event_not_invited"
    night.cancel()
    with pytest.raises(NightError):
        night.invite("cid")
