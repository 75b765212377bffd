"""A Fortunes bot that plays for its team's score, reading only the view.

The key fact it uses: for a team's *difference* to the other team, who wins a trick does not
matter. A trick won in the direction that favours my team adds its top card's strength in that
direction (ruling 9) to the difference (our well-disposed win, or their ill-disposed one);
otherwise it subtracts it. The top card is always the strongest card of the led suit in the
trick's direction, so:

* when the direction favours us, push the top card's strength up (our strongest card);
* when it does not, keep it down (a card weak in that direction) — or flip the direction with
  a Star if that pays;
* lead strong in our own direction, or lead a Star that is strong in it: a Star-led trick
  cannot be flipped, so its top is at least the led Star's strength, for us.

The scoring is symmetric (a low trick is worth as much as a high one), so the bot reasons about
"my direction" and card strengths and plays both teams the same way.

It weighs each legal card by that immediate value, discounted by the chance that a player still
to play flips the trick, minus a cost for spending a card worth keeping. No search: fast.
Under option (e), once its partnership nears the target it plays not to score at all. It bids
0 in option (c) (a made bid earns nothing more and a missed one loses the deal); in option (b)
it folds while it or its partner is the single highest scorer (a fold pays the highest-scoring
player) and never raises (a raise only adds to its own stake).
"""

from __future__ import annotations

from typing import Any

from protocol.actions import Bid, Play
from protocol.cards import FORTUNES_DECK
from server.engine.fortunes.tricks import HIGH, LOW, STAR, flipped, strength

from .base import Bot, register_bot

# Tuned against the random bot and against itself (tests/engine/test_fortunes_bots.py).
#: What a Star is worth keeping: it flips a trick, and leads one that cannot be flipped.
STAR_KEEP = 1.0
STAR_KEEP_PER_STRENGTH = 0.2
#: What a mundane card is worth keeping, per point of strength in our direction above the
#: middle: strong cards lead well later, weak ones are the safest to throw.
MUNDANE_KEEP = 0.3
MIDDLE = 7.5
#: How much a mundane lead loses when an opponent flips it: the other side's top is about this
#: strong at least.
FLIPPED_TOP = 10
#: Option (e): this close to the target (a fraction of it), the bot stops scoring for its team;
#: a deal's swings are large, so it starts early.
EXACT_MARGIN = 0.6
#: What a team typically gains over a whole deal (each team scores its own direction's tricks).
DEAL_GAIN = 90


class Table:
    """What this seat knows of the deal: unseen cards and which seats showed a void."""

    def __init__(
        self, view: dict[str, Any], known: tuple[set[str], list[set[str]]] | None = None
    ) -> None:
        """``known``: the cards played this deal and each seat's voids, when the caller
        keeps them (else they are read from the view's tricks)."""
        self.seat: int = view["seat"]
        self.dealer: int = view["dealer"]
        self.high: bool = (self.seat - self.dealer) % 2 == 0
        self.mine = HIGH if self.high else LOW
        self.hand: list[str] = view["hand"]
        trick = view["trick"]
        self.cards: list[list] = trick["cards"]
        self.led: str | None = trick["led"]
        self.direction: str = trick["direction"]
        self.stars_free: bool = view["stars_free"]
        #: Option (e) near the target: avoid scoring instead of scoring for the team.
        self.shed = _near_exact_target(view)
        if known is not None:  # a caller that follows the deal card by card (a rollout)
            played, self.voids = known
            seen = played.union(self.hand)
        else:
            seen = set(self.hand)
            self.voids = [set(), set(), set(), set()]
            free = False
            for trick_cards in [*(t["cards"] for t in view["tricks"]), self.cards]:
                if not trick_cards:
                    continue
                led = trick_cards[0][1][0]
                for seat, card in trick_cards:
                    seen.add(card)
                    suit = card[0]
                    if suit != led and not (suit == STAR and free):
                        self.voids[seat].add(led)
                    if suit == STAR:
                        free = True
        self.unseen = [c for c in FORTUNES_DECK if c not in seen]
        self.unseen_stars = sum(1 for c in self.unseen if c[0] == STAR)

    def sign(self, direction: str) -> int:
        """+1 when a trick going ``direction`` counts for my team, -1 when against it."""
        return 1 if direction == self.mine else -1

    def still_to_play(self) -> list[int]:
        first = (self.cards[0][0] if self.cards else self.seat) + len(self.cards) + 1
        return [(first + i) % 4 for i in range(3 - len(self.cards))]

    def is_partner(self, seat: int) -> bool:
        return (seat - self.seat) % 2 == 0

    def keep_cost(self, card: str) -> float:
        """What a card is worth keeping: Stars flip tricks and lead tricks nobody can flip;
        a card strong in our direction leads well later, a weak one is cheap to throw."""
        power = strength(card, self.mine)
        if card[0] == STAR:
            return STAR_KEEP + STAR_KEEP_PER_STRENGTH * power
        return MUNDANE_KEEP * (power - MIDDLE)


def _near_exact_target(view: dict[str, Any]) -> bool:
    """Option (e): our partnership's total, with what this deal will likely still bring, is
    close to the target."""
    options = view["options"]
    if options.get("betting") != "target_exact":
        return False
    seat = view["seat"]
    total = next(p["total"] for p in view["partnerships"] if seat in p["seats"])
    total += view["seats"][seat]["score"] + view["seats"][(seat + 2) % 4]["score"]
    total += DEAL_GAIN * len(view["hand"]) / 19
    return total >= options["target"] * (1 - EXACT_MARGIN)


def _top_pair(played: list[list], led: str, direction: str) -> tuple[int, int]:
    """The seat holding the top card so far and that card's strength."""
    power, seat = max((strength(c, direction), s) for s, c in played if c[0] == led)
    return seat, power


