"""Prophet's Gambit rulings 1–15 and every High card, each reached with a stacked deck.

Deal layout (see ``server.engine.prophets_gambit.state``): the Focus, one Fate per seat from
the dealer's left, then six-card hands in blocks from the dealer's left, then the draws; High
codes anywhere in the list stack the High deck. :func:`deal` builds that list from a few
named cards and fills the rest with cards nobody cares about.
"""

from __future__ import annotations

import random

import pytest

from protocol.actions import Bid, BidCard, Draw, Pass, Play, Stay, Take, Target, action_from_wire
from protocol.cards import TAROKKA_COMMON, TAROKKA_DECK
from server.engine.base import tie_order
from server.engine.errors import BadSetup, IllegalAction, MalformedAction, OutOfTurn
from server.engine.prophets_gambit import GAME
from tests.engine.pg_knowledge import pg_glimpses
from tests.engine.play import is_hidden_place, owner, play_out, strings_in

FILLER = list(reversed(TAROKKA_COMMON))


def deal(n=3, dealer=0, focus=None, fates=None, hands=None, draws=(), high=(), seed=0):
    """A new deal with the named cards stacked; unnamed Fates and hand slots get filler."""
    fates = dict(fates or {})
    hands = {s: list(h) for s, h in (hands or {}).items()}
    used = {focus, *fates.values(), *draws, *(c for h in hands.values() for c in h)}
    filler = iter(c for c in FILLER if c not in used)
    focus = focus or next(filler)
    seats = tie_order(dealer, n)
    for s in seats:
        fates.setdefault(s, next(filler))
    for s in seats:
        hand = hands.setdefault(s, [])
        while len(hand) < 6:
            hand.append(next(filler))
    stack = [focus, *(fates[s] for s in seats), *(c for s in seats for c in hands[s])]
    return GAME.new_state(n, dealer=dealer, seed=seed, deck=[*stack, *draws, *high])


def bid(st, cards):
    for seat, card in cards.items():
        st.apply(seat, BidCard(card))


def kinds(st):
    return {seat: ask.kind for seat, ask in st.pending().items()}


def only(st):
    """The one seat that must decide now and its ask kind."""
    (seat, ask), *rest = st.pending().items()
    assert not rest, st.pending()
    return seat, ask.kind


def act(st, who, type_, **fields):
    st.apply(who, action_from_wire({"type": type_, **fields}))


def events(st, kind, seat="spectator"):
    view_seat = None if seat == "spectator" else seat
    return [e for e in st.view(view_seat)["events"] if e["e"] == kind]


def play_plan(st, plan):
    """Play the planned cards turn by turn, keeping Fates and passing on Play bonuses; stop
    at the first decision the plan does not cover (a seat with no card left to play, the
    Execution, a High card's choice)."""
    plans = {s: list(cards) for s, cards in plan.items()}
    while st.phase == "round" and len(st.pending()) == 1:
        seat, kind = only(st)
        if kind == "bonus":
            act(st, seat, "pass")
        elif kind in ("fate", "turn") and plans.get(seat):
            if kind == "fate":
                act(st, seat, "keep")
            else:
                act(st, seat, "play", card=plans[seat].pop(0))
        else:
            return


def hidden_leaks(st, seat):
    """Hidden cards of other seats (or undealt) found in ``seat``'s view, events left aside."""
    hidden = {}
    for place, cards in st.card_locations().items():
        if is_hidden_place(place):
            for c in cards:
                hidden[c] = owner(place)
    view = st.view(seat)
    view.pop("events")
    return {s for s in strings_in(view) if s in hidden and hidden[s] != seat}


# The standard three-player table: dealer 0, so seat 1 deals first and bids the 9 to start.
HANDS3 = {
    1: ["S9", "S1", "T2", "C3", "G4", "T5"],
    2: ["C8", "C1", "G2", "S3", "T4", "C5"],
    0: ["G7", "G1", "S2", "T3", "C4", "G5"],
}
FATES3 = {1: "T8", 2: "G8", 0: "S8"}
FOCUS3 = "TM"
DRAWS3 = ("SM", "CM", "GM", "T9", "C9", "G9")
BIDS3 = {0: "G7", 1: "S9", 2: "C8"}


def ready(high=(), draws=DRAWS3, seed=0):
    """Three players after the Bid, seat 1 (showing S9) kept its Fate and is on turn."""
    st = deal(3, 0, FOCUS3, FATES3, HANDS3, draws, high, seed)
    bid(st, BIDS3)
    assert only(st) == (1, "fate")
    act(st, 1, "keep")
    assert only(st) == (1, "turn")
    return st


def card_count(st):
    return sorted(c for cards in st.card_locations().values() for c in cards)


# --- rulings 1–4: seats, ties, Masters, the deal ----------------------------------------------


def test_ruling1_bonus_looks_right_and_turns_go_left():
    st = ready()
    act(st, 1, "play", card="T5")  # right of seat 1 is seat 0 showing G7: 5 < 7
    assert only(st) == (1, "bonus")
    act(st, 1, "pass")
    # Seat 2's right is seat 1 (T5); its left, seat 0, shows G7. C5 is not lower than T5.
    act(st, 2, "play", card="C5")
    assert only(st) == (0, "turn")
    assert [e["seat"] for e in events(st, "turn")] == [1, 2, 0]
    assert [e["bonus"] for e in events(st, "play")] == [True, False]


