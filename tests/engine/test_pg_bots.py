"""The Prophet's Gambit bots: always legal, and the heuristic one clearly beats random play.

Measured when written: one heuristic seat against three random seats won 277 of 400
four-player deals (69%; chance is 25%), with the heuristic seat and the dealer rotating.
The assertion asks for 40%: with a true rate near 69% over 400 deals (standard deviation
about 2.4 points) that fails only if the bot gets markedly worse.
"""

from __future__ import annotations

import pytest

from protocol.actions import Draw
from server.bots.base import RandomBot
from server.bots.prophets_gambit import ProphetsGambitBot, potential
from server.engine.prophets_gambit import GAME

from .test_pg_rulings import act, bid, deal, play_plan, ready


def play_deal(bots, seed, dealer, n=4):
    """One deal driven through views only; every chosen action must be in ``legal``."""
    st = GAME.new_state(n, dealer=dealer, seed=seed)
    while not st.is_over:
        for seat in sorted(st.pending()):
            view = st.view(seat)
            action = bots[seat].choose(view)
            assert action.to_wire() in view["legal"], (seat, action, view["ask"])
            st.apply(seat, action)
            break
    return st


def test_heuristic_beats_random_over_400_deals():
    deals, wins = 400, 0
    for i in range(deals):
        hero, dealer = i % 4, (i // 4) % 4
        bots = [ProphetsGambitBot(i) if s == hero else RandomBot(i * 10 + s) for s in range(4)]
        st = play_deal(bots, seed=f"bots-{i}", dealer=dealer)
        wins += st.outcome().winners == [hero]
    assert wins / deals >= 0.40, f"heuristic won {wins} of {deals}"


def test_every_player_count_and_bot_mix_stays_legal():
    for n in (3, 4, 5):
        for i in range(20):
            bots = [ProphetsGambitBot(i + s) if s % 2 else RandomBot(i + s) for s in range(n)]
            st = play_deal(bots, seed=f"mix-{n}-{i}", dealer=i % n, n=n)
            assert st.outcome() is not None


def test_bot_draws_on_the_bonus_then_discards_its_worst_card():
    st = ready()
    bot = ProphetsGambitBot(0)
    act(st, 1, "play", card="T5")  # earns the bonus
    assert bot.choose(st.view(1)) == Draw()
    act(st, 1, "draw")  # draws SM; hand S1 T2 C3 G4 SM, Fate T8, Focus TM
    choice = bot.choose(st.view(1))
    hand = st.view(1)["hand"]
    kept = [c for c in hand if c != choice.card]
    best = max(potential([c for c in hand if c != x], ["T8", "TM"]) for x in hand)
    assert potential(kept, ["T8", "TM"]) == best
    assert choice.card != "SM"  # the Master pairs with the Focus: a pair is kept


@pytest.mark.parametrize(
    ("focus", "decision"),
    [
        # Seat 2's two pairs (3s and 2s) do not need the Focus; a Master as Focus pairs with
        # any Master an opponent holds, and a fifth card helps them more: kill it.
        ("GM", "kill"),
        # G3 turns the two pairs into a Fortune: save it.
        ("G3", "save"),
    ],
)
def test_bot_execution_weighs_the_focus(focus, decision):
    hands = {
        1: ["T9", "C4", "G4", "T5", "C5", "S6"],
        2: ["S9", "S2", "T2", "S3", "C8", "G8"],
        0: ["G7", "T1", "C1", "G5", "T6", "C6"],
    }
    st = deal(3, 0, focus, {1: "S4", 2: "T3", 0: "G1"}, hands)
    bid(st, {1: "T9", 2: "S9", 0: "G7"})
    play_plan(st, {1: ["C4", "G4"], 2: ["C8", "G8"], 0: ["T1", "C1"]})
    view = st.view(2)
    assert view["ask"]["kind"] == "execution" and sorted(view["hand"]) == ["S2", "S3", "T2"]
    assert decision == ProphetsGambitBot(1).choose(view).TYPE