def _top(cards: list[str], led: str, direction: str) -> int:
    """The top card's strength: what the trick scores, as things stand."""
    return max(strength(c, direction) for c in cards if c[0] == led)


def _best(scores: dict[str, float]) -> str:
    """The highest-valued card; the first listed on ties."""
    best, best_score = "", float("-inf")
    for card, score in scores.items():
        if score > best_score:
            best, best_score = card, score
    return best


@register_bot("fortunes", "heuristic")
class FortunesBot(Bot):
    """Plays to its team's direction; bids 0, folds while it or its partner leads alone."""

    def decide(self, view: dict[str, Any]) -> dict[str, Any]:
        legal = view["legal"]
        if len(legal) == 1:
            return legal[0]
        kind = view["ask"]["kind"]
        if kind == "play":
            table = Table(view)
            cards = [a["card"] for a in legal]
            if table.shed:
                card = self._shed(table, cards)
            elif table.cards:
                card = self._follow(table, cards)
            else:
                card = self._lead(table, cards)
            return Play(card).to_wire()
        if kind == "bid":
            return Bid(0).to_wire()
        if kind == "bet":
            return {"type": self._bet(view)}
        return legal[0]

    # --- play ------------------------------------------------------------------------------

    def _follow(self, t: Table, options: list[str]) -> str:
        return _best(self.follow_scores(t, options))

    def follow_scores(self, t: Table, options: list[str]) -> dict[str, float]:
        """Each card's value when following (the strong bot searches the best few)."""
        led, direction = t.led, t.direction
        assert led is not None  # (following: the trick has a lead)
        played = [c for _, c in t.cards]
        later = t.still_to_play()
        scores = {}
        for card in options:
            new_dir = direction
            if card[0] == STAR and led != STAR:
                new_dir = flipped(direction)
            after = [*played, card]
            score: float = t.sign(new_dir) * _top(after, led, new_dir)
            if led != STAR and later:
                score = self._flip_risk(t, score, after, new_dir, later, card[0] == STAR)
            scores[card] = score - t.keep_cost(card)
        return scores

    def _shed(self, t: Table, options: list[str]) -> str:
        """Play so that our team does not score: let the other team take the trick, or take it
        ourselves against our direction."""
        if not t.cards:
            mundane = [c for c in options if c[0] != STAR] or options
            # a card the others can beat in our direction
            return min(mundane, key=lambda c: strength(c, t.mine))
        led = t.led
        assert led is not None  # (following: the trick has a lead)
        best, best_score = options[0], float("-inf")
        for card in options:
            direction = t.direction
            if card[0] == STAR and led != STAR:
                direction = flipped(direction)
            after = [*t.cards, [t.seat, card]]
            seat, top = _top_pair(after, led, direction)
            ours = t.sign(direction) * top if t.is_partner(seat) else 0
            score = -ours - 0.01 * t.keep_cost(card)
            if score > best_score:
                best, best_score = card, score
        return best

    def _flip_risk(
        self,
        t: Table,
        score: float,
        after: list[str],
        direction: str,
        later: list[int],
        star_now: bool,
    ) -> float:
        """Expected value when a later player may flip the trick back with a Star."""
        if t.unseen_stars == 0:
            return score
        free = t.stars_free or star_now
        flippers = [
            s for s in later if (free or t.led in t.voids[s]) and t.is_partner(s) != (score > 0)
        ]
        if not flippers:
            return score
        other = flipped(direction)
        assert t.led is not None  # (following: the trick has a lead)
        turned = t.sign(other) * _top(after, t.led, other)
        p = min(0.7, 0.4 * len(flippers))
        return (1 - p) * score + p * turned

    def _lead(self, t: Table, options: list[str]) -> str:
        return _best(self.lead_scores(t, options))

    def lead_scores(self, t: Table, options: list[str]) -> dict[str, float]:
        """Each card's value as a lead (the strong bot searches the best few)."""
        scores = {}
        for card in options:
            if card[0] == STAR:  # the top is at least this Star, and nobody can flip it
                score = float(strength(card, t.mine))
            else:
                score = self._mundane_lead(t, card)
            scores[card] = score - t.keep_cost(card)
        return scores

    def _mundane_lead(self, t: Table, card: str) -> float:
        """A lead in our direction keeps at least its own strength, unless an opponent
        flips it: then the other side scores about the top of the suit in theirs."""
        suit = card[0]
        rest = sum(1 for c in t.unseen if c[0] == suit)
        opponents = [(t.seat + 1) % 4, (t.seat + 3) % 4]
        void_opps = sum(1 for s in opponents if suit in t.voids[s])
        if t.unseen_stars == 0:
            p = 0.0
        elif t.stars_free or void_opps == 2:
            p = 0.6
        elif void_opps == 1 or rest < 3:
            p = 0.35
        else:
            p = 0.08
        kept = strength(card, t.mine)
        turned = -max(strength(card, flipped(t.mine)), FLIPPED_TOP)
        return (1 - p) * kept + p * turned

    # --- bets ------------------------------------------------------------------------------

    def _bet(self, view: dict[str, Any]) -> str:
        """Fold while this seat or its partner is the single highest scorer: a fold ends the
        deal and pays the highest-scoring player on the scores so far. Else stay. A raise
        only adds to our own stake, so the bot never raises."""
        seat = view["seat"]
        scores = [s["score"] for s in view["seats"]]
        best = max(scores)
        leaders = [s for s, score in enumerate(scores) if score == best]
        if len(leaders) == 1 and leaders[0] in (seat, (seat + 2) % 4):
            return "fold"
        return "stay"
