"""Prophet's rules (RULINGS.md, "Prophet", rulings 1–7), mostly on literal stacked decks."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from protocol.actions import Bid, BidCard, Pass, Play
from protocol.cards import DECKS, FRENCH_32, FRENCH_52
from server.engine import BadSetup, IllegalAction, MalformedAction, OutOfTurn, RulesError
from server.engine.base import tie_order
from server.engine.prophet import PROPHET, ProphetState, max_cards, schedule
from server.engine.rng import order_deck
from tests.engine.play import is_hidden_place, owner, play_out, random_step, strings_in


def stacked(n: int, dealer: int, hands: dict[int, list[str]], trump: str) -> list[str]:
    """A deck order that deals ``hands`` (in blocks from the dealer's left) and turns ``trump``."""
    order = [(dealer + 1 + i) % n for i in range(n)]
    return [c for seat in order for c in hands[seat]] + [trump]


def one_round(n: int, dealer: int, hands: dict[int, list[str]], trump: str, **options):
    """A game of one round of ``len(hand)`` cards (a fixed schedule capped at that size)."""
    k = len(hands[0])
    opts = {"schedule": "fixed", "cap": 1} if k == 1 else {"schedule": "descending", "cap": k}
    opts.update(options)
    return PROPHET.new_state(n, opts, dealer=dealer, deck=stacked(n, dealer, hands, trump))


def bid_all(state: ProphetState, bids: dict[int, int]) -> None:
    n = state.num_players
    for i in range(n):
        seat = (state.dealer + 1 + i) % n
        state.apply(seat, Bid(bids[seat]))


def play(state: ProphetState, seat: int, card: str) -> None:
    state.apply(seat, Play(card))


# --- ruling 1 and 2: the deck, M and the schedules ----------------------------------------------


def test_the_game_registers_itself():
    from server.engine import GAMES

    assert GAMES["prophet"] is PROPHET
    assert (PROPHET.title, PROPHET.min_players, PROPHET.max_players) == ("Prophet", 3, 6)
    assert PROPHET.resolve_options(4, {}) == {"deck": 32, "schedule": "ascending", "cap": 0}


def test_deck_option_chooses_32_or_52_cards():
    assert PROPHET.cards(PROPHET.resolve_options(4, {})) == FRENCH_32
    assert PROPHET.cards(PROPHET.resolve_options(4, {"deck": 52})) == FRENCH_52
    for deck, cards in ((32, FRENCH_32), (52, FRENCH_52)):
        state = PROPHET.new_state(4, {"deck": deck}, seed=3)
        placed = [c for cs in state.card_locations().values() for c in cs]
        assert sorted(placed) == sorted(cards)
    assert len(FRENCH_32) == 32 and {c[0] for c in FRENCH_32} == set("789TJQKA")


def test_deck_name_follows_the_deck_option():
    # The protocol deck (what clients and the narrator read card codes in) must be the one
    # dealt: a 52-card table deals twos to sixes, which the 32-card deck does not have.
    assert PROPHET.deck_name(PROPHET.resolve_options(4, {})) == "french32"
    options = PROPHET.resolve_options(4, {"deck": 52})
    assert PROPHET.deck_name(options) == "french52"
    assert DECKS[PROPHET.deck_name(options)] == PROPHET.cards(options) == FRENCH_52


@pytest.mark.parametrize(
    ("players", "m32", "m52"), [(3, 10, 17), (4, 7, 12), (5, 6, 10), (6, 5, 8)]
)
def test_most_cards_per_round_leaves_a_trump_card(players, m32, m52):
    assert max_cards(32, players) == m32
    assert max_cards(52, players) == m52
    s32 = PROPHET.new_state(players, {"schedule": "fixed"})
    s52 = PROPHET.new_state(players, {"schedule": "fixed", "deck": 52})
    assert s32.view(0)["schedule"] == [m32] * m32
    assert s52.view(0)["schedule"] == [m52] * m52
    # The biggest deal still leaves the trump card and possibly more in the deck.
    assert len(s32.card_locations()["trump"]) == 1
    assert len(s32.card_locations()["deck"]) == 32 - players * m32 - 1


def test_cap_lowers_m_and_is_clamped_to_the_deck():
    assert PROPHET.new_state(4, {"cap": 3}).view(0)["schedule"] == [1, 2, 3]
    assert PROPHET.new_state(5, {"cap": 10}).view(0)["schedule"] == [1, 2, 3, 4, 5, 6]
    assert PROPHET.new_state(3, {"cap": 17, "deck": 52}).view(0)["schedule"] == list(range(1, 18))
    assert max_cards(32, 5, cap=10) == 6
    assert max_cards(52, 4, cap=5) == 5


def test_all_five_schedules_for_four_players():
    expected = {
        "ascending": [1, 2, 3, 4, 5, 6, 7],
        "fixed": [7, 7, 7, 7, 7, 7, 7],
        "descending": [7, 6, 5, 4, 3, 2, 1],
        "down_up": [7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7],
        "up_down": [1, 2, 3, 4, 5, 6, 7, 6, 5, 4, 3, 2, 1],
    }
    for kind, cards in expected.items():
        state = PROPHET.new_state(4, {"schedule": kind})
        view = state.view(1)
        assert view["schedule"] == cards
        assert view["rounds"] == len(cards)
        assert view["cards"] == cards[0]
        assert len(view["hand"]) == cards[0]
    assert schedule("down_up", 1) == [1] and schedule("up_down", 2) == [1, 2, 1]


def test_a_whole_game_deals_every_round_of_the_schedule():
    state = PROPHET.new_state(5, {"schedule": "down_up", "cap": 3}, dealer=2, seed=9)
    play_out(state, random.Random(1))
    deals = [e for e in state.events if e["e"] == "deal"]
    assert [e["cards"] for e in deals] == [3, 2, 1, 2, 3]
    assert len(state.outcome().detail["sheet"]) == 5


def test_bad_setups_are_refused():
    for players in (2, 7):
        with pytest.raises(BadSetup):
            PROPHET.new_state(players)
    for options in ({"deck": 36}, {"schedule": "random"}, {"cap": 18}, {"cap": -1}, {"x": 1}):
        with pytest.raises(BadSetup):
            PROPHET.new_state(4, options)
    with pytest.raises(BadSetup, match="not a card"):
        PROPHET.new_state(4, deck=["2H"])  # no twos in the 32-card deck
    assert PROPHET.new_state(4, {"deck": 52}, dealer=0, deck=["2H"]).hands[1] == ["2H"]


# --- ruling 3: the deal, trump and the dealer ---------------------------------------------------


def test_deal_in_blocks_from_the_dealers_left_then_trump():
    deck = ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "AH", "KH", "QH", "JH", "TH"]
    state = PROPHET.new_state(4, {"schedule": "descending", "cap": 3}, dealer=1, deck=deck)
    places = state.card_locations()
    assert sorted(places["hand:2"]) == sorted(["AS", "KS", "QS"])
    assert sorted(places["hand:3"]) == sorted(["JS", "TS", "9S"])
    assert sorted(places["hand:0"]) == sorted(["8S", "7S", "AH"])
    assert sorted(places["hand:1"]) == sorted(["KH", "QH", "JH"])  # the dealer last
    assert places["trump"] == ["TH"]
    assert len(places["deck"]) == 32 - 13 and "TH" not in places["deck"]
    view = state.view(None)
    assert view["trump"] == "TH" and view["trump_suit"] == "H" and view["dealer"] == 1
    assert state.events[0] == {"e": "deal", "round": 1, "dealer": 1, "cards": 3, "trump": "TH"}


