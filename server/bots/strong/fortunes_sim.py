"""A fast Fortunes deal for the strong bot's rollouts: the trick rules on small integers, and
the heuristic bot's card choice computed the same way, card for card.

The engine's state is made for the hub (events, views, checks), and a rollout through it
spends most of its time there: a strong bot could play out only a few dozen worlds in its
200 ms. Here a card is its index in ``FORTUNES_DECK`` (the deck's order, which is also the
order a hand is sorted in), a suit a number (Stars 4), and a deal only what decides it: the
hands, the trick, the voids shown and the running difference of the two teams' scores (ruling
9: a trick scores for the team its final direction favours, whoever wins it, so only the
difference is kept). :func:`heuristic_card` is :class:`server.bots.fortunes.FortunesBot`'s
choice (the same values, in the same float operations and order, so ties break alike);
``tests/bots/test_fortunes_sim.py`` checks both against the engine and the bot.
"""

from __future__ import annotations

from protocol.cards import FORTUNES_DECK
from server.bots import fortunes as heuristic

STAR = 4
HIGH, LOW = 0, 1
SUIT_OF = {"W": 0, "C": 1, "S": 2, "P": 3, "*": 4}
INDEX = {code: i for i, code in enumerate(FORTUNES_DECK)}
#: Per card: its suit, and its strength in a high and in a low trick (ruling 9).
SUIT = [SUIT_OF[c[0]] for c in FORTUNES_DECK]
STRENGTH = [
    [int(c[1:]) for c in FORTUNES_DECK],
    [(21 if c[0] == "*" else 15) - int(c[1:]) for c in FORTUNES_DECK],
]
#: The heuristic's cost of spending a card, per direction of the player's team.
KEEP = [
    [
        heuristic.STAR_KEEP + heuristic.STAR_KEEP_PER_STRENGTH * STRENGTH[mine][c]
        if SUIT[c] == STAR
        else heuristic.MUNDANE_KEEP * (STRENGTH[mine][c] - heuristic.MIDDLE)
        for c in range(len(FORTUNES_DECK))
    ]
    for mine in (HIGH, LOW)
]
#: The chances the heuristic gives a mundane lead of being flipped by an opponent.
FLIP_CHANCES = (0.0, 0.6, 0.35, 0.08)


def _lead_value(card: int, mine: int, p: float) -> float:
    """The heuristic's value of leading ``card`` (``FortunesBot.lead_scores``), for a
    mundane card flipped with chance ``p``: the same operations, so the same floats."""
    power = STRENGTH[mine][card]
    if SUIT[card] == STAR:
        score = float(power)
    else:
        turned = -max(STRENGTH[mine ^ 1][card], heuristic.FLIPPED_TOP)
        score = (1 - p) * power + p * turned
    return score - KEEP[mine][card]


#: ``LEAD[mine][k][card]``: a lead's value with flip chance ``FLIP_CHANCES[k]``.
LEAD = [
    [[_lead_value(c, mine, p) for c in range(len(FORTUNES_DECK))] for p in FLIP_CHANCES]
    for mine in (HIGH, LOW)
]
SUIT_SIZE = [14, 14, 14, 14, 22]
TRICKS = 19


def suit_counts(hands: list[list[int]]) -> list[list[int]]:
    """``counts[seat][suit]`` of these hands (what :class:`Deal` keeps beside them)."""
    counts = []
    for hand in hands:
        row = [0, 0, 0, 0, 0]
        for card in hand:
            row[SUIT[card]] += 1
        counts.append(row)
    return counts


