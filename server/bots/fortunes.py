"""A Fortunes bot that plays for its team's score, reading only the view.

The key fact it uses: for a team's *difference* to the other team, who wins a trick does not
matter. A trick whose final direction favours my team adds its top card's value to the
difference (our well-disposed win, or their ill-disposed one); otherwise it subtracts it. So:

* when the direction favours us, push the top card up (play high: in a high trick that raises
  the maximum, in a low trick it keeps the minimum up);
* when it does not, pull it down (play low) — or flip the direction with a Star if that pays;
* lead high when leading for the High team; the Low team leads low, or a Star when it can
  spare one (a Star-led trick cannot be flipped, and a Low lead's top is the lowest Star
  played: never negative for us). The Low team keeps its Stars mainly to flip High leads.

It weighs each legal card by that immediate value, discounted by the chance that a player still
to play flips the trick, minus a cost for spending a card worth keeping. No search: fast.
Under option (e), once its partnership nears the target it plays not to score at all. Bids are
cautious (a missed bid zeroes the team; a made one earns nothing extra); in option (b) it folds
while it or its partner is the single highest scorer (a fold pays the highest-scoring player)
and never raises (a raise only adds to its own stake).
"""

from __future__ import annotations

from typing import Any

from protocol.cards import FORTUNES_DECK

from .base import Bot, register_bot

STAR = "*"
# Tuned against the random bot (see tests/engine/test_fortunes_bots.py). The Low team's Stars
# are worth most as flips of the High team's tricks, so it spends one only for a clear gain and
# leads one only when it holds more than the High team's remaining leads call for.
LOW_FLIP_COST = 12.0
LOW_SCARCE_LEAD_COST = 20.0
LOW_SPARE_LEAD_COST = 1.0
LOW_SPARE_STARS = 2
#: Option (e): this close to the target (a fraction of it), the bot stops scoring for its team;
#: a deal's swings are large, so it starts early.
EXACT_MARGIN = 0.6
#: What the High team typically still gains over a whole deal.
HIGH_DEAL_GAIN = 40


def _value(card: str) -> int:
    return int(card[1:])


class _Table:
    """What this seat knows of the deal: unseen cards and which seats showed a void."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.seat: int = view["seat"]
        self.dealer: int = view["dealer"]
        self.high: bool = (self.seat - self.dealer) % 2 == 0
        self.hand: list[str] = view["hand"]
        trick = view["trick"]
        self.cards: list[list] = trick["cards"]
        self.led: str | None = trick["led"]
        self.direction: str = trick["direction"]
        self.stars_free: bool = view["stars_free"]
        #: Option (e) near the target: avoid scoring instead of scoring for the team.
        self.shed = _near_exact_target(view)
        seen = set(self.hand)
        self.voids: list[set[str]] = [set(), set(), set(), set()]
        free = False
        for played in [*(t["cards"] for t in view["tricks"]), self.cards]:
            if not played:
                continue
            led = played[0][1][0]
            for seat, card in played:
                seen.add(card)
                suit = card[0]
                if suit != led and not (suit == STAR and free):
                    self.voids[seat].add(led)
                if suit == STAR:
                    free = True
        self.unseen = [c for c in FORTUNES_DECK if c not in seen]
        self.unseen_stars = sum(1 for c in self.unseen if c[0] == STAR)
        # Tricks with an odd number are led by the High team (the dealer leads trick 1).
        high_leads_left = sum(1 for k in range(trick["n"] + 1, 20) if k % 2 == 1)
        my_stars = sum(1 for c in self.hand if c[0] == STAR)
        if self.cards:
            self.low_star_cost = LOW_FLIP_COST
        elif my_stars * 2 <= high_leads_left + LOW_SPARE_STARS:
            self.low_star_cost = LOW_SCARCE_LEAD_COST
        else:
            self.low_star_cost = LOW_SPARE_LEAD_COST

    def favours(self, direction: str) -> bool:
        return (direction == "high") == self.high

    def sign(self, direction: str) -> int:
        return 1 if self.favours(direction) else -1

    def still_to_play(self) -> list[int]:
        first = (self.cards[0][0] if self.cards else self.seat) + len(self.cards) + 1
        return [(first + i) % 4 for i in range(3 - len(self.cards))]

    def is_partner(self, seat: int) -> bool:
        return (seat - self.seat) % 2 == 0

    def keep_cost(self, card: str) -> float:
        """What a card is worth keeping: Stars flip tricks (and lead well for the High team);
        extreme cards push or pull a top card; middling ones are the cheapest to spend."""
        v = _value(card)
        if card[0] == STAR:
            return 2.0 + 0.4 * v if self.high else self.low_star_cost
        return 0.15 * abs(v - 7.5)

    def unseen_of(self, suit: str) -> list[int]:
        return sorted(_value(c) for c in self.unseen if c[0] == suit)


def _near_exact_target(view: dict[str, Any]) -> bool:
    """Option (e): our partnership's total, with what this deal will likely still bring, is
    close to the target."""
    options = view["options"]
    if options.get("betting") != "target_exact":
        return False
    seat = view["seat"]
    total = next(p["total"] for p in view["partnerships"] if seat in p["seats"])
    total += view["seats"][seat]["score"] + view["seats"][(seat + 2) % 4]["score"]
    if view["seats"][seat]["team"] == "High":
        total += HIGH_DEAL_GAIN * len(view["hand"]) / 19
    return total >= options["target"] * (1 - EXACT_MARGIN)


def _top_pair(played: list[list], led: str, direction: str) -> tuple[int, int]:
    """The seat holding the top card so far and that card's value."""
    pairs = [(_value(c), s) for s, c in played if c[0] == led]
    v, seat = max(pairs) if direction == "high" else min(pairs)
    return seat, v