@pytest.mark.parametrize(
    ("dealer", "bids", "starter"),
    [
        (1, {0: "S9", 1: "C9", 2: "G1", 3: "T9"}, 3),  # tie order 2, 3, 0, 1
        (1, {0: "S9", 1: "C9", 2: "G1", 3: "T2"}, 0),  # the dealer comes last
        (3, {0: "S5", 1: "C5", 2: "G5", 3: "T5"}, 0),  # all tied: the dealer's left
    ],
)
def test_ruling2_ties_go_to_the_dealers_left_first(dealer, bids, starter):
    st = deal(4, dealer, hands={s: [c] for s, c in bids.items()})
    bid(st, bids)
    assert only(st) == (starter, "fate")


@pytest.mark.parametrize(
    ("bids", "starter"),
    [
        ({0: "TM", 1: "CM", 2: "GM", 3: "S1"}, 3),  # a 1 beats Masters: they have no number
        ({0: "TM", 1: "CM", 2: "GM", 3: "SM"}, 2),  # all Masters tie: dealer 1's left
    ],
)
def test_ruling3_masters_have_no_number(bids, starter):
    st = deal(4, 1, hands={s: [c] for s, c in bids.items()})
    bid(st, bids)
    assert only(st) == (starter, "fate")


def test_ruling4_deal_layout():
    hands = {
        3: ["T1", "T2", "T3", "T4", "T5", "T6"],
        0: ["C1", "C2", "C3", "C4", "C5", "C6"],
        1: ["G1", "G2", "G3", "G4", "G5", "G6"],
        2: ["S5", "S6", "S7", "S8", "S9", "SM"],
    }
    order = ["GM", "S1", "S2", "S3", "S4", *(c for s in (3, 0, 1, 2) for c in hands[s]), "T7"]
    # High codes may sit anywhere in the list: they stack the High deck in their order.
    st = GAME.new_state(4, dealer=2, seed=5, deck=["HSE", *order[:10], "HDA", *order[10:]])
    assert st.focus == "GM"
    assert st.fates == ["S2", "S3", "S4", "S1"]  # seat 3 (dealer's left) got the first Fate
    assert st.hands == [hands[0], hands[1], hands[2], hands[3]]
    view = st.view(0)
    assert view["hand"] == hands[0] and view["fate"] == "S2" and view["focus"] == "GM"
    assert view["deck"] == 40 - 1 - 4 - 24 and view["high_deck"] == 14
    assert st.deck[-1] == "T7"  # the next draw
    assert st.high_deck[-2:] == ["HDA", "HSE"]  # HSE is turned first
    assert card_count(st) == sorted(TAROKKA_DECK)
    assert kinds(st) == {0: "bid", 1: "bid", 2: "bid", 3: "bid"}


def test_deck_stack_rejects_unknown_and_repeated_cards():
    with pytest.raises(BadSetup, match="not a card"):
        GAME.new_state(3, deck=["ZZ"])
    with pytest.raises(BadSetup, match="twice"):
        GAME.new_state(3, deck=["HSE", "S1", "HSE"])
    with pytest.raises(BadSetup, match="3 to 5"):
        GAME.new_state(6)


# --- ruling 5: the Bid ---------------------------------------------------------------------


def test_ruling5_bid_hidden_until_all_commit():
    st = deal(3, 0, FOCUS3, FATES3, HANDS3)
    act(st, 0, "bid", card="G7")
    assert st.view(0)["bid"] == "G7"
    for seat in (None, 1, 2):
        view = st.view(seat)
        assert "G7" not in set(strings_in(view))
        assert view["committed"] == [True, False, False]
        assert view.get("bid") is None
    with pytest.raises(OutOfTurn):
        act(st, 0, "bid", card="G1")
    act(st, 2, "bid", card="C8")
    assert st.view(1)["showing"] == [None, None, None]
    act(st, 1, "bid", card="S9")
    reveal = events(st, "bids")
    assert reveal == [{"e": "bids", "cards": ["G7", "S9", "C8"]}]
    assert st.view(None)["showing"] == ["G7", "S9", "C8"]
    assert st.view(None)["hand_sizes"] == [5, 5, 5]


# --- ruling 6: start of a round ---------------------------------------------------------------


def test_ruling6_starter_replaces_fate_privately_then_plays_first():
    st = deal(3, 0, FOCUS3, FATES3, HANDS3, DRAWS3)
    bid(st, BIDS3)
    assert only(st) == (1, "fate")
    act(st, 1, "replace")
    assert st.fates[1] == "SM" and st.discard == ["T8"]
    assert events(st, "replace_fate") == [{"e": "replace_fate", "seat": 1, "card": "T8"}]
    assert [e["card"] for e in events(st, "new_fate", seat=1)] == ["SM"]
    assert events(st, "new_fate", seat=2) == [] and "SM" not in set(strings_in(st.view(2)))
    assert st.view(1)["fate"] == "SM"
    assert only(st) == (1, "turn")


def test_ruling6_keeping_the_fate_changes_nothing():
    st = ready()
    assert st.fates[1] == "T8" and st.discard == []
    assert events(st, "keep_fate") == [{"e": "keep_fate", "seat": 1}]


