"""A fast Prophet's Gambit deal for the strong bot's rollouts: the engine's rules on small
integers, and the heuristic bot's choices computed the same way.

The engine's :class:`~server.engine.prophets_gambit.state.PGState` is made for the hub
(events, views, checks, msgpack snapshots); a rollout through it spends most of its time
there, so the strong bot could play only a few dozen worlds in its 200 ms and had to guard
its choice against their noise. Here a common card is its index in ``TAROKKA_COMMON`` (suit
``c // 10``, a Master ``c % 10 == 9``), a hand a list of those, and the deal only what the
rules read: hands, Fates, the Focus, the piles, the top card in front of each seat, who holds
the Innocent and the Executioner, and each seat's ask. :class:`Sim` follows ``state.py`` and
``high_cards.py`` step for step (the same asks, in the same order, and the same random calls
for the reshuffle and the Tempter), and :meth:`Sim.choose` is
:class:`server.bots.prophets_gambit.ProphetsGambitBot`'s choice on the same values, ties
broken alike. ``tests/bots/test_pg_sim.py`` plays random deals through both and checks every
legal-action list and the Reveal.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from protocol.actions import Action
from protocol.cards import TAROKKA_COMMON
from server.bots import prophets_gambit as heuristic
from server.engine.base import tie_order
from server.engine.prophets_gambit import hands as pg_hands

INDEX = {code: i for i, code in enumerate(TAROKKA_COMMON)}
CODE = list(TAROKKA_COMMON)
#: A card's number 1–9, 0 for a Master (it has none, ruling 3).
NUM = [(i % 10 + 1) if i % 10 < 9 else 0 for i in range(40)]
SUIT = [i // 10 for i in range(40)]
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29)
PRIME = [_PRIMES[i % 10] for i in range(40)]
BIT = [1 << i for i in range(40)]
ALL = (1 << 40) - 1

BID, ROUND, EXECUTION, OVER = range(4)
_PHASES = {"bid": BID, "round": ROUND, "execution": EXECUTION, "over": OVER}


def _score(key: tuple[int, ...]) -> int:
    return heuristic.score(key)


# The engine's own rank tables (hands.py), each key as one int of the same order.
_PLAIN = {p: _score(k) for p, k in pg_hands._PLAIN.items()}
_SUITED = {p: _score(k) for p, k in pg_hands._SUITED.items()}


def key5(a: int, b: int, c: int, d: int, e: int) -> int:
    p = PRIME[a] * PRIME[b] * PRIME[c] * PRIME[d] * PRIME[e]
    s = SUIT[a]
    if s == SUIT[b] == SUIT[c] == SUIT[d] == SUIT[e]:
        return _SUITED[p]
    return _PLAIN[p]


def key4(a: int, b: int, c: int, d: int) -> int:
    return _PLAIN[PRIME[a] * PRIME[b] * PRIME[c] * PRIME[d]]


def best(cards: list[int]) -> int:
    """``best_hand(cards, 5)``'s key as an int (the same order as the engine's tuples)."""
    k = len(cards)
    if k == 5:
        return key5(*cards)
    if k == 4:
        return key4(*cards)
    if k > 5:
        return max(key5(*c) for c in combinations(cards, 5))
    return _score(pg_hands.best_hand([CODE[c] for c in cards], 5)[0])


_POT: dict[int, int] = {}
_POT_MAX = 1 << 17


def potential(hand: list[int], fixed: list[int]) -> int:
    """:func:`server.bots.prophets_gambit.potential` as an int: the best of keeping three."""
    hm = 0
    for c in hand:
        hm |= BIT[c]
    fm = 0
    for c in fixed:
        fm |= BIT[c]
    found = _POT.get(hm | (fm << 40))
    if found is None:
        found = _potential(hand, fixed, hm | (fm << 40))
    return found


def _potential(hand: list[int], fixed: list[int], k: int) -> int:
    """The potential computed (not found among those known), and kept under ``k``: the
    hand's bits, and the fixed cards' bits above them."""
    if len(hand) <= 3 or len(fixed) + 3 < 4:
        found = best(hand + fixed)
    elif len(fixed) == 2:
        f, g = fixed
        found = max(key5(a, b, c, f, g) for a, b, c in combinations(hand, 3))
    else:
        f = fixed[0]
        found = max(key4(a, b, c, f) for a, b, c in combinations(hand, 3))
    if len(_POT) >= _POT_MAX:
        _POT.clear()
    _POT[k] = found
    return found


def fate_better(hand: list[int], fate: int, focus: int, cards: list[int]) -> int:
    """How many of ``cards``, as the Fate beside ``hand`` and the Focus (-1: none), make a
    better potential than ``fate`` does (the heuristic's Fate choice counts them). One pass
    over the kept threes serves every card: each three's product and common suit with the
    Focus is found once, then each card's key is one look-up a three."""
    if len(hand) < 3 or focus < 0:
        fixed = [focus] if focus >= 0 else []
        now = potential(hand, [fate, *fixed])
        return sum(potential(hand, [c, *fixed]) > now for c in cards)
    pf, sf = PRIME[focus], SUIT[focus]
    threes = []
    for a, b, c in combinations(hand, 3):
        s = SUIT[a]
        threes.append(
            (PRIME[a] * PRIME[b] * PRIME[c] * pf, s if s == SUIT[b] == SUIT[c] == sf else -1)
        )
    plain, suited = _PLAIN, _SUITED

    def key(card: int) -> int:
        p, s = PRIME[card], SUIT[card]
        return max(suited[q * p] if t == s else plain[q * p] for q, t in threes)

    now = key(fate)
    return sum(key(c) > now for c in cards)


def _fixed_key(fixed: list[int]) -> int:
    fm = 0
    for c in fixed:
        fm |= BIT[c]
    return fm << 40


ONE_PAIR_TOP = _score((pg_hands.ONE_PAIR + 1,)) - 1  # the highest key of category One pair


class Sim:
    """One deal in progress; see the module docstring. ``asks[seat]`` is ``None`` or
    ``(kind, info)`` with the engine's kinds; an action is ``(type, arg)``: the engine's
    action type and its card index, seat, or ``None``."""

    __slots__ = (
        "asks",
        "bids",
        "current",
        "deal_rng",
        "dealer",
        "deck",
        "discard",
        "donjon",
        "executioner",
        "fates",
        "focus",
        "hands",
        "high_deck",
        "innocent",
        "killed",
        "n",
        "order",
        "phase",
        "picks",
        "rng",
        "round",
        "scores",
        "shown",
        "shown_mask",
        "turned",
    )
    n: int
    dealer: int
    hands: list[list[int]]
    fates: list[int]  # -1: none
    focus: int
    killed: int
    deck: list[int]
    discard: list[int]
    high_deck: list[str]
    innocent: int
    executioner: int
    shown: list[int]
    shown_mask: int
    bids: list[int]
    picks: list[int]
    phase: int
    round: int
    order: list[int]
    turned: list[bool]
    current: int | None
    donjon: bool
    asks: list[Any]  # per seat: None or (kind, info), info's shape by kind
    scores: list[int] | None  # once over
    rng: random.Random
    deal_rng: random.Random

    # --- building --------------------------------------------------------------------------

    @classmethod
    def of_state(cls, state: Any, rng: random.Random) -> Sim:
        """The engine's state (a real deal or a sampled world) as a fast deal."""
        d = cls.__new__(cls)
        n = d.n = state.num_players
        d.dealer = state.dealer
        d.hands = [[INDEX[c] for c in h] for h in state.hands]
        d.fates = [INDEX[f] if f is not None else -1 for f in state.fates]
        d.focus = INDEX[state.focus] if state.focus is not None else -1
        d.killed = INDEX[state.killed] if state.killed is not None else -1
        d.deck = [INDEX[c] for c in state.deck]
        d.discard = [INDEX[c] for c in state.discard]
        d.high_deck = list(state.high_deck)
        d.innocent = d.executioner = -1
        for s in range(n):
            if "HIN" in state.fronts[s]:
                d.innocent = s
            if "HEX" in state.fronts[s] and d.executioner < 0:
                d.executioner = s
        d.shown = [INDEX[st[-1]] if st else -1 for st in state.shown]
        mask = 0
        for st in state.shown:
            for c in st:
                mask |= BIT[INDEX[c]]
        d.shown_mask = mask
        d.bids = [INDEX[b] if b is not None else -1 for b in state.bids]
        d.picks = [INDEX[p] if p is not None else -1 for p in state.picks]
        d.phase = _PHASES[state.phase]
        d.round = state.round
        d.order = list(state.order)
        d.turned = list(state.turned)
        d.current = state.current
        d.donjon = state.donjon
        d.asks = [None if a is None else _ask_of(a[0], a[1]) for a in state.asks]
        d.scores = None
        d.rng = d.deal_rng = rng
        return d

    def copy(self) -> Sim:
        d = Sim.__new__(Sim)
        d.n = self.n
        d.dealer = self.dealer
        d.hands = [h[:] for h in self.hands]
        d.fates = self.fates[:]
        d.focus = self.focus
        d.killed = self.killed
        d.deck = self.deck[:]
        d.discard = self.discard[:]
        d.high_deck = self.high_deck[:]
        d.innocent = self.innocent
        d.executioner = self.executioner
        d.shown = self.shown[:]
        d.shown_mask = self.shown_mask
        d.bids = self.bids[:]
        d.picks = self.picks[:]
        d.phase = self.phase
        d.round = self.round
        d.order = self.order[:]
        d.turned = self.turned[:]
        d.current = self.current
        d.donjon = self.donjon
        d.asks = self.asks[:]
        d.scores = self.scores
        d.rng = self.rng
        d.deal_rng = self.deal_rng
        return d

    def _rules_rng(self) -> random.Random:
        """The random numbers of the rules (a reshuffle, the Tempter's blind pick); a test
        replaces it to draw what the engine draws."""
        return self.deal_rng

    # --- asks and legal actions ------------------------------------------------------------

    def legal(self, seat: int) -> list[tuple[str, Any]]:
        """``seat``'s legal actions, in the engine's order."""
        ask = self.asks[seat]
        if ask is None:
            return []
        kind, info = ask
        hand = self.hands[seat]
        if kind == "turn":
            out = [("play", c) for c in hand]
            if self.high_deck:
                out += [("risk", c) for c in hand]
            return out
        if kind in ("discard", "beast", "donjon"):
            return [("discard", c) for c in hand]
        if kind == "bonus":
            return [("draw", None), ("pass", None)]
        if kind == "bid":
            return [("bid", c) for c in hand]
        if kind == "fate":
            return [("replace", None), ("keep", None)]
        if kind in ("raven", "tempter"):
            return [("give", c) for c in hand]
        if kind in ("darklord", "marionette"):
            return [("target", s) for s in info]
        if kind == "tempter_target":
            return [("target", s) for s in info[1]]
        if kind == "darklord_pick":
            return [("pick", c) for c in self.hands[info]]
        if kind == "ghost":
            return [("take", c) for c in self.discard]
        if kind == "marionette_order":
            return [("highest", None), ("lowest", None)]
        if kind == "forced":
            return [("play", c) for c in info]
        if kind == "execution":
            return [("kill", None), ("save", None)]
        raise AssertionError(f"unknown ask {kind!r}")

    # --- applying actions ------------------------------------------------------------------

    def apply(self, seat: int, action: tuple[str, Any]) -> None:
        """``seat`` takes ``action`` (legal: the caller took it from :meth:`legal`)."""
        kind, info = self.asks[seat]
        self.asks[seat] = None
        t, arg = action
        if kind == "turn":
            if t == "play":
                self._play(seat, arg)
            else:
                self.hands[seat].remove(arg)
                self.discard.append(arg)
                self._resolve_high(seat, self.high_deck.pop())
        elif kind == "discard":
            self.hands[seat].remove(arg)
            self.discard.append(arg)
            if info > 1:
                self.asks[seat] = ("discard", info - 1)
        elif kind == "bonus":
            if t == "draw" and self._draw(seat, 1):
                self.asks[seat] = ("discard", 1)
        elif kind == "bid":
            self._on_bid(seat, arg)
        elif kind == "fate":
            if t == "replace":
                self.discard.append(self.fates[seat])
                self.fates[seat] = self._take_top()
        elif kind == "forced":
            self._play(seat, arg)
        elif kind == "execution":
            if t == "kill":
                self.killed, self.focus = self.focus, -1
            self._reveal()
        elif kind == "beast":
            self._on_beast(seat, arg)
        elif kind == "raven":
            self._on_raven(seat, arg)
        elif kind == "donjon":
            hand = self.hands[seat]
            hand.remove(arg)
            self.discard.append(arg)
            if len(hand) > 3:
                self.asks[seat] = ("donjon", len(hand) - 3)
        elif kind == "ghost":
            self.discard.remove(arg)
            self.hands[seat].append(arg)
            self.asks[seat] = ("discard", 1)
        elif kind == "darklord":
            self.asks[seat] = ("darklord_pick", arg)
        elif kind == "darklord_pick":
            self.hands[info].remove(arg)
            self.discard.append(arg)
            self._draw(info, 1)
        elif kind == "tempter":
            self.asks[seat] = ("tempter_target", (arg, self._others(seat)))
        elif kind == "tempter_target":
            mine = info[0]
            theirs_hand = self.hands[arg]
            theirs = theirs_hand[self._rules_rng().randrange(len(theirs_hand))]
            self.hands[seat].remove(mine)
            theirs_hand.remove(theirs)
            self.hands[seat].append(theirs)
            theirs_hand.append(mine)
        elif kind == "marionette":
            self.asks[seat] = ("marionette_order", arg)
        elif kind == "marionette_order":
            self.turned[info] = True
            cards = marionette_cards(self.hands[info], t == "highest")
            if len(cards) == 1:
                self._play(info, cards[0])
            else:
                self.asks[info] = ("forced", cards)
        else:
            raise AssertionError(f"unknown ask {kind!r}")
        if self.phase == ROUND and not any(self.asks):
            self._proceed()

    def _on_bid(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)
        self.bids[seat] = card
        if -1 in self.bids:
            return
        for s, b in enumerate(self.bids):
            self.shown[s] = b
            self.shown_mask |= BIT[b]
        self.bids = [-1] * self.n
        self._start_round(1)

    def _play(self, seat: int, card: int) -> None:
        right = self.shown[(seat - 1) % self.n]
        right_num = NUM[right] if right >= 0 else 0
        num = NUM[card]
        self.hands[seat].remove(card)
        self.shown[seat] = card
        self.shown_mask |= BIT[card]
        if (num == 0 or (right_num and num < right_num)) and (self.deck or self.discard):
            self.asks[seat] = ("bonus", None)

    def _take_top(self) -> int:
        if not self.deck:
            if not self.discard:
                return -1
            self.deck, self.discard = self.discard, []
            self._rules_rng().shuffle(self.deck)
        return self.deck.pop()

    def _draw(self, seat: int, count: int) -> int:
        """Draw up to ``count`` cards; how many came (a skipped draw stops early)."""
        got = 0
        hand = self.hands[seat]
        for _ in range(count):
            card = self._take_top()
            if card < 0:
                break
            hand.append(card)
            got += 1
        return got

    def _highest_showing(self) -> int:
        n = self.n
        best_seat, best_num = -1, 0
        shown = self.shown
        for i in range(n):
            s = (self.dealer + 1 + i) % n
            num = NUM[shown[s]]
            if num > best_num:
                best_seat, best_num = s, num
        return best_seat if best_seat >= 0 else (self.dealer + 1) % n

    def _start_round(self, number: int) -> None:
        n = self.n
        starter = self._highest_showing()
        self.phase = ROUND
        self.round = number
        self.order = [(starter + i) % n for i in range(n)]
        self.turned = [False] * n
        self.current = None
        self.asks[starter] = ("fate", None)

    def _proceed(self) -> None:
        if self.donjon:
            self._reveal()
            return
        for s in self.order:
            if self.turned[s]:
                continue
            self.turned[s] = True
            if not self.hands[s]:
                continue
            self.current = s
            self.asks[s] = ("turn", None)
            return
        self.current = None
        if self.round == 1:
            self._start_round(2)
            return
        decider = self.executioner if self.executioner >= 0 else self._highest_showing()
        self.phase = EXECUTION
        self.asks[decider] = ("execution", None)

    def _reveal(self) -> None:
        n = self.n
        self.phase = OVER
        self.asks = [None] * n
        self.current = None
        keys = []
        for s in range(n):
            cards = self.hands[s][:]
            if self.fates[s] >= 0:
                cards.append(self.fates[s])
            if self.focus >= 0:
                cards.append(self.focus)
            keys.append(best(cards))
        ranking = sorted(tie_order(self.dealer, n), key=keys.__getitem__, reverse=True)
        scores = [0] * n
        for pos, s in enumerate(ranking):
            scores[s] = n - 1 - pos
        self.scores = scores

    def winner(self) -> int:
        """The Reveal's winner (the deal is over)."""
        assert self.scores is not None
        return self.scores.index(self.n - 1)

    # --- High cards ------------------------------------------------------------------------

    def _affected(self, turner: int) -> list[int]:
        n = self.n
        inn = self.innocent
        return [s for s in ((turner + i) % n for i in range(n)) if s == turner or s != inn]

    def _others(self, turner: int) -> list[int]:
        return [s for s in self._affected(turner) if s != turner and self.hands[s]]

    def _resolve_high(self, turner: int, card: str) -> None:
        if card == "HIN":
            self.innocent = turner
        elif card == "HEX":
            self.executioner = turner
        elif card == "HAR":
            self.fates[turner], self.focus = self.focus, self.fates[turner]
        elif card == "HBE":
            for s in self._affected(turner):
                if self.hands[s]:
                    self.asks[s] = ("beast", None)
        elif card == "HBR":
            hand = self.hands[turner]
            self.hands[turner] = []
            self.discard.extend(hand)
            self._draw(turner, len(hand))
        elif card == "HDA":
            targets = self._others(turner)
            if targets:
                self.asks[turner] = ("darklord", targets)
        elif card == "HDO":
            self.donjon = True
            for s in self._affected(turner):
                extra = len(self.hands[s]) - 3
                if extra > 0:
                    self.asks[s] = ("donjon", extra)
        elif card == "HMI":
            seats = self._affected(turner)
            if len(seats) >= 2:
                fates = [self.fates[s] for s in seats]
                for i, s in enumerate(seats):
                    self.fates[s] = fates[i - 1]
        elif card == "HGH":
            if self.discard:
                self.asks[turner] = ("ghost", None)
        elif card == "HHO":
            got = self._draw(turner, 2)
            if got:
                self.asks[turner] = ("discard", got)
        elif card == "HMA":
            targets = [s for s in self._others(turner) if not self.turned[s]]
            if targets:
                self.asks[turner] = ("marionette", targets)
        elif card == "HRA":
            seats = [s for s in self._affected(turner) if self.hands[s]]
            if len(seats) >= 2:
                for s in seats:
                    self.asks[s] = ("raven", None)
        elif card == "HTE" and self.hands[turner] and self._others(turner):
            self.asks[turner] = ("tempter", None)
        # HSE (Seer) shows Fates to the turner only: nothing the rules read changes.

    def _pick_order(self) -> list[int]:
        n, start, picks = self.n, self.current, self.picks
        assert start is not None  # a Beast or Raven is turned in a seat's turn
        return [s for s in ((start + i) % n for i in range(n)) if picks[s] >= 0]

    def _on_beast(self, seat: int, card: int) -> None:
        self.picks[seat] = card
        if any(self.asks):
            return
        order = self._pick_order()
        for s in order:
            self.hands[s].remove(self.picks[s])
            self.discard.append(self.picks[s])
        for s in order:
            self._draw(s, 1)
        self.picks = [-1] * self.n

    def _on_raven(self, seat: int, card: int) -> None:
        self.picks[seat] = card
        if any(self.asks):
            return
        order = self._pick_order()
        for s in order:
            self.hands[s].remove(self.picks[s])
        for i, s in enumerate(order):
            self.hands[order[(i + 1) % len(order)]].append(self.picks[s])
        self.picks = [-1] * self.n

    # --- the heuristic bot's choices -------------------------------------------------------

    def _fixed(self, seat: int) -> list[int]:
        fixed = [self.fates[seat]] if self.fates[seat] >= 0 else []
        if self.focus >= 0:
            fixed.append(self.focus)
        return fixed

    def _unseen(self, seat: int) -> list[int]:
        """The common cards ``seat`` has not seen, as the rollouts' heuristic counts them."""
        seen = self.shown_mask
        for c in self.hands[seat]:
            seen |= BIT[c]
        for c in self.discard:
            seen |= BIT[c]
        for c in (self.fates[seat], self.focus, self.killed):
            if c >= 0:
                seen |= BIT[c]
        return [c for c in range(40) if not seen & BIT[c]]

    def _keep_best(self, hand: list[int], cards: list[int], fixed: list[int]) -> int:
        """The card whose removal leaves the best potential (the lowest number on ties)."""
        best_card, best_pot, best_num = -1, -1, 0
        hm = 0
        for c in hand:
            hm |= BIT[c]
        fk = _fixed_key(fixed)
        get = _POT.get
        for card in cards:
            k = (hm ^ BIT[card]) | fk
            pot = get(k)
            if pot is None:
                pot = _potential([c for c in hand if c != card], fixed, k)
            num = -(NUM[card] or 10)
            if pot > best_pot or (pot == best_pot and num > best_num):
                best_card, best_pot, best_num = card, pot, num
        return best_card

    def choose(
        self, seat: int, execution_samples: int = heuristic.EXECUTION_SAMPLES
    ) -> tuple[str, Any]:
        """The heuristic bot's action for ``seat`` (its ``choose`` on this deal's values)."""
        kind, info = self.asks[seat]
        hand = self.hands[seat]
        rng = self.rng
        if kind == "turn":
            fixed = self._fixed(seat)
            right = self.shown[(seat - 1) % self.n]
            right_num = NUM[right] if right >= 0 else 0
            best_card, best_value = -1, None
            hm = 0
            for c in hand:
                hm |= BIT[c]
            fk = _fixed_key(fixed)
            get = _POT.get
            for card in hand:
                num = NUM[card]
                bonus = num == 0 or (right_num != 0 and num < right_num)
                k = (hm ^ BIT[card]) | fk
                pot = get(k)
                if pot is None:
                    pot = _potential([c for c in hand if c != card], fixed, k)
                value = (pot, bonus, -(num or 10))
                if best_value is None or value > best_value:
                    best_card, best_value = card, value
            assert best_value is not None  # a turn is asked only of a seat with cards
            if self.high_deck and not best_value[1] and best_value[0] <= ONE_PAIR_TOP:
                return ("risk", self._keep_best(hand, hand, fixed))
            return ("play", best_card)
        if kind in ("discard", "beast", "donjon"):
            return ("discard", self._keep_best(hand, hand, self._fixed(seat)))
        if kind in ("raven", "tempter"):
            return ("give", self._keep_best(hand, hand, self._fixed(seat)))
        if kind == "forced":
            if len(info) == 1:
                return ("play", info[0])
            return ("play", self._keep_best(hand, info, self._fixed(seat)))
        if kind == "bonus":
            return ("draw", None)
        if kind == "bid":
            fixed = self._fixed(seat)
            if len(hand) == 1:
                return ("bid", hand[0])
            best_card, best_bid = -1, None
            for card in hand:
                bid_value = (potential([c for c in hand if c != card], fixed), NUM[card])
                if best_bid is None or bid_value > best_bid:
                    best_card, best_bid = card, bid_value
            return ("bid", best_card)
        if kind == "fate":
            pool = self._unseen(seat)
            sample = rng.sample(pool, min(heuristic.SAMPLES, len(pool)))
            better = fate_better(hand, self.fates[seat], self.focus, sample)
            return ("replace", None) if better * 2 > len(sample) else ("keep", None)
        if kind == "ghost":
            fixed = self._fixed(seat)
            if len(self.discard) == 1:
                return ("take", self.discard[0])
            best_card, best_take = -1, None
            for card in self.discard:
                take_value = potential([*hand, card], fixed)
                if best_take is None or take_value > best_take:
                    best_card, best_take = card, take_value
            return ("take", best_card)
        if kind in ("darklord", "marionette", "tempter_target"):
            targets = info if kind != "tempter_target" else info[1]
            if len(targets) == 1:
                return ("target", targets[0])
            best_seat, best_target = -1, None
            for s in targets:
                target_value = (len(self.hands[s]), rng.random())
                if best_target is None or target_value > best_target:
                    best_seat, best_target = s, target_value
            return ("target", best_seat)
        if kind == "darklord_pick":
            theirs = self.hands[info]
            if len(theirs) == 1:
                return ("pick", theirs[0])
            focus = [self.focus] if self.focus >= 0 else []
            best_card, best_pick = -1, None
            for card in theirs:
                pick_value = best([c for c in theirs if c != card] + focus)
                if best_pick is None or pick_value < best_pick:
                    best_card, best_pick = card, pick_value
            return ("pick", best_card)
        if kind == "marionette_order":
            return ("highest", None)
        if kind == "execution":
            return self._execution(seat, execution_samples)
        raise AssertionError(f"unknown ask {kind!r}")

    def _execution(self, seat: int, samples: int) -> tuple[str, Any]:
        """Kill the Focus when that beats more sampled opponents (a Fate and three cards of
        the unseen ones) than saving it: the heuristic's rule, its samples drawn by a partial
        shuffle (the same distribution as ``random.sample``, at a fraction of the cost)."""
        hand, fate, focus = self.hands[seat], self.fates[seat], self.focus
        mine_save = best([*hand, fate, focus])
        mine_kill = best([*hand, fate])
        pool = self._unseen(seat)
        m = len(pool)
        if m < 4:
            return heuristic_execution(self, seat, samples)
        wins_save = wins_kill = 0
        r = self.rng.random
        for _ in range(samples):
            for j in range(4):
                k = j + int(r() * (m - j))
                pool[j], pool[k] = pool[k], pool[j]
            a, b, c, d = pool[0], pool[1], pool[2], pool[3]
            wins_save += mine_save > key5(a, b, c, d, focus)
            wins_kill += mine_kill > key4(a, b, c, d)
        return ("kill", None) if wins_kill > wins_save else ("save", None)

    # --- playing out -----------------------------------------------------------------------

    def play_out(self, execution_samples: int = heuristic.EXECUTION_SAMPLES) -> None:
        """The heuristic in every seat to the Reveal (the lowest waiting seat first, as the
        bench and the hub's bots answer)."""
        while self.phase != OVER:
            asks = self.asks
            seat = 0
            while asks[seat] is None:
                seat += 1
            self.apply(seat, self.choose(seat, execution_samples))

    def value(self, seat: int, place_weight: float) -> float:
        """The strong bot's result for ``seat``: a win, plus ``place_weight`` times its place
        (0 last … 1 first)."""
        n = self.n
        scores = self.scores
        assert scores is not None  # (the deal is over)
        won = 1.0 if scores[seat] == n - 1 else 0.0
        return won + place_weight * scores[seat] / (n - 1)


def heuristic_execution(d: Sim, seat: int, samples: int) -> tuple[str, Any]:
    """The heuristic's Execution as it samples (a short pool: late in a deal's reshuffles)."""
    hand, fate, focus = d.hands[seat], d.fates[seat], d.focus
    mine_save = best([*hand, fate, focus])
    mine_kill = best([*hand, fate])
    pool = d._unseen(seat)
    size = min(4, len(pool))
    if size < 1:
        return ("save", None)
    wins_save = wins_kill = 0
    for _ in range(samples):
        other = d.rng.sample(pool, size)
        wins_save += mine_save > best([*other, focus])
        wins_kill += mine_kill > best(other)
    return ("kill", None) if wins_kill > wins_save else ("save", None)


def marionette_cards(hand: list[int], highest: bool) -> list[int]:
    """:func:`server.engine.prophets_gambit.high_cards.marionette_cards` on indexes."""
    numbered = [c for c in hand if NUM[c]]
    if not numbered:
        return list(hand)
    want = max(NUM[c] for c in numbered) if highest else min(NUM[c] for c in numbered)
    return [c for c in numbered if NUM[c] == want]


def _ask_of(kind: str, info: dict[str, Any]) -> tuple[str, Any]:
    """An engine ask as the sim keeps it."""
    if kind in ("discard", "donjon"):
        return (kind, info["count"])
    if kind in ("darklord", "marionette"):
        return (kind, list(info["targets"]))
    if kind in ("darklord_pick", "marionette_order"):
        return (kind, info["target"])
    if kind == "tempter_target":
        return (kind, (INDEX[info["card"]], list(info["targets"])))
    if kind == "forced":
        return (kind, [INDEX[c] for c in info["cards"]])
    return (kind, None)


def action_of(action: Action) -> tuple[str, Any]:
    """An engine action as the sim takes it."""
    field = action.FIELD
    if field == "card":
        return (action.TYPE, INDEX[action.card])  # type: ignore[attr-defined]  # FIELD says so (no isinstance in rollouts)
    if field == "seat":
        return (action.TYPE, action.seat)  # type: ignore[attr-defined]  # FIELD says so (no isinstance in rollouts)
    return (action.TYPE, None)
