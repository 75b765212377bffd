"""The strong Fortunes bot: PIMC over the current deal, playing for its partnership.

A world is this deal with the cards the seat has not seen dealt again: the three other hands
(a player who could not follow a suit gets none of it) and the two set aside. Every legal card
is played out in every world to the end of the deal by the heuristic bot in all four seats,
on the fast deal of :mod:`.fortunes_sim` (the heuristic's own choices, so the opponents, who
*are* heuristic bots at a bench table, are modelled exactly up to their hidden cards). Every
card meets the same worlds (common random numbers: the rollouts are deterministic, so the
cards' results differ by the card alone), and a card that falls clearly behind the best is
dropped as the worlds come in (racing), so the time goes to the close choices. A world is
weighed by the opponents' plays so far: of ``DRAWS`` worlds dealt, the deal is replayed on
each, and one is kept the less likely the more of those plays the heuristic would not have
made holding its cards. Before that, the plays that rule cards out whatever the rest of the
hand limit the deal itself (``FOLLOW_LIMITS``): a heuristic opponent that followed or led with
a card did not hold a card it values higher that it could have played then, so no world gives
it one (four worlds in ten come out consistent with every opponent's play, one in ten without).

A rollout's result is the deal's margin for the partnership (ruling 9's team difference),
squashed so that a deal won by much counts little more than one won by a little: the measure
is the deals won. The heuristic's card stands unless another leads it by ``deviate_z``
standard errors of the paired difference. Bets, partnership bids and the next deal go to the
heuristic bot.
"""

from __future__ import annotations

import math
import random
from bisect import insort
from collections.abc import Sequence
from typing import Any

from protocol.actions import Action, action_from_wire
from protocol.cards import FORTUNES_DECK

from ..base import register_bot
from ..fortunes import FortunesBot, Table
from . import fortunes_sim as sim
from .search import StrongBot, mean_met, paired, race

#: The margin (team points) at which a deal counts as about surely won or lost.
MARGIN_SCALE = 30.0
#: The heuristic's best cards searched from the first world; the others join after
#: ``FIRST_WORLDS`` worlds if the budget left affords ``WIDE_WORLDS`` worlds of every card.
FIRST_CARDS = 3
FIRST_WORLDS = 2
WIDE_WORLDS = 8
#: Worlds between two racing rounds, and the first round's.
RACE_EVERY = 4
RACE_FIRST = 4
#: Standard errors (paired) by which a card must trail the leader to be dropped.
DROP_Z = 2.5
#: Worlds after which, when every card has scored the same in every world, the choice is
#: taken to make no difference (the heuristic's stands).
SAME_WORLDS = 12
#: Worlds drawn for each one searched, one kept with a weight of ``MISS_WEIGHT`` per
#: opponent's play the heuristic would not have made in it (1: no inference).
DRAWS = 8
MISS_WEIGHT = 0.2
#: Failed samples before a decision gives up sampling.
MAX_FAILURES = 40
#: Whether an opponent's follows limit the cards it is dealt (:meth:`_Base._follow_limits`).
FOLLOW_LIMITS = True
#: Whether an opponent's leads limit them too (:meth:`_Base._lead_ruled`).
LEAD_LIMITS = True
#: Shuffles more before a world is dealt by the voids alone, when the limits fail one.
LIMITED_TRIES = 6


