"""Verifiable deals from the record alone: seed → deck → commitment, and every tampering shows.

A record made as the hub makes it passes ``verify``; changing the revealed seed, the
commitment, one dealt card or one played card makes it fail, with a sentence saying what.
"""

from __future__ import annotations

import copy
import functools
import hashlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.cards import DECKS
from server.engine import fairness, get_game
from server.records.verify import FAIL, NOT_FAIR, PASS, verify

from .make import make_record

hex_seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
GAMES = [("prophet", 3, {"cap": 2}), ("fortunes", 4, {}), ("prophets_gambit", 3, {})]


@functools.cache
def finished(index: int) -> dict:
    """One finished record per game kind, made once for the whole module."""
    name, players, options = GAMES[index]
    return make_record(name, players, options=options, hub_seed="5e" * 32, play_seed=index)


@settings(max_examples=60, deadline=None)
@given(seed=hex_seeds, game_index=st.integers(0, 2))
def test_seed_gives_one_deck_order_and_its_commitment_is_its_sha256(seed, game_index):
    name, players, options = GAMES[game_index]
    game = get_game(name)
    params = game.check_setup(players, options, 0, fairness.mix(seed), None)
    first = fairness.replay_deals(params, [])[1]
    again = fairness.replay_deals(params, [])[1]
    assert first == again and len(first) == 1  # the same seed deals the same cards
    # Every card of the deck lies in exactly one place: the deal is a permutation.
    cards = [c for place in first[0].values() for c in place]
    assert sorted(cards) == sorted(DECKS[game.deck_name(params["options"])])
    assert fairness.commitment(seed) == hashlib.sha256(seed.encode()).hexdigest()
    other = seed[:-1] + ("0" if seed[-1] != "0" else "1")
    assert fairness.commitment(other) != fairness.commitment(seed)
    assert fairness.replay_deals({**params, "seed": other}, [])[1] != first


def test_mixing_in_players_values_changes_the_seed_and_their_order_does_not():
    hub = "aa" * 32
    assert fairness.mix(hub) == hub == fairness.mix(hub, [])
    mixed = fairness.mix(hub, [(0, "x1"), (2, "y2")])
    assert mixed != hub and len(mixed) == 64
    assert fairness.mix(hub, [(2, "y2"), (0, "x1")]) == mixed
    assert fairness.mix(hub, [(0, "x1"), (2, "y3")]) != mixed


@pytest.mark.parametrize("index", range(len(GAMES)))
def test_an_honest_record_passes(index):
    report = verify(finished(index))
    assert report.verdict == PASS, report.lines()
    assert all(ok for ok, _ in report.checks)
    assert report.lines()[-1].startswith("PASS")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, 2), where=st.integers(0, 63), digit=st.sampled_from("0123456789abcdef"))
def test_a_changed_seed_or_commitment_fails(index, where, digit):
    record = copy.deepcopy(finished(index))
    deal = record["deal"]
    key = "hub_seed" if where % 2 else "commitment"
    if deal[key][where] == digit:
        return
    deal[key] = deal[key][:where] + digit + deal[key][where + 1 :]
    report = verify(record)
    assert report.verdict == FAIL
    assert "does not match the commitment" in " ".join(report.lines())


@settings(max_examples=25, deadline=None)
@given(index=st.integers(0, 2), pick=st.integers(0, 10_000))
def test_a_changed_dealt_card_fails(index, pick):
    record = copy.deepcopy(finished(index))
    first = record["deal"]["dealt"][0]
    hands = sorted(place for place in first if place.startswith("hand:") and first[place])
    a, b = hands[pick % len(hands)], hands[(pick + 1) % len(hands)]
    # Swap one card between two hands: the same cards, dealt differently.
    i, j = pick % len(first[a]), (pick // 7) % len(first[b])
    first[a][i], first[b][j] = first[b][j], first[a][i]
    report = verify(record)
    assert report.verdict == FAIL
    assert any("Deal 1 differs" in text for ok, text in report.checks if not ok)


def test_a_changed_played_card_fails_naming_the_move():
    record = copy.deepcopy(finished(0))
    index, action = next(
        (i, step) for i, step in enumerate(record["actions"]) if step[1]["type"] == "play"
    )
    # A card the seed dealt to nobody's hand at that moment: the trump card.
    record["actions"][index][1] = {**action[1], "card": record["deal"]["dealt"][0]["trump"][0]}
    report = verify(record)
    assert report.verdict == FAIL
    assert any(f"Move {index + 1}" in text for ok, text in report.checks if not ok)


def test_a_fixed_seed_is_consistent_but_never_called_fair():
    record = make_record("prophet", 3, hub_seed="7:1:0", options={"cap": 1}, fair=False)
    report = verify(record)
    assert report.verdict == NOT_FAIR
    assert "fixed seed" in report.lines()[-2] and report.lines()[-1].startswith("NOT FAIR")
