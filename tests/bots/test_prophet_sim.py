"""The strong Prophet bot's fast round plays by the engine's rules and picks the heuristic bot's
bids and cards: its rollouts then model heuristic opponents exactly (up to hidden cards).

Whole games of every player count (3-6), deck, schedule and some caps are played in the engine
(random actions mixed with the heuristic's) and, round by round, in the simulator: at every step
the seat to act, its legal actions and the heuristic's choice must agree, every trick's winner
too, and each round's scores must be the engine's score sheet (so the totals at the end agree).
"""

from __future__ import annotations

import random

import pytest

from protocol.actions import Bid, Play
from server.bots.prophet import ProphetBot
from server.bots.strong import prophet_sim as sim
from server.bots.strong.prophet import StrongProphetBot
from server.engine import get_game
from server.engine.prophet import SCHEDULES

GAME = get_game("prophet")
BOT = ProphetBot(0)


def _setups():
    """(players, options) for every player count, deck and schedule, some capped."""
    out = []
    for i, (n, deck, kind) in enumerate(
        (n, deck, kind) for n in range(3, 7) for deck in (32, 52) for kind in SCHEDULES
    ):
        cap = (0, 3, 5)[i % 3]
        out.append((n, {"deck": deck, "schedule": kind, "cap": cap}))
    return out


def _sim_legal(r: sim.Round, seat: int) -> list[dict]:
    if r.bidding:
        return [Bid(b).to_wire() for b in r.allowed_bids()]
    return [Play(sim.CODE[c]).to_wire() for c in r.options(seat)]


def _sim_choice(r: sim.Round, seat: int) -> dict:
    if r.bidding:
        return Bid(sim.heuristic_bid(r.estimate(seat), r.allowed_bids())).to_wire()
    return Play(sim.CODE[sim.heuristic_card(r, seat, r.options(seat))]).to_wire()


def _apply(r: sim.Round, seat: int, action) -> None:
    if type(action) is Bid:
        r.bid(seat, action.tricks)
    else:
        r.play(seat, sim.INDEX[action.card])


@pytest.mark.parametrize(("players", "options"), _setups())
def test_the_simulator_follows_the_engine_step_by_step(players, options):
    choices = 0
    for g in range(2):
        rng = random.Random(f"{players}-{options}-{g}")
        state = GAME.new_state(players, options, dealer=g % players, seed=f"psim-{g}")
        totals = [0] * players
        while not state.is_over:
            r = sim.Round.of_state(state)  # a fresh round, as the engine dealt it
            number = state.round
            while state.round == number and not state.is_over:
                seat = state.turn
                assert r.turn == seat and r.bidding == (state.phase == "bid")
                view = state.view(seat)
                assert _sim_legal(r, seat) == view["legal"]
                if len(view["legal"]) > 1:
                    choices += 1
                    assert _sim_choice(r, seat) == BOT.decide(view), (view["hand"], view["trick"])
                legal = state.legal_actions(seat)
                heuristic = BOT.choose(view)
                action = rng.choice(legal) if rng.random() < 0.35 else heuristic
                tricks_before = sum(state.tricks)
                state.apply(seat, action)
                _apply(r, seat, action)
                if state.round == number and sum(state.tricks) > tricks_before:
                    assert r.winner == state.last_trick["winner"]
            assert r.turn == -1
            assert r.winner == state.last_trick["winner"]
            scores = [r.score(s) for s in range(players)]
            assert scores == state.sheet[number - 1]
            totals = [a + b for a, b in zip(totals, scores, strict=True)]
        assert totals == state.outcome().scores
    assert choices > 0


def test_a_played_out_round_scores_as_the_engine_does():
    for g in range(24):
        n = 3 + g % 4
        state = GAME.new_state(n, {"schedule": "fixed", "cap": 5}, dealer=g % n, seed=f"out-{g}")
        for _ in range(random.Random(g).randrange(4 * n)):
            state.apply(state.turn, BOT.choose(state.view(state.turn)))
        r = sim.Round.of_state(state)
        r.play_out()
        while state.round == 1:
            state.apply(state.turn, BOT.choose(state.view(state.turn)))
        assert [r.score(s) for s in range(n)] == state.sheet[0]


def test_a_world_built_from_the_view_and_the_true_hands_is_the_engines_round():
    """The strong bot's world, when its sample happens to deal the true hidden hands."""
    for g in range(24):
        n = 3 + g % 4
        options = {"schedule": "fixed", "cap": 5, "deck": (32, 52)[g % 2]}
        state = GAME.new_state(n, options, dealer=g % n, seed=f"view-{g}")
        for _ in range(random.Random(g).randrange(5 * n)):
            state.apply(state.turn, BOT.choose(state.view(state.turn)))
        seat = state.turn
        base = StrongProphetBot(0, iterations=1).base(state.view(seat))
        hidden = {s: [sim.index(c) for c in state.hands[s]] for s in range(n) if s != seat}
        world = base.world_of(hidden)
        truth = sim.Round.of_state(state)
        for field in sim.Round.__slots__:
            assert getattr(world, field) == getattr(truth, field), field


def test_the_strong_bot_searches_its_worlds_though_the_bids_turn_most_deals_down():
    """Bids made turn most sampled deals down; a sample draws again (``DRAW_TRIES``) rather
    than failing, so the search does not give up after ``MAX_FAILURES`` rejected deals with
    a few dozen worlds whatever its budget (as the engine-bound bot did)."""
    state = GAME.new_state(4, {"schedule": "fixed", "cap": 7}, dealer=0, seed="bids-turn")
    bot = StrongProphetBot(0, iterations=120)
    searched = []
    while state.round == 1:
        seat = state.turn
        view = state.view(seat)
        if len(view["legal"]) > 1 and any(b is not None for b in view["bids"]):
            bot.choose(view)
            searched.append(bot.last_worlds)
        state.apply(seat, BOT.choose(view))
    assert len(searched) > 10 and all(w == 120 for w in searched), searched
