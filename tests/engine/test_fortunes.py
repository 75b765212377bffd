"""Fortunes, ruling by ruling (RULINGS.md, Fortunes 1–10), on literal stacked decks.

Seats: with dealer 0, seat 0 is East, 1 South, 2 West, 3 North; 0 and 2 are the High team.
``deal()`` builds a full deck order from the cards a test cares about and fills the rest of
each hand with cards of the suits the test leaves open, so every scenario reads as its hands.
"""

from __future__ import annotations

import random

import msgpack
import pytest

from protocol.actions import Bid, BidCard, Draw, Fold, NextDeal, Play, Raise, Stay, action_from_wire
from protocol.cards import FORTUNES_DECK
from protocol.codec import ProtocolError
from server.engine import GAMES
from server.engine.base import tie_order
from server.engine.errors import BadSetup, IllegalAction, MalformedAction, OutOfTurn
from server.engine.fortunes import GAME, settle, tricks
from server.engine.rng import order_deck
from tests.engine.play import is_hidden_place, owner, play_out, strings_in

MUNDANE = ("W", "C", "S", "P")
#: One deal alone (option (a)'s single deal), where a test is about what happens in a deal.
SINGLE = {"betting": "ante"}


def deal(
    hands: dict[int, list[str]] | None = None,
    *,
    dealer: int = 0,
    aside: list[str] | None = None,
    voids: dict[int, str] | None = None,
    options: dict | None = None,
    seed: int = 0,
):
    """A new game (one deal, unless ``options`` say otherwise) whose deck gives each seat the
    listed cards.

    Each hand is filled up to 19 from the unused cards, skipping the suits (letters, "*" for
    Stars) in ``voids[seat]``; the set-aside pair is filled last from what remains.
    """
    hands = {s: list(cards) for s, cards in (hands or {}).items()}
    aside = list(aside or [])
    used = set(aside) | {c for cards in hands.values() for c in cards}
    pool = [c for c in FORTUNES_DECK if c not in used]
    full = {}
    for seat in range(4):
        mine = hands.get(seat, [])
        banned = (voids or {}).get(seat, "")
        while len(mine) < 19:
            card = next(c for c in pool if c[0] not in banned)
            pool.remove(card)
            mine.append(card)
        full[seat] = mine
    while len(aside) < 2:
        aside.append(pool.pop(0))
    assert not pool
    order = list(aside)
    for i in range(4):
        order += full[(dealer + 1 + i) % 4]
    return GAME.new_state(4, options or SINGLE, dealer=dealer, seed=seed, deck=order)


def play(state, seat: int, card: str) -> None:
    state.apply(seat, Play(card))


def play_trick(state, *cards: str) -> dict:
    """Play one card per seat from the current leader on; returns the finished trick."""
    seat = state.turn
    for card in cards:
        play(state, seat, card)
        seat = (seat + 1) % 4
    return state.tricks[-1]


def legal_cards(state, seat: int) -> set[str]:
    return {a.card for a in state.legal_actions(seat)}


# --- ruling 1: the deck -------------------------------------------------------------------


def test_deck_has_56_mundane_cards_and_22_stars():
    cards = GAME.cards(GAME.resolve_options(4, {}))
    assert len(cards) == len(set(cards)) == 78
    mundane = [c for c in cards if c[0] in MUNDANE]
    stars = [c for c in cards if c[0] == "*"]
    assert len(mundane) == 56 and len(stars) == 22
    for suit in MUNDANE:
        assert sorted(tricks.value(c) for c in mundane if c[0] == suit) == list(range(1, 15))
    assert sorted(tricks.value(c) for c in stars) == list(range(22))


def test_game_registers_and_takes_exactly_four():
    assert GAMES["fortunes"] is GAME
    assert (GAME.name, GAME.title, GAME.deck) == ("fortunes", "Fortunes", "fortunes")
    for n in (3, 5):
        with pytest.raises(BadSetup, match="takes 4 players"):
            GAME.new_state(n)
    with pytest.raises(BadSetup, match="betting"):
        GAME.new_state(4, {"betting": "poker"})
    with pytest.raises(BadSetup, match="X1"):
        GAME.new_state(4, deck=["W1", "X1"])
    with pytest.raises(BadSetup, match="twice"):
        GAME.new_state(4, deck=["W1", "W1"])


# --- rulings 2 and 3: seats, teams, the deal -----------------------------------------------


def test_teams_and_compass_points_follow_the_dealer():
    view = GAME.new_state(4, dealer=1).view(None)
    seats = {s["seat"]: (s["compass"], s["team"]) for s in view["seats"]}
    assert seats == {
        1: ("East", "High"),
        2: ("South", "Low"),
        3: ("West", "High"),
        0: ("North", "Low"),
    }
    assert view["teams"]["High"]["seats"] == [1, 3]
    assert view["teams"]["Low"]["seats"] == [2, 0]


def test_two_cards_set_aside_then_19_each_in_blocks_from_the_dealers_left():
    order = list(FORTUNES_DECK)
    state = GAME.new_state(4, dealer=2, deck=order)
    places = state.card_locations()
    assert places["set_aside"] == order[:2]
    for i, seat in enumerate((3, 0, 1, 2)):  # South, West, North, then East (the dealer)
        assert sorted(places[f"hand:{seat}"]) == sorted(order[2 + 19 * i : 21 + 19 * i])
    every = [c for cards in places.values() for c in cards]
    assert sorted(every) == sorted(FORTUNES_DECK)
    view = state.view(0)
    assert view["set_aside"] == 2 and len(view["hand"]) == 19
    assert [s["cards"] for s in view["seats"]] == [19, 19, 19, 19]


def test_explicit_deck_stacks_the_first_deal_only():
    options = {"betting": "target", "target": 1000, "max_deals": 2}
    state = GAME.new_state(4, options, seed=4, deck=["*21", "*20"])
    assert state.card_locations()["set_aside"] == ["*21", "*20"]
    finish_deal(state, random.Random(4))
    for seat in range(4):
        state.apply(seat, NextDeal())
    second = order_deck(FORTUNES_DECK, None, 4, "deal2")
    assert state.card_locations()["set_aside"] == second[:2]
    assert state.hands[2] == sorted(second[2:21], key=tricks.SORT_KEY.get)  # South now