def test_ruling6_round_two_starts_with_the_new_highest_card():
    st = ready()
    play_plan(st, {1: ["S1"], 2: ["C1"], 0: ["G1"]})
    # Every seat now shows a 1: the tie goes to seat 1, the dealer's left.
    assert st.round == 2
    assert only(st) == (1, "fate")
    st = ready()
    play_plan(st, {1: ["S1"], 2: ["T4"], 0: ["G1"]})
    assert st.round == 2 and only(st) == (2, "fate")
    assert st.view(None)["hand_sizes"] == [4, 4, 4]


# --- ruling 7: Play ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("right", "card", "bonus"),
    [
        ("G7", "T5", True),  # lower than the right's number
        ("G7", "T7", False),  # equal is not lower
        ("G7", "T8", False),  # higher
        ("G7", "TM", True),  # a Master always earns it
        ("GM", "T1", False),  # a Master on the right has no number to be lower than
        ("GM", "TM", True),
    ],
)
def test_ruling7_play_bonus(right, card, bonus):
    hands = {0: ["G7", "GM"], 1: ["S9", "T5", "T7", "T8", "TM", "T1"], 2: ["C8"]}
    st = deal(3, 0, hands=hands, draws=("C2",))
    bid(st, {0: right, 1: "S9", 2: "C8"})
    act(st, 1, "keep")
    act(st, 1, "play", card=card)
    assert st.view(None)["showing"][1] == card and st.view(None)["stacks"][1] == 2
    if not bonus:
        assert only(st) == (2, "turn")
        return
    assert only(st) == (1, "bonus")
    assert st.legal_actions(1) == [Draw(), Pass()]
    act(st, 1, "draw")
    assert "C2" in st.hands[1] and only(st) == (1, "discard")
    assert [e["cards"] for e in events(st, "drew", seat=1)] == [["C2"]]
    assert events(st, "drew", seat=0) == [] and events(st, "draw") != []
    act(st, 1, "discard", card="C2")
    assert st.discard == ["C2"] and len(st.hands[1]) == 4
    assert only(st) == (2, "turn")


def test_ruling7_bonus_can_be_passed_and_hands_shrink_one_per_turn():
    st = ready()
    assert st.view(None)["hand_sizes"] == [5, 5, 5]
    act(st, 1, "play", card="T5")
    act(st, 1, "pass")
    assert st.view(None)["hand_sizes"] == [5, 4, 5] and st.discard == []
    play_plan(st, {2: ["C1", "G2"], 0: ["G1", "S2"], 1: ["S1"]})
    assert st.view(None)["hand_sizes"] == [3, 3, 3]
    assert st.phase == "execution"


# --- ruling 8: Risk ---------------------------------------------------------------------------


def test_ruling8_risk_discards_turns_and_discards_the_high_card():
    st = ready(high=["HSE"])
    act(st, 1, "risk", card="S1")
    assert st.discard == ["S1"] and st.high_discard == ["HSE"]
    seen = [e for e in st.view(None)["events"] if e["e"] in ("discard", "high")]
    assert seen == [
        {"e": "discard", "seat": 1, "card": "S1", "why": "risk"},
        {"e": "high", "seat": 1, "card": "HSE"},
    ]
    assert st.view(None)["high_deck"] == 13 and len(st.hands[1]) == 4
    assert only(st) == (2, "turn")
    # the Risk is the seat's turn: the Bid card still shows
    assert st.view(None)["showing"][1] == "S9"


@pytest.mark.parametrize("card", ["HEX", "HIN"])
def test_ruling8_executioner_and_innocent_stay_in_front(card):
    st = ready(high=[card])
    act(st, 1, "risk", card="S1")
    assert st.card_locations()["front:1"] == [card]
    assert st.high_discard == [] and st.view(2)["fronts"] == [[], [card], []]


def test_risk_needs_a_high_card_left():
    st = ready()
    st.high_deck.clear()  # cannot happen in a deal (at most 10 Risks); the engine still copes
    assert all(a.TYPE == "play" for a in st.legal_actions(1))
    with pytest.raises(IllegalAction, match="High deck is empty"):
        act(st, 1, "risk", card="S1")


# --- ruling 9: the deck runs out --------------------------------------------------------------


def test_ruling9_empty_deck_reshuffles_the_discard_pile():
    # Five players leave 4 cards in the deck; five Play bonuses need five draws.
    hands = {
        1: ["S9", "S1"],
        2: ["T8", "SM"],
        3: ["C8", "TM"],
        4: ["G8", "CM"],
        0: ["S8", "GM"],
    }
    st = deal(5, 0, hands=hands, draws=("T1", "T2", "T3", "C1"))
    bid(st, {s: h[0] for s, h in hands.items()})
    act(st, 1, "keep")
    for seat in (1, 2, 3, 4, 0):
        act(st, seat, "play", card=hands[seat][1])
        act(st, seat, "draw")
        drawn = events(st, "drew", seat=seat)[-1]["cards"][0]
        act(st, seat, "discard", card=drawn)
    assert events(st, "reshuffle") == [{"e": "reshuffle", "cards": 4}]
    assert st.view(None)["deck"] == 3 and len(st.discard) == 1
    assert card_count(st) == sorted(TAROKKA_DECK)


