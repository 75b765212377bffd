"""The bots' memos are emptied every few minutes in the process bots think in, and what they
answer after that is what they answered before."""

from __future__ import annotations

import random

from protocol.cards import TAROKKA_COMMON
from server.bots import memos, prophets_gambit
from server.bots.strong import pg_sim
from server.hub import bot_pool

CARDS = list(TAROKKA_COMMON)


def some_hands(n: int) -> list[tuple[list[str], list[str]]]:
    rng = random.Random(3)
    out = []
    for _ in range(n):
        hand = rng.sample(CARDS, 5)
        fixed = rng.sample([c for c in CARDS if c not in hand], 2)
        out.append((hand, fixed))
    return out


def test_the_memos_are_emptied_once_their_time_is_up_and_answer_the_same_after():
    now = [0.0]
    ages = memos.Ages(every=120.0, clock=lambda: now[0])
    hands = some_hands(30)
    before = [prophets_gambit.potential(h, f) for h, f in hands]
    ints = [[pg_sim.INDEX[c] for c in h] for h, _ in hands]
    fixed = [[pg_sim.INDEX[c] for c in f] for _, f in hands]
    strong = [pg_sim.potential(h, f) for h, f in zip(ints, fixed, strict=True)]
    assert prophets_gambit._POTENTIALS and pg_sim._POT
    now[0] = 119.0
    ages.tick()
    assert ages.forgotten == 0 and prophets_gambit._POTENTIALS and pg_sim._POT
    now[0] = 120.0
    ages.tick()
    assert ages.forgotten == 1 and not prophets_gambit._POTENTIALS and not pg_sim._POT
    assert [prophets_gambit.potential(h, f) for h, f in hands] == before
    assert [pg_sim.potential(h, f) for h, f in zip(ints, fixed, strict=True)] == strong
    now[0] = 200.0
    ages.tick()  # (80 s after the last emptying: not yet)
    assert ages.forgotten == 1 and prophets_gambit._POTENTIALS


def test_the_bots_process_empties_them_at_its_decisions(monkeypatch):
    ticks = []
    monkeypatch.setattr(bot_pool._memos, "tick", lambda: ticks.append(1))
    monkeypatch.setattr(
        bot_pool, "make_bot", lambda *a, **k: type("B", (), {"choose": lambda self, v: "x"})()
    )
    assert bot_pool.think("prophets_gambit", "strong", "s", 50.0, {}) == "x"
    assert ticks == [1]