# --- ruling 4: the lead passes clockwise regardless of the winner ---------------------------


def test_lead_passes_clockwise_whoever_wins():
    state = GAME.new_state(4, SINGLE, dealer=3, seed=11)
    play_out(state, random.Random(11))
    leaders = [t["leader"] for t in state.tricks]
    assert leaders == [(3 + k) % 4 for k in range(19)]
    # the winners did not decide it: some trick's winner is not the next leader
    assert any(t["winner"] != (t["leader"] + 1) % 4 for t in state.tricks)
    assert [t["n"] for t in state.tricks] == list(range(1, 20))


# --- ruling 5: direction --------------------------------------------------------------------


def test_high_lead_is_won_high_and_low_lead_is_won_low():
    state = deal({0: ["W7", "C2"], 1: ["W3", "C9"], 2: ["W12", "C4"], 3: ["W5", "C13"]})
    assert state.view(0)["trick"]["direction"] == "high"
    first = play_trick(state, "W7", "W3", "W12", "W5")
    assert (first["direction"], first["winner"], first["top"]) == ("high", 2, "W12")
    assert state.leader == 1 and state.view(1)["trick"]["direction"] == "low"
    second = play_trick(state, "C9", "C4", "C13", "C2")  # South (Low) leads: lowest wins
    assert (second["direction"], second["winner"], second["top"]) == ("low", 0, "C2")


def test_direction_and_disposition_follow_the_dealer_not_seat_zero():
    # dealer 3: East 3 and West 1 are High, South 0 and North 2 are Low
    hands = {3: ["W7", "C9"], 0: ["W3", "C4"], 1: ["W12", "C2"], 2: ["W5", "C13"]}
    state = deal(hands, dealer=3)
    assert state.turn == 3
    first = play_trick(state, "W7", "W3", "W12", "W5")  # East leads: high
    assert (first["direction"], first["winner"], first["top"]) == ("high", 1, "W12")
    assert (first["disposition"], first["points"]) == ("well", 12)  # West is High
    assert state.turn == 0  # South leads next although West won
    second = play_trick(state, "C4", "C2", "C13", "C9")  # South (Low) leads: low
    assert (second["direction"], second["winner"], second["top"]) == ("low", 1, "C2")
    assert (second["disposition"], second["points"]) == ("ill", -13)  # a Two is 13 low
    assert state.scores == [0, -1, 0, 0]
    teams = state.view(None)["teams"]
    assert teams["High"] == {"seats": [3, 1], "score": -1}
    assert teams["Low"] == {"seats": [0, 2], "score": 0}


def test_one_star_flips_the_trick_and_a_second_flips_it_back():
    hands = {0: ["W7", "C7"], 1: ["*3", "C3"], 2: ["*5", "C12"], 3: ["W9", "*8"]}
    state = deal(hands, voids={1: "W", 2: "W", 0: "*"})
    play(state, 0, "W7")
    play(state, 1, "*3")
    assert state.view(None)["trick"]["direction"] == "low"
    play(state, 2, "*5")
    assert state.view(None)["trick"]["direction"] == "high"
    trick = play_trick(state, "W9")
    # high again: the highest Wand wins; the Stars could not win a Wand trick
    assert (trick["direction"], trick["winner"], trick["top"]) == ("high", 3, "W9")

    one = deal(hands, voids={1: "W", 2: "W", 0: "*"})
    trick = play_trick(one, "W7", "*3", "C12", "W9")  # one Star: the lowest Wand wins
    assert (trick["direction"], trick["winner"], trick["top"]) == ("low", 0, "W7")


def test_the_public_view_says_what_the_trick_stands_at():
    """Which way the trick goes, how often it flipped, whom that favours and whose card wins
    it so far: in the public part, so a client shows them without knowing the rules."""
    hands = {0: ["W7", "C7"], 1: ["*3", "C3"], 2: ["*5", "C12"], 3: ["W9", "*8"]}
    state = deal(hands, voids={1: "W", 2: "W", 0: "*"})

    def trick() -> dict:
        now = state.public_view()["trick"]
        return {k: now[k] for k in ("direction", "flips", "favours", "winning")}

    assert trick() == {"direction": "high", "flips": 0, "favours": "High", "winning": None}
    play(state, 0, "W7")
    assert trick() == {"direction": "high", "flips": 0, "favours": "High", "winning": 0}
    play(state, 1, "*3")
    assert trick() == {"direction": "low", "flips": 1, "favours": "Low", "winning": 0}
    flip = {"e": "play", "seat": 1, "card": "*3", "flip": "low", "stars_free": True}
    assert state.events[-1] == flip  # the event says so too
    play(state, 2, "*5")
    assert trick() == {"direction": "high", "flips": 2, "favours": "High", "winning": 0}
    assert "stars_free" not in state.events[-1]  # only the first Star frees them
    play(state, 3, "W9")
    last = state.public_view()["tricks"][-1]
    assert (last["flips"], last["winner"]) == (2, 3)
    assert state.public_view()["trick"]["leader"] == 1  # the lead passes clockwise
    # The public part is the same in every seat's view and the spectator's.
    for seat in (None, 0, 1, 2, 3):
        view = state.view(seat)
        assert {k: view[k] for k in state.public_view()} == state.public_view()


def test_star_led_trick_cannot_flip_and_only_stars_compete():
    state = deal(
        {0: ["*5", "W2"], 1: ["W14", "C1"], 2: ["*2", "W3"], 3: ["*9", "W4"]},
        voids={1: "*", 0: "*"},
    )
    assert "*5" in legal_cards(state, 0)  # a Star may be led before any was played
    trick = play_trick(state, "*5", "W14", "*2", "*9")
    assert trick["direction"] == "high"  # three Stars played, none flipped it
    assert (trick["winner"], trick["top"]) == (3, "*9")
    # a Low-led Star trick is won by the lowest Star, here by West (High): ill-disposed,
    # and the Star 4 won low is worth 21 - 4
    low = deal({0: ["W1", "*7"], 1: ["W5", "*12"], 2: ["W6", "*4"], 3: ["W2", "*20"]})
    play_trick(low, "W1", "W5", "W6", "W2")
    trick = play_trick(low, "*12", "*4", "*20", "*7")
    assert (trick["direction"], trick["winner"], trick["top"]) == ("low", 2, "*4")
    assert (trick["disposition"], trick["points"]) == ("ill", -17)