def test_ruling9_draw_skipped_when_deck_and_pile_are_empty():
    """Not reachable in a real deal (deck + pile never fall below four cards), so the test
    empties both by hand to pin the rule: reshuffle what there is, then skip."""
    st = ready(high=["HHO"])
    st.deck.clear()
    act(st, 1, "risk", card="S1")  # the pile holds S1 only; Horseman draws two
    assert events(st, "reshuffle") == [{"e": "reshuffle", "cards": 1}]
    assert events(st, "draw_skipped") == [{"e": "draw_skipped", "seat": 1}]
    assert "S1" in st.hands[1]
    assert kinds(st) == {1: "discard"} and st.asks[1][1] == {"count": 1}
    act(st, 1, "discard", card="S1")
    assert len(st.hands[1]) == 4
    # A Play bonus with nothing to draw offers no draw at all.
    st.discard.clear()
    act(st, 2, "play", card="C1")  # lower than seat 1's S9
    assert only(st) == (0, "turn")


# --- rulings 10 and 11: the High cards --------------------------------------------------------


def test_artifact_swaps_fate_and_focus_known_to_all_even_after_mists():
    st = ready(high=["HAR", "HMI"])
    act(st, 1, "risk", card="S1")
    assert st.focus == "T8" and st.fates[1] == "TM"
    for seat in (None, 0, 2):
        assert st.view(seat)["open_fates"] == {"1": "TM"}
        assert st.view(seat)["focus"] == "T8"
    assert st.card_locations()["open_fate:1"] == ["TM"]
    act(st, 2, "risk", card="C1")  # Mists: seat 1's Fate moves on to seat 2
    assert st.fates == ["G8", "S8", "TM"]
    assert st.view(0)["open_fates"] == {"2": "TM"}
    assert st.card_locations()["open_fate:2"] == ["TM"] and "open_fate:1" not in st.card_locations()


def test_beast_everyone_discards_together_then_draws():
    st = ready(high=["HBE"])
    act(st, 1, "risk", card="S1")
    assert kinds(st) == {0: "beast", 1: "beast", 2: "beast"}
    act(st, 2, "discard", card="C1")
    act(st, 1, "discard", card="T2")
    assert st.discard == ["S1"]  # nobody sees a choice before all have chosen
    assert st.view(2)["picked"] == "C1" and "picked" not in st.view(0)
    assert "C1" not in set(strings_in(st.view(0)))
    act(st, 0, "discard", card="G1")
    assert st.discard == ["S1", "T2", "C1", "G1"]  # clockwise from the turner
    assert "SM" in st.hands[1] and "CM" in st.hands[2] and "GM" in st.hands[0]
    assert st.view(None)["hand_sizes"] == [5, 4, 5]
    assert only(st) == (2, "turn")


def test_broken_one_replaces_the_whole_hand():
    st = ready(high=["HBR"])
    act(st, 1, "risk", card="S1")
    assert st.discard == ["S1", "T2", "C3", "G4", "T5"]
    assert sorted(st.hands[1]) == sorted(["SM", "CM", "GM", "T9"])
    assert only(st) == (2, "turn")


def test_darklord_sees_a_hand_and_picks_the_discard():
    st = ready(high=["HDA"])
    act(st, 1, "risk", card="S1")
    assert only(st) == (1, "darklord")
    assert st.legal_actions(1) == [Target(2), Target(0)]
    act(st, 1, "target", seat=2)
    ask = st.view(1)["ask"]
    assert ask["kind"] == "darklord_pick" and ask["hand"] == ["C1", "G2", "S3", "T4", "C5"]
    assert hidden_leaks(st, 0) == set()  # seat 0 learns nothing of seat 2's hand
    act(st, 1, "pick", card="C5")
    assert st.discard == ["S1", "C5"] and "SM" in st.hands[2] and len(st.hands[2]) == 5
    assert [e["cards"] for e in events(st, "drew", seat=2)] == [["SM"]]
    assert only(st) == (2, "turn")


def test_donjon_discards_to_three_and_skips_to_the_reveal():
    st = ready(high=["HDO"])
    act(st, 1, "risk", card="S1")
    assert kinds(st) == {0: "donjon", 1: "donjon", 2: "donjon"}
    act(st, 0, "discard", card="G1")
    assert kinds(st) == {0: "donjon", 1: "donjon", 2: "donjon"}  # one card per action
    for seat, card in ((0, "S2"), (1, "T2"), (2, "C1"), (2, "G2")):
        act(st, seat, "discard", card=card)
    assert st.is_over and st.phase == "over"
    assert events(st, "execution") == [] and events(st, "turn") == [{"e": "turn", "seat": 1}]
    out = st.outcome()
    assert out.detail["killed"] is False and out.detail["donjon"] is True
    assert all(len(h["hand"]) == 3 and len(h["cards"]) == 5 for h in out.hands)


def test_executioner_decides_the_execution():
    st = ready(high=["HEX"])
    act(st, 1, "risk", card="S1")
    # Seat 2 ends with the highest number showing, but seat 1 holds the Executioner.
    play_plan(st, {2: ["G2", "C5"], 0: ["G1", "S2"], 1: ["T2"]})
    assert st.view(None)["showing"] == ["S2", "T2", "C5"]
    assert only(st) == (1, "execution")
    act(st, 1, "kill")
    assert st.outcome().detail["killed"] is True


