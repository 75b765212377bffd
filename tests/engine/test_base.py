"""The shared pieces of every engine: ruling 2's tie order, pots, options, deck stacking."""

import pytest

from server.engine.base import OptionSpec, Outcome, tie_order
from server.engine.errors import BadSetup
from server.engine.rng import order_deck


def test_tie_order_starts_left_of_dealer_and_ends_with_dealer():
    assert tie_order(0, 4) == [1, 2, 3, 0]
    assert tie_order(2, 3) == [0, 1, 2]


def test_payout_single_winner_takes_all_antes():
    out = Outcome(ranking=[2, 0, 1], scores=[1, 0, 2], winners=[2])
    assert out.payouts(10) == [0, 0, 30]


def test_payout_split_gives_remainder_in_winner_order():
    out = Outcome(ranking=[3, 1, 0, 2], scores=[0, 5, 0, 5], winners=[3, 1])
    # pot of 4 x 5 = 20 splits 10/10; with stake 3 the pot is 12 → 6/6
    assert out.payouts(5) == [0, 10, 0, 10]
    out3 = Outcome(ranking=[0, 1, 2], scores=[5, 5, 5], winners=[1, 2, 0])
    assert out3.payouts(1) == [1, 1, 1]
    out_rem = Outcome(ranking=[0, 1, 2], scores=[5, 5, 0], winners=[1, 0])
    assert out_rem.payouts(1) == [1, 2, 0]  # 3 chips: seat 1 is first in line for the odd chip


def test_payout_refund_and_contributions():
    out = Outcome(
        ranking=[0, 1, 2, 3], scores=[0] * 4, winners=[0], refund=True, contributions=[1, 3, 1, 2]
    )
    assert out.payouts(10) == [10, 30, 10, 20]
    raised = Outcome(
        ranking=[0, 1, 2, 3], scores=[9, 0, 0, 0], winners=[0], contributions=[1, 3, 1, 2]
    )
    assert raised.payouts(10) == [70, 0, 0, 0]


def test_option_spec_checks():
    spec = OptionSpec(default=32, choices=(32, 52))
    assert spec.check("deck", 52) == 52
    with pytest.raises(BadSetup):
        spec.check("deck", 40)
    rng = OptionSpec(default=0, minimum=0, maximum=17)
    with pytest.raises(BadSetup):
        rng.check("cap", 18)
    with pytest.raises(BadSetup):
        rng.check("cap", "3")


def test_order_deck_stacks_then_shuffles_rest():
    cards = [str(i) for i in range(20)]
    deck = order_deck(cards, ["7", "3"], seed=5, salt="x")
    assert deck[:2] == ["7", "3"] and sorted(deck, key=int) == cards
    assert deck == order_deck(cards, ["7", "3"], seed=5, salt="x")
    assert deck[2:] != order_deck(cards, ["7", "3"], seed=6, salt="x")[2:]
    with pytest.raises(ValueError):
        order_deck(cards, ["7", "7"], seed=1, salt="x")
    with pytest.raises(ValueError):
        order_deck(cards, ["99"], seed=1, salt="x")


def test_a_seats_view_is_made_from_its_last_only_when_nothing_of_its_own_changed():
    """``public_events_since`` names the seats that got an event of their own; a view made by
    ``private_view_since`` is the one ``private_view`` makes, and there is none when the seat
    decides, or its game part changed, or the views' events start elsewhere now."""
    from server.engine import get_game

    state = get_game("prophets_gambit").new_state(5, {}, seed=3)
    for seat in sorted(state.pending()):  # everyone bids; then one seat decides at a time
        state.apply(seat, state.legal_actions(seat)[0])
    asked = set(state.pending())
    assert len(asked) == 1
    idle = next(s for s in range(5) if s not in asked)
    before = {s: state.private_view(s) for s in [*range(5), None]}
    mark = state.events_mark()
    assert state.public_events_since(mark) == ([], set())
    for seat, view in before.items():
        made = state.private_view_since(seat, view, [])
        assert (made is view) == (seat not in asked), seat
    # An event for one seat alone: that seat is named, the others see only the public one.
    state.events.append({"e": "note", "to": [idle]})
    state.events.append({"e": "table_talk"})
    public, own = state.public_events_since(mark)
    assert public == [{"e": "table_talk"}] and own == {idle}
    other = next(s for s in range(5) if s not in asked and s != idle)
    made = state.private_view_since(other, before[other], public)
    assert made == state.private_view(other) and list(made) == list(state.private_view(other))
    # A hand that changed is seen; an old mark (another game's log) is not one to build on.
    state.hands[other].append("HMA")
    assert state.private_view_since(other, before[other], public) is None
    assert get_game("prophets_gambit").new_state(5, {}, seed=3).public_events_since(mark) is None