# --- ruling 6: following --------------------------------------------------------------------


def test_must_follow_suit_and_the_refusal_explains_why():
    state = deal({0: ["W7"], 1: ["W3", "C9", "*4"]})
    play(state, 0, "W7")
    assert legal_cards(state, 1) == {c for c in state.hands[1] if c[0] == "W"}
    before = state.snapshot()
    with pytest.raises(IllegalAction, match="You must follow suit: you hold a Wand"):
        play(state, 1, "C9")
    with pytest.raises(IllegalAction, match="No Star has been played yet"):
        play(state, 1, "*4")
    with pytest.raises(IllegalAction, match="You do not hold"):
        play(state, 1, "W7")
    assert state.snapshot() == before


def test_void_player_may_throw_off_or_play_a_star():
    state = deal({0: ["W7"], 1: ["C14", "*4", "S2"], 2: ["W3"], 3: ["W10"]}, voids={1: "W"})
    play(state, 0, "W7")
    assert legal_cards(state, 1) == set(state.hands[1])
    trick = play_trick(state, "C14", "W3", "W10")  # a throw-off cannot win the Wand trick
    assert (trick["winner"], trick["top"]) == (3, "W10")
    other = deal({0: ["W7"], 1: ["C14", "*4", "S2"], 2: ["W3"], 3: ["W10"]}, voids={1: "W"})
    trick = play_trick(other, "W7", "*4", "W3", "W10")  # or a Star, which flips it
    assert (trick["direction"], trick["winner"], trick["top"]) == ("low", 2, "W3")


def test_stars_are_free_once_any_star_was_played():
    state = deal({0: ["*0", "W7"], 1: ["*6", "W3", "C5"], 2: ["*1", "W9"], 3: ["*2", "W4"]})
    assert state.view(1)["stars_free"] is False
    play_trick(state, "*0", "*6", "*1", "*2")
    assert state.view(1)["stars_free"] is True
    # trick 2 is South's lead; then West may play a Star while holding the led suit
    state2 = deal({0: ["*0", "W7"], 1: ["*6", "W3"], 2: ["*1", "W9", "*11"], 3: ["*2", "W4"]})
    play_trick(state2, "*0", "*6", "*1", "*2")
    play(state2, 1, "W3")
    assert "*11" in legal_cards(state2, 2) and "W9" in legal_cards(state2, 2)
    play(state2, 2, "*11")
    assert state2.view(None)["trick"]["direction"] == "high"  # flipped from low


def test_a_star_thrown_in_frees_stars_for_the_rest_of_the_same_trick():
    hands = {0: ["W7"], 1: ["*3", "C2"], 2: ["W9", "*11", "C5"], 3: ["W4"]}
    state = deal(hands, voids={1: "W"})
    play(state, 0, "W7")
    play(state, 1, "C2")  # a throw-off: Stars are still not free
    assert legal_cards(state, 2) == {c for c in state.hands[2] if c[0] == "W"}
    state = deal(hands, voids={1: "W"})
    play(state, 0, "W7")
    play(state, 1, "*3")  # the deal's first Star: West may now answer with a Star
    wands = {c for c in state.hands[2] if c[0] == "W"}
    stars = {c for c in state.hands[2] if c[0] == "*"}
    assert "*11" in stars and "C5" in state.hands[2]
    assert legal_cards(state, 2) == wands | stars  # but still no throw-off


def test_stars_are_not_free_again_until_a_star_is_played_in_the_new_deal():
    options = {"betting": "target", "target": 1000, "max_deals": 2}
    state = GAME.new_state(4, options, seed=6)
    finish_deal(state, random.Random(6))
    assert any(c[0] == "*" for t in state.tricks for _, c in t["cards"])
    for seat in range(4):
        state.apply(seat, NextDeal())
    assert state.deal_no == 2 and state.view(None)["stars_free"] is False
    leader, follower = state.turn, (state.turn + 1) % 4
    lead = next(
        c
        for c in state.hands[leader]
        if c[0] != "*"
        and any(f[0] == c[0] for f in state.hands[follower])
        and any(f[0] == "*" for f in state.hands[follower])
    )
    play(state, leader, lead)
    assert legal_cards(state, follower) == {c for c in state.hands[follower] if c[0] == lead[0]}


def test_a_star_lead_must_be_followed_with_a_star():
    state = deal({0: ["*10"], 1: ["*3", "W3"]})
    play(state, 0, "*10")
    assert legal_cards(state, 1) == {c for c in state.hands[1] if c[0] == "*"}
    with pytest.raises(IllegalAction, match="A Star was led"):
        play(state, 1, "W3")


# --- rulings 7–9: winning, disposition and scoring ------------------------------------------


def test_disposition_both_ways_for_both_teams():
    hands = {0: ["W13", "C1"], 1: ["W2", "C5"], 2: ["W1", "C6"], 3: ["W14", "C3"]}
    state = deal(hands)
    t1 = play_trick(state, "W13", "W2", "W1", "W14")  # high trick won by North (Low)
    assert (t1["winner"], t1["disposition"], t1["points"]) == (3, "ill", -14)
    t2 = play_trick(state, "C5", "C6", "C3", "C1")  # low trick won by East's Ace (High)
    assert (t2["winner"], t2["disposition"], t2["points"]) == (0, "ill", -14)
    assert state.scores == [-14, 0, 0, -14]

    state = deal({0: ["W13", "C9"], 1: ["W2", "C2"], 2: ["W1", "C12"], 3: ["W12", "C4"]})
    t1 = play_trick(state, "W13", "W2", "W1", "W12")  # high trick won by East (High)
    assert (t1["winner"], t1["disposition"], t1["points"]) == (0, "well", 13)
    t2 = play_trick(state, "C2", "C12", "C4", "C9")  # low trick won by South's Two (Low)
    assert (t2["winner"], t2["disposition"], t2["points"]) == (1, "well", 13)
    assert state.scores == [13, 13, 0, 0]
    view = state.view(None)
    assert view["teams"]["High"]["score"] == 13 and view["teams"]["Low"]["score"] == 13
    events = [e for e in state.events if e["e"] == "trick"]
    assert [(e["winner"], e["direction"], e["disposition"]) for e in events] == [
        (0, "high", "well"),
        (1, "low", "well"),
    ]

    # a Star's flip counts: West (High) takes a trick turned low, so it is ill-disposed, and
    # its Ace, the strongest card low, costs it 14
    state = deal({0: ["W13"], 1: ["W2"], 2: ["W1"], 3: ["*7", "C3"]}, voids={3: "W"})
    t1 = play_trick(state, "W13", "W2", "W1", "*7")
    assert (t1["direction"], t1["winner"], t1["disposition"]) == ("low", 2, "ill")
    assert t1["points"] == -14
    assert state.view(None)["won"][2] == [
        {"n": 1, "top": "W1", "disposition": "ill", "points": -14}
    ]