class _Base:
    """What every world of one decision shares: the view turned into a deal without the
    hidden hands, and what is needed to deal those."""

    def __init__(self, view: dict[str, Any]) -> None:
        me, dealer = view["seat"], view["dealer"]
        self.me = me
        index = sim.INDEX
        suit_of = sim.SUIT
        tricks = [[(s, index[c]) for s, c in t["cards"]] for t in view["tricks"]]
        current = [(s, index[c]) for s, c in view["trick"]["cards"]]
        played = [c for t in tricks for _, c in t] + [c for _, c in current]
        voids = [0, 0, 0, 0]
        free = False
        for trick in [*tricks, current]:
            if not trick:
                continue
            led = suit_of[trick[0][1]]
            for seat, card in trick:
                suit = suit_of[card]
                if suit != led and not (suit == sim.STAR and free):
                    voids[seat] |= 1 << led
                if suit == sim.STAR:
                    free = True
        self.voids = voids
        left = list(sim.SUIT_SIZE)
        for card in played:
            left[suit_of[card]] -= 1
        self.left = left
        high = [s for s in range(4) if (s - dealer) % 2 == 0]
        diff = 0
        for record in view["tricks"]:
            points = record["points"]
            diff += points if record["winner"] in high else -points
        self.diff = diff
        self.sign = 1 if me in high else -1
        self.dealer = dealer
        self.trick = current
        led = view["trick"]["led"]
        self.led = None if led is None else sim.SUIT_OF[led]
        self.direction = sim.HIGH if view["trick"]["direction"] == "high" else sim.LOW
        self.stars_free = view["stars_free"]
        self.trick_no = view["trick"]["n"]
        self.hand = sorted(index[c] for c in view["hand"])
        seen = set(self.hand) | set(played)
        self.unseen = [c for c in range(len(FORTUNES_DECK)) if c not in seen]
        self.sizes = {str(s): view["seats"][s]["cards"] for s in range(4) if s != me}
        self.sizes["aside"] = view["set_aside"]
        self.history = [p for t in tricks for p in t] + current
        self.played_by: list[list[int]] = [[], [], [], []]
        for seat, card in self.history:
            self.played_by[seat].append(card)
        self._replay_public()
        # Where each hidden place may take a card: the voids shown, and (``FOLLOW_LIMITS``)
        # the cards an opponent's follows show it did not hold.
        self.limits = self._follow_limits() if FOLLOW_LIMITS else {}
        self.places = self._places(self.limits)
        self.loose = self._places({}) if self.limits else self.places

    def _places(self, limits: dict[int, set[int]]) -> list[tuple[str, int, list[bool] | None]]:
        """:func:`.hidden.deal_hidden`'s order of the places (by how many cards each may take
        beyond its size), the same for every world: a place, its size, and which cards it may
        take (None: any), a seat's voids and its ``limits`` (cards it cannot hold) kept out."""
        voids, suit_of = self.voids, sim.SUIT
        allowed: dict[str, list[bool]] = {}
        for s in range(4):
            if s != self.me and (voids[s] or s in limits):
                out = limits.get(s, set())
                allowed[str(s)] = [
                    not voids[s] >> suit_of[c] & 1 and c not in out
                    for c in range(len(FORTUNES_DECK))
                ]
        fits = {
            p: sum(allowed[p][c] for c in self.unseen) if p in allowed else len(self.unseen)
            for p in self.sizes
        }
        return [
            (p, self.sizes[p], allowed.get(p))
            for p in sorted(self.sizes, key=lambda p: fits[p] - self.sizes[p])
        ]

    def _follow_limits(self) -> dict[int, set[int]]:
        """Per opponent, the unseen cards its follows show it did not hold: a card the
        heuristic prefers to the one played (whichever way its test of the unseen Stars
        went) that would have been a legal play then. The opponents at a bench table are
        heuristic bots, which play that card whenever they hold it. A seat that played a
        card such a follow rules out (not the heuristic: a person, another bot) is not
        limited."""
        unseen = set(self.unseen)
        suit_of, star = sim.SUIT, sim.STAR
        out: dict[int, set[int]] = {}
        wrong: set[int] = set()
        later = [set(cards) for cards in self.played_by]
        for seat, card, d, beaten in self.steps:
            later[seat].discard(card)
            if beaten is None:
                if LEAD_LIMITS:
                    size = self.sizes[str(seat)] + len(later[seat]) + 1
                    ruled = self._lead_ruled(d, seat, card, size, later[seat])
                    if not ruled.isdisjoint(later[seat]):
                        wrong.add(seat)
                    out.setdefault(seat, set()).update(ruled & unseen)
                continue
            led, suit = d.led, suit_of[card]
            both = beaten[0] & beaten[1]
            if suit == led:  # it held the led suit: those cards, and Stars once free
                ruled = {
                    c for c in both if suit_of[c] == led or (d.stars_free and suit_of[c] == star)
                }
            elif suit == star and d.stars_free:  # a free Star: it may hold the led suit
                ruled = {c for c in both if suit_of[c] in (led, star)}
            else:  # void in the led suit: any card was legal
                ruled = set(both)
            if not ruled.isdisjoint(later[seat]):
                wrong.add(seat)
            out.setdefault(seat, set()).update(ruled & unseen)
        return {s: cards for s, cards in out.items() if s not in wrong and cards}

    def _lead_ruled(
        self, d: sim.Deal, seat: int, card: int, size: int, later: set[int]
    ) -> set[int]:
        """Of the cards a heuristic leader of ``card`` (``size`` cards in hand) may have held
        (unseen, or played by it ``later``), those it values above ``card`` however its hand
        set a lead's flip chance: it did not hold them. (A suit's chance depends on how many
        of the suit and of the Stars it holds; only the chances the public deal leaves open
        are tried.)"""
        mine = (seat - d.dealer) % 2
        lead = sim.LEAD[mine]
        left, voids, suit_of = d.left, d.voids, sim.SUIT
        chances: list[tuple[int, ...]] = []
        for suit in range(5):
            if not left[sim.STAR] or suit == sim.STAR:
                chances.append((0,))
                continue
            bit = 1 << suit
            void_opps = (voids[(seat + 1) % 4] & bit > 0) + (voids[(seat + 3) % 4] & bit > 0)
            if d.stars_free or void_opps == 2:
                ks = [1]
            elif void_opps == 1 or left[suit] < 3:
                ks = [2]
            else:
                ks = [2, 3]
            if left[sim.STAR] <= size:  # it may hold every Star left: no flip at all
                ks.append(0)
            chances.append(tuple(ks))
        top = max(lead[k][card] for k in chances[suit_of[card]])
        ruled = set()
        for c in [*self.unseen, *later]:
            low = min(lead[k][c] for k in chances[suit_of[c]])
            if low > top or (low == top and c < card):
                ruled.add(c)
        return ruled

    def _replay_public(self) -> None:
        """The deal so far replayed once for every world of the decision: all but the hidden
        hands is public, so before each opponent's play the state (the trick, voids, cards
        left, direction) is the same in every world. ``steps`` keeps that state (a deal whose
        hands each world sets) with the seat and its card, ``end`` the state after the last
        play; :meth:`replayed` only puts a world's cards in the players' hands."""
        me = self.me
        d = sim.Deal.of(
            [sorted(cards) for cards in self.played_by],
            left=list(sim.SUIT_SIZE),
            voids=[0, 0, 0, 0],
            dealer=self.dealer,
            trick=[],
            led=None,
            direction=sim.HIGH,
            stars_free=False,
            turn=self.dealer,
            trick_no=1,
            diff=0,
        )
        steps: list[tuple[int, int, sim.Deal, tuple[frozenset[int], frozenset[int]] | None]] = []
        later = [cards[:] for cards in self.played_by]  # a seat's plays from this one on
        for seat, card in self.history:
            if (seat - me) % 2:
                snap = d.copy()
                beaten = None if d.led is None else self._beaten(snap, seat, card, later[seat])
                steps.append((seat, card, snap, beaten))
            later[seat].remove(card)
            d.play(seat, card)
        self.steps = steps
        self.end = d

    def _beaten(
        self, d: sim.Deal, seat: int, card: int, later: list[int]
    ) -> tuple[frozenset[int], frozenset[int]]:
        """For a follow: the cards the seat may hold that the heuristic prefers to ``card``
        (a higher value, or the same and earlier in the hand), without and with the trick
        ``risky`` (see :func:`.fortunes_sim.follow_values`). The heuristic would have played
        otherwise exactly when the seat's options hold one of them."""
        could = sorted({*self.unseen, *later})
        out = []
        for risky in (False, True):
            values = sim.follow_values(d, seat, could, risky)
            mine = values[could.index(card)]
            out.append(
                frozenset(
                    c
                    for c, v in zip(could, values, strict=True)
                    if v > mine or (v == mine and c < card)
                )
            )
        return out[0], out[1]

    def deal(self, rng: random.Random) -> dict[str, list[int]] | None:
        """The hidden places' cards: :func:`.hidden.deal_hidden`'s deal for the same random
        numbers (the same shuffle, the places in the same order, each taking the first cards
        it may of those left), without its work that is the same for every world."""
        pool = self.unseen[:]
        rng.shuffle(pool)
        got = self._fill(pool, self.places)
        if got is not None or self.loose is self.places:
            return got
        # The limits leave few ways (or none: the opponents are not the heuristic): a few
        # more shuffles, then the voids alone.
        for _ in range(LIMITED_TRIES):
            rng.shuffle(pool)
            got = self._fill(pool, self.places)
            if got is not None:
                return got
        return self._fill(pool, self.loose)

    @staticmethod
    def _fill(
        pool: list[int], places: list[tuple[str, int, list[bool] | None]]
    ) -> dict[str, list[int]] | None:
        """Each place in turn takes the first cards of ``pool`` it may (None: one cannot)."""
        taken: set[int] = set()
        out: dict[str, list[int]] = {}
        for place, need, ok in places:
            if ok is None:
                got = [c for c in pool if c not in taken][:need]
            else:
                got = [c for c in pool if ok[c] and c not in taken][:need]
            if len(got) < need:
                return None
            taken.update(got)
            out[place] = got
        return out

    def world(self, rng: random.Random) -> sim.Deal | None:
        dealt = self.deal(rng)
        if dealt is None:
            return None
        return sim.Deal.of(
            [self.hand[:] if s == self.me else sorted(dealt[str(s)]) for s in range(4)],
            left=self.left[:],
            voids=self.voids[:],
            dealer=self.dealer,
            trick=self.trick[:],
            led=self.led,
            direction=self.direction,
            stars_free=self.stars_free,
            turn=self.me,
            trick_no=self.trick_no,
            diff=self.diff,
        )

    def replayed(
        self, rng: random.Random, dealt: dict[str, list[int]] | None = None
    ) -> tuple[sim.Deal, int] | None:
        """A world dealt as :meth:`world` deals it, and the deal's plays replayed on it from
        the first trick: the world, and how many of the opponents' plays the heuristic bot
        would not have made holding that world's cards (the opponents at a bench table are
        heuristic bots: a world where they would have played otherwise is less likely).
        ``dealt``: the hidden places' cards, when the caller knows them (a test).

        Only the opponents' hands differ between worlds: each play is checked on the public
        state before it (``steps``), the opponent's hand then being the world's hand and the
        cards it played from there on (the steps are walked backwards, adding them back)."""
        dealt = dealt or self.deal(rng)
        if dealt is None:
            return None
        me = self.me
        hands = [self.hand[:] if s == me else sorted(dealt[str(s)]) for s in range(4)]
        misses = 0
        steps = self.steps
        if steps:
            suit_of = sim.SUIT
            heuristic_card = sim.heuristic_card
            held = [h[:] for h in hands]
            counts = sim.suit_counts(held)
            star = sim.STAR
            for seat, card, d, beaten in reversed(steps):
                hand = held[seat]
                insort(hand, card)
                row = counts[seat]
                row[suit_of[card]] += 1
                d.hands[seat] = hand
                d.counts[seat] = row
                cards = d.options(seat)
                if len(cards) < 2:
                    continue
                if beaten is None:  # a lead
                    misses += heuristic_card(d, seat, cards) != card
                else:  # (risky, as heuristic_card tests it)
                    risky = d.led != star and len(d.trick) < 3 and d.left[star] > row[star]
                    misses += not beaten[risky].isdisjoint(cards)
        end = self.end
        world = sim.Deal.of(
            hands,
            left=end.left[:],
            voids=end.voids[:],
            dealer=end.dealer,
            trick=end.trick[:],
            led=end.led,
            direction=end.direction,
            stars_free=end.stars_free,
            turn=end.turn,
            trick_no=end.trick_no,
            diff=end.diff,
        )
        return world, misses


