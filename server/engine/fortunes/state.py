"""A game of Fortunes in progress: deals, the betting options, tricks and the view.

The trick rules live in :mod:`.tricks` and the payouts in :mod:`.settle`; this module keeps the
phases in order. Phases: ``"bid"`` (option c, before play), ``"bet"`` (option b, before each
trick), ``"play"``, ``"next_deal"`` (the rubber and options d/e: every seat acknowledges the
finished deal, so its reading can be shown before the cards are dealt again) and ``"over"``.

A game of several deals (the default rubber of four, or a target game) is one state, so the
hub collects the antes once and settles once, after the last deal.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from protocol.actions import Action, Bid, Fold, NextDeal, Play, Raise, Stay
from server.engine.base import Ask, Outcome, State, tie_order
from server.engine.rng import order_deck

from . import settle
from .tricks import (
    HAND_SIZE,
    SET_ASIDE,
    SORT_KEY,
    STAR,
    SUIT_SINGULAR,
    TRICKS_PER_DEAL,
    compass,
    disposition,
    favoured_team,
    flipped,
    flips,
    lead_direction,
    leader_of,
    playable,
    team_name,
    team_seats,
    trick_points,
    trick_top,
)

#: The betting options whose game is several deals, the deal passing clockwise.
MULTI_DEAL = ("rubber", "target", "target_exact")
_BET_ACTIONS = (Stay.of(), Raise.of(), Fold.of())
#: The actions the legal lists hand out, made once (``protocol.actions.Made``).
_BID, _PLAY = Bid.made, Play.made


class FortunesState(State):
    """Four players, two teams, 19 tricks a deal; see RULINGS.md, Fortunes 1–10."""

    ACTIONS: ClassVar[frozenset[type[Action]]] = frozenset((Play, Bid, Stay, Raise, Fold, NextDeal))

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        if self.num_players != 4:
            raise ValueError("Fortunes takes exactly 4 players.")
        self.betting: str = self.options["betting"]
        self.dealer: int = params["dealer"]
        self.deal_no = 0
        #: Running per-player totals over the deals (the rubber, options d and e).
        self.totals = [0, 0, 0, 0]
        #: One summary per finished deal (numbers only: earlier deals' cards are dealt again).
        self.deals: list[dict[str, Any]] = []
        #: What each seat has put in the pot, in stakes: the ante, and option (b)'s payments.
        self.contributions = [1, 1, 1, 1]
        self.folded_by: int | None = None
        self.ready: list[int] = []
        self.result: dict[str, Any] | None = None
        #: Index in ``events`` where the current deal starts (views show only this deal's).
        self.deal_events_from = 0
        self._start_deal()

    # --- dealing ---------------------------------------------------------------------------

    def _start_deal(self) -> None:
        self.deal_no += 1
        if self.deal_no > 1:
            self.dealer = (self.dealer + 1) % 4
        d = self.dealer
        stacked = self.params["deck"] if self.deal_no == 1 else None
        deck = order_deck(self.game.cards(self.options), stacked, self.seed, f"deal{self.deal_no}")
        self.set_aside = deck[:SET_ASIDE]
        self.hands: list[list[str]] = [[], [], [], []]
        pos = SET_ASIDE
        for i in range(4):  # blocks from the dealer's left: South, West, North, East
            self.hands[(d + 1 + i) % 4] = sorted(
                deck[pos : pos + HAND_SIZE], key=SORT_KEY.__getitem__
            )
            pos += HAND_SIZE
        self.scores = [0, 0, 0, 0]
        self.raw_scores: list[int] | None = None
        self.tricks_won = [0, 0, 0, 0]
        self.tricks: list[dict[str, Any]] = []
        self.trick: list[list[Any]] = []
        self.trick_no = 1
        self.leader = d
        self.direction = lead_direction(d, d)
        self.led: str | None = None
        self.stars_free = False
        #: Option (b): the current ante in stakes (each raise lifts it by one for everyone),
        #: and the raises each seat made this deal (the table caps their sum).
        self.ante = 1
        self.raises = [0, 0, 0, 0]
        self.bids: list[int | None] | None = [None] * 4 if self.betting == "bid" else None
        self.bet_count = 0
        self.turn: int | None = d
        self.phase = {"bid": "bid", "raise": "bet"}.get(self.betting, "play")
        self.deal_events_from = len(self.events)
        self.events.append(
            {
                "e": "deal",
                "deal": self.deal_no,
                "dealer": d,
                "high": team_seats(True, d),
                "low": team_seats(False, d),
            }
        )

    # --- who decides what ------------------------------------------------------------------

    def pending(self) -> dict[int, Ask]:
        phase = self.phase
        turn = self.turn
        if turn is not None:  # a seat's turn: play, bet or bid
            if phase == "play":
                return {turn: Ask("play", {"trick": self.trick_no, "led": self.led})}
            if phase == "bet":
                info = {
                    "trick": self.trick_no,
                    "ante": self.ante,
                    "raises_left": self._raises_left(),
                }
                return {turn: Ask("bet", info)}
            if phase == "bid":
                return {turn: Ask("bid", {"max": self._most_bid(turn)})}
        if phase == "next_deal":
            ask = Ask("next_deal", {"deal": self.deal_no + 1})
            return {s: ask for s in range(4) if s not in self.ready}
        return {}

    def legal_actions(self, seat: int) -> list[Action]:
        phase = self.phase
        if phase == "play":
            if seat != self.turn:
                return []
            cards = playable(self.hands[seat], self.led, self.stars_free)
            return [_PLAY[c] for c in cards]
        if phase == "bet":
            if seat != self.turn:
                return []
            acts = list(_BET_ACTIONS)
            if not self._raises_left():
                del acts[1]
            return acts
        if phase == "bid":
            if seat != self.turn:
                return []
            return [_BID[k] for k in range(self._most_bid(seat) + 1)]
        if phase == "next_deal" and seat not in self.ready:
            return [NextDeal.of()]
        return []

    def _raises_left(self) -> int:
        """Option (b): the raises this deal still allows, all players together."""
        cap: int = self.options["max_raises"]
        return max(0, cap - sum(self.raises))

    def _most_bid(self, seat: int) -> int:
        """Option (c): a partnership bids 0–19 tricks, as the sum of its partners' bids, so the
        second partner to bid may add only what the first left."""
        partner = self.bids[(seat + 2) % 4] if self.bids is not None else None
        return TRICKS_PER_DEAL - (partner or 0)

    def stake_due(self, seat: int, action: Action) -> int:
        """Option (b): a stay pays the current ante again, a raise the raised one (in stakes).
        The hub moves these chips before it applies the action; a seat that cannot pay them
        must fold (ruling 10 b)."""
        if self.phase != "bet":
            return 0
        return {"stay": self.ante, "raise": self.ante + 1}.get(action.TYPE, 0)

    def explain_illegal(self, seat: int, action: Action) -> str:
        kind = action.TYPE
        wanted = {
            "play": "play a card",
            "bet": "stay, raise or fold",
            "bid": "bid",
            "next_deal": "start the next deal",
        }.get(self.phase, "wait")
        expected = {"play": ("play",), "bet": ("stay", "raise", "fold"), "bid": ("bid",)}
        if kind not in expected.get(self.phase, ("next_deal",)):
            return f"It is time to {wanted}, not to {kind.replace('_', ' ')}."
        if kind == "raise":
            n = self.options["max_raises"]
            return f"The raises this deal allows ({n}) have all been made."
        if kind == "bid":
            return f"Bid a number of tricks from 0 to {self._most_bid(seat)}."
        assert isinstance(action, Play)
        card = action.card
        hand = self.hands[seat]
        if card not in hand:
            return f"You do not hold {card}."
        led = self.led
        assert led is not None  # a held card is refused only when it does not follow
        if led == STAR:
            return "A Star was led: you must play a Star while you hold one."
        name = SUIT_SINGULAR[led]
        if card[0] == STAR:
            return f"No Star has been played yet this deal: you must follow suit ({name})."
        return f"You must follow suit: you hold a {name}."

    # --- applying --------------------------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> None:
        if type(action) is Play:
            self._play(seat, action.card)
        elif type(action) is Bid:
            self._bid(seat, action.tricks)
        elif (kind := action.TYPE) == "next_deal":
            self.ready.append(seat)
            if len(self.ready) == 4:
                self.ready = []
                self._start_deal()
        else:
            self._bet(seat, kind)

    def _bid(self, seat: int, tricks: int) -> None:
        assert self.bids is not None  # the bid phase is option (c)'s only
        self.bids[seat] = tricks
        self.events.append({"e": "bid", "seat": seat, "tricks": tricks})
        self.turn = (seat + 1) % 4
        if self.turn == self.dealer:
            self.phase = "play"

    def _bet(self, seat: int, kind: str) -> None:
        self.events.append({"e": kind, "seat": seat, "trick": self.trick_no})
        if kind == "fold":
            self.folded_by = seat
            self._end_deal()
            return
        if kind == "raise":
            self.raises[seat] += 1
            self.ante += 1
        self.contributions[seat] += self.ante
        self.bet_count += 1
        self.turn = (seat + 1) % 4
        if self.bet_count == 4:
            self.phase = "play"

    def _play(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        suit = card[0]
        event: dict[str, Any] = {"e": "play", "seat": seat, "card": card}
        if not self.trick:
            self.led = suit
        elif suit == STAR and self.led != STAR:
            self.direction = event["flip"] = flipped(self.direction)  # the new direction
        if suit == STAR and not self.stars_free:
            self.stars_free = event["stars_free"] = True
        self.trick.append([seat, card])
        self.events.append(event)
        if len(self.trick) == 4:
            self._finish_trick()
        else:
            self.turn = (seat + 1) % 4

    def _finish_trick(self) -> None:
        d = self.dealer
        assert self.led is not None  # the trick's first card set it
        winner, top = trick_top(self.trick, self.led, self.direction)
        disp = disposition(winner, d, self.direction)
        points = trick_points(top, self.direction, disp)
        self.scores[winner] += points
        self.tricks_won[winner] += 1
        record = {
            "n": self.trick_no,
            "leader": self.leader,
            "winner": winner,
            "top": top,
            "direction": self.direction,
            "flips": flips(self.trick, self.led),
            "disposition": disp,
            "points": points,
            "cards": self.trick,
        }
        self.tricks.append(record)
        event = dict(record, e="trick", cards=[list(p) for p in self.trick])
        self.events.append(event)
        self.trick = []
        self.led = None
        if self.trick_no == TRICKS_PER_DEAL:
            self._end_deal()
            return
        self.trick_no += 1
        self.leader = self.turn = leader_of(self.trick_no, d)
        self.direction = lead_direction(self.leader, d)
        if self.betting == "raise":
            self.phase = "bet"
            self.bet_count = 0

    # --- ending ----------------------------------------------------------------------------

    def _end_deal(self) -> None:
        """Score the deal (bids of option c), then end the game or pause for the next deal."""
        d = self.dealer
        made = None
        bids = self.bids
        if bids is not None:  # a partnership that misses its bid scores nothing
            self.raw_scores = list(self.scores)
            made = {}
            for name, high in (("High", True), ("Low", False)):
                seats = team_seats(high, d)
                # (every seat has bid before the first trick, so no bid is None here)
                ok = sum(self.tricks_won[s] for s in seats) >= sum(bids[s] or 0 for s in seats)
                made[name] = ok
                if not ok:
                    for s in seats:
                        self.scores[s] = 0
        summary = {
            "deal": self.deal_no,
            "dealer": d,
            "high": team_seats(True, d),
            "scores": list(self.scores),
            "tricks": list(self.tricks_won),
        }
        self.deals.append(summary)
        self.events.append(dict(summary, e="deal_end", made=made, folded_by=self.folded_by))
        self.turn = None
        if self.betting not in MULTI_DEAL:
            if self.folded_by is not None:  # option (b): the highest-scoring player
                winners = settle.fold_winners(self.scores, d)
            else:
                winners = settle.deal_winners(self.scores, d, made)
            self._finish(self.scores, winners)
            return
        for s in range(4):
            self.totals[s] += self.scores[s]
        pair_totals = settle.partnership_totals(self.totals)
        if self.betting == "rubber":
            verdict = settle.rubber_verdict(pair_totals, self.deal_no)
        else:
            verdict = settle.target_verdict(
                pair_totals,
                self.options["target"],
                self.betting == "target_exact",
                self.deal_no,
                self.options["max_deals"],
            )
        if verdict is None:
            self.phase = "next_deal"
            self.ready = []
            return
        winners = (
            settle.takers(settle.PARTNERSHIPS[verdict], self.totals, d)
            if isinstance(verdict, int)
            else None  # "tie"
        )
        self._finish(self.totals, winners)

    def _finish(self, scores: list[int], winners: list[int] | None) -> None:
        """Record the result. ``winners`` None is a refund: every seat shares the pot in
        proportion to what it put in, so all seats are listed, in ruling-2 order."""
        d = self.dealer
        refund = winners is None
        if winners is None:
            winners = tie_order(d, 4)
        teams = {}
        for name, high in (("High", True), ("Low", False)):
            seats = team_seats(high, d)
            teams[name] = {"seats": seats, "score": sum(self.scores[s] for s in seats)}
        detail: dict[str, Any] = {
            "betting": self.betting,
            "dealer": d,
            "teams": teams,
            "tricks": list(self.tricks_won),
            "reading": [
                {k: r[k] for k in ("n", "winner", "top", "direction", "disposition", "points")}
                for r in self.tricks
            ],
            "bids": list(self.bids) if self.bids is not None else None,
            "raw_scores": self.raw_scores,
            "folded_by": self.folded_by,
        }
        if self.betting in MULTI_DEAL:
            detail["partnerships"] = [
                {"seats": list(pair), "total": total}
                for pair, total in zip(
                    settle.PARTNERSHIPS, settle.partnership_totals(self.totals), strict=True
                )
            ]
            detail["deals"] = copy.deepcopy(self.deals)
        self.result = {
            "ranking": settle.ranking(scores, d),
            "scores": list(scores),
            "winners": winners,
            "contributions": list(self.contributions) if self.betting == "raise" else None,
            "refund": refund,
            "detail": detail,
        }
        self.phase = "over"
        self.events.append({"e": "game_over", "winners": winners, "refund": refund})

    def outcome(self) -> Outcome | None:
        if self.result is None:
            return None
        return Outcome(**copy.deepcopy(self.result))

    # --- what a seat may see ---------------------------------------------------------------

    def visible_events(self, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
        """Only this deal's events (earlier deals name cards that are hidden again now),
        filtered by seat like the base class: a private event (``"to"``) reaches only its
        seats."""
        return super().visible_events(seat, max(since, self.deal_events_from))

    def view_events_start(self) -> int:
        """Only this deal's events (see :meth:`visible_events`)."""
        return self.deal_events_from

    def card_locations(self) -> dict[str, list[str]]:
        places: dict[str, list[str]] = {"set_aside": list(self.set_aside)}
        for s in range(4):
            places[f"hand:{s}"] = list(self.hands[s])
            places[f"won:{s}"] = []
        for record in self.tricks:
            places[f"won:{record['winner']}"].extend(c for _, c in record["cards"])
        places["trick"] = [c for _, c in self.trick]
        return places

    def _private_view(self, seat: int | None) -> dict[str, Any]:
        return {"hand": list(self.hands[seat]) if seat is not None else None}

    def _public_view(self) -> dict[str, Any]:
        d = self.dealer
        hands = self.hands
        scores = self.scores
        led = self.led
        seats = [
            {
                "seat": s,
                "compass": compass(s, d),
                "team": team_name(s, d),
                "partner": (s + 2) % 4,
                "cards": len(hands[s]),
                "tricks": self.tricks_won[s],
                "score": scores[s],
            }
            for s in range(4)
        ]
        won: list[list[dict[str, Any]]] = [[], [], [], []]
        for r in self.tricks:
            won[r["winner"]].append(
                {
                    "n": r["n"],
                    "top": r["top"],
                    "disposition": r["disposition"],
                    "points": r["points"],
                }
            )
        high, low = team_seats(True, d), team_seats(False, d)
        view: dict[str, Any] = {
            "deal": self.deal_no,
            "dealer": d,
            "phase": self.phase,
            "turn": self.turn,
            "seats": seats,
            "teams": {
                "High": {"seats": high, "score": scores[high[0]] + scores[high[1]]},
                "Low": {"seats": low, "score": scores[low[0]] + scores[low[1]]},
            },
            "set_aside": len(self.set_aside),
            # The trick with what the rules make of it so far, so no client re-derives them.
            "trick": {
                "n": self.trick_no,
                "leader": self.leader,
                "cards": [list(p) for p in self.trick],
                "led": self.led,
                "direction": self.direction,
                "favours": favoured_team(self.direction),
                "flips": flips(self.trick, self.led),
                "winning": trick_top(self.trick, led, self.direction)[0]
                if led is not None  # (None exactly when the trick is empty)
                else None,
                "star_led": self.led == STAR,
            },
            "stars_free": self.stars_free,
            "won": won,
            # finished tricks are never changed again, so (like events) they are shared
            "tricks": list(self.tricks),
            "bids": list(self.bids) if self.bids is not None else None,
        }
        if self.betting == "raise":
            view["contributions"] = list(self.contributions)
            view["raises"] = list(self.raises)
            view["ante"] = self.ante
        if self.betting in MULTI_DEAL:
            view["totals"] = list(self.totals)
            view["partnerships"] = [
                {"seats": list(pair), "total": total}
                for pair, total in zip(
                    settle.PARTNERSHIPS, settle.partnership_totals(self.totals), strict=True
                )
            ]
            # finished deals' summaries are never changed again, so (like the tricks) they
            # are shared: a deep copy at every move cost a 40-deal game most of its views
            view["deals"] = list(self.deals)
        return view
