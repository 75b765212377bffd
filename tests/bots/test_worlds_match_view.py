"""Every world a strong bot samples agrees with what its seat sees (issue 45, item 1).

A deal is played from a seeded start by a mix of random and heuristic bots; at every point
one seat decides, its sampler's worlds are checked against the truth:

* seen from the seat, the world is the seat's view (its hand, Fate and ask; every public
  pile, stack and count), the hidden parts apart;
* every card whose place the seat knows (a card taken with the Ghost, its own card given by
  the Raven or the Tempter, a hand it saw with the Darklord, the Fates the Seer showed, its
  old Fate moved by the Mists) is in that place;
* no card is in two places, and every card is somewhere;
* no hidden Fate is a card the seat saw out of the Fates since that Fate came to its seat
  (a Fate stays with its seat: one kept while the card was the Focus is not that card, even
  when a reshuffle hid the card again since).

What the seat knows is followed here from the truth, event by event (not from the view, as
the sampler does), and checked against the true deal as it goes.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import TAROKKA_COMMON, TAROKKA_HIGH
from server.bots import make_bot
from server.bots.strong.pg_world import sample_world, shared_candidates
from server.engine import get_game

# --- Prophet's Gambit -------------------------------------------------------------------

#: The view's keys that a world shows as the deal does (its events are the sampler's own).
PG_KEYS = (
    "players",
    "waiting",
    "over",
    "dealer",
    "phase",
    "round",
    "turn",
    "turned",
    "showing",
    "stacks",
    "hand_sizes",
    "focus",
    "killed",
    "open_fates",
    "fronts",
    "deck",
    "high_deck",
    "discard",
    "discard_top",
    "high_discard",
    "committed",
    "seat",
    "ask",
    "legal",
    "hand",
    "fate",
    "bid",
    "picked",
    "glimpse",
)


class Knowledge:
    """Where one seat knows hidden cards to be: ``card -> ("hand" | "fate", seat)``,
    followed from the true deal's events (private ones included) as they are made."""

    def __init__(self, me: int) -> None:
        self.me = me
        self.places: dict[str, tuple[str, int]] = {}
        #: Per seat, cards its Fate is not (seen elsewhere since it came to the seat).
        self.not_fate: list[set[str]] = []

    def forget_hand(self, seat: int) -> None:
        for card, place in list(self.places.items()):
            if place == ("hand", seat):
                del self.places[card]

    def update(
        self,
        state: Any,
        events: list[dict[str, Any]],
        hands_before: list[list[str]],
        fates_before: list[str | None],
        acted: tuple[int, Any],
    ) -> None:
        me, places = self.me, self.places
        seat, action = acted
        if not self.not_fate:
            self.not_fate = [set() for _ in range(state.num_players)]
        for i, ev in enumerate(events):
            kind = ev["e"]
            if kind in ("replace_fate", "artifact"):
                self.not_fate[ev["seat"]] = set()  # a new Fate (drawn, or the Focus shown)
            elif kind == "mists":
                seats = ev["seats"]
                moved = [self.not_fate[s] for s in seats]
                for k, s in enumerate(seats):
                    self.not_fate[s] = moved[k - 1]
            if kind in ("play", "discard"):
                places.pop(ev["card"], None)  # public from now on
            elif kind == "discard_hand":
                for card in ev["cards"]:
                    places.pop(card, None)
            elif kind == "replace_fate":
                places.pop(ev["card"], None)
            elif kind == "artifact":
                places.pop(ev["focus"], None)
                places.pop(ev["fate"], None)
            elif kind == "take":
                places[ev["card"]] = ("hand", ev["seat"])
            elif kind == "tempter":
                turner, target = ev["seat"], ev["target"]
                mine = events[i + 1]["gave"]
                theirs = events[i + 2]["gave"]
                if me == turner:
                    places[mine] = ("hand", target)
                    places.pop(theirs, None)
                elif me == target:
                    places[theirs] = ("hand", turner)
                    places.pop(mine, None)
                else:
                    self.forget_hand(turner)
                    self.forget_hand(target)
            elif kind == "raven":
                received = [e for e in events[i + 1 :] if e["e"] == "received"]
                for got in received:
                    giver, to, card = got["from"], got["seat"], got["card"]
                    if to == me:
                        places.pop(card, None)
                    elif giver != me:
                        self.forget_hand(giver)  # what it passed, to ``to``, is unseen
                for got in received:
                    if got["from"] == me:
                        places[got["card"]] = ("hand", got["seat"])
            elif kind == "mists":
                seats = ev["seats"]
                nxt = {s: seats[(k + 1) % len(seats)] for k, s in enumerate(seats)}
                for card, (where, s) in list(places.items()):
                    if where == "fate" and s in nxt:
                        places[card] = ("fate", nxt[s])
                if me in nxt and fates_before[me] is not None:
                    places[fates_before[me]] = ("fate", nxt[me])
            elif kind == "seer" and ev["seat"] == me:
                for s, card in state.glimpse["fates"].items():
                    places[card] = ("fate", int(s))
            elif kind == "darklord" and ev["seat"] == me:
                pass  # the hand is shown with the pick's ask; kept when the pick is made
        if seat == me and action.TYPE == "pick":
            target = next(s for s in range(state.num_players) if action.card in hands_before[s])
            for card in hands_before[target]:
                if card != action.card:
                    places[card] = ("hand", target)
        for card in [c for c, (where, s) in places.items() if where == "hand" and s == me]:
            del places[card]  # its own hand is in its view
        places.pop(state.fates[me], None)
        # What the seat sees now outside the hidden Fates (true of the deal after the move).
        visible = {*state.discard, *state.hands[me], *(c for st in state.shown for c in st)}
        visible.update(c for c in (state.focus, state.killed) if c)
        visible.update(f for s, f in enumerate(state.fates) if state.fate_open[s] or s == me)
        visible.update(c for c, (where, _) in places.items() if where == "hand")
        for s, cards in enumerate(self.not_fate):
            cards.update(visible - {state.fates[s]})

    def check_truth(self, state: Any) -> None:
        """The knowledge is true of the real deal (the test's own bookkeeping is right)."""
        for card, (where, s) in self.places.items():
            if where == "hand":
                assert card in state.hands[s], (card, s, state.hands)
            else:
                assert state.fates[s] == card, (card, s, state.fates)


