"""The strong Prophet bot as it was on main before issue 45 (commit 9e17e9b), frozen for
``bench/bots.py --h2h previous``: its rollouts on the engine's state, not on the fast round.

Its own decision code (world sampling and rollouts) is a copy; the search loop
(:class:`server.bots.strong.search.StrongBot`) and the heuristic it rolls out with are shared
with today's bot, so a head-to-head measures what the sampling and the rollouts change. It is
not registered as a bot kind: only the bench makes one.

Its own description, as it was:

The strong Prophet bot: PIMC over the current round, playing to take exactly its bid.

A world is this round dealt again: the seat's own hand, the trump and every card played this
round where they were, and the unseen cards dealt to the other hands (a player who did not
follow suit gets none of that suit) and the undealt rest. It is built with the engine's
stacked deck (``new_state(deck=…)`` deals in blocks from the dealer's left, then turns the
trump), as a one-round schedule of this round's size, and the round's bids and plays are
replayed on it. Bids already made also say what a hand holds: a world whose hands would not
have bid about what was bid is kept less often (the players are assumed to bid about their
expected tricks, as the heuristic bot does).

Each legal action is played out to the end of the round by the heuristic bot's own bidding
and play for every seat; the result is the seat's round score (10 + bid when exact, else 0),
from the engine's score sheet.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from protocol.actions import Action, Bid, Play
from server.bots.prophet import choose_bid, choose_card, estimate_tricks
from server.bots.strong.hidden import deal_hidden
from server.bots.strong.search import StrongBot
from server.engine.base import State
from server.engine.errors import RulesError

#: How sharply a world is kept by how well its hands explain the bids made (in tricks).
BID_SPREAD = 0.9


def _round_actions(view: dict[str, Any]) -> list[tuple[int, Action]]:
    """This round's bids and plays, in order, from the view's events."""
    events = view["events"]
    start = max(
        (i for i, e in enumerate(events) if e["e"] == "deal" and e["round"] == view["round"]),
        default=None,
    )
    if start is None:
        return []
    out = []
    for ev in events[start + 1 :]:
        if ev["e"] == "bid":
            out.append((ev["seat"], Bid.of(ev["tricks"])))
        elif ev["e"] == "play":
            out.append((ev["seat"], Play.of(ev["card"])))
    return out


def _voids(plays: list[tuple[int, str]], n: int) -> list[set[str]]:
    """The suits each seat showed it lacks, trick by trick."""
    voids: list[set[str]] = [set() for _ in range(n)]
    for first in range(0, len(plays), n):
        trick = plays[first : first + n]
        led = trick[0][1][1]
        for seat, card in trick[1:]:
            if card[1] != led:
                voids[seat].add(led)
    return voids


def _lacking(void: frozenset[str]) -> Callable[[str], bool]:
    """A test of a card: of none of the suits in ``void``."""
    return lambda c: c[1] not in void


class PreviousProphetBot(StrongBot):
    """Samples the hidden hands, plays each choice out, keeps the one most often exact."""

    game_name = "prophet"

    def sample_world(self, view: dict[str, Any], rng: random.Random) -> State | None:
        n, me, k = view["players"], view["seat"], view["cards"]
        actions = _round_actions(view)
        plays = [(s, a.card) for s, a in actions if type(a) is Play]
        played_by: list[list[str]] = [[] for _ in range(n)]
        for s, card in plays:
            played_by[s].append(card)
        voids = _voids(plays, n)
        seen = set(view["hand"]) | {view["trump"]} | {c for _, c in plays}
        cards = self.game.cards(view["options"])
        unseen = [c for c in cards if c not in seen]
        sizes = {str(s): view["hand_sizes"][s] for s in range(n) if s != me}
        sizes["deck"] = len(unseen) - sum(sizes.values())
        allowed = {str(s): _lacking(frozenset(voids[s])) for s in range(n) if s != me and voids[s]}
        dealt = deal_hidden(unseen, sizes, allowed, rng)
        if dealt is None:
            return None
        hands = [
            (list(view["hand"]) if s == me else dealt[str(s)]) + played_by[s] for s in range(n)
        ]
        if not self._explains_bids(view, hands, actions, rng):
            return None
        dealer = view["dealer"]
        stacked = [c for i in range(n) for c in hands[(dealer + 1 + i) % n]] + [view["trump"]]
        options = {"deck": view["options"]["deck"], "schedule": "fixed", "cap": k}
        try:
            world = self.game.new_state(n, options, dealer=dealer, seed=0, deck=stacked)
            for seat, action in actions:
                world.apply(seat, action)
        except RulesError:
            return None
        return world

    @staticmethod
    def _explains_bids(
        view: dict[str, Any],
        hands: list[list[str]],
        actions: list[tuple[int, Action]],
        rng: random.Random,
    ) -> bool:
        """Keep a world as often as its hands would have bid what was bid."""
        weight = 1.0
        for seat, action in actions:
            if type(action) is not Bid or seat == view["seat"]:
                continue
            guess = estimate_tricks(
                {
                    "hand": hands[seat],
                    "trump": view["trump"],
                    "players": view["players"],
                    "cards": view["cards"],
                    "options": view["options"],
                    "seat": seat,
                    "dealer": view["dealer"],
                }
            )
            weight *= math.exp(-(((guess - action.tricks) / BID_SPREAD) ** 2) / 2)
        return rng.random() < weight

    def rollout(self, world: State, seat: int, rng: random.Random) -> float:
        state: Any = world
        while state.phase != "over" and state.round == 1:
            who = state.turn
            legal = state.legal_actions(who)
            action = legal[0] if len(legal) == 1 else _policy(state, who, legal)
            state._apply(who, action)
        return float(state.sheet[0][seat])


def _policy(state: Any, seat: int, legal: list[Action]) -> Action:
    """The heuristic bot's choice, from the few view fields it reads (no full view)."""
    view = {
        "hand": state.hands[seat],
        "trump": state.trump,
        "trump_suit": state.trump[1],
        "players": state.num_players,
        "cards": state.schedule[0],
        "options": state.options,
        "seat": seat,
        "dealer": state.dealer,
        "legal": [a.to_wire() for a in legal],
        "bids": state.bids,
        "tricks": state.tricks,
        "trick": state.trick,
        "played": [c for pile in state.won for c in pile],
    }
    if state.phase == "bid":
        return Bid.of(choose_bid(view))
    return Play.of(choose_card(view))
