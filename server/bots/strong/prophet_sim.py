"""A fast Prophet round for the strong bot's rollouts: the trick rules on small integers, and
the heuristic bot's bids and cards computed the same way, bid for bid and card for card.

The engine's state is made for the hub (events, views, checks, a fresh deck dealt per round),
and a rollout through it spends most of its time there. Here a card is ``suit * 16 + rank``
(suits in ``FRENCH_SUITS`` order, rank 2-14), so sorted integers are the engine's hand order;
a round is only what decides it: the hands, the bids, the tricks taken, the trick on the table
and the cards already won (the heuristic reads them to find the top card left in a suit).
:func:`heuristic_bid` and :func:`heuristic_card` are :class:`server.bots.prophet.ProphetBot`'s
choices (the same values, in the same float operations and order, so ties break alike);
``tests/bots/test_prophet_sim.py`` checks both, and the rules, against the engine.
"""

from __future__ import annotations

from typing import Any

from protocol.cards import FRENCH_SUITS, french_rank
from server.bots import prophet as heuristic

SUIT_LETTERS = list(FRENCH_SUITS)
SUIT_OF = {s: i for i, s in enumerate(SUIT_LETTERS)}
RANK_LETTERS = "23456789TJQKA"


def index(code: str) -> int:
    """A card code ("AS") as this module's integer."""
    return SUIT_OF[code[1]] * 16 + french_rank(code)


CODE: dict[int, str] = {
    s * 16 + r: RANK_LETTERS[r - 2] + letter
    for s, letter in enumerate(SUIT_LETTERS)
    for r in range(2, 15)
}
INDEX = {code: c for c, code in CODE.items()}
#: Per card: the bits of the higher cards of its suit (``heuristic._is_top``'s question).
ABOVE = [0] * 64
for _c in CODE:
    ABOVE[_c] = sum(1 << (_c - _c % 16 + r) for r in range(_c % 16 + 1, 15))


def power(card: int, led: int, trump: int) -> int:
    """``heuristic._power``: how strongly ``card`` stands in a trick led in ``led``."""
    suit = card >> 4
    if suit == trump:
        return 100 + (card & 15)
    if suit == led:
        return card & 15
    return 0


def strength(card: int, trump: int) -> int:
    """``heuristic._strength``: trumps above every side card."""
    return (card & 15) + (20 if card >> 4 == trump else 0)


def estimate(
    hand: list[int], trump_card: int, n: int, k: int, low: int, seat: int, dealer: int
) -> float:
    """``heuristic.estimate_tricks`` on integers (``low``: the deck's lowest rank, 2 or 7)."""
    trump = trump_card >> 4
    ranks = 15 - low
    unseen = ranks * 4 - k - 1
    q = min(1.0, (n - 1) * k / unseen)
    each = k / unseen
    # Per suit: how many of its cards are "mine" (the hand and the trump card), their bits.
    mine_bits = [0, 0, 0, 0]
    in_hand = [0, 0, 0, 0]
    for c in hand:
        mine_bits[c >> 4] |= 1 << (c & 15)
        in_hand[c >> 4] += 1
    mine_bits[trump] |= 1 << (trump_card & 15)
    mine_count = [b.bit_count() for b in mine_bits]
    has_trump = 1 - (1 - each) ** (ranks - mine_count[trump])
    leads = seat == (dealer + 1) % n
    total = 0.0
    for card in hand:
        suit, rank = card >> 4, card & 15
        higher = (14 - rank) - (mine_bits[suit] >> (rank + 1)).bit_count()
        p = 1 / (1 + heuristic.ALPHA * higher * q)
        if suit != trump:
            void = (1 - each) ** (ranks - mine_count[suit])
            p *= (1 - void * has_trump) ** (n - 1)
            if in_hand[suit] > 2:
                p *= heuristic.LONG
            if k == 1 and not leads:
                p *= 0.1
        total += p
    return total


def heuristic_bid(est: float, allowed: list[int]) -> int:
    """``heuristic.choose_bid``: the allowed bid nearest the estimate, the lower on ties."""
    return min(allowed, key=lambda b: (abs(b - est), b))