@pytest.mark.parametrize("rank", range(1, 15))
def test_a_trick_won_high_scores_its_top_cards_rank_and_one_won_low_the_rank_turned_over(rank):
    # East holds every Pentacle and South every Cup, so the others throw off: East's lead
    # takes trick 1 (won high) and South's takes trick 2 (won low), both well-disposed
    hands = {
        0: [f"P{n}" for n in range(1, 15)] + ["W1"],
        1: [f"C{n}" for n in range(1, 15)] + ["W2"],
        2: ["W3", "W4"],
        3: ["W5", "W6"],
    }
    state = deal(hands)
    high = play_trick(state, f"P{rank}", "W2", "W3", "W5")
    assert (high["top"], high["disposition"], high["points"]) == (f"P{rank}", "well", rank)
    low = play_trick(state, f"C{rank}", "W4", "W6", "W1")
    assert (low["top"], low["direction"], low["points"]) == (f"C{rank}", "low", 15 - rank)
    assert state.scores == [rank, 15 - rank, 0, 0]


def test_strength_in_each_direction_and_the_points_rule():
    """Ruling 9: won high, Ace 1 … Righ 14 and a Star its number; won low, the scale turns
    over: Ace 14 … Righ 1, a Star 21 minus its number."""
    assert [tricks.strength(f"W{n}", "high") for n in range(1, 15)] == list(range(1, 15))
    assert [tricks.strength(f"C{n}", "low") for n in range(1, 15)] == list(range(14, 0, -1))
    assert [tricks.strength(f"*{n}", "high") for n in (0, 1, 21)] == [0, 1, 21]
    assert [tricks.strength(f"*{n}", "low") for n in (0, 1, 21)] == [21, 20, 0]
    assert tricks.value("S11") == 11 and tricks.value("*0") == 0
    assert tricks.trick_points("*21", "high", "well") == 21
    assert tricks.trick_points("*21", "low", "well") == 0
    assert tricks.trick_points("W12", "high", "ill") == -12
    assert tricks.trick_points("W12", "low", "ill") == -3


# --- ruling 10: betting ----------------------------------------------------------------------


def test_single_deal_team_with_higher_score_and_its_higher_player_take_the_pot():
    for seed in range(6):
        state = GAME.new_state(4, SINGLE, dealer=seed % 4, seed=seed)
        play_out(state, random.Random(seed))
        out = state.outcome()
        d = state.dealer
        high = state.scores[d] + state.scores[(d + 2) % 4]
        low = state.scores[(d + 1) % 4] + state.scores[(d + 3) % 4]
        assert out.detail["teams"]["High"]["score"] == high
        assert out.detail["teams"]["Low"]["score"] == low
        if high == low:
            continue
        team = [d, (d + 2) % 4] if high > low else [(d + 1) % 4, (d + 3) % 4]
        assert out.winners == [max(team, key=lambda s: state.scores[s])]
        assert out.payouts(5) == [20 if s in out.winners else 0 for s in range(4)]
        assert out.scores == state.scores
        assert len(out.detail["reading"]) == 19
        assert sum(r["points"] for r in out.detail["reading"]) == sum(state.scores)
        assert out.detail["tricks"] == state.tricks_won and sum(out.detail["tricks"]) == 19


def test_single_deal_equal_partners_split_the_pot():
    state = GAME.new_state(4, SINGLE, dealer=0, seed=201)
    play_out(state, random.Random(201))
    out = state.outcome()
    assert state.scores == [13, -13, 13, -23]
    assert out.winners == [2, 0]  # ruling 2: West comes before the dealer
    assert out.payouts(1) == [2, 0, 2, 0] and out.payouts(3) == [6, 0, 6, 0]


def test_single_deal_equal_teams_take_back_their_antes():
    state = GAME.new_state(4, SINGLE, dealer=0, seed=148)
    play_out(state, random.Random(148))
    out = state.outcome()
    assert state.scores == [43, 17, -4, 22]  # 39 to 39
    assert out.refund and out.winners == [1, 2, 3, 0]  # all share, in ruling-2 order
    assert out.payouts(10) == [10, 10, 10, 10]


def test_ranking_by_score_with_ties_from_the_dealers_left():
    assert settle.ranking([5, 5, 0, 5], dealer=0) == [1, 3, 0, 2]
    assert settle.ranking([5, 5, 0, 5], dealer=1) == [3, 0, 1, 2]
    assert settle.deal_winners([3, -1, 4, 0], dealer=0) == [2]
    assert settle.deal_winners([3, 4, 3, 0], dealer=0) == [2, 0]
    assert settle.deal_winners([3, 4, 3, 2], dealer=0) is None


def finish_deal(state, rng):
    while state.phase not in ("next_deal", "over"):
        seat = state.turn
        state.apply(seat, rng.choice(state.legal_actions(seat)))


def next_deal(state) -> None:
    for seat in range(4):
        state.apply(seat, NextDeal())


