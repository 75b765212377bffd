"""The strong Fortunes bot's fast deal plays by the engine's rules and picks the heuristic
bot's cards: its rollouts then model heuristic opponents exactly (up to hidden cards)."""

from __future__ import annotations

import random

from protocol.cards import FORTUNES_DECK
from server.bots.fortunes import FortunesBot
from server.bots.strong import fortunes as strong_fortunes
from server.bots.strong import fortunes_sim as sim
from server.bots.strong.fortunes import _Base
from server.bots.strong.hidden import deal_hidden
from server.engine import get_game

GAME = get_game("fortunes")


def _deal(state):
    """The engine's state as a fast deal: rebuilt from the seat to play's view and the true
    hidden hands (what a world is when the sample happens to be right)."""
    me = state.turn
    dealt = {str(s): [sim.INDEX[c] for c in state.hands[s]] for s in range(4) if s != me}
    dealt["aside"] = [sim.INDEX[c] for c in state.set_aside]
    return _Base(state.view(me)).replayed(random.Random(0), dealt)


def _high_minus_low(state):
    high = [s for s in range(4) if (s - state.dealer) % 2 == 0]
    return sum(state.scores[s] if s in high else -state.scores[s] for s in range(4))


def test_the_fast_deal_lists_and_picks_the_heuristic_bots_cards():
    bot = FortunesBot(0)
    choices = 0
    for g in range(12):
        rng = random.Random(g)
        state = GAME.new_state(4, {"betting": "ante"}, dealer=g % 4, seed=f"sim-{g}")
        while not state.is_over:
            seat = state.turn
            view = state.view(seat)
            deal, _ = _deal(state)
            assert deal.diff == _high_minus_low(state)
            cards = deal.options(seat)
            assert [FORTUNES_DECK[c] for c in cards] == [a["card"] for a in view["legal"]]
            if len(cards) > 1:
                choices += 1
                mine = FORTUNES_DECK[sim.heuristic_card(deal, seat, cards)]
                assert mine == bot.choose(view).card, (g, view["trick"], view["hand"])
            # Some random cards too, so the positions are not only the heuristic's own.
            legal = state.legal_actions(seat)
            action = rng.choice(legal) if rng.random() < 0.3 else bot.choose(view)
            state.apply(seat, action)
    assert choices > 300


def test_a_played_out_deal_scores_as_the_engine_does():
    bot = FortunesBot(0)
    for g in range(12):
        state = GAME.new_state(4, {"betting": "ante"}, dealer=g % 4, seed=f"out-{g}")
        for _ in range(random.Random(g).randrange(40)):
            state.apply(state.turn, bot.choose(state.view(state.turn)))
        deal, misses = _deal(state)
        assert misses == 0  # the heuristic opponents' plays, replayed, are its own
        diff = deal.play_out()
        while not state.is_over:
            state.apply(state.turn, bot.choose(state.view(state.turn)))
        assert diff == _high_minus_low(state)


def _replayed_in_full(base, dealt):
    """The world and misses as the bot first computed them (the whole deal replayed on each
    world, the public state with it): what :meth:`_Base.replayed` must still return."""
    me = base.me
    held = [base.hand if s == me else dealt[str(s)] for s in range(4)]
    d = sim.Deal.of(
        [sorted(held[s] + base.played_by[s]) for s in range(4)],
        left=list(sim.SUIT_SIZE),
        voids=[0, 0, 0, 0],
        dealer=base.dealer,
        trick=[],
        led=None,
        direction=sim.HIGH,
        stars_free=False,
        turn=base.dealer,
        trick_no=1,
        diff=0,
    )
    misses = 0
    for seat, card in base.history:
        if (seat - me) % 2:
            cards = d.options(seat)
            if len(cards) > 1 and sim.heuristic_card(d, seat, cards) != card:
                misses += 1
        d.play(seat, card)
    return d, misses


def _slots(deal):
    return {name: getattr(deal, name) for name in sim.Deal.__slots__}


def _void_filters(base):
    """``deal_hidden``'s filters for the voids ``base`` saw (what its deal keeps out when
    ``FOLLOW_LIMITS`` is off)."""
    return {
        str(s): (lambda v: lambda c: not v >> sim.SUIT[c] & 1)(base.voids[s])
        for s in range(4)
        if s != base.me and base.voids[s]
    }


def test_the_public_replay_gives_the_worlds_and_misses_of_the_full_one(monkeypatch):
    monkeypatch.setattr(strong_fortunes, "FOLLOW_LIMITS", False)
    bot = FortunesBot(0)
    checked = missed = 0
    for g in range(16):
        rng = random.Random(g)
        state = GAME.new_state(4, {"betting": "ante"}, dealer=g % 4, seed=f"rep-{g}")
        while not state.is_over:
            seat = state.turn
            view = state.view(seat)
            if len(view["legal"]) > 1 and rng.random() < 0.5:
                base = _Base(view)
                for k in range(6):
                    draw = random.Random(k)
                    got = base.replayed(random.Random(k))
                    dealt = deal_hidden(base.unseen, base.sizes, _void_filters(base), draw)
                    if dealt is None:
                        assert got is None
                        continue
                    assert got is not None
                    want = _replayed_in_full(base, dealt)
                    assert (_slots(got[0]), got[1]) == (_slots(want[0]), want[1])
                    checked += 1
                    missed += want[1] > 0
            # Random cards too: opponents who are not the heuristic, so worlds miss.
            legal = state.legal_actions(seat)
            action = rng.choice(legal) if rng.random() < 0.4 else bot.choose(view)
            state.apply(seat, action)
    assert checked > 1000 and missed > 300


def test_play_out_plays_the_steps_options_play_and_heuristic_card_would():
    """``Deal.play_out`` writes :meth:`Deal.options` and :meth:`Deal.play` out in its loop:
    from many positions (random plays on the way, so not only the heuristic's own), the
    deal it ends in is the one those steps reach."""
    compared = 0
    for g in range(40):
        rng = random.Random(g)
        state = GAME.new_state(4, {"betting": "ante"}, dealer=g % 4, seed=f"po-{g}")
        while not state.is_over:
            if rng.random() < 0.25:
                fast, _ = _deal(state)
                slow = fast.copy()
                fast.play_out()
                while slow.trick_no <= sim.TRICKS:
                    seat = slow.turn
                    cards = slow.options(seat)
                    card = cards[0] if len(cards) == 1 else sim.heuristic_card(slow, seat, cards)
                    slow.play(seat, card)
                assert _slots(fast) == _slots(slow)
                compared += 1
            state.apply(state.turn, rng.choice(state.legal_actions(state.turn)))
    assert compared > 300


def test_follow_values_rank_cards_as_heuristic_card_does():
    follows = 0
    for g in range(30):
        rng = random.Random(g)
        state = GAME.new_state(4, {"betting": "ante"}, dealer=g % 4, seed=f"fv-{g}")
        while not state.is_over:
            seat = state.turn
            deal, _ = _deal(state)
            cards = deal.options(seat)
            if deal.led is not None and len(cards) > 1:
                unseen_stars = deal.left[sim.STAR] - deal.counts[seat][sim.STAR]
                risky = deal.led != sim.STAR and len(deal.trick) < 3 and unseen_stars > 0
                values = sim.follow_values(deal, seat, cards, risky)
                first_best = cards[values.index(max(values))]
                assert first_best == sim.heuristic_card(deal, seat, cards)
                follows += 1
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert follows > 500