def test_mists_rotate_fates_clockwise_privately():
    st = ready(high=["HMI"])
    act(st, 1, "risk", card="S1")
    assert st.fates == ["G8", "S8", "T8"]  # seat 0's S8 to seat 1, seat 1's T8 to seat 2 …
    assert [e["card"] for e in events(st, "fate", seat=2)] == ["T8"]
    assert events(st, "fate", seat="spectator") == []
    assert st.view(2)["fate"] == "T8" and hidden_leaks(st, 0) == set()


def test_ghost_takes_from_the_pile_then_discards():
    st = ready(high=["HGH"])
    st.discard.append(st.deck.pop())  # a card already in the pile (SM)
    act(st, 1, "risk", card="S1")
    assert only(st) == (1, "ghost")
    assert st.legal_actions(1) == [Take(c) for c in ("SM", "S1")]
    act(st, 1, "take", card="SM")
    assert only(st) == (1, "discard") and "SM" in st.hands[1]
    act(st, 1, "discard", card="T2")
    assert st.discard == ["S1", "T2"] and len(st.hands[1]) == 4


def test_horseman_draws_two_then_discards_two():
    st = ready(high=["HHO"])
    act(st, 1, "risk", card="S1")
    assert st.hands[1][-2:] == ["SM", "CM"]
    assert only(st) == (1, "discard")
    act(st, 1, "discard", card="T2")
    assert only(st) == (1, "discard")
    act(st, 1, "discard", card="C3")
    assert len(st.hands[1]) == 4 and only(st) == (2, "turn")


def _marionette(target_hand, order, n=4):
    """Seat 1 starts round 1 and turns the Marionette on seat 3 (who has not played)."""
    hands = {1: ["S9", "S1"], 2: ["C8"], 3: ["T7", *target_hand], 0: ["G8"]}
    st = deal(n, 0, hands=hands, high=["HMA"])
    bid(st, {0: "G8", 1: "S9", 2: "C8", 3: "T7"})
    act(st, 1, "keep")
    act(st, 1, "risk", card="S1")
    assert only(st) == (1, "marionette")
    assert [a.seat for a in st.legal_actions(1)] == [2, 3, 0]
    act(st, 1, "target", seat=3)
    assert only(st) == (1, "marionette_order")
    act(st, 1, order)
    return st


def test_marionette_highest_counts_as_the_targets_turn():
    st = _marionette(["C9", "C2", "G3", "S4", "T5"], "highest")
    assert st.shown[3] == ["T7", "C9"]  # the only highest card is played at once
    assert only(st) == (2, "turn")  # 9 is not lower than seat 2's C8: no bonus
    play_plan(st, {2: [st.hands[2][0]], 0: [st.hands[0][0]]})
    assert [e["seat"] for e in events(st, "turn")] == [1, 2, 0]  # seat 3 is skipped
    assert st.round == 2 and only(st)[1] == "fate"


def test_marionette_lowest_earns_the_play_bonus():
    st = _marionette(["C9", "C2", "G3", "S4", "T5"], "lowest")
    assert st.shown[3][-1] == "C2"
    assert only(st) == (3, "bonus")  # 2 is lower than seat 2's C8
    act(st, 3, "pass")
    assert only(st) == (2, "turn")


def test_marionette_ties_let_the_target_choose():
    st = _marionette(["C9", "G9", "G3", "S4", "T5"], "highest")
    assert only(st) == (3, "forced")
    assert st.legal_actions(3) == [Play("C9"), Play("G9")]
    with pytest.raises(IllegalAction, match="highest numbered card"):
        act(st, 3, "play", card="G3")
    act(st, 3, "play", card="G9")
    assert st.shown[3][-1] == "G9" and only(st) == (2, "turn")


def test_marionette_target_with_no_numbered_card_plays_any():
    # Round 2: seat 0 is left with four Masters and has not played yet this round.
    hands = {1: ["S9", "S1", "T1"], 2: ["C8", "C1"], 0: ["G7", "G1", "SM", "TM", "CM", "GM"]}
    st = deal(3, 0, hands=hands, high=["HMA"])
    bid(st, {0: "G7", 1: "S9", 2: "C8"})
    play_plan(st, {1: ["S1"], 2: ["C1"], 0: ["G1"]})
    assert st.round == 2 and only(st) == (1, "fate")
    act(st, 1, "keep")
    act(st, 1, "risk", card="T1")
    act(st, 1, "target", seat=0)
    act(st, 1, "lowest")
    assert only(st) == (0, "forced")
    assert sorted(a.card for a in st.legal_actions(0)) == ["CM", "GM", "SM", "TM"]
    act(st, 0, "play", card="TM")
    assert only(st) == (0, "bonus")  # a Master always earns the bonus


def test_marionette_without_an_eligible_player_does_nothing():
    st = ready(high=["HMA"])
    play_plan(st, {1: ["S1"], 2: ["C1"]})
    act(st, 0, "risk", card="G1")  # the last to act: nobody else is left to play
    assert events(st, "no_effect") == [{"e": "no_effect", "seat": 0, "card": "HMA"}]
    assert st.round == 2 and only(st)[1] == "fate"