class Deal:
    """A deal in progress. ``hands`` are sorted card indexes; ``counts[seat][suit]`` how many
    of a suit a seat holds; ``left[suit]`` the suit's cards not yet played (the two set aside
    among them); ``voids[seat]`` a bit per suit the seat showed it lacks; ``diff`` the High
    team's score minus the Low team's so far."""

    __slots__ = (
        "counts",
        "dealer",
        "diff",
        "direction",
        "hands",
        "led",
        "left",
        "stars_free",
        "trick",
        "trick_no",
        "turn",
        "voids",
    )
    hands: list[list[int]]
    counts: list[list[int]]
    left: list[int]
    voids: list[int]
    dealer: int
    trick: list[tuple[int, int]]
    led: int | None  # None exactly when the trick is empty
    direction: int
    stars_free: bool
    turn: int
    trick_no: int
    diff: int

    @classmethod
    def of(
        cls,
        hands: list[list[int]],
        *,
        left: list[int],
        voids: list[int],
        dealer: int,
        trick: list[tuple[int, int]],
        led: int | None,
        direction: int,
        stars_free: bool,
        turn: int,
        trick_no: int,
        diff: int,
    ) -> Deal:
        """A deal at any point, its suit counts taken from ``hands`` (the lists are kept)."""
        d = cls.__new__(cls)
        d.hands, d.counts = hands, suit_counts(hands)
        d.left, d.voids, d.dealer = left, voids, dealer
        d.trick, d.led, d.direction, d.stars_free = trick, led, direction, stars_free
        d.turn, d.trick_no, d.diff = turn, trick_no, diff
        return d

    def copy(self) -> Deal:
        # (field by field, not through :meth:`of`: rollouts copy a deal per card tried)
        d = Deal.__new__(Deal)
        d.hands = [h[:] for h in self.hands]
        d.counts = [c[:] for c in self.counts]
        d.left = self.left[:]
        d.voids = self.voids[:]
        d.dealer = self.dealer
        d.trick = self.trick[:]
        d.led = self.led
        d.direction = self.direction
        d.stars_free = self.stars_free
        d.turn = self.turn
        d.trick_no = self.trick_no
        d.diff = self.diff
        return d

    def options(self, seat: int) -> list[int]:
        """The cards ``seat`` may play (ruling 6), in hand order, as the engine lists them."""
        hand = self.hands[seat]
        led = self.led
        if led is None or not self.counts[seat][led]:
            return hand
        if self.stars_free and led != STAR:
            return [c for c in hand if SUIT[c] == led or SUIT[c] == STAR]
        return [c for c in hand if SUIT[c] == led]

    def play(self, seat: int, card: int) -> None:
        """``seat`` plays ``card`` (legal: the caller took it from :meth:`options`)."""
        self.hands[seat].remove(card)
        suit = SUIT[card]
        self.counts[seat][suit] -= 1
        self.left[suit] -= 1
        trick = self.trick
        led = self.led
        if led is None:  # (the trick is empty)
            self.led = led = suit
        elif suit != led:
            if not (suit == STAR and self.stars_free):
                self.voids[seat] |= 1 << led
            if suit == STAR:
                self.direction ^= 1
        if suit == STAR:
            self.stars_free = True
        trick.append((seat, card))
        if len(trick) < 4:
            self.turn = (seat + 1) % 4
            return
        direction = self.direction
        power = STRENGTH[direction]
        top = -1
        for _, c in trick:
            if SUIT[c] == led and power[c] > top:
                top = power[c]
        self.diff += top if direction == HIGH else -top
        self.trick = []
        self.led = None
        self.trick_no += 1
        leader = (self.dealer + self.trick_no - 1) % 4
        self.turn = leader
        self.direction = (leader - self.dealer) % 2  # a High-team lead goes high

    def play_out(self) -> int:
        """The heuristic bot in every seat to the end of the deal; the final ``diff``.

        :meth:`options` and :meth:`play` written out in the loop (a rollout is most of a
        search's time): the same steps, on the deal's own fields, which
        :func:`heuristic_card` reads."""
        suit_of, hands, counts, left, voids = SUIT, self.hands, self.counts, self.left, self.voids
        dealer = self.dealer
        while self.trick_no <= TRICKS:
            seat = self.turn
            hand = hands[seat]
            row = counts[seat]
            led = self.led
            if led is None or not row[led]:
                cards = hand
            elif self.stars_free and led != STAR:
                cards = [c for c in hand if suit_of[c] == led or suit_of[c] == STAR]
            else:
                cards = [c for c in hand if suit_of[c] == led]
            card = cards[0] if len(cards) == 1 else heuristic_card(self, seat, cards)
            # (play)
            hand.remove(card)
            suit = suit_of[card]
            row[suit] -= 1
            left[suit] -= 1
            trick = self.trick
            if led is None:
                self.led = led = suit
            elif suit != led:
                if not (suit == STAR and self.stars_free):
                    voids[seat] |= 1 << led
                if suit == STAR:
                    self.direction ^= 1
            if suit == STAR:
                self.stars_free = True
            trick.append((seat, card))
            if len(trick) < 4:
                self.turn = (seat + 1) % 4
                continue
            direction = self.direction
            power = STRENGTH[direction]
            top = -1
            for _, c in trick:
                if suit_of[c] == led and power[c] > top:
                    top = power[c]
            self.diff += top if direction == HIGH else -top
            self.trick = []
            self.led = None
            self.trick_no = trick_no = self.trick_no + 1
            leader = (dealer + trick_no - 1) % 4
            self.turn = leader
            self.direction = (leader - dealer) % 2
        return self.diff