def test_the_deal_moves_clockwise_and_later_rounds_use_a_fresh_deck():
    deck = ["AS", "KS", "QS", "JS", "TS"]
    state = PROPHET.new_state(4, {"cap": 3}, dealer=3, seed=11, deck=deck)
    dealers, trumps = [], []
    rng = random.Random(2)
    while not state.is_over:
        if not dealers or state.view(None)["dealer"] != dealers[-1]:
            dealers.append(state.dealer)
            trumps.append(state.trump)
            placed = [c for cs in state.card_locations().values() for c in cs]
            assert sorted(placed) == sorted(FRENCH_32)  # every round has the whole deck
        random_step(state, rng)
    assert dealers == [3, 0, 1]
    # Round 2 comes from its own shuffle of the whole deck, in blocks from the new dealer's left.
    replay = PROPHET.new_state(4, {"cap": 3}, dealer=3, seed=11, deck=deck)
    while replay.round == 1:
        random_step(replay, rng)
    fresh = order_deck(FRENCH_32, None, 11, "round2")
    assert replay.dealer == 0 and sorted(replay.hands[1]) == sorted(fresh[:2])
    assert sorted(replay.hands[0]) == sorted(fresh[6:8]) and replay.trump == fresh[8]
    assert trumps[0] == "TS"  # round 1 only is stacked: 4 one-card hands, then the trump
    assert state.outcome().detail["last_dealer"] == 1
    # Another seed deals other cards from round 2 on, the same round 1.
    other = PROPHET.new_state(4, {"cap": 3}, dealer=3, seed=12, deck=deck)
    assert other.trump == "TS"
    same = PROPHET.new_state(4, {"cap": 3}, dealer=3, seed=11, deck=deck)
    assert same.snapshot() == PROPHET.new_state(4, {"cap": 3}, 3, 11, deck).snapshot()


