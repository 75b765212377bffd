"""A Prophet bot that bids what its cards are worth and then plays to hit that bid exactly.

Bidding sums a rough chance of winning a trick for each card: a card wins when no opponent
plays a higher card of its suit on it and, for a side suit, when nobody trumps it. Play is
greedy: while short of the bid, take the trick (with the cheapest winner when playing last);
once the bid is made, stay under the winning card and throw the most dangerous cards whenever
a void allows it. It reads only the view.
"""

from __future__ import annotations

from typing import Any

from protocol.actions import Bid, Play
from protocol.cards import FRENCH_RANKS, french_rank

from .base import Bot, register_bot

#: Weight of each higher card an opponent may hold. Above 1 because an opponent's higher card
#: need not fall on the same trick as ours (tuned against random play; 1–3 all work).
ALPHA = 2.0
#: A side card in a suit of three or more of ours is likelier to be trumped by the time it wins.
LONG = 0.7


def _power(card: str, led: str | None, trump: str) -> int:
    """How strongly ``card`` stands in a trick led in ``led``: 0 means it cannot win."""
    if card[1] == trump:
        return 100 + french_rank(card)
    if card[1] == led:
        return french_rank(card)
    return 0


def estimate_tricks(view: dict[str, Any]) -> float:
    """Expected tricks from this hand: the sum of each card's rough chance to take one."""
    hand: list[str] = view["hand"]
    trump_card: str = view["trump"]
    trump = trump_card[1]
    n, k = view["players"], view["cards"]
    low = 0 if view["options"]["deck"] == 52 else 5
    ranks = [french_rank(r + "S") for r in FRENCH_RANKS[low:]]
    unseen = len(ranks) * 4 - k - 1
    q = min(1.0, (n - 1) * k / unseen)  # chance a given unseen card is in an opponent's hand
    each = k / unseen  # chance a given unseen card is in one particular opponent's hand
    mine = set(hand) | {trump_card}
    unseen_trumps = sum(1 for r in ranks if _code(r, trump) not in mine)
    has_trump = 1 - (1 - each) ** unseen_trumps
    leads = view["seat"] == (view["dealer"] + 1) % n
    total = 0.0
    for card in hand:
        suit, rank = card[1], french_rank(card)
        higher = sum(1 for r in ranks if r > rank and _code(r, suit) not in mine)
        p = 1 / (1 + ALPHA * higher * q)
        if suit != trump:
            # Trumped when an opponent is void in the suit and holds a trump.
            left = sum(1 for r in ranks if _code(r, suit) not in mine)
            void = (1 - each) ** left
            p *= (1 - void * has_trump) ** (n - 1)
            if sum(1 for c in hand if c[1] == suit) > 2:
                p *= LONG
            if k == 1 and not leads:
                p *= 0.1  # one card, not leading: only a lower card of its suit can be led
        total += p
    return total


def _code(rank: int, suit: str) -> str:
    return FRENCH_RANKS[rank - 2] + suit


def choose_bid(view: dict[str, Any]) -> int:
    """The allowed bid nearest the estimate (the dealer skips the forbidden number)."""
    est = estimate_tricks(view)
    allowed = [a["tricks"] for a in view["legal"]]
    return min(allowed, key=lambda b: (abs(b - est), b))


def choose_card(view: dict[str, Any]) -> str:
    """Win cheaply while short of the bid; otherwise lose, shedding the strongest cards."""
    legal = [a["card"] for a in view["legal"]]
    seat = view["seat"]
    trump = view["trump_suit"]
    need = view["bids"][seat] - view["tricks"][seat]
    trick = view["trick"]
    if not trick:
        return _lead(legal, trump, need > 0, view)
    led = trick[0][1][1]
    best = max(_power(c, led, trump) for _, c in trick)
    last = len(trick) == view["players"] - 1
    winners = [c for c in legal if _power(c, led, trump) > best]
    losers = [c for c in legal if _power(c, led, trump) <= best]
    if need > 0:
        if winners:
            # Last to play: the cheapest winner is enough. Otherwise play a stronger one.
            pick = min if last else max
            return pick(winners, key=lambda c: _power(c, led, trump))
        return min(losers, key=lambda c: _strength(c, trump))
    if losers:
        return max(losers, key=lambda c: _strength(c, trump))
    return max(winners, key=lambda c: _power(c, led, trump))


def _strength(card: str, trump: str) -> int:
    """How likely a card is to take a trick later (trumps above every side card)."""
    return french_rank(card) + (20 if card[1] == trump else 0)


def _lead(legal: list[str], trump: str, want: bool, view: dict[str, Any]) -> str:
    """Lead a card that is the best left in its suit when a trick is wanted, else a low one."""
    if want:
        gone = set(view["played"]) | set(view["hand"]) | {view["trump"]}
        tops = [c for c in legal if _is_top(c, gone, view["options"]["deck"])]
        if tops:
            return max(tops, key=lambda c: (c[1] == trump, french_rank(c)))
        return max(legal, key=lambda c: _strength(c, trump))
    side = [c for c in legal if c[1] != trump] or legal
    return min(side, key=lambda c: french_rank(c))


def _is_top(card: str, gone: set[str], deck: int) -> bool:
    """No card above it in its suit is still out in other hands."""
    low = 2 if deck == 52 else 7
    return all(_code(r, card[1]) in gone for r in range(max(low, french_rank(card) + 1), 15))


@register_bot("prophet", "heuristic")
class ProphetBot(Bot):
    """Bids its expected tricks, then plays to take exactly that many."""

    def decide(self, view: dict[str, Any]) -> dict[str, Any]:
        if view["ask"]["kind"] == "bid":
            return Bid(choose_bid(view)).to_wire()
        return Play(choose_card(view)).to_wire()