def heuristic_card(deal: Deal, seat: int, cards: list[int]) -> int:
    """The heuristic bot's card (:class:`server.bots.fortunes.FortunesBot` outside option
    (e)'s endgame): its values, computed with the same operations, the first best on ties."""
    mine = (seat - deal.dealer) % 2
    keep = KEEP[mine]
    unseen_stars = deal.left[STAR] - deal.counts[seat][STAR]
    trick = deal.trick
    led = deal.led
    if led is None:  # (the trick is empty)
        # The flip chance of a lead depends on its suit only: one table per suit.
        lead = LEAD[mine]
        voids = deal.voids
        opp_a, opp_b = voids[(seat + 1) % 4], voids[(seat + 3) % 4]
        left, counts = deal.left, deal.counts[seat]
        table = [lead[0]] * 5
        if unseen_stars:
            for suit in range(4):
                bit = 1 << suit
                void_opps = (opp_a & bit > 0) + (opp_b & bit > 0)
                if deal.stars_free or void_opps == 2:
                    table[suit] = lead[1]
                elif void_opps == 1 or left[suit] - counts[suit] < 3:
                    table[suit] = lead[2]
                else:
                    table[suit] = lead[3]
        suit_of = SUIT
        best, best_value = cards[0], float("-inf")
        for card in cards:  # (the first best, as max() would take it)
            value = table[suit_of[card]][card]
            if value > best_value:
                best, best_value = card, value
        return best
    direction = deal.direction
    # The top so far each way: a suit's strengths run one way high and the other way low.
    high_power, low_power = STRENGTH
    top_high = top_low = -1
    for _, c in trick:
        if SUIT[c] == led:
            if high_power[c] > top_high:
                top_high = high_power[c]
            if low_power[c] > top_low:
                top_low = low_power[c]
    tops = (top_high, top_low)
    risky = led != STAR and len(trick) < 3 and unseen_stars > 0
    if risky:
        # Who may still flip the trick: ``flippers[free][partner]`` counts the later players
        # (partners or opponents) who may play a Star (free: Stars are, or this card is one).
        voids = deal.voids
        flippers = [[0, 0], [0, 0]]
        for i in range(3 - len(trick)):
            s = (seat + 1 + i) % 4
            partner = i % 2  # seat + 2 is the partner, seat + 1 and seat + 3 are not
            flippers[1][partner] += 1
            if voids[s] >> led & 1:
                flippers[0][partner] += 1
        stars_free = deal.stars_free
    best, best_score = cards[0], float("-inf")
    for card in cards:
        suit = SUIT[card]
        new_dir = direction ^ 1 if suit == STAR and led != STAR else direction
        top = tops[new_dir]
        if suit == led and STRENGTH[new_dir][card] > top:
            top = STRENGTH[new_dir][card]
        score: float = top if new_dir == mine else -top
        if risky:
            # Partners flip a trick that goes against us, opponents one that goes for us.
            n = flippers[stars_free or suit == STAR][0 if score > 0 else 1]
            if n:
                other = new_dir ^ 1
                turned = tops[other]
                if suit == led and STRENGTH[other][card] > turned:
                    turned = STRENGTH[other][card]
                if other != mine:
                    turned = -turned
                p = min(0.7, 0.4 * n)
                score = (1 - p) * score + p * turned
        score = score - keep[card]
        if score > best_score:
            best, best_score = card, score
    return best


def follow_values(deal: Deal, seat: int, cards: list[int], risky: bool) -> list[float]:
    """The values :func:`heuristic_card` gives ``cards`` when ``seat`` follows (the trick is
    not empty), the same floats, ``risky`` standing for its test of the unseen Stars
    (``led != STAR and len(trick) < 3 and unseen_stars > 0``): the only part of a follow's
    values that depends on the player's own hand. The strong bot's replay computes them once
    for all its worlds."""
    mine = (seat - deal.dealer) % 2
    keep = KEEP[mine]
    trick = deal.trick
    led = deal.led
    assert led is not None  # (a follow)
    direction = deal.direction
    high_power, low_power = STRENGTH
    top_high = top_low = -1
    for _, c in trick:
        if SUIT[c] == led:
            if high_power[c] > top_high:
                top_high = high_power[c]
            if low_power[c] > top_low:
                top_low = low_power[c]
    tops = (top_high, top_low)
    if risky:
        voids = deal.voids
        flippers = [[0, 0], [0, 0]]
        for i in range(3 - len(trick)):
            s = (seat + 1 + i) % 4
            partner = i % 2
            flippers[1][partner] += 1
            if voids[s] >> led & 1:
                flippers[0][partner] += 1
        stars_free = deal.stars_free
    values = []
    for card in cards:
        suit = SUIT[card]
        new_dir = direction ^ 1 if suit == STAR and led != STAR else direction
        top = tops[new_dir]
        if suit == led and STRENGTH[new_dir][card] > top:
            top = STRENGTH[new_dir][card]
        score: float = top if new_dir == mine else -top
        if risky:
            n = flippers[stars_free or suit == STAR][0 if score > 0 else 1]
            if n:
                other = new_dir ^ 1
                turned = tops[other]
                if suit == led and STRENGTH[other][card] > turned:
                    turned = STRENGTH[other][card]
                if other != mine:
                    turned = -turned
                p = min(0.7, 0.4 * n)
                score = (1 - p) * score + p * turned
        values.append(score - keep[card])
    return values