# --- ruling 4: bidding --------------------------------------------------------------------------


def test_bids_go_clockwise_from_the_dealers_left():
    state = one_round(4, 2, {0: ["AS"], 1: ["KS"], 2: ["QS"], 3: ["JS"]}, "7H")
    assert list(state.pending()) == [3]
    for seat in (0, 1, 2):
        with pytest.raises(OutOfTurn):
            state.apply(seat, Bid(0))
    order = []
    while state.phase == "bid":
        (seat,) = state.pending()
        order.append(seat)
        state.apply(seat, Bid(1))
    assert order == [3, 0, 1, 2]
    # The dealer's left leads the first trick.
    assert state.turn == 3 and state.phase == "play"


@pytest.mark.parametrize(("others", "forbidden"), [(0, 1), (1, 0), (2, None)])
def test_dealer_may_not_make_the_bids_add_up_in_a_one_card_round(others, forbidden):
    state = one_round(3, 0, {0: ["AS"], 1: ["KS"], 2: ["QS"]}, "7H")
    state.apply(1, Bid(min(others, 1)))
    state.apply(2, Bid(others - min(others, 1)))
    ask = state.ask(0)
    assert ask.kind == "bid" and ask.info["forbidden"] == forbidden and ask.info["max"] == 1
    legal = [a.tricks for a in state.legal_actions(0)]
    assert legal == [b for b in (0, 1) if b != forbidden]
    if forbidden is not None:
        before = state.snapshot()
        with pytest.raises(IllegalAction, match=f"may not bid {forbidden}"):
            state.apply(0, Bid(forbidden))
        assert state.snapshot() == before


def test_dealer_restriction_in_a_longer_round_and_bid_range():
    hands = {
        0: ["AS", "KS", "QS"],
        1: ["AH", "KH", "QH"],
        2: ["AD", "KD", "QD"],
        3: ["AC", "KC", "QC"],
    }
    state = one_round(4, 3, hands, "7H")
    assert state.ask(0).info == {"max": 3, "forbidden": None}  # only the dealer is restricted
    with pytest.raises(IllegalAction, match="from 0 to 3"):
        state.apply(0, Bid(4))
    for seat, bid in ((0, 1), (1, 0), (2, 1)):
        # Before the dealer anyone may bid anything, even making the bids add up to 3.
        assert [a.tricks for a in state.legal_actions(seat)] == [0, 1, 2, 3]
        state.apply(seat, Bid(bid))
    assert state.view(3)["ask"] == {"kind": "bid", "max": 3, "forbidden": 1}
    assert state.view(3)["legal"] == [Bid(b).to_wire() for b in (0, 2, 3)]
    with pytest.raises(IllegalAction) as err:
        state.apply(3, Bid(1))
    assert "add up to 3" in str(err.value)
    state.apply(3, Bid(3))
    assert state.view(2)["bids"] == [1, 0, 1, 3]