def test_the_default_game_is_a_rubber_of_four_deals_each_player_dealing_once():
    assert GAME.resolve_options(4, {})["betting"] == "rubber"
    state = GAME.new_state(4, dealer=2, seed=31)
    rng = random.Random(31)
    highs = []
    for deal_no in range(1, 5):
        assert state.deal_no == deal_no and state.dealer == (2 + deal_no - 1) % 4
        highs.append(state.view(None)["teams"]["High"]["seats"])
        finish_deal(state, rng)
        if deal_no < 4:
            assert state.phase == "next_deal" and not state.is_over  # no settling between deals
            assert sorted(state.pending()) == [0, 1, 2, 3]
            next_deal(state)
    assert state.is_over
    # every player dealt once, so each partnership was the High team twice
    assert highs == [[2, 0], [3, 1], [0, 2], [1, 3]]
    out = state.outcome()
    assert [d["dealer"] for d in out.detail["deals"]] == [2, 3, 0, 1]
    running = [0, 0, 0, 0]
    for summary in out.detail["deals"]:
        running = [a + b for a, b in zip(running, summary["scores"], strict=True)]
    assert out.scores == state.totals == running
    assert [p["total"] for p in out.detail["partnerships"]] == settle.partnership_totals(running)


def test_rubber_higher_partnership_total_wins_and_its_higher_player_takes_the_pot():
    for seed in range(8):
        state = GAME.new_state(4, dealer=seed % 4, seed=seed)
        play_out(state, random.Random(seed))
        out = state.outcome()
        pairs = settle.partnership_totals(state.totals)
        if pairs[0] == pairs[1]:
            assert out.refund
            continue
        team = settle.PARTNERSHIPS[0 if pairs[0] > pairs[1] else 1]
        best = max(state.totals[s] for s in team)
        order = tie_order(state.dealer, 4)  # the last deal's dealer breaks ties
        assert out.winners == [s for s in order if s in team and state.totals[s] == best]
        assert sum(out.payouts(10)) == 40 and not out.refund
    assert settle.rubber_verdict([120, 80], 3) is None  # three deals are not a rubber
    assert settle.rubber_verdict([120, 80], 4) == 0
    assert settle.rubber_verdict([80, 120], 4) == 1
    assert settle.rubber_verdict([95, 95], 4) == "tie"  # equal totals: every ante back


def test_rubber_partners_with_equal_totals_split_the_pot_and_equal_partnerships_refund():
    split = GAME.new_state(4, seed=13)
    play_out(split, random.Random(13))
    out = split.outcome()
    assert split.totals == [-16, -103, -16, -48]  # seats 0 and 2 win, level with each other
    assert out.winners == [0, 2] and not out.refund  # ruling 2 from the last dealer, seat 3
    assert out.payouts(1) == [2, 0, 2, 0]
    level = GAME.new_state(4, seed=322)
    play_out(level, random.Random(322))
    assert level.totals == [29, 7, -24, -2]  # 5 to 5
    assert level.outcome().refund and level.outcome().payouts(10) == [10, 10, 10, 10]


def raise_game(**options):
    hands = {
        0: ["W14", "S5"],
        1: ["W2", "C1", "S1"],
        2: ["W3", "C2", "S14"],
        3: ["W4", "C3", "S12"],
    }
    return deal(hands, voids={0: "C*"}, options={"betting": "raise", **options})


def bet(state, seat, kind):
    state.apply(seat, action_from_wire({"type": kind}))


def test_stay_pays_the_ante_again_and_a_raise_lifts_it_for_everyone():
    state = raise_game(max_raises=1)
    assert state.pending()[0].kind == "bet"
    assert state.pending()[0].info == {"trick": 1, "ante": 1, "raises_left": 1}
    assert state.stake_due(0, Stay()) == 1
    assert state.stake_due(0, Raise()) == 2
    assert state.stake_due(0, Fold()) == 0
    bet(state, 0, "raise")  # the ante is 2 stakes now, and East pays it
    assert state.view(None)["ante"] == 2
    assert state.stake_due(1, Stay()) == 2
    bet(state, 1, "stay")
    assert Raise() not in state.legal_actions(2)  # one raise a deal, all told
    bet(state, 2, "stay")
    bet(state, 3, "stay")
    assert state.view(0)["contributions"] == [3, 3, 3, 3]
    assert state.view(0)["raises"] == [1, 0, 0, 0]
    assert state.stake_due(0, Play("W14")) == 0
    play_trick(state, "W14", "W2", "W3", "W4")  # East +14
    assert state.pending()[1].kind == "bet"  # trick 2 is South's: South decides first
    bet(state, 1, "stay")
    before = state.snapshot()
    with pytest.raises(IllegalAction, match=r"The raises this deal allows \(1\) have all"):
        bet(state, 2, "raise")
    with pytest.raises(OutOfTurn):
        bet(state, 0, "stay")
    assert state.snapshot() == before
    bet(state, 2, "fold")  # ends the deal on the scores so far, and pays nothing
    out = state.outcome()
    assert state.is_over and out.detail["folded_by"] == 2
    assert out.scores == [14, 0, 0, 0] and out.winners == [0]
    assert out.contributions == [3, 5, 3, 3]
    assert out.payouts(10) == [140, 0, 0, 0]
    assert len(out.detail["reading"]) == 1


def test_the_raise_cap_counts_every_players_raises_in_the_deal():
    state = raise_game()  # the default cap: 3 a deal
    for seat in (0, 1, 2):
        assert state.pending()[seat].info["raises_left"] == 3 - seat
        bet(state, seat, "raise")
    assert state.legal_actions(3) == [Stay(), Fold()]
    assert state.stake_due(3, Stay()) == 4
    bet(state, 3, "stay")
    assert state.view(None)["contributions"] == [3, 4, 5, 5]


def test_fold_before_any_trick_refunds_and_top_players_share_after_tricks():
    state = raise_game()
    bet(state, 0, "raise")
    bet(state, 1, "fold")
    out = state.outcome()
    assert out.refund and out.payouts(1) == [3, 1, 1, 1]  # every payment back
    # East, South and West each take a trick of their own direction for 14; then a fold
    state = raise_game()
    stay_round(state)
    play_trick(state, "W14", "W2", "W3", "W4")  # won high with a Righ
    stay_round(state)
    play_trick(state, "C1", "C2", "C3", state.hands[0][0])  # won low with an Ace
    stay_round(state)
    play_trick(state, "S14", "S12", "S5", "S1")
    assert state.scores == [14, 14, 14, 0]
    bet(state, 3, "fold")
    out = state.outcome()
    assert out.contributions == [4, 4, 4, 4]
    assert out.winners == [1, 2, 0] and out.payouts(1) == [5, 6, 5, 0]