def check_pg_world(world: Any, state: Any, me: int, known: Knowledge) -> None:
    real, seen = state.view(me), world.view(me)
    for key in PG_KEYS:
        assert seen.get(key) == real.get(key), (key, seen.get(key), real.get(key))
    for card, (where, s) in known.places.items():
        if where == "hand":
            assert card in world.hands[s], ("known in hand", card, s, world.hands)
        else:
            assert world.fates[s] == card, ("known Fate", card, s, world.fates)
    for s, cards in enumerate(known.not_fate):
        assert world.fates[s] not in cards, ("a Fate the seat saw elsewhere", s, world.fates[s])
    places = world.card_locations()
    everywhere = Counter(c for cards in places.values() for c in cards)
    twice = [c for c, k in everywhere.items() if k > 1]
    assert not twice, ("in two places", twice, places)
    assert set(everywhere) == set(TAROKKA_COMMON) | set(TAROKKA_HIGH)


def play_pg_and_check(seed: int, players: int, heuristic_share: float, me_worlds: int) -> int:
    """Play one deal; at every decision sample worlds for the deciding seat and check them.
    Returns the number of worlds checked."""
    game = get_game("prophets_gambit")
    rng = random.Random(seed)
    state = game.new_state(players, {}, dealer=seed % players, seed=seed)
    bots = {
        kind: [make_bot("prophets_gambit", kind, seed=f"{seed}-{s}") for s in range(players)]
        for kind in ("random", "heuristic")
    }
    knowledge = [Knowledge(s) for s in range(players)]
    checked = 0
    for _ in range(200):  # a deal ends in well under 200 decisions
        if state.is_over:
            break
        seat = rng.choice(state.waiting())
        view = state.view(seat)
        for k in range(me_worlds):
            shared = shared_candidates(view, rng, tries=6) if k % 2 else None
            world = sample_world(game, view, rng, shared)
            if world is not None:
                check_pg_world(world, state, seat, knowledge[seat])
                checked += 1
        kind = "heuristic" if rng.random() < heuristic_share else "random"
        action = bots[kind][seat].choose(view)
        hands, fates = copy.deepcopy(state.hands), list(state.fates)
        start = len(state.events)
        state.apply(seat, action)
        for k in knowledge:
            k.update(state, state.events[start:], hands, fates, (seat, action))
            k.check_truth(state)
    return checked


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(3, 5),
    heuristic_share=st.sampled_from([0.0, 0.5, 0.9]),
)
def test_prophets_gambit_worlds_match_the_view(seed, players, heuristic_share):
    assert play_pg_and_check(seed, players, heuristic_share, me_worlds=2) > 0


# --- Prophet and Fortunes ---------------------------------------------------------------

PROPHET_KEYS = (
    "hand_sizes",
    "trump",
    "cards",
    "dealer",
    "phase",
    "turn",
    "bids",
    "tricks",
    "trick",
    "leader",
    "seat",
    "ask",
    "legal",
)