# --- ruling 5: play -----------------------------------------------------------------------------


def test_must_follow_suit_and_a_void_player_is_free():
    hands = {
        0: ["AS", "7H"],  # dealer
        1: ["9S", "KD"],  # leads
        2: ["8S", "AH"],  # must follow spades
        3: ["QD", "JD"],  # void in spades: anything
    }
    state = one_round(4, 0, hands, "7C")
    bid_all(state, {1: 0, 2: 0, 3: 0, 0: 0})
    play(state, 1, "9S")
    assert state.legal_actions(2) == [Play("8S")]
    assert state.ask(2).info == {"led": "S"}
    before = state.snapshot()
    with pytest.raises(IllegalAction, match=r"You must follow suit: you hold a Spade\."):
        play(state, 2, "AH")
    with pytest.raises(IllegalAction, match=r"You do not hold AD\."):
        play(state, 2, "AD")
    assert state.snapshot() == before
    play(state, 2, "8S")
    assert {a.card for a in state.legal_actions(3)} == {"QD", "JD"}
    play(state, 3, "QD")  # throws off a diamond
    play(state, 0, "AS")
    assert state.tricks == [1, 0, 0, 0]
    assert state.last_trick == {
        "round": 1,
        "leader": 1,
        "cards": [[1, "9S"], [2, "8S"], [3, "QD"], [0, "AS"]],
        "winner": 0,
    }


def test_trump_beats_the_led_suit_and_the_highest_trump_wins():
    hands = {0: ["AS"], 1: ["KS"], 2: ["7H"], 3: ["9H"]}
    state = one_round(4, 0, hands, "8H")  # hearts are trump
    bid_all(state, {1: 0, 2: 0, 3: 0, 0: 0})
    for seat, card in ((1, "KS"), (2, "7H"), (3, "9H"), (0, "AS")):
        play(state, seat, card)
    assert state.last_trick["winner"] == 3
    assert state.trick_winner([[0, "7S"], [1, "AD"], [2, "8S"]]) == 2  # off-suit ace loses
    assert state.trick_winner([[0, "7H"], [1, "AS"]]) == 0  # a led trump wins too


def test_no_duty_to_trump_or_to_win():
    hands = {0: ["7S", "AS"], 1: ["KD", "8C"], 2: ["AH", "QC"], 3: ["9D", "AD"]}
    state = one_round(4, 0, hands, "7H")  # hearts trump
    bid_all(state, {1: 1, 2: 0, 3: 0, 0: 0})
    play(state, 1, "KD")
    # Seat 2 is void in diamonds and holds a trump but may throw a club.
    assert {a.card for a in state.legal_actions(2)} == {"AH", "QC"}
    play(state, 2, "QC")
    # Seat 3 could win with the ace but may play under.
    assert {a.card for a in state.legal_actions(3)} == {"9D", "AD"}
    play(state, 3, "9D")
    play(state, 0, "7S")
    assert state.last_trick["winner"] == 1


def test_the_winner_leads_the_next_trick():
    hands = {0: ["7S", "8S"], 1: ["AS", "9S"], 2: ["KD", "TS"], 3: ["QD", "JS"]}
    state = one_round(4, 0, hands, "7C")
    bid_all(state, {1: 1, 2: 1, 3: 0, 0: 1})
    assert state.turn == 1  # the dealer's left leads the first trick
    for seat, card in ((1, "9S"), (2, "TS"), (3, "JS"), (0, "8S")):
        play(state, seat, card)
    assert state.last_trick["winner"] == 3
    assert state.turn == 3 and state.pending().keys() == {3}
    with pytest.raises(OutOfTurn):
        play(state, 0, "7S")
    play(state, 3, "QD")
    assert state.view(0)["leader"] == 3 and state.view(0)["trick"] == [[3, "QD"]]