def test_fold_winners_are_the_highest_players_whatever_their_team():
    # High (0, 2) leads 10 to -10, but South alone has the most points
    assert settle.fold_winners([5, 10, 5, -20], dealer=0) == [1]
    assert settle.fold_winners([5, 10, 5, -20], dealer=2) == [1]
    assert settle.fold_winners([7, 3, 7, 7], dealer=0) == [2, 3, 0]  # ruling-2 order
    assert settle.fold_winners([7, 3, 7, 7], dealer=2) == [3, 0, 2]
    assert settle.fold_winners([4, 4, 4, 4], dealer=1) is None  # all level: a refund


def stay_round(state):
    for _ in range(4):
        bet(state, state.turn, "stay")


def fold_game(south_cup: str = "C2"):
    """Dealer 0, option (b), four tricks: East leads W5 (+5), South leads ``south_cup`` (low,
    won by South: +13 with the Two), West leads S5 (+5), North leads P12 and East's Star flips
    it (North's Knight, won high, -12)."""
    hands = {
        0: ["W5", "C13", "S3", "*1"],
        1: ["W2", south_cup, "S4", "W6"],
        2: ["W3", "C11", "S5", "W7"],
        3: ["W4", "C12", "S2", "P12"],
    }
    return deal(hands, voids={0: "P", 1: "P", 2: "P"}, options={"betting": "raise"})


FOLD_TRICKS = (
    ("W5", "W2", "W3", "W4"),
    ("C2", "C11", "C12", "C13"),
    ("S5", "S2", "S3", "S4"),
    ("P12", "*1", "W6", "W7"),
)


def test_a_fold_pays_the_highest_scoring_player_not_the_leading_team():
    state = fold_game()
    for trick in FOLD_TRICKS:
        stay_round(state)
        play_trick(state, *trick)
    last = state.tricks[-1]
    assert (last["direction"], last["winner"], last["points"]) == ("high", 3, -12)
    assert state.scores == [5, 13, 5, -12]  # the High team leads, 10 to 1
    bet(state, 0, "fold")
    out = state.outcome()
    assert out.detail["folded_by"] == 0 and not out.refund
    assert out.winners == [1] and out.payouts(3) == [0, 60, 0, 0]  # 4 antes and 16 stays


def test_a_fold_with_the_teams_level_still_pays_the_highest_player():
    state = fold_game(south_cup="C5")
    stay_round(state)
    play_trick(state, "W5", "W2", "W3", "W4")  # East +5
    stay_round(state)
    play_trick(state, "C5", "C11", "C12", "C13")  # South +10: a Five won low
    stay_round(state)
    play_trick(state, "S5", "S2", "S3", "S4")  # West +5
    bet(state, 3, "fold")
    out = state.outcome()
    assert state.scores == [5, 10, 5, 0]  # 10 to 10: not a refund after a fold
    assert not out.refund and out.winners == [1] and out.payouts(1) == [0, 16, 0, 0]


def test_heuristic_bot_folds_only_when_its_side_holds_the_single_top_score():
    from server.bots.fortunes import FortunesBot

    state = fold_game()
    for trick in FOLD_TRICKS:
        stay_round(state)
        play_trick(state, *trick)
    assert state.scores == [5, 13, 5, -12] and state.turn == 0
    assert FortunesBot(0).choose(state.view(0)) == Stay()  # team ahead, South top
    bet(state, 0, "stay")
    assert FortunesBot(1).choose(state.view(1)) == Fold()  # South is top
    bet(state, 1, "stay")
    assert FortunesBot(2).choose(state.view(2)) == Stay()
    bet(state, 2, "stay")
    assert FortunesBot(3).choose(state.view(3)) == Fold()  # North's partner is top


def test_a_fold_splits_the_pot_between_players_tied_for_the_most_points():
    state = fold_game(south_cup="C10")
    stay_round(state)  # 2 stakes each
    play_trick(state, "W5", "W2", "W3", "W4")  # East +5
    bet(state, 1, "raise")  # the ante is 2: South pays it, then everyone else does
    for _ in range(3):
        bet(state, state.turn, "stay")
    play_trick(state, "C10", "C11", "C12", "C13")  # South +5
    bet(state, 2, "raise")  # the ante is 3: West pays it, and North folds
    bet(state, 3, "fold")
    out = state.outcome()
    assert state.scores == [5, 5, 0, 0]  # East and South, of different teams, share the top
    assert not out.refund and out.winners == [1, 0]  # ruling 2: South, then the dealer
    assert out.contributions == [4, 4, 7, 4]
    assert out.payouts(1) == [9, 10, 0, 0]  # the odd chip goes to South


def test_each_partnership_bids_0_to_19_tricks_between_its_two_players():
    state = GAME.new_state(4, {"betting": "bid"}, dealer=1, seed=4)
    assert state.pending()[1].kind == "bid"
    assert len(state.legal_actions(1)) == 20
    for seat, n, most in ((1, 12, 19), (2, 19, 19), (3, 7, 7), (0, 0, 0)):
        assert sorted(state.pending()) == [seat]
        assert state.pending()[seat].info == {"max": most}  # what the partner left
        state.apply(seat, Bid(n))
    with pytest.raises(ProtocolError):  # (the wire map is refused before any engine)
        Bid("3")
    assert state.phase == "play" and state.turn == 1
    play_out(state, random.Random(4))
    out = state.outcome()
    assert out.detail["bids"] == [0, 12, 19, 7]  # High (1, 3) bid 19, Low (2, 0) bid 19
    deal_end = next(e for e in state.events if e["e"] == "deal_end")
    assert deal_end["made"] == {"High": False, "Low": False}
    assert out.refund and out.payouts(10) == [10, 10, 10, 10]  # both missed: antes back


