"""The strong Fortunes bot: PIMC over the current deal, playing for its partnership.

A world is this deal dealt again: the seat's own hand and every card played where it was, the
unseen cards dealt to the three other hands (a player who could not follow a suit gets none of
it) and the two set aside. The engine's stacked deck deals exactly that (two cards aside, then
19 cards in blocks from the dealer's left), as a single deal, and the deal's plays are
replayed on it.

Each legal card is played out to the end of the deal with a fast greedy policy (the heuristic
bot's immediate trick value and keeping cost, read from the world's state); the result is the
partnership's deal score minus the other partnership's, from the engine's own scoring. Only the
choice of a card is searched: bets, partnership bids and the next deal go to the heuristic bot.
"""

from __future__ import annotations

import random
from typing import Any

from protocol.cards import FORTUNES_DECK
from server.engine.errors import RulesError
from server.engine.fortunes.state import FortunesState
from server.engine.fortunes.tricks import (
    HIGH,
    LOW,
    STAR,
    flipped,
    is_high_team,
    playable,
    strength,
)

from ..base import register_bot
from ..fortunes import MIDDLE, MUNDANE_KEEP, STAR_KEEP, STAR_KEEP_PER_STRENGTH
from .hidden import deal_hidden
from .search import StrongBot


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

    def searches(self, view: dict[str, Any]) -> bool:
        return view["ask"]["kind"] == "play"

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
        while state.phase == "play":
            who = state.turn
            cards = playable(state.hands[who], state.led, state.stars_free)
            card = cards[0] if len(cards) == 1 else _policy(state, who, cards)
            state._apply(who, {"type": "play", "card": card})
        scores = state.scores
        return float(
            scores[seat] + scores[(seat + 2) % 4] - scores[(seat + 1) % 4] - scores[(seat + 3) % 4]
        )


def _keep(card: str, mine: str) -> float:
    power = strength(card, mine)
    if card[0] == STAR:
        return STAR_KEEP + STAR_KEEP_PER_STRENGTH * power
    return MUNDANE_KEEP * (power - MIDDLE)


def _policy(state: Any, seat: int, cards: list[str]) -> str:
    """The heuristic bot's greedy value of each card (without its flip-risk guess): the
    trick's top strength, signed for the team, less what the card is worth keeping."""
    mine = HIGH if is_high_team(seat, state.dealer) else LOW
    trick = state.trick
    best, best_score = cards[0], float("-inf")
    for card in cards:
        if not trick:
            power = strength(card, mine)
            score = power if card[0] == STAR else 0.8 * power
        else:
            led = state.led
            direction = state.direction
            if card[0] == STAR and led != STAR:
                direction = flipped(direction)
            top = max(
                strength(c, direction) for c in [*(c for _, c in trick), card] if c[0] == led
            )
            score = top if direction == mine else -top
        score -= _keep(card, mine)
        if score > best_score:
            best, best_score = card, score
    return best