# --- ruling 6 and 7: scoring and the end --------------------------------------------------------


def test_exact_bid_scores_ten_plus_bid_else_zero():
    hands = {0: ["7S", "8S"], 1: ["AS", "AD"], 2: ["KS", "KD"], 3: ["QS", "QD"]}
    state = one_round(4, 0, hands, "7C")
    bid_all(state, {1: 2, 2: 0, 3: 1, 0: 0})
    for trick in (["AS", "KS", "QS", "7S"], ["AD", "KD", "QD", "8S"]):
        for i, card in enumerate(trick):
            play(state, (1 + i) % 4, card)
    assert state.sheet == [[10, 12, 10, 0]]  # 0 made: 10; 2 made: 12; bid 1 took 0: 0
    assert state.totals == [10, 12, 10, 0]
    scored = next(e for e in state.events if e["e"] == "round_scored")
    assert scored["bids"] == [0, 2, 0, 1] and scored["tricks"] == [0, 2, 0, 0]
    # The next round is dealt at once, by the next seat clockwise.
    view = state.view(0)
    assert view["round"] == 2 and view["dealer"] == 1 and view["cards"] == 1
    assert view["bids"] == [None] * 4 and view["tricks"] == [0] * 4
    assert view["sheet"] == [[10, 12, 10, 0]] and view["turn"] == 2
    # A view's log starts at the old round's final trick (dealt over in the same action)
    # and this round's deal; asked from an index, the log is complete.
    assert [e["e"] for e in view["events"]] == [*["play"] * 4, "trick_won", "round_scored", "deal"]
    assert view["events"][-2:] == [
        scored,
        {"e": "deal", "round": 2, "dealer": 1, "cards": 1, "trump": state.trump},
    ]
    assert [e["e"] for e in state.visible_events(0, 0)].count("trick_won") == 2
    assert state.visible_events(0, len(state.events) - 2)[0]["e"] == "round_scored"


def test_the_highest_total_takes_the_whole_pot():
    # Seat 1 bids 1 and takes it (11), seat 2 bids 0 (10), the dealer must bid 1 and misses.
    state = one_round(3, 0, {0: ["7S"], 1: ["AS"], 2: ["8S"]}, "7H")
    state.apply(1, Bid(1))
    state.apply(2, Bid(0))
    assert state.legal_actions(0) == [Bid(1)]
    state.apply(0, Bid(1))
    for seat, card in ((1, "AS"), (2, "8S"), (0, "7S")):
        play(state, seat, card)
    outcome = state.outcome()
    assert outcome.scores == [0, 11, 10] and outcome.winners == [1]
    assert outcome.ranking == [1, 2, 0]
    assert outcome.payouts(5) == [0, 15, 0]
    assert state.events[-1] == {"e": "game_over", "totals": [0, 11, 10], "winners": [1]}
    assert state.view(None)["outcome"]["winners"] == [1]


def test_a_tie_splits_the_pot_with_the_remainder_by_ruling_2():
    # Everyone bids 0 in a one-card round; seat 1 takes the trick: seats 2 and 0 tie on 10.
    state = one_round(3, 0, {0: ["7S"], 1: ["AS"], 2: ["8S"]}, "7H")
    bid_all(state, {1: 0, 2: 0, 0: 0})
    for seat, card in ((1, "AS"), (2, "8S"), (0, "7S")):
        play(state, seat, card)
    outcome = state.outcome()
    assert outcome.scores == [10, 0, 10]
    assert outcome.winners == [2, 0]  # the dealer's left first, the dealer last
    assert outcome.payouts(5) == [7, 0, 8]  # 15 chips: 8 to seat 2, 7 to seat 0
    assert outcome.ranking == [2, 0, 1]