def _met(values: list[float | None]) -> int:
    return sum(v is not None for v in values)


@register_bot("fortunes", "strong")
class StrongFortunesBot(StrongBot):
    """Samples the hidden hands, plays every card out, keeps the best for its partnership."""

    game_name = "fortunes"
    deviate_z = 0.5

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.heuristic = FortunesBot(0)

    def choose(self, view: dict[str, Any]) -> Action:
        return action_from_wire(self.decide(view))

    def decide(self, view: dict[str, Any]) -> dict[str, Any]:
        legal = view["legal"]
        self.last_worlds = 0
        if len(legal) == 1:
            return legal[0]
        prior = self.fallback.decide(view)
        if view["ask"]["kind"] != "play":
            return prior
        base = _Base(view)
        cards = [sim.INDEX[a["card"]] for a in legal]
        self._legal_count = len(cards)
        anchor = cards.index(sim.INDEX[prior["card"]])
        start = self.clock()
        deadline = None if self.iterations is not None else start + self.think_ms / 1000
        # The heuristic's best few cards first; the others join once a few worlds show the
        # budget affords them all (a loaded core, or a short budget, searches the few only).
        ranked = self._ranked(view, legal)
        alive = sorted({*ranked[:FIRST_CARDS], anchor})
        waiting = [i for i in ranked if i not in alive]
        rollouts = 0
        # A value per world for every card: None for the worlds it did not meet.
        values: list[list[float | None]] = [[] for _ in cards]
        worlds = failures = 0
        me, sign, scale = base.me, base.sign, MARGIN_SCALE
        tanh = math.tanh
        while True:
            world = self._draw(base)
            if world is None:
                failures += 1
                if failures >= MAX_FAILURES or (deadline and self.clock() > deadline):
                    break
                continue
            row: list[float | None] = [None] * len(cards)
            for n, i in enumerate(alive, 1):
                trial = world.copy()
                trial.play(me, cards[i])
                row[i] = tanh(sign * trial.play_out() / scale)
                if deadline and n < len(alive) and self.clock() >= deadline:
                    break
            else:
                for i, value in enumerate(row):
                    values[i].append(value)
            if len(values[0]) == worlds:  # out of time within a world: it does not count
                break
            worlds += 1
            rollouts += len(alive)
            if waiting and worlds >= FIRST_WORLDS and self._affords(start, deadline, rollouts):
                alive = sorted(alive + waiting)
                waiting = []
            if self.iterations is not None:
                if worlds >= self.iterations:
                    break
            elif deadline is not None and self.clock() >= deadline:  # (not None: see above)
                break
            if worlds >= RACE_FIRST and worlds % RACE_EVERY == 0:
                alive = self._race(alive, values, anchor)
                if len(alive) == 1 or self._same(alive, values, worlds):
                    break
        self.last_worlds = worlds
        if not worlds:
            return prior
        best = max(alive, key=lambda i: (mean_met(values[i]), i == anchor))
        if best == anchor:
            return prior
        mean, se = paired(values[best], values[anchor])
        if mean > self.deviate_z * se:
            return legal[best]
        return prior

    def _ranked(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> list[int]:
        """The legal cards' indexes, the heuristic's best first."""
        table = Table(view)
        cards = [a["card"] for a in legal]
        if table.cards:
            scores = self.heuristic.follow_scores(table, cards)
        else:
            scores = self.heuristic.lead_scores(table, cards)
        return sorted(range(len(cards)), key=lambda i: -scores[cards[i]])

    def _affords(self, start: float, deadline: float | None, rollouts: int) -> bool:
        """Whether the budget left affords ``WIDE_WORLDS`` worlds of every card, at the pace
        of the rollouts so far (always, when the budget is in worlds)."""
        if deadline is None:
            return True
        now = self.clock()
        pace = (now - start) / max(1, rollouts)
        return deadline - now >= pace * self._legal_count * WIDE_WORLDS

    def _draw(self, base: _Base) -> sim.Deal | None:
        """One world: dealt at random, or (``DRAWS`` > 1) the likeliest of a few by the
        opponents' plays, drawn in proportion to its weight."""
        if DRAWS <= 1:
            return base.world(self.rng)
        drawn = [w for w in (base.replayed(self.rng) for _ in range(DRAWS)) if w]
        if not drawn:
            return None
        weights = [MISS_WEIGHT**misses for _, misses in drawn]
        pick = self.rng.random() * sum(weights)
        for (world, _), weight in zip(drawn, weights, strict=True):
            pick -= weight
            if pick <= 0:
                return world
        return drawn[-1][0]

    @staticmethod
    def _race(
        alive: list[int], values: Sequence[Sequence[float | None]], anchor: int | None
    ) -> list[int]:
        """Drop the cards that trail the leader by ``DROP_Z`` standard errors (never the
        heuristic's, which any other card must beat in the end)."""
        keep = race(alive, values, anchor, DROP_Z, RACE_FIRST)
        lead = max(alive, key=lambda i: mean_met(values[i]))
        if len(keep) == 2 and anchor in keep and lead != anchor:
            # Only the leader and the heuristic's card are left, and the leader clearly wins.
            mean, se = paired(values[lead], values[anchor])
            if mean > DROP_Z * se:
                return [lead]
        return keep

    @staticmethod
    def _same(alive: list[int], values: list[list[float | None]], worlds: int) -> bool:
        """Every card left scored alike in every world so far: the choice does not matter."""
        if worlds < SAME_WORLDS:
            return False
        if min(_met(values[i]) for i in alive) < SAME_WORLDS:
            return False
        first = values[alive[0]][-SAME_WORLDS:]
        return None not in first and all(values[i][-SAME_WORLDS:] == first for i in alive[1:])

    # The shared search's hooks: this bot's own decide() does not use them.
    def sample_world(self, view: dict[str, Any], rng: random.Random) -> Any:
        return _Base(view).world(rng)

    def rollout(self, world: Any, seat: int, rng: random.Random) -> float:
        sign = 1 if (seat - world.dealer) % 2 == 0 else -1
        return math.tanh(sign * world.play_out() / MARGIN_SCALE)