def _top(cards: list[str], led: str, direction: str) -> int:
    values = [_value(c) for c in cards if c[0] == led]
    return max(values) if direction == "high" else min(values)


@register_bot("fortunes", "heuristic")
class FortunesBot(Bot):
    """Plays to its team's direction; bids low, folds while it or its partner leads alone."""

    def choose(self, view: dict[str, Any]) -> dict[str, Any]:
        legal = view["legal"]
        if len(legal) == 1:
            return legal[0]
        kind = view["ask"]["kind"]
        if kind == "play":
            table = _Table(view)
            cards = [a["card"] for a in legal]
            if table.shed:
                card = self._shed(table, cards)
            elif table.cards:
                card = self._follow(table, cards)
            else:
                card = self._lead(table, cards)
            return {"type": "play", "card": card}
        if kind == "bid":
            return {"type": "bid", "tricks": self._bid(view)}
        if kind == "bet":
            return {"type": self._bet(view)}
        return legal[0]

    # --- play ------------------------------------------------------------------------------

    def _follow(self, t: _Table, options: list[str]) -> str:
        led, direction = t.led, t.direction
        played = [c for _, c in t.cards]
        later = t.still_to_play()
        best, best_score = options[0], float("-inf")
        for card in options:
            new_dir = direction
            if card[0] == STAR and led != STAR:
                new_dir = "low" if direction == "high" else "high"
            after = [*played, card]
            top = _top(after, led, new_dir)
            score = t.sign(new_dir) * top
            if led != STAR and later:
                score = self._flip_risk(t, score, after, new_dir, later, card[0] == STAR)
            score -= t.keep_cost(card)
            if score > best_score:
                best, best_score = card, score
        return best

    def _shed(self, t: _Table, options: list[str]) -> str:
        """Play so that our team does not score: let the other team take the trick, or take it
        ourselves against our direction."""
        if not t.cards:
            mundane = [c for c in options if c[0] != STAR] or options
            pick = min if t.high else max  # a card the others can beat in our direction
            return pick(mundane, key=_value)
        best, best_score = options[0], float("-inf")
        for card in options:
            direction = t.direction
            if card[0] == STAR and t.led != STAR:
                direction = "low" if direction == "high" else "high"
            after = [*t.cards, [t.seat, card]]
            seat, top = _top_pair(after, t.led, direction)
            ours = t.sign(direction) * top if t.is_partner(seat) else 0
            score = -ours - 0.01 * t.keep_cost(card)
            if score > best_score:
                best, best_score = card, score
        return best

    def _flip_risk(
        self,
        t: _Table,
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
        other = "low" if direction == "high" else "high"
        flipped = t.sign(other) * _top(after, t.led, other)
        p = min(0.7, 0.4 * len(flippers))
        return (1 - p) * score + p * flipped

    def _lead(self, t: _Table, options: list[str]) -> str:
        my_dir = "high" if t.high else "low"
        best, best_score = options[0], float("-inf")
        for card in options:
            v = _value(card)
            if card[0] != STAR:
                score = self._mundane_lead(t, card, my_dir)
            elif t.high:  # the top is at least this Star, and nobody can flip it
                score = v + 1.0
            else:  # the opponents answer with their lowest Stars
                score = v if t.unseen_stars == 0 else 0.3 * v
            score -= t.keep_cost(card)
            if score > best_score:
                best, best_score = card, score
        return best

    def _mundane_lead(self, t: _Table, card: str, my_dir: str) -> float:
        suit, v = card[0], _value(card)
        rest = t.unseen_of(suit)
        opponents = [(t.seat + 1) % 4, (t.seat + 3) % 4]
        void_opps = sum(1 for s in opponents if suit in t.voids[s])
        if t.unseen_stars == 0:
            p = 0.0
        elif t.stars_free or void_opps == 2:
            p = 0.6
        elif void_opps == 1 or len(rest) < 3:
            p = 0.35
        else:
            p = 0.08
        if my_dir == "high":
            kept = v
            flipped = -min(v, 4)
        else:
            kept = min(v, rest[0]) if rest else v
            flipped = -max([v, *rest[-1:]])
        return (1 - p) * kept + p * flipped

    # --- bids and bets ---------------------------------------------------------------------

    def _bid(self, view: dict[str, Any]) -> int:
        """A cautious count of sure tricks: a missed team bid zeroes the team's score, and
        making it earns nothing more, so the bot under-bids."""
        high = (view["seat"] - view["dealer"]) % 2 == 0
        hand = view["hand"]
        if high:
            strong = [
                c
                for c in hand
                if (c[0] == STAR and _value(c) >= 19) or (c[0] != STAR and _value(c) == 14)
            ]
        else:
            strong = [c for c in hand if c[0] != STAR and _value(c) == 1]
        return len(strong) // 2

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