def test_tie_order_counts_from_the_last_rounds_dealer():
    differs = 0
    for seed in range(300):
        first = seed % 4
        state = PROPHET.new_state(4, {"cap": 2}, dealer=first, seed=seed)
        play_out(state, random.Random(seed))
        outcome = state.outcome()
        last = (first + 1) % 4  # two rounds: the deal moved once
        assert outcome.detail["last_dealer"] == last
        tied = set(outcome.winners)
        assert outcome.winners == [s for s in tie_order(last, 4) if s in tied]
        if len(tied) in (2, 3):
            pot = outcome.payouts(1)  # 4 chips: with 3 winners the first gets the odd one
            assert pot[outcome.winners[0]] == 2
            assert sum(pot) == 4
        differs += outcome.winners != [s for s in tie_order(first, 4) if s in tied]
    assert differs > 0  # some ties where counting from the first dealer would differ


def test_highest_total_over_several_rounds_wins():
    state = PROPHET.new_state(6, {"cap": 3, "schedule": "down_up"}, dealer=4, seed=5)
    play_out(state, random.Random(5))
    outcome = state.outcome()
    sheet = outcome.detail["sheet"]
    totals = [sum(r[s] for r in sheet) for s in range(6)]
    assert outcome.scores == totals == state.view(0)["totals"]
    assert all(totals[w] == max(totals) for w in outcome.winners)
    assert [totals[s] for s in outcome.ranking] == sorted(totals, reverse=True)
    # Every row of the sheet is ruling 6 applied to that round's bids and tricks taken.
    scored = [e for e in state.visible_events(None, 0) if e["e"] == "round_scored"]
    assert [e["scores"] for e in scored] == sheet
    for event, cards in zip(scored, schedule("down_up", 3), strict=True):
        assert sum(event["tricks"]) == cards
        pairs = zip(event["bids"], event["tricks"], strict=True)
        assert event["scores"] == [10 + b if b == t else 0 for b, t in pairs]
    assert any(b != t for e in scored for b, t in zip(e["bids"], e["tricks"], strict=True))


# --- errors, views, snapshots, replay -----------------------------------------------------------


def test_malformed_and_out_of_turn_actions_change_nothing():
    state = PROPHET.new_state(4, {}, dealer=0, seed=4)
    before = state.snapshot()
    cases = [
        (1, {"type": "bid", "tricks": 0}, MalformedAction),  # a wire map, not an action
        (1, BidCard("7S"), MalformedAction),  # Prophet's Gambit's bid
        (1, Pass(), MalformedAction),
        (1, ["bid", 0], MalformedAction),
        (9, Bid(0), MalformedAction),
        (2, Bid(0), OutOfTurn),
        (1, Play(state.hands[1][0]), IllegalAction),
        (1, Bid(2), IllegalAction),
    ]
    for seat, action, error in cases:
        with pytest.raises(error) as info:
            state.apply(seat, action)
        assert str(info.value) and str(info.value)[0].isupper()
        assert state.snapshot() == before
    with pytest.raises(IllegalAction, match="Bid first"):
        state.apply(1, Play(state.hands[1][0]))
    state.apply(1, Bid(0))
    assert state.snapshot() != before


def test_actions_after_the_game_and_bids_during_play_are_refused():
    state = one_round(3, 0, {0: ["7S"], 1: ["AS"], 2: ["8S"]}, "7H")
    bid_all(state, {1: 0, 2: 0, 0: 0})
    with pytest.raises(IllegalAction, match="Bidding is over"):
        state.apply(1, Bid(0))
    for seat, card in ((1, "AS"), (2, "8S"), (0, "7S")):
        play(state, seat, card)
    before = state.snapshot()
    with pytest.raises(OutOfTurn, match="over"):
        play(state, 1, "AS")
    assert state.snapshot() == before and state.pending() == {}
    assert state.view(0)["legal"] == [] and state.view(0)["over"]