def test_raven_passes_left_only_when_all_have_chosen():
    st = ready(high=["HRA"])
    act(st, 1, "risk", card="S1")
    assert kinds(st) == {0: "raven", 1: "raven", 2: "raven"}
    act(st, 1, "give", card="T2")
    act(st, 2, "give", card="C1")
    assert "T2" in st.hands[1] and "C1" in st.hands[2]
    assert st.view(2)["picked"] == "C1" and "picked" not in st.view(0)
    assert "C1" not in set(strings_in(st.view(0))) and "C1" not in set(strings_in(st.view(1)))
    act(st, 0, "give", card="G1")
    assert "G1" in st.hands[1] and "T2" in st.hands[2] and "C1" in st.hands[0]
    received = events(st, "received", seat=2)
    assert received == [{"e": "received", "seat": 2, "card": "T2", "from": 1}]
    assert events(st, "received", seat="spectator") == []
    assert only(st) == (2, "turn")


def test_seer_glimpse_lasts_until_the_next_action_and_stays_in_the_seats_own_record():
    st = ready(high=["HSE"])
    act(st, 1, "risk", card="S1")
    assert st.view(1)["glimpse"] == {"2": "G8", "0": "S8"}
    assert "glimpse" not in st.view(0) and "glimpse" not in st.view(None)
    assert events(st, "seer", seat=1) == [{"e": "seer", "seat": 1, "seats": [0, 2]}]
    # Remembered as a player remembers it: in its own record (which no screen shows), never
    # in anyone else's.
    assert events(st, "saw_fates", seat=1) == [
        {"e": "saw_fates", "seat": 1, "fates": {"2": "G8", "0": "S8"}}
    ]
    for other in (0, 2, None):
        logged = set(strings_in(st.view(other)["events"]))
        assert "G8" not in logged and "S8" not in logged
    play_plan(st, {2: ["C1"], 0: ["G1"]})
    assert only(st) == (1, "fate") and st.view(1)["glimpse"] == {"2": "G8", "0": "S8"}
    act(st, 1, "keep")
    assert "glimpse" not in st.view(1)


def test_tempter_swaps_with_a_random_card_privately():
    st = ready(high=["HTE"], seed=3)
    act(st, 1, "risk", card="S1")
    assert only(st) == (1, "tempter")
    act(st, 1, "give", card="T2")
    assert only(st) == (1, "tempter_target")
    before = list(st.hands[2])
    act(st, 1, "target", seat=2)
    (mine,) = events(st, "swap", seat=1)
    (theirs,) = events(st, "swap", seat=2)
    assert mine["gave"] == "T2" and mine["got"] in before
    assert theirs == {"e": "swap", "gave": mine["got"], "got": "T2"}
    assert "T2" in st.hands[2] and mine["got"] in st.hands[1]
    assert events(st, "swap", seat=0) == []
    again = ready(high=["HTE"], seed=3)
    for seat, action in st.history[len(again.history) :]:
        again.apply(seat, action_from_wire(action))
    assert again.hands == st.hands  # the random card comes from the seed


# --- ruling 10: the Innocent ------------------------------------------------------------------


def innocent_then(card):
    """Seat 1 turns the Innocent; seat 2 then turns ``card``."""
    st = ready(high=["HIN", card])
    act(st, 1, "risk", card="S1")
    act(st, 2, "risk", card="C1")
    return st


def test_innocent_skips_beast():
    st = innocent_then("HBE")
    assert kinds(st) == {0: "beast", 2: "beast"}
    hand1 = list(st.hands[1])
    act(st, 2, "discard", card="G2")
    act(st, 0, "discard", card="G1")
    assert st.hands[1] == hand1  # the holder neither discards nor draws
    assert st.discard == ["S1", "C1", "G2", "G1"]
    assert st.view(None)["hand_sizes"] == [5, 4, 4]
    assert sorted(e["seat"] for e in events(st, "draw")) == [0, 2]


def test_innocent_skips_raven():
    st = innocent_then("HRA")
    assert kinds(st) == {0: "raven", 2: "raven"}
    hand1 = list(st.hands[1])
    act(st, 2, "give", card="G2")
    act(st, 0, "give", card="G1")
    assert st.hands[1] == hand1 and "G2" in st.hands[0] and "G1" in st.hands[2]


def test_innocent_skips_mists():
    st = innocent_then("HMI")
    assert st.fates == ["G8", "T8", "S8"]  # seats 2 and 0 swapped; seat 1 kept T8


def test_innocent_skips_donjon_and_keeps_more_cards_for_the_best_five():
    st = innocent_then("HDO")
    assert kinds(st) == {0: "donjon", 2: "donjon"}
    for seat, card in ((0, "G1"), (0, "S2"), (2, "G2")):
        act(st, seat, "discard", card=card)
    assert st.is_over and len(st.hands[1]) == 4
    hand = st.outcome().hands[1]
    assert len(hand["hand"]) == 4 and len(hand["cards"]) == 5  # best five of six


def test_innocent_cannot_be_chosen_by_darklord():
    st = innocent_then("HDA")
    assert st.legal_actions(2) == [Target(0)]
    with pytest.raises(IllegalAction, match="Innocent"):
        act(st, 2, "target", seat=1)


def test_innocent_cannot_be_chosen_by_tempter():
    st = innocent_then("HTE")
    act(st, 2, "give", card="G2")
    assert st.legal_actions(2) == [Target(0)]


def test_innocent_fate_not_shown_by_seer():
    st = innocent_then("HSE")
    assert st.view(2)["glimpse"] == {"0": "S8"}