class Round:
    """One round in progress. ``hands`` are sorted cards; ``bids[s]`` is -1 until ``s`` bids;
    ``trick`` the (seat, card) plays on the table, ``top`` the :func:`power` of its best card
    so far and ``top_seat`` who played it; ``gone`` the bits of the cards in tricks already won
    this round; ``led`` the led suit (-1: the trick is empty); ``turn`` who acts (-1: the round
    is over); ``winner`` the last completed trick's winner (-1: none yet)."""

    __slots__ = (
        "bidding",
        "bids",
        "dealer",
        "gone",
        "hands",
        "k",
        "led",
        "low",
        "n",
        "top",
        "top_seat",
        "trick",
        "tricks",
        "trump",
        "trump_card",
        "turn",
        "winner",
    )
    n: int
    dealer: int
    k: int
    low: int
    trump_card: int
    trump: int
    hands: list[list[int]]
    bids: list[int]
    tricks: list[int]
    trick: list[tuple[int, int]]
    led: int
    top: int
    top_seat: int
    gone: int
    turn: int
    bidding: bool
    winner: int

    @classmethod
    def deal(cls, hands: list[list[int]], trump_card: int, dealer: int, low: int = 7) -> Round:
        """A fresh round: these hands (the lists are kept, sorted here), bidding from the
        dealer's left."""
        r = cls.__new__(cls)
        r.n = n = len(hands)
        r.dealer, r.low, r.trump_card, r.trump = dealer, low, trump_card, trump_card >> 4
        for h in hands:
            h.sort()
        r.hands = hands
        r.k = len(hands[0])
        r.bids = [-1] * n
        r.tricks = [0] * n
        r.trick = []
        r.led = r.top = r.top_seat = -1
        r.gone = 0
        r.turn = (dealer + 1) % n
        r.bidding = True
        r.winner = -1
        return r

    @classmethod
    def of_state(cls, state: Any) -> Round:
        """The engine's :class:`~server.engine.prophet.ProphetState` round, as it stands."""
        r = cls.deal(
            [[index(c) for c in h] for h in state.hands],
            index(state.trump),
            state.dealer,
            2 if state.options["deck"] == 52 else 7,
        )
        r.k = state.cards_this_round()
        r.bids = [-1 if b is None else b for b in state.bids]
        r.tricks = list(state.tricks)
        r.set_trick([(s, index(c)) for s, c in state.trick])
        for pile in state.won:
            for c in pile:
                r.gone |= 1 << index(c)
        r.turn = -1 if state.turn is None else state.turn
        r.bidding = state.phase == "bid"
        return r

    def copy(self) -> Round:
        # (field by field: rollouts copy a round per action tried)
        r = Round.__new__(Round)
        r.n, r.dealer, r.k, r.low = self.n, self.dealer, self.k, self.low
        r.trump_card, r.trump = self.trump_card, self.trump
        r.hands = [h[:] for h in self.hands]
        r.bids = self.bids[:]
        r.tricks = self.tricks[:]
        r.trick = self.trick[:]
        r.led, r.top, r.top_seat = self.led, self.top, self.top_seat
        r.gone, r.turn = self.gone, self.turn
        r.bidding, r.winner = self.bidding, self.winner
        return r

    def set_trick(self, trick: list[tuple[int, int]]) -> None:
        """Put these plays on the table (the led suit and the best card follow from them)."""
        self.trick = trick
        self.led = trick[0][1] >> 4 if trick else -1
        self.top = self.top_seat = -1
        for s, c in trick:
            p = power(c, self.led, self.trump)
            if p > self.top:
                self.top, self.top_seat = p, s

    # --- the rules -------------------------------------------------------------------------

    def allowed_bids(self) -> list[int]:
        """The bids the seat to act may make (ruling 4: the dealer skips the one that would
        make the bids add up to the tricks)."""
        k = self.k
        if self.turn != self.dealer:
            return list(range(k + 1))
        rest = k - sum(b for b in self.bids if b >= 0)
        return [b for b in range(k + 1) if b != rest]

    def options(self, seat: int) -> list[int]:
        """The cards ``seat`` may play (ruling 5), in hand order, as the engine lists them."""
        hand = self.hands[seat]
        led = self.led
        if led < 0:
            return hand
        follow = [c for c in hand if c >> 4 == led]
        return follow or hand

    def bid(self, seat: int, tricks: int) -> None:
        self.bids[seat] = tricks
        if seat == self.dealer:
            self.bidding = False
            self.turn = (self.dealer + 1) % self.n
        else:
            self.turn = (seat + 1) % self.n

    def play(self, seat: int, card: int) -> None:
        """``seat`` plays ``card`` (legal: the caller took it from :meth:`options`)."""
        self.hands[seat].remove(card)
        trick = self.trick
        suit = card >> 4
        if not trick:
            self.led = suit
            self.top = -1
        # Ruling 5: the highest trump, else the highest of the led suit (``power`` inlined).
        p = 100 + (card & 15) if suit == self.trump else (card & 15 if suit == self.led else 0)
        if p > self.top:
            self.top, self.top_seat = p, seat
        trick.append((seat, card))
        n = self.n
        if len(trick) < n:
            self.turn = (seat + 1) % n
            return
        winner = self.top_seat
        gone = self.gone
        for _, c in trick:
            gone |= 1 << c
        self.gone = gone
        self.tricks[winner] += 1
        self.winner = winner
        self.trick = []
        self.led = self.top = self.top_seat = -1
        self.turn = winner if self.hands[winner] else -1

    def score(self, seat: int) -> int:
        """Ruling 6: 10 plus the bid when exactly made, else 0 (once the round is over)."""
        bid = self.bids[seat]
        return 10 + bid if bid == self.tricks[seat] else 0

    def play_out(self) -> None:
        """The heuristic bot in every seat to the end of the round."""
        while self.turn >= 0:
            seat = self.turn
            if self.bidding:
                allowed = self.allowed_bids()
                self.bid(seat, heuristic_bid(self.estimate(seat), allowed))
            else:
                cards = self.options(seat)
                self.play(seat, cards[0] if len(cards) == 1 else heuristic_card(self, seat, cards))

    def estimate(self, seat: int) -> float:
        """The heuristic's expected tricks for ``seat``'s hand (as dealt: before any play)."""
        return estimate(
            self.hands[seat], self.trump_card, self.n, self.k, self.low, seat, self.dealer
        )