def test_views_never_show_a_hidden_card():
    for players, options, seed in ((3, {}, 1), (6, {"deck": 52, "schedule": "up_down"}, 2)):
        state = PROPHET.new_state(players, options, dealer=seed % players, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not state.is_over:
            if steps % 3 == 0:
                _audit(state)
            random_step(state, rng)
            steps += 1
        _audit(state)


def _audit(state: ProphetState) -> None:
    places = state.card_locations()
    hidden = {c: place for place, cs in places.items() if is_hidden_place(place) for c in cs}
    # Until this round's first trick is won, views show the previous round's final trick:
    # everyone saw those cards played, though they are dealt again now.
    seen_played = set()
    if state.round > 1 and not any(state.tricks):
        before = [e for e in state.events[: state.round_event] if e["e"] == "trick_won"]
        seen_played = {card for _, card in before[-1]["cards"]}
    for seat in [None, *range(state.num_players)]:
        view = state.view(seat)
        for text in strings_in(view):
            if text in hidden and text not in seen_played:
                assert owner(hidden[text]) == seat and seat is not None, (seat, text)
        if seat is not None:
            assert sorted(view["hand"]) == sorted(places[f"hand:{seat}"])
        else:
            assert view["hand"] is None and view["ask"] is None


def test_card_locations_cover_the_deck_once_at_every_step():
    state = PROPHET.new_state(5, {"deck": 52, "cap": 4}, dealer=1, seed=8)
    rng = random.Random(8)
    while True:
        counts = Counter(c for cs in state.card_locations().values() for c in cs)
        assert set(counts) == set(FRENCH_52) and set(counts.values()) == {1}
        if state.is_over:
            break
        random_step(state, rng)


def test_view_carries_the_table():
    state = one_round(
        4, 0, {0: ["7S", "8S"], 1: ["AS", "AD"], 2: ["KS", "KD"], 3: ["QS", "QD"]}, "7C"
    )
    bid_all(state, {1: 2, 2: 0, 3: 1, 0: 0})
    for seat, card in ((1, "AS"), (2, "KS"), (3, "QS"), (0, "7S"), (1, "AD")):
        play(state, seat, card)
    view = state.view(2)
    assert view["hand"] == ["KD"] and view["hand_sizes"] == [1, 0, 1, 1]
    assert view["bids"] == [0, 2, 0, 1] and view["tricks"] == [0, 1, 0, 0]
    assert view["trick"] == [[1, "AD"]] and view["leader"] == 1 and view["turn"] == 2
    assert view["last_trick"]["winner"] == 1
    assert sorted(view["played"]) == sorted(["AS", "KS", "QS", "7S"])
    assert view["round"] == 1 and view["rounds"] == 2 and view["cards"] == 2
    assert view["sheet"] == [] and view["totals"] == [0, 0, 0, 0]
    assert view["phase"] == "play" and view["ask"] == {"kind": "play", "led": "D"}
    kinds = [e["e"] for e in view["events"]]
    assert kinds == ["deal", "bid", "bid", "bid", "bid", *["play"] * 4, "trick_won", "play"]
    assert not any("to" in e for e in state.events)


def test_a_rounds_final_trick_and_score_stay_in_view_until_the_next_first_trick():
    """The final card of a round deals the next round in the same action (issue 5): every
    view still shows that final trick and the round's score until a trick of the new round
    is won, and then only the new round."""
    hands = {0: ["7S", "8S", "9S"], 1: ["AS", "AD", "AH"], 2: ["KS", "KD", "KH"]}
    hands[3] = ["QS", "QD", "QH"]
    state = one_round(4, 0, hands, "7C")  # rounds of 3, 2 and 1 cards
    bid_all(state, {1: 3, 2: 0, 3: 0, 0: 1})
    for suit in "SDH":
        for seat, rank in ((1, "A"), (2, "K"), (3, "Q")):
            play(state, seat, rank + suit)
        play(state, 0, {"S": "7S", "D": "8S", "H": "9S"}[suit])
    final = [[1, "AH"], [2, "KH"], [3, "QH"], [0, "9S"]]
    tail = [
        *({"e": "play", "seat": seat, "card": card} for seat, card in final),
        {"e": "trick_won", "seat": 1, "cards": final},
        {
            "e": "round_scored",
            "round": 1,
            "bids": [1, 3, 0, 0],
            "tricks": [0, 3, 0, 0],
            "scores": [0, 13, 10, 10],
            "totals": [0, 13, 10, 10],
        },
    ]
    deal = {"e": "deal", "round": 2, "dealer": 1, "cards": 2, "trump": state.trump}
    for seat in (None, 0, 1, 2, 3):
        view = state.view(seat)
        assert view["round"] == 2 and view["tricks"] == [0] * 4 and view["trick"] == []
        assert view["last_trick"] == {"round": 1, "leader": 1, "cards": final, "winner": 1}
        assert view["events"] == [*tail, deal]
    assert PROPHET.restore(state.snapshot()).view(2) == state.view(2)
    # Through the bidding and the first trick of round 2 the old round's end stays in view.
    bid_all(state, {2: 0, 3: 0, 0: 0, 1: 0})
    for _ in range(3):
        seat = state.turn
        play(state, seat, state.legal_actions(seat)[0].card)
    view = state.view(0)
    assert view["last_trick"]["round"] == 1
    assert view["events"][: len(tail) + 1] == [*tail, deal]
    assert [e["e"] for e in view["events"][len(tail) + 1 :]] == ["bid"] * 4 + ["play"] * 3
    # The first trick won: the view shows round 2 alone, from its deal.
    seat = state.turn
    play(state, seat, state.legal_actions(seat)[0].card)
    view = state.view(0)
    assert view["last_trick"]["round"] == 2 and sum(view["tricks"]) == 1
    assert view["events"][0] == deal
    assert "round_scored" not in [e["e"] for e in view["events"]]
    # The last round's end needs no tail: no round follows it.
    play_out(state, random.Random(1))
    view = state.view(None)
    assert view["last_trick"]["round"] == 3
    kinds = [e["e"] for e in view["events"]]
    assert kinds[0] == "deal" and kinds[-3:] == ["trick_won", "round_scored", "game_over"]
    assert view["events"][0]["round"] == 3


def test_snapshot_restore_and_replay_give_the_same_game():
    state = PROPHET.new_state(4, {"cap": 4, "schedule": "up_down"}, dealer=2, seed="abc")
    rng = random.Random(3)
    for _ in range(25):
        random_step(state, rng)
    data = state.snapshot()
    copy = PROPHET.restore(data)
    assert copy.snapshot() == data
    assert copy.view(1) == state.view(1)
    replayed = PROPHET.replay(state.params, state.history)
    assert replayed.snapshot() == data
    # Both continue identically.
    rng_a, rng_b = random.Random(7), random.Random(7)
    play_out(state, rng_a)
    play_out(copy, rng_b)
    assert copy.snapshot() == state.snapshot()
    assert copy.outcome() == state.outcome()
    clone = state.clone()
    assert clone.snapshot() == state.snapshot()


def test_rules_errors_share_one_family():
    state = PROPHET.new_state(3)
    with pytest.raises(RulesError) as info:
        state.apply(0, Bid(0))
    assert info.value.to_wire()["code"] == "out_of_turn"


def test_random_games_end_for_every_player_count_and_option():
    rng = random.Random(0)
    for players in range(3, 7):
        for kind in ("ascending", "fixed", "descending", "down_up", "up_down"):
            deck = rng.choice((32, 52))
            state = PROPHET.new_state(
                players, {"schedule": kind, "deck": deck, "cap": 3}, rng.randrange(players), kind
            )
            play_out(state, rng)
            outcome = state.outcome()
            assert len(outcome.detail["sheet"]) == len(schedule(kind, 3))
            assert sum(outcome.payouts(1)) == players
