"""The strong Fortunes bot: PIMC over the current deal, playing for its partnership.

A world is this deal dealt again: the seat's own hand and every card played where it was, the
unseen cards dealt to the three other hands (a player who could not follow a suit gets none of
it) and the two set aside. The engine's stacked deck deals exactly that (two cards aside, then
19 cards in blocks from the dealer's left), as a single deal, and the deal's plays are
replayed on it.

Each legal card is played out to the end of the deal by the heuristic bot in every seat (fed
the few view fields it reads, straight from the world); the result is the partnership's deal
score minus the other partnership's, from the engine's own scoring, squashed so that a deal
won by much counts little more than one won by a little (the deal is what pays). Only the
choice of a card is searched: bets, partnership bids and the next deal go to the heuristic bot.
"""

from __future__ import annotations

import math
import random
from typing import Any

from protocol.cards import FORTUNES_DECK
from server.engine.errors import RulesError
from server.engine.fortunes.state import FortunesState
from server.engine.fortunes.tricks import (
    STAR,
    playable,
)

from ..base import register_bot
from ..fortunes import FortunesBot, Table
from .hidden import deal_hidden
from .search import StrongBot

#: Cards searched per decision: the heuristic's best few by its own values.
KEEP_CARDS = 3
#: The margin (team points) at which a deal counts as about surely won or lost.
MARGIN_SCALE = 30.0


def _plays(view: dict[str, Any]) -> list[list]:
    """This deal's plays in order, trick by trick, the current trick last."""
    out = []
    for trick in view["tricks"]:
        out.append([list(p) for p in trick["cards"]])
    if view["trick"]["cards"]:
        out.append([list(p) for p in view["trick"]["cards"]])
    return out


def _voids(tricks: list[list]) -> list[set[str]]:
    """Suits each seat showed it lacks: it played another suit on a lead of this one (a Star
    counts only before Stars were free, when it could not have been played holding the suit)."""
    voids: list[set[str]] = [set(), set(), set(), set()]
    free = False
    for trick in tricks:
        if not trick:
            continue
        led = trick[0][1][0]
        for seat, card in trick:
            suit = card[0]
            if suit != led and not (suit == STAR and free):
                voids[seat].add(led)
            if suit == STAR:
                free = True
    return voids


@register_bot("fortunes", "strong")
class StrongFortunesBot(StrongBot):
    """Samples the hidden hands, plays each card out, keeps the best for its partnership."""

    game_name = "fortunes"
    deviate_z = 0.5

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.heuristic = FortunesBot(0)

    def searches(self, view: dict[str, Any]) -> bool:
        return view["ask"]["kind"] == "play"

    def candidates(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> list[int]:
        """The heuristic's best few cards: a lead has up to 19, too many to search in time."""
        table = Table(view)
        cards = [a["card"] for a in legal]
        if table.shed:
            return list(range(len(legal)))
        if table.cards:
            scores = self.heuristic.follow_scores(table, cards)
        else:
            scores = self.heuristic.lead_scores(table, cards)
        ranked = sorted(range(len(cards)), key=lambda i: -scores[cards[i]])
        return sorted(ranked[:KEEP_CARDS])

    def sample_world(self, view: dict[str, Any], rng: random.Random) -> FortunesState | None:
        me, dealer = view["seat"], view["dealer"]
        tricks = _plays(view)
        played_by: list[list[str]] = [[], [], [], []]
        for trick in tricks:
            for seat, card in trick:
                played_by[seat].append(card)
        voids = _voids(tricks)
        seen = set(view["hand"]) | {c for cards in played_by for c in cards}
        unseen = [c for c in FORTUNES_DECK if c not in seen]
        sizes = {str(s): view["seats"][s]["cards"] for s in range(4) if s != me}
        sizes["aside"] = view["set_aside"]
        allowed = {
            str(s): (lambda c, v=frozenset(voids[s]): c[0] not in v)
            for s in range(4)
            if s != me and voids[s]
        }
        dealt = deal_hidden(unseen, sizes, allowed, rng)
        if dealt is None:
            return None
        hands = [
            (list(view["hand"]) if s == me else dealt[str(s)]) + played_by[s] for s in range(4)
        ]
        stacked = dealt["aside"] + [c for i in range(4) for c in hands[(dealer + 1 + i) % 4]]
        try:
            world = self.game.new_state(4, {"betting": "ante"}, dealer=dealer, deck=stacked)
            for trick in tricks:
                for seat, card in trick:
                    world.apply(seat, {"type": "play", "card": card})
        except RulesError:
            return None
        return world

    def rollout(self, world: FortunesState, seat: int, rng: random.Random) -> float:
        state: Any = world
        played = {c for t in state.tricks for _, c in t["cards"]} | {c for _, c in state.trick}
        voids = _voids([[list(p) for p in t["cards"]] for t in state.tricks] + [state.trick])
        while state.phase == "play":
            who = state.turn
            cards = playable(state.hands[who], state.led, state.stars_free)
            card = cards[0] if len(cards) == 1 else self.policy(state, who, cards, played, voids)
            led = state.led
            if led is not None and card[0] != led and not (card[0] == STAR and state.stars_free):
                voids[who].add(led)
            played.add(card)
            state._apply(who, {"type": "play", "card": card})
        scores = state.scores
        margin = scores[seat] + scores[(seat + 2) % 4] - scores[(seat + 1) % 4]
        margin -= scores[(seat + 3) % 4]
        # The deal is won or lost: the margin counts, but a sure win counts no more.
        return math.tanh(margin / MARGIN_SCALE)

    def policy(
        self,
        state: Any,
        seat: int,
        cards: list[str],
        played: set[str],
        voids: list[set[str]],
    ) -> str:
        """The heuristic bot's own choice (the table's other bots are heuristic ones), from
        the view fields it reads, taken straight from the world."""
        view = {
            "seat": seat,
            "dealer": state.dealer,
            "hand": state.hands[seat],
            "trick": {"cards": state.trick, "led": state.led, "direction": state.direction},
            "stars_free": state.stars_free,
            "options": state.options,
            "tricks": state.tricks,
            "legal": [{"type": "play", "card": c} for c in cards],
            "ask": {"kind": "play"},
        }
        table = Table(view, (played, voids))
        bot = self.heuristic
        if table.cards:
            return bot._follow(table, cards)
        return bot._lead(table, cards)