def play_trick_game_and_check(game_name: str, options: dict[str, Any], seed: int) -> int:
    """Play a game's first rounds by random and heuristic bots; at every decision check the
    deciding seat's worlds. Returns the number of worlds checked."""
    game = get_game(game_name)
    rng = random.Random(seed)
    state = game.new_state(4, options, dealer=seed % 4, seed=seed)
    bots = {
        kind: [make_bot(game_name, kind, seed=f"{seed}-{s}") for s in range(4)]
        for kind in ("random", "heuristic")
    }
    strong = [make_bot(game_name, "strong", seed=f"{seed}-{s}", iterations=1) for s in range(4)]
    voids: set[tuple[int, str]] = set()  # (seat, suit) it showed it lacks this round
    checked = 0
    first_round = getattr(state, "round", None)
    for _ in range(120):
        if state.is_over or getattr(state, "round", None) != first_round:
            break
        seat = min(state.pending())
        view = state.view(seat)
        if view["ask"]["kind"] == "play":
            for _ in range(8):  # a world whose hands would not have bid so is dropped
                world = strong[seat].sample_world(view, rng)
                if world is None:
                    continue
                checked += 1
                if game_name == "prophet":
                    check_prophet_world(world, state, seat, voids)
                else:
                    check_fortunes_world(world, view, seat)
        kind = "heuristic" if rng.random() < 0.5 or view["ask"]["kind"] != "play" else "random"
        action = bots[kind][seat].choose(view)
        if game_name == "prophet" and action.TYPE == "play" and state.trick:
            led = state.trick[0][1][1]
            if action.card[1] != led:
                voids.add((seat, led))
        state.apply(seat, action)
    return checked


def check_prophet_world(world: Any, state: Any, me: int, voids: set[tuple[int, str]]) -> None:
    """A world of the fast round (``prophet_sim``): seen from ``me``, the seat's view."""
    from protocol.actions import Bid, Play
    from server.bots.strong import prophet_sim as sim

    real = state.view(me)
    seen = {
        "hand": [sim.CODE[c] for c in world.hands[me]],
        "hand_sizes": [len(h) for h in world.hands],
        "trump": sim.CODE[world.trump_card],
        "cards": world.k,
        "dealer": world.dealer,
        "phase": "bid" if world.bidding else "play",
        "turn": world.turn,
        "bids": [None if b < 0 else b for b in world.bids],
        "tricks": world.tricks,
        "trick": [[s, sim.CODE[c]] for s, c in world.trick],
        "legal": [Bid(b).to_wire() for b in world.allowed_bids()]
        if world.bidding
        else [Play(sim.CODE[c]).to_wire() for c in world.options(me)],
        "played": sorted(sim.CODE[c] for c in sim.CODE if world.gone >> c & 1),
    }
    real = {**real, "played": sorted(real["played"])}
    for key in ("hand", *(k for k in PROPHET_KEYS if k not in ("leader", "seat", "ask"))):
        assert seen[key] == real[key], (key, seen[key], real[key])
    hands = [[sim.CODE[c] for c in h] for h in world.hands]
    for seat, suit in voids:
        assert all(c[1] != suit for c in hands[seat]), (seat, suit, hands)
    # Every card once: in a hand, on the table, won, the trump, or (the rest) undealt.
    placed = [c for h in hands for c in h] + [c for _, c in seen["trick"]]
    placed += [*seen["played"], seen["trump"]]
    everywhere = Counter(placed)
    assert not [c for c, k in everywhere.items() if k > 1]
    assert set(everywhere) <= set(get_game("prophet").cards(state.options))


def check_fortunes_world(world: Any, view: dict[str, Any], me: int) -> None:
    from server.bots.strong import fortunes_sim as sim

    assert world.hands[me] == sorted(sim.INDEX[c] for c in view["hand"])
    for s in range(4):
        assert len(world.hands[s]) == view["seats"][s]["cards"], (s, world.hands)
    played = [sim.INDEX[c] for t in view["tricks"] for _, c in t["cards"]]
    played += [sim.INDEX[c] for _, c in view["trick"]["cards"]]
    held = [c for h in world.hands for c in h]
    everywhere = Counter(held + played)
    assert not [c for c, k in everywhere.items() if k > 1]
    assert len(everywhere) + view["set_aside"] == len(sim.SUIT)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_prophet_worlds_match_the_view(seed):
    options = {"schedule": "fixed", "cap": 7}
    assert play_trick_game_and_check("prophet", options, seed) > 0


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_fortunes_worlds_match_the_view(seed):
    assert play_trick_game_and_check("fortunes", {"betting": "ante"}, seed) > 0
