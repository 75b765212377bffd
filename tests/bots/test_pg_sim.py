"""The strong Prophet's Gambit bot's fast deal plays by the engine's rules and makes the
heuristic bot's choices: its rollouts then model heuristic opponents exactly (up to hidden
cards and the heuristic's own sampling)."""

from __future__ import annotations

import random

from server.bots.prophets_gambit import ProphetsGambitBot
from server.bots.strong import pg_sim as sim
from server.engine import get_game
from server.engine.rng import rng_for

GAME = get_game("prophets_gambit")
#: The heuristic's choices that draw no random numbers (the Fate, the Execution and the
#: choice of a player do): the fast deal must make exactly these.
EXACT = {
    "bid",
    "turn",
    "bonus",
    "discard",
    "beast",
    "donjon",
    "raven",
    "tempter",
    "forced",
    "ghost",
    "darklord_pick",
    "marionette_order",
}


class _Mirrored(sim.Sim):
    """A fast deal that draws the engine's random numbers (its seed and counter)."""

    __slots__ = ("counter", "seed")

    def _rules_rng(self) -> random.Random:
        self.counter += 1
        return rng_for(self.seed, self.counter)


def _mirror(state) -> _Mirrored:
    base = sim.Sim.of_state(state, random.Random(0))
    d = _Mirrored.__new__(_Mirrored)
    for name in sim.Sim.__slots__:
        setattr(d, name, getattr(base, name))
    d.seed, d.counter = state.seed, state.rng_counter
    return d


def _same(state, d) -> None:
    for seat in range(state.num_players):
        engine = [sim.action_of(a) for a in state.legal_actions(seat)]
        assert d.legal(seat) == engine, (seat, state.asks[seat], d.asks[seat])
    assert [[sim.INDEX[c] for c in h] for h in state.hands] == d.hands
    assert [sim.INDEX[c] if c else -1 for c in state.fates] == d.fates


def test_random_deals_agree_with_the_engine_step_by_step():
    """Random legal play (Risks often, so the High cards come up) through the engine and the
    fast deal side by side, from the start and from states taken mid-deal."""
    bot = ProphetsGambitBot(0)
    highs = set()
    exact = 0
    for g in range(150):
        rng = random.Random(g)
        n = 3 + g % 3
        state = GAME.new_state(n, {}, dealer=g % n, seed=f"sim-{g}")
        d = _mirror(state)
        random_share = rng.choice((0.3, 0.7, 1.0))
        while state.result is None:
            _same(state, d)
            if rng.random() < 0.1:
                d = _mirror(state)  # a fresh conversion mid-deal plays on alike
            seat = min(state.waiting())
            view = state.view(seat)
            kind = state.asks[seat][0]
            if kind in EXACT and len(view["legal"]) > 1:
                exact += 1
                assert d.choose(seat) == sim.action_of(bot.choose(view)), (g, kind)
            legal = state.legal_actions(seat)
            action = rng.choice(legal) if rng.random() < random_share else bot.choose(view)
            if action.TYPE == "risk" and state.high_deck:
                highs.add(state.high_deck[-1])
            state.apply(seat, action)
            d.apply(seat, sim.action_of(action))
        assert d.phase == sim.OVER
        assert d.scores == state.result["scores"], g
        assert d.winner() == state.result["winners"][0]
    assert len(highs) == 14  # every High card was resolved by both
    assert exact > 2000


def test_played_out_by_the_heuristic_a_deal_ends_at_the_reveal():
    for g in range(30):
        n = 3 + g % 3
        state = GAME.new_state(n, {}, dealer=g % n, seed=f"out-{g}")
        d = sim.Sim.of_state(state, random.Random(g))
        before = d.copy()
        d.play_out()
        assert d.phase == sim.OVER and sorted(d.scores) == list(range(n))
        assert before.phase == sim.BID and before.scores is None  # a copy is its own deal
        assert 0.0 <= d.value(0, 0.1) <= 1.1


def test_hand_keys_order_as_the_engine():
    from server.engine.prophets_gambit.hands import best_hand

    rng = random.Random(5)
    for _ in range(3000):
        a, b = (rng.sample(range(40), rng.choice((4, 5, 6))) for _ in range(2))
        ka = best_hand([sim.CODE[c] for c in a], 5)[0]
        kb = best_hand([sim.CODE[c] for c in b], 5)[0]
        assert (sim.best(a) > sim.best(b)) == (ka > kb)
        assert (sim.best(a) == sim.best(b)) == (ka == kb)


def test_fate_better_counts_as_the_heuristics_fate_choice():
    """``fate_better`` (the rollouts' Fate choice and the strong bot's reading of an
    opponent's) counts the cards that beat a Fate exactly as the heuristic's potentials do."""
    from server.bots.prophets_gambit import potential

    rng = random.Random(9)
    for _ in range(2000):
        cards = rng.sample(range(40), 16)
        size = rng.choice((2, 3, 4, 5, 6))
        hand, fate, focus = cards[:size], cards[size], cards[size + 1]
        others = cards[size + 2 :]
        if rng.random() < 0.1:
            focus = -1
        codes = [sim.CODE[c] for c in hand]
        fixed = [sim.CODE[focus]] if focus >= 0 else []
        now = potential(codes, [sim.CODE[fate], *fixed])
        want = sum(potential(codes, [sim.CODE[c], *fixed]) > now for c in others)
        assert sim.fate_better(hand, fate, focus, others) == want