def test_innocent_cannot_be_chosen_by_marionette():
    # Seat 0 turns the Innocent last in round 1; in round 2 seat 1 turns the Marionette
    # before seat 0 has played, and still may only choose seat 2.
    st = ready(high=["HSE", "HIN", "HMA"])
    act(st, 1, "risk", card="S1")
    act(st, 2, "play", card="C1")
    act(st, 2, "pass")
    act(st, 0, "risk", card="G1")
    assert st.fronts[0] == ["HIN"] and only(st) == (1, "fate")
    act(st, 1, "keep")
    act(st, 1, "risk", card="T2")
    assert only(st) == (1, "marionette") and not st.turned[0]
    assert st.legal_actions(1) == [Target(2)]
    with pytest.raises(IllegalAction, match="Innocent"):
        act(st, 1, "target", seat=0)


def test_innocent_holder_is_touched_by_its_own_later_cards_and_by_the_execution():
    st = ready(high=["HIN", "HBE"])
    act(st, 1, "risk", card="S1")
    play_plan(st, {2: ["C1"], 0: ["G1"]})
    assert only(st) == (1, "fate")  # S9 still shows
    act(st, 1, "keep")
    act(st, 1, "risk", card="T2")
    assert kinds(st) == {0: "beast", 1: "beast", 2: "beast"}
    for seat, card in ((0, "S2"), (1, "C3"), (2, "G2")):
        act(st, seat, "discard", card=card)
    play_plan(st, {2: [st.hands[2][0]], 0: [st.hands[0][0]]})
    assert only(st) == (1, "execution")
    act(st, 1, "kill")
    assert len(st.outcome().hands[1]["cards"]) == 4  # no protection from the Execution


# --- rulings 12–14: the Execution and the Reveal ----------------------------------------------

# Final hands: seat 1 a Village 5-9 with the Focus G9, seat 2 a Guild, seat 0 nothing.
REVEAL_HANDS = {
    1: ["S9", "T5", "S6", "C7", "C8", "T1"],
    2: ["C9", "G1", "G3", "G5", "S8", "T2"],
    0: ["G8", "S1", "C2", "T3", "SM", "TM"],
}
REVEAL_FATES = {1: "T8", 2: "G7", 0: "C4"}
REVEAL_PLAYS = {1: ["C8", "T1"], 2: ["S8", "T2"], 0: ["SM", "TM"]}


def reveal_deal(dealer=0):
    st = deal(3, dealer, "G9", REVEAL_FATES, REVEAL_HANDS)
    bid(st, {1: "S9", 2: "C9", 0: "G8"})
    play_plan(st, REVEAL_PLAYS)
    return st


def test_ruling12_highest_showing_decides_and_save_keeps_five_cards():
    st = reveal_deal()
    assert st.view(None)["showing"] == ["TM", "T1", "T2"]
    assert only(st) == (2, "execution")
    act(st, 2, "save")
    out = st.outcome()
    assert out.ranking == [1, 2, 0] and out.winners == [1]
    assert out.hands[1]["category"] == "village" and out.hands[2]["category"] == "guild"
    assert sorted(out.hands[1]["cards"]) == sorted(["T5", "S6", "C7", "T8", "G9"])
    assert out.hands[1]["fate"] == "T8" and sorted(out.hands[1]["hand"]) == ["C7", "S6", "T5"]
    assert out.scores == [0, 2, 1] and out.contributions == [1, 1, 1]
    assert out.detail["killed"] is False and out.detail["focus"] == "G9"
    assert out.payouts(5) == [0, 15, 0]
    assert st.view(0)["reveal"][2] == {"hand": st.hands[2], "fate": "G7"}
    assert card_count(st) == sorted(TAROKKA_DECK)
    assert hidden_leaks(st, 0) == set()


def test_ruling12_kill_leaves_four_card_hands():
    st = reveal_deal()
    act(st, 2, "kill")
    out = st.outcome()
    assert all(len(h["cards"]) == 4 for h in out.hands)
    assert st.card_locations()["killed"] == ["G9"] and st.view(None)["focus"] is None
    # Ruling 14: four cards make no five-card category. Seat 1's 5-6-7-8 is no Village and
    # seat 2's four Glyphs G1 G3 G5 G7 no Guild: all three hold only a highest card.
    assert [h["category"] for h in out.hands] == ["highest_card"] * 3
    assert sorted(out.hands[2]["cards"]) == ["G1", "G3", "G5", "G7"]
    assert out.detail["killed"] is True and out.winners == [1]  # 8 high beats 7 and 4


def test_ruling12_execution_ties_go_by_ruling_2():
    st = ready()
    play_plan(st, {1: ["T5", "S1"], 2: ["T4", "C5"], 0: ["G5", "G1"]})
    assert st.view(None)["showing"] == ["G1", "S1", "C5"]
    assert only(st) == (2, "execution")
    st = ready()
    play_plan(st, {1: ["T5", "C3"], 2: ["T4", "S3"], 0: ["G5", "T3"]})
    assert only(st) == (1, "execution")  # all show 3: seat 1 is the dealer's left