def bid_deal(bids: dict[int, int], seed: int = 12):
    """One deal of option (c), dealer 2, with these bids; the play is the same every time:
    East (2) and West (0), the High team, win 12 tricks for 67 points; South (3) and North
    (1) win 7 for -10."""
    state = GAME.new_state(4, {"betting": "bid"}, dealer=2, seed=seed)
    for seat in (2, 3, 0, 1):
        state.apply(seat, Bid(bids[seat]))
    play_out(state, random.Random(seed))
    return state


def test_both_partnerships_made_their_bids_so_the_higher_total_wins():
    both = bid_deal({2: 6, 0: 6, 3: 7, 1: 0})  # exactly the tricks each side wins
    assert both.tricks_won == [5, 3, 7, 4] and both.scores == [-5, -14, 72, 4]
    made = next(e for e in both.events if e["e"] == "deal_end")["made"]
    assert made == {"High": True, "Low": True}
    assert both.outcome().winners == [2]  # 67 to -10: the High team, its top scorer


def test_a_partnership_that_misses_its_bid_loses_the_deal_whatever_its_points():
    short = bid_deal({2: 6, 0: 7, 3: 7, 1: 0})  # High bid 13 and won 12
    out = short.outcome()
    assert out.detail["raw_scores"] == [-5, -14, 72, 4]
    assert short.scores == [0, -14, 0, 4]  # a missed bid scores nothing
    made = next(e for e in short.events if e["e"] == "deal_end")["made"]
    assert made == {"High": False, "Low": True}
    assert out.winners == [3] and not out.refund  # the Low team wins, South its top scorer
    assert settle.deal_winners([0, -14, 0, 4], 2, {"High": True, "Low": False}) == [0, 2]
    assert settle.deal_winners([1, 2, 3, 4], 0, {"High": True, "Low": True}) == [3]
    assert settle.deal_winners([1, 2, 3, 4], 0, {"High": False, "Low": False}) is None


def test_bid_out_of_range_is_refused():
    state = GAME.new_state(4, {"betting": "bid"})
    with pytest.raises(IllegalAction, match="from 0 to 19"):
        state.apply(0, Bid(20))
    state.apply(0, Bid(15))
    state.apply(1, Bid(0))
    with pytest.raises(IllegalAction, match="from 0 to 4"):  # West's partner bid 15
        state.apply(2, Bid(5))
    with pytest.raises(IllegalAction, match="time to bid"):
        state.apply(2, Play(state.hands[2][0]))


def test_target_deals_until_a_partnership_reaches_it_and_roles_alternate():
    state = GAME.new_state(4, {"betting": "target", "target": 1000, "max_deals": 3}, seed=3)
    rng = random.Random(3)
    finish_deal(state, rng)
    assert state.phase == "next_deal" and sorted(state.pending()) == [0, 1, 2, 3]
    totals = list(state.totals)
    state.apply(2, NextDeal())
    with pytest.raises(OutOfTurn):
        state.apply(2, NextDeal())
    for seat in (0, 1, 3):
        state.apply(seat, NextDeal())
    assert state.deal_no == 2 and state.dealer == 1
    assert state.view(0)["seats"][1]["team"] == "High"  # seats 1 and 3 are High now
    assert state.totals == totals
    play_out(state, rng)
    out = state.outcome()
    assert len(out.detail["deals"]) == 3  # the deal cap ended it
    assert [d["dealer"] for d in out.detail["deals"]] == [0, 1, 2]
    pairs = settle.partnership_totals(state.totals)
    assert [p["total"] for p in out.detail["partnerships"]] == pairs
    assert out.scores == state.totals
    assert pairs[0] != pairs[1]
    team = [0, 2] if pairs[0] > pairs[1] else [1, 3]
    best = max(state.totals[s] for s in team)
    order = tie_order(state.dealer, 4)  # the last deal's dealer breaks ties
    assert out.winners == [s for s in order if s in team and state.totals[s] == best]


def test_a_views_finished_deals_stay_as_they_were_shown():
    """The view shares the finished deals' summaries with the state (no copy at every move):
    nothing the game does later changes what an earlier view showed."""
    state = GAME.new_state(4, {"betting": "target", "target": 1000, "max_deals": 3}, seed=5)
    rng = random.Random(5)
    finish_deal(state, rng)
    next_deal(state)
    first = state.view(0)
    shown = msgpack.unpackb(msgpack.packb(first["deals"]))
    assert len(shown) == 1 and shown[0]["deal"] == 1
    play_out(state, rng)
    assert state.view(None)["deals"][:1] == shown
    assert first["deals"] == shown
    assert state.outcome().detail["deals"] == state.view(2)["deals"]


def test_target_ends_at_the_first_deal_that_reaches_it():
    for seed in range(5):
        state = GAME.new_state(4, {"betting": "target", "target": 30}, seed=seed)
        play_out(state, random.Random(seed))
        running = [0, 0, 0, 0]
        deals = state.outcome().detail["deals"]
        for i, summary in enumerate(deals):
            running = [a + b for a, b in zip(running, summary["scores"], strict=True)]
            reached = max(settle.partnership_totals(running)) >= 30
            if i < len(deals) - 1:
                assert not reached, (seed, i)  # the game went on only below the target
            else:
                assert reached or len(deals) == 10  # the default deal cap
        assert running == state.totals


def test_target_verdicts():
    verdict = settle.target_verdict
    assert verdict([40, 99], 100, False, 3, 10) is None
    assert verdict([40, 100], 100, False, 3, 10) == 1
    assert verdict([130, 120], 100, False, 3, 10) == 0
    assert verdict([20, 10], 100, False, 10, 10) == 0  # the deal cap
    assert verdict([20, 20], 100, False, 10, 10) == "tie"
    # exact: over busts, both over -> nearer, exactly on target wins, cap -> nearest below
    assert verdict([101, 60], 100, True, 3, 10) == 1
    assert verdict([120, 110], 100, True, 3, 10) == 1
    assert verdict([100, 99], 100, True, 3, 10) == 0
    assert verdict([100, 100], 100, True, 3, 10) == "tie"
    assert verdict([90, 95], 100, True, 3, 10) is None
    assert verdict([90, 95], 100, True, 10, 10) == 1
    assert verdict([-5, -30], 100, True, 10, 10) == 0