def heuristic_card(r: Round, seat: int, cards: list[int]) -> int:
    """``heuristic.choose_card``: win cheaply while short of the bid, otherwise lose,
    shedding the strongest cards (the first best on ties, as ``max``/``min`` pick)."""
    trump = r.trump
    want = r.bids[seat] - r.tricks[seat] > 0
    trick = r.trick
    if not trick:
        if want:
            gone = r.gone | (1 << r.trump_card)
            for c in r.hands[seat]:
                gone |= 1 << c
            best, key = -1, (-1, -1)
            for c in cards:
                if gone & ABOVE[c] == ABOVE[c]:
                    k = (c >> 4 == trump, c & 15)
                    if k > key:
                        best, key = c, k
            if best >= 0:
                return best
            return _first_max(cards, trump)
        side = [c for c in cards if c >> 4 != trump] or cards
        best = side[0]
        for c in side:
            if c & 15 < best & 15:
                best = c
        return best
    led = r.led
    top = r.top  # (the trick's best power so far)
    winners: list[int] = []
    losers: list[int] = []
    for c in cards:
        suit = c >> 4
        p = 100 + (c & 15) if suit == trump else (c & 15 if suit == led else 0)
        (winners if p > top else losers).append(c)
    if want:
        if winners:
            # Last to play: the cheapest winner is enough. Otherwise play a stronger one.
            pick = min if len(trick) == r.n - 1 else max
            return pick(winners, key=lambda c: power(c, led, trump))
        return min(losers, key=lambda c: strength(c, trump))
    if losers:
        return _first_max(losers, trump)
    return max(winners, key=lambda c: power(c, led, trump))


def _first_max(cards: list[int], trump: int) -> int:
    """The first card of the greatest :func:`strength` (as ``max`` picks)."""
    best, top = cards[0], strength(cards[0], trump)
    for c in cards:
        s = strength(c, trump)
        if s > top:
            best, top = c, s
    return best
