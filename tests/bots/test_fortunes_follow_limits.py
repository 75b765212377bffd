"""The strong Fortunes bot's worlds keep out the cards an opponent's follows showed it did
not hold: a heuristic opponent plays the card it likes best, so any card it likes better that
was a legal play then is not in its hand."""

from __future__ import annotations

import random

from server.bots.fortunes import FortunesBot
from server.bots.strong import fortunes as strong_fortunes
from server.bots.strong import fortunes_sim as sim
from server.bots.strong.fortunes import _Base
from server.engine import get_game

GAME = get_game("fortunes")


def _positions(games: int, noise: float, tag: str):
    """Every position with a choice, with the engine's state: heuristic bots play, a card
    at random with chance ``noise`` (players who are not the heuristic)."""
    bot = FortunesBot(0)
    for g in range(games):
        rng = random.Random(g)
        state = GAME.new_state(4, {"betting": "ante"}, dealer=g % 4, seed=f"{tag}-{g}")
        while not state.is_over:
            seat = state.turn
            view = state.view(seat)
            if len(view["legal"]) > 1:
                yield state, view
            if rng.random() < noise:
                action = rng.choice(state.legal_actions(seat))
            else:
                action = bot.choose(view)
            state.apply(seat, action)


def test_heuristic_opponents_never_hold_a_card_their_follows_ruled_out():
    limited = worlds = leaks = 0
    for state, view in _positions(12, 0.0, "lim"):
        base = _Base(view)
        for seat, cards in base.limits.items():
            assert (seat - base.me) % 2  # opponents only
            assert cards <= set(base.unseen)
            assert not cards & {sim.INDEX[c] for c in state.hands[seat]}
            limited += len(cards)
        # and the worlds dealt keep them out (but for the rare world the limits' few ways
        # were not found in a few shuffles: dealt by the voids alone)
        for k in range(3):
            dealt = base.deal(random.Random(k))
            assert dealt is not None
            worlds += 1
            leaks += any(cards & set(dealt[str(s)]) for s, cards in base.limits.items())
    assert limited > 1000
    assert leaks < 0.01 * worlds


def test_worlds_are_dealt_when_the_opponents_are_not_the_heuristic():
    """Opponents who play at random break the limits: a seat seen playing a card its own
    follow ruled out is not limited, and when the limits leave no deal the voids alone do."""
    unlimited = fallback = tries = missing = 0
    for _, view in _positions(12, 0.5, "rnd"):
        base = _Base(view)
        for seat in range(4):
            if (seat - base.me) % 2:
                for card in base.played_by[seat]:
                    assert card not in base.limits.get(seat, set())
        for k in range(3):
            rng = random.Random(k)
            pool = base.unseen[:]
            strict = False
            for _ in range(20):
                rng.shuffle(pool)
                strict = strict or base._fill(pool, base.places) is not None
            dealt = base.deal(random.Random(k))
            tries += 1
            if dealt is None:  # (the voids alone can fail a shuffle too, as before)
                missing += 1
                continue
            for seat in range(4):
                if seat != base.me:
                    hand = dealt[str(seat)]
                    assert len(hand) == base.sizes[str(seat)]
                    assert not any(base.voids[seat] >> sim.SUIT[c] & 1 for c in hand)
            fallback += not strict
        unlimited += not base.limits
    assert fallback > 0 and unlimited > 0
    assert missing < 0.02 * tries


def test_leads_rule_out_cards_the_follows_do_not(monkeypatch):
    """A lead tells too: the cards the leader values above its lead whatever its hand."""
    views = [view for _, view in _positions(4, 0.0, "lead")]
    with_leads = sum(len(c) for v in views for c in _Base(v).limits.values())
    monkeypatch.setattr(strong_fortunes, "LEAD_LIMITS", False)
    follows_only = sum(len(c) for v in views for c in _Base(v).limits.values())
    assert with_leads > follows_only * 1.1