def test_target_exact_game_ends_by_the_verdict():
    for seed in range(4):
        state = GAME.new_state(
            4, {"betting": "target_exact", "target": 30, "max_deals": 4}, seed=seed
        )
        play_out(state, random.Random(seed))
        out = state.outcome()
        running = [0, 0, 0, 0]
        for summary in out.detail["deals"][:-1]:  # no earlier deal had decided it
            running = [a + b for a, b in zip(running, summary["scores"], strict=True)]
            pairs = settle.partnership_totals(running)
            assert max(pairs) < 30, (seed, pairs)
        pairs = settle.partnership_totals(state.totals)
        verdict = settle.target_verdict(pairs, 30, True, state.deal_no, 4)
        assert verdict is not None
        if verdict == "tie":
            assert out.refund
        else:
            assert set(out.winners) <= set(settle.PARTNERSHIPS[verdict])
            if any(p > 30 for p in pairs) and not all(p > 30 for p in pairs):
                assert pairs[verdict] <= 30  # the other one went over


# --- errors, snapshots, replay, views -------------------------------------------------------


def test_malformed_out_of_turn_and_illegal_actions_change_nothing():
    state = GAME.new_state(4, seed=2)
    before = state.snapshot()
    bad = [
        (MalformedAction, 9, Play("W1")),
        (MalformedAction, 0, "play W1"),
        (MalformedAction, 0, {"type": "play", "card": "W1"}),  # a wire map, not an action
        (MalformedAction, 0, Draw()),  # another game's action
        (MalformedAction, 0, BidCard("W1")),
        (OutOfTurn, 1, Play(state.hands[1][0])),
        (IllegalAction, 0, Play("X99")),
        (IllegalAction, 0, Fold()),
    ]
    for err, seat, action in bad:
        with pytest.raises(err) as info:
            state.apply(seat, action)
        assert info.value.message and info.value.message[0].isupper()
        assert state.snapshot() == before
    play_out(state, random.Random(2))
    with pytest.raises(OutOfTurn, match="over"):
        state.apply(0, Play("W1"))


@pytest.mark.parametrize("betting", ["rubber", "ante", "raise", "bid", "target", "target_exact"])
def test_snapshot_restore_and_replay_reproduce_the_game(betting):
    options = {"betting": betting, "target": 40, "max_deals": 3}
    state = GAME.new_state(4, options, dealer=1, seed=8)
    rng = random.Random(8)
    for _ in range(40):
        if state.is_over:
            break
        seat = rng.choice(sorted(state.pending()))
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    copy = GAME.restore(state.snapshot())
    assert copy.snapshot() == state.snapshot()
    rng_a, rng_b = random.Random(9), random.Random(9)
    play_out(state, rng_a)
    play_out(copy, rng_b)
    assert copy.snapshot() == state.snapshot()
    assert copy.outcome().to_wire() == state.outcome().to_wire()
    again = GAME.replay(state.params, state.history)
    assert again.snapshot() == state.snapshot()
    msgpack.packb(state.outcome().to_wire())


@pytest.mark.parametrize("betting", ["ante", "raise", "bid", "target"])
def test_views_never_show_a_hidden_card(betting):
    # a target never reached: three deals, so later deals' views are audited too
    state = GAME.new_state(4, {"betting": betting, "target": 1000, "max_deals": 3}, seed=21)
    rng = random.Random(21)
    while True:
        places = state.card_locations()
        for seat in (None, 0, 1, 2, 3):
            seen = set(strings_in(state.view(seat)))
            for place, cards in places.items():
                if is_hidden_place(place) and owner(place) != seat:
                    assert not seen & set(cards), (seat, place)
        assert state.view(0)["hand"] == places["hand:0"]
        assert state.view(None)["hand"] is None
        if state.is_over:
            break
        seat = rng.choice(sorted(state.pending()))
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert state.deal_no == (3 if betting == "target" else 1)


def test_events_show_only_this_deal_and_private_events_only_to_their_seats():
    state = GAME.new_state(4, {"betting": "target", "target": 1000, "max_deals": 2}, seed=5)
    state.events.append({"e": "note", "to": [2], "deal": 1})  # no such event yet: a probe
    finish_deal(state, random.Random(5))
    for seat in range(4):
        state.apply(seat, NextDeal())
    start = state.deal_events_from
    assert start > 0 and state.events[start]["e"] == "deal"
    state.events.append({"e": "note", "to": [1, 3], "deal": 2})
    everyone = state.events[start:-1]
    assert state.visible_events(None) == everyone
    assert state.visible_events(0) == everyone
    assert state.visible_events(2) == everyone  # deal 1's note is gone with deal 1
    assert state.visible_events(1) == [*everyone, {"e": "note", "deal": 2}]
    assert state.visible_events(3, since=len(state.events) - 1) == [{"e": "note", "deal": 2}]
    assert state.visible_events(0, since=len(state.events) - 1) == []
    assert state.view(3)["events"][-1] == {"e": "note", "deal": 2}
    assert state.view(None)["events"] == everyone


def test_view_lists_the_current_trick_and_each_seats_won_tricks():
    state = deal({0: ["W13"], 1: ["W2"], 2: ["W1"], 3: ["W12", "*1"]})
    play_trick(state, "W13", "W2", "W1", "W12")
    play(state, 1, state.hands[1][0])
    view = state.view(2)
    assert view["trick"]["leader"] == 1 and view["trick"]["n"] == 2
    assert view["trick"]["cards"] == [[1, state.trick[0][1]]]
    assert view["trick"]["led"] == state.trick[0][1][0]
    assert view["won"][0] == [{"n": 1, "top": "W13", "disposition": "well", "points": 13}]
    assert view["won"][1] == view["won"][2] == view["won"][3] == []
    assert view["tricks"][0]["cards"] == [[0, "W13"], [1, "W2"], [2, "W1"], [3, "W12"]]
    assert view["ask"] == {"kind": "play", "trick": 2, "led": view["trick"]["led"]}
    assert view["legal"] and state.view(3)["legal"] == []
    assert state.card_locations()["won:0"] == ["W13", "W2", "W1", "W12"]