@pytest.mark.parametrize(("dealer", "winner"), [(0, 1), (1, 2), (2, 0)])
def test_ruling14_equal_hands_tie_to_the_dealers_left(dealer, winner):
    # Every seat ends with one pair of 2s (the Focus G2 pairs with a 2) and kickers M 7 5 …
    hands = {
        0: ["S9", "S2", "TM", "C5", "G8", "G6"],
        1: ["T9", "T2", "CM", "S5", "C8", "C6"],
        2: ["C9", "C2", "SM", "T5", "T8", "T6"],
    }
    fates = {0: "G7", 1: "S7", 2: "T7"}
    st = deal(3, dealer, "G2", fates, hands)
    bid(st, {s: h[0] for s, h in hands.items()})
    play_plan(st, {s: h[4:] for s, h in hands.items()})
    (seat, _kind) = only(st)
    act(st, seat, "save")
    out = st.outcome()
    keys = out.detail["keys"]
    assert keys[0] == keys[1] == keys[2]
    assert out.winners == [winner] and out.ranking == tie_order(dealer, 3)


def test_ruling14_village_beats_guild_as_written():
    st = reveal_deal()
    act(st, 2, "save")
    keys = st.outcome().detail["keys"]
    assert keys[1] > keys[2]  # poker would rank the flush higher


# --- ruling 15 and the shape: errors, snapshots, replay, several deals ------------------------


def test_ruling15_deals_in_a_row_move_the_dealer_and_pay_the_winner():
    chips, dealer, dealers = [20] * 4, 0, []
    rng = random.Random(7)
    for number in range(6):
        dealers.append(dealer)
        st = GAME.new_state(4, dealer=dealer, seed=number)
        play_out(st, rng)
        out = st.outcome()
        pay = out.payouts(2)
        assert sum(pay) == 8 and pay[out.winners[0]] == 8
        chips = [c - 2 + p for c, p in zip(chips, pay, strict=True)]
        dealer = GAME.next_dealer(dealer, 4)
    assert dealers == [0, 1, 2, 3, 0, 1] and sum(chips) == 80 and chips != [20] * 4


@pytest.mark.parametrize(
    ("seat", "action", "error", "message"),
    [
        (1, Play("GM"), IllegalAction, "You do not hold GM"),
        (1, Draw(), IllegalAction, "Play a card or Risk"),
        (1, Target(0), IllegalAction, "Play a card or Risk"),
        (2, Play("C1"), OutOfTurn, "not your turn"),
        (1, {"type": "play", "card": "C1"}, MalformedAction, "one of the game's actions"),
        (1, Bid(3), MalformedAction, "A bid here takes the field 'card'"),  # Prophet's bid
        (1, Stay(), MalformedAction, "Unknown action 'stay'"),
        (7, Pass(), MalformedAction, "no such seat"),
        (1, ["play"], MalformedAction, "one of the game's actions"),
    ],
)
def test_refused_actions_change_nothing(seat, action, error, message):
    st = ready()
    before = st.snapshot()
    with pytest.raises(error, match=message):
        st.apply(seat, action)
    assert st.snapshot() == before


def test_refusals_after_the_end_and_in_simultaneous_choices():
    st = ready(high=["HBE"])
    act(st, 1, "risk", card="S1")
    act(st, 1, "discard", card="T2")
    before = st.snapshot()
    with pytest.raises(OutOfTurn):
        act(st, 1, "discard", card="C3")  # already chose
    with pytest.raises(IllegalAction, match="You do not hold S9"):
        act(st, 2, "discard", card="S9")
    assert st.snapshot() == before
    done = reveal_deal()
    act(done, 2, "save")
    with pytest.raises(OutOfTurn, match="over"):
        act(done, 1, "pass")


def test_snapshot_restore_and_replay():
    st = GAME.new_state(5, dealer=3, seed="snap")
    rng = random.Random(11)
    for _ in range(25):
        seat = rng.choice(sorted(st.pending()))
        st.apply(seat, rng.choice(st.legal_actions(seat)))
    copy = GAME.restore(st.snapshot())
    assert copy.snapshot() == st.snapshot()
    assert all(copy.view(s) == st.view(s) for s in (None, 0, 1, 2, 3, 4))
    play_out(st, random.Random(3))
    play_out(copy, random.Random(3))
    assert copy.snapshot() == st.snapshot() and copy.outcome() == st.outcome()
    again = GAME.replay(st.params, st.history)
    assert again.snapshot() == st.snapshot()


@pytest.mark.parametrize("n", [3, 4, 5])
def test_random_deals_keep_every_card_and_hide_what_is_hidden(n):
    for seed in range(30):
        st = GAME.new_state(n, dealer=seed % n, seed=seed)
        rng = random.Random(seed)
        # What each seat may know of others' hidden cards, from the rules (Seer, Darklord),
        # not from what the engine chose to put in its view.
        seen: dict[int | None, set[str]] = {s: set() for s in (None, *range(n))}
        while not st.is_over:
            assert card_count(st) == sorted(TAROKKA_DECK)
            for seat in (None, *range(n)):
                leaks = hidden_leaks(st, seat)
                assert leaks <= seen[seat], (seat, leaks)
            spectator = st.view(None)
            assert "hand" not in spectator and "fate" not in spectator
            seat = rng.choice(sorted(st.pending()))
            action = rng.choice(st.legal_actions(seat))
            for who, cards in pg_glimpses(st, seat, action).items():
                if who is not None:
                    seen[who] |= cards
            st.apply(seat, action)
        if not st.donjon:
            assert all(len(h) == 3 for h in st.hands)
        assert sorted(st.outcome().ranking) == list(range(n))
