"""The strong Prophet bot: PIMC over the current round, playing to take exactly its bid.

A world is this round dealt again: the seat's own hand, the trump and every card played this
round where they were, and the unseen cards dealt to the other hands (a player who did not
follow suit gets none of that suit) and the undealt rest. Bids already made also say what a
hand holds: a world whose hands would not have bid about what was bid is kept less often (the
players are assumed to bid about their expected tricks, as the heuristic bot does).

Each legal action is played out to the end of the round by the heuristic bot's own bidding
and play for every seat, on the fast round of :mod:`.prophet_sim` (the engine's rules and
the heuristic's choices on small integers, checked against both by
``tests/bots/test_prophet_sim.py``): the result is the seat's round score (10 + bid when
exact, else 0). The engine's state made a rollout several times dearer, so the same time
budget now searches several times more worlds.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from protocol.actions import Action, Bid, Play

from ..base import register_bot
from . import prophet_sim as sim
from .hidden import deal_hidden
from .search import StrongBot

#: How sharply a world is kept by how well its hands explain the bids made (in tricks).
BID_SPREAD = 0.9
#: Deals drawn for one world before a sample counts as failed: the bids turn most deals
#: down, and the search gives a decision up after ``search.MAX_FAILURES`` failed samples (the
#: engine-bound bot stopped there after a few dozen worlds, whatever its budget).
DRAW_TRIES = 64


def _round_plays(view: dict[str, Any]) -> list[tuple[int, int]]:
    """This round's plays, in order, from the view's events (cards as integers)."""
    events = view["events"]
    start = max(
        (i for i, e in enumerate(events) if e["e"] == "deal" and e["round"] == view["round"]),
        default=None,
    )
    if start is None:
        return []
    return [(ev["seat"], sim.index(ev["card"])) for ev in events[start + 1 :] if ev["e"] == "play"]


def _voids(plays: list[tuple[int, int]], n: int) -> list[int]:
    """The suits (a bit each) each seat showed it lacks, trick by trick."""
    voids = [0] * n
    for first in range(0, len(plays), n):
        trick = plays[first : first + n]
        led = trick[0][1] >> 4
        for seat, card in trick[1:]:
            if card >> 4 != led:
                voids[seat] |= 1 << led
    return voids


def _lacking(void: int) -> Callable[[int], bool]:
    """A test of a card: of none of the suits in ``void``."""
    return lambda c: not void >> (c >> 4) & 1


class _Base:
    """What a decision's worlds share, read once from the view: the seat's cards, the round
    so far, the unseen cards and the places they may go."""

    def __init__(self, view: dict[str, Any], deck: tuple[str, ...]) -> None:
        self.n = n = view["players"]
        self.me = me = view["seat"]
        self.k = view["cards"]
        self.dealer = view["dealer"]
        self.low = 2 if view["options"]["deck"] == 52 else 7
        self.trump_card = sim.index(view["trump"])
        self.hand = [sim.index(c) for c in view["hand"]]
        self.bids = [-1 if b is None else b for b in view["bids"]]
        self.tricks = list(view["tricks"])
        self.trick = [(s, sim.index(c)) for s, c in view["trick"]]
        self.gone = 0
        for c in view["played"]:
            self.gone |= 1 << sim.index(c)
        self.bidding = view["phase"] == "bid"
        plays = _round_plays(view)
        self.played_by: list[list[int]] = [[] for _ in range(n)]
        for s, c in plays:
            self.played_by[s].append(c)
        seen = {*self.hand, self.trump_card, *(c for _, c in plays)}
        self.unseen = [c for c in map(sim.index, deck) if c not in seen]
        self.sizes = {str(s): view["hand_sizes"][s] for s in range(n) if s != me}
        self.sizes["deck"] = len(self.unseen) - sum(self.sizes.values())
        voids = _voids(plays, n)
        self.allowed = {str(s): _lacking(voids[s]) for s in range(n) if s != me and voids[s]}
        #: The other seats' bids this round, which their hands as dealt should explain.
        self.bid_made = [(s, b) for s, b in enumerate(self.bids) if b >= 0 and s != me]

    def draw(self, rng: random.Random) -> sim.Round | None:
        """A world: the unseen cards dealt, as the voids allow, kept as often as the hands
        explain the bids (None: ``DRAW_TRIES`` deals were all turned down)."""
        for _ in range(DRAW_TRIES):
            dealt = deal_hidden(self.unseen, self.sizes, self.allowed, rng)
            if dealt is None:
                continue
            hidden = {s: dealt[str(s)] for s in range(self.n) if s != self.me}
            if not self.bid_made or self._explains_bids(hidden, rng):
                return self.world_of(hidden)
        return None

    def _explains_bids(self, hidden: dict[int, list[int]], rng: random.Random) -> bool:
        """Keep a world as often as its hands would have bid what was bid."""
        weight = 1.0
        for seat, tricks in self.bid_made:
            hand = hidden[seat] + self.played_by[seat]
            guess = sim.estimate(hand, self.trump_card, self.n, self.k, self.low, seat, self.dealer)
            weight *= math.exp(-(((guess - tricks) / BID_SPREAD) ** 2) / 2)
        return rng.random() < weight

    def world_of(self, hidden: dict[int, list[int]]) -> sim.Round:
        """The round with these cards in the other hands (by seat, as they hold them now)."""
        hands = [self.hand[:] if s == self.me else list(hidden[s]) for s in range(self.n)]
        r = sim.Round.deal(hands, self.trump_card, self.dealer, self.low)
        r.k = self.k
        r.bids = self.bids[:]
        r.tricks = self.tricks[:]
        r.set_trick(self.trick[:])
        r.gone = self.gone
        r.turn = self.me
        r.bidding = self.bidding
        return r


@register_bot("prophet", "strong")
class StrongProphetBot(StrongBot):
    """Samples the hidden hands, plays each choice out, keeps the one most often exact."""

    game_name = "prophet"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The view of the decision being searched, and what its worlds share.
        self._view: dict[str, Any] | None = None
        self._base: _Base | None = None

    def base(self, view: dict[str, Any]) -> _Base:
        """What every world of this decision shares (read from the view once)."""
        if self._view is not view or self._base is None:
            self._view, self._base = view, _Base(view, self.game.cards(view["options"]))
        return self._base

    def sample_world(self, view: dict[str, Any], rng: random.Random) -> Any:
        return self.base(view).draw(rng)

    def try_actions(
        self, world: Any, seat: int, actions: list[Action], rollout_seed: int
    ) -> list[float]:
        # (no random numbers: the heuristic's rollouts are deterministic)
        row = []
        for action in actions:
            trial = world.copy()
            if isinstance(action, Bid):
                trial.bid(seat, action.tricks)
            else:
                assert isinstance(action, Play)
                trial.play(seat, sim.INDEX[action.card])
            trial.play_out()
            row.append(float(trial.score(seat)))
        return row

    def rollout(self, world: Any, seat: int, rng: random.Random) -> float:
        world.play_out()
        return float(world.score(seat))
