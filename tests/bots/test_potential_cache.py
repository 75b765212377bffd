"""The heuristic Prophet's Gambit bot's cache of potentials: right, and small when full."""

from __future__ import annotations

import gc
import random
import tracemalloc

from protocol.cards import TAROKKA_COMMON
from server.bots import prophets_gambit
from server.bots.prophets_gambit import potential
from server.engine.prophets_gambit.hands import best_hand, hand_key

CARDS = list(TAROKKA_COMMON)


def deals(rng: random.Random) -> tuple[list[str], list[str]]:
    hand = rng.sample(CARDS, rng.choice([3, 4, 5]))
    fixed = rng.sample([c for c in CARDS if c not in hand], rng.choice([1, 2]))
    return hand, fixed


def test_a_potential_is_found_again_whatever_the_order_of_the_hand(monkeypatch):
    monkeypatch.setattr(prophets_gambit, "_POTENTIALS", {})
    rng = random.Random(7)
    for _ in range(200):
        hand, fixed = deals(rng)
        if len(hand) <= 3:
            want = best_hand(hand + fixed, 5)[0]
        else:
            want = max(
                hand_key([a, b, c, *fixed])
                for i, a in enumerate(hand)
                for j, b in enumerate(hand[i + 1 :], i + 1)
                for c in hand[j + 1 :]
            )
        assert potential(hand, fixed) == want
        shuffled = rng.sample(hand, len(hand))
        size = len(prophets_gambit._POTENTIALS)
        assert potential(shuffled, fixed) == want
        assert len(prophets_gambit._POTENTIALS) == size  # found, not computed again


def test_the_cache_costs_little_memory_per_entry(monkeypatch):
    """Full (32,768 entries) it stays a small part of a server's memory: 536 bytes an entry
    with ``(frozenset, tuple)`` keys (17 MB), about 94 as strings (3 MB)."""
    monkeypatch.setattr(prophets_gambit, "_POTENTIALS", {})
    rng = random.Random(3)
    hands = [deals(rng) for _ in range(3000)]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for hand, fixed in hands:
            potential(hand, fixed)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    entries = len(prophets_gambit._POTENTIALS)
    assert entries > 2500
    assert grown / entries < 200, grown / entries
