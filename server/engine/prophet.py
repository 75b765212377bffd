"""Prophet: bid exactly how many tricks you will take (RULINGS.md, "Prophet", rulings 1–7).

A game is a schedule of rounds. Each round deals a fresh deck: ``cards`` to each player in
blocks from the dealer's left (dealer last), then turns the next card face up as trump. From
the dealer's left every player bids how many tricks they will take; the dealer bids last and
may not make the bids add up to the number of tricks, so someone must miss. Tricks follow
suit (no duty to win or to trump). Taking exactly the bid scores 10 + bid, else 0. The deal
moves one seat clockwise each round; after the last round the highest total takes the pot.

The state keeps one round at a time; earlier rounds survive only in the score sheet. The
final card of a round deals the next round in the same action, so until the new round's first
trick is won a view still shows how the old round ended: its final trick as ``last_trick``
and, among the events, that trick's plays, ``trick_won`` and ``round_scored``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from protocol.actions import Action, Bid, Play
from protocol.cards import FRENCH_SUITS, french_rank

from . import register
from .base import Ask, Game, OptionSpec, Outcome, State, tie_order
from .rng import order_deck

#: The actions the legal lists hand out, made once (``protocol.actions.Made``).
_BID, _PLAY = Bid.made, Play.made

SCHEDULES = ("ascending", "fixed", "descending", "down_up", "up_down")
_SUIT_ORDER = {s: i for i, s in enumerate(FRENCH_SUITS)}
_SUIT_NAMES = {"S": "Spade", "H": "Heart", "D": "Diamond", "C": "Club"}


def max_cards(deck_size: int, players: int, cap: int = 0) -> int:
    """M, the most cards a round deals (ruling 2): one card must remain to turn as trump.

    A cap lowers M; a cap above what the deck allows is clamped to it.
    """
    most = (deck_size - 1) // players
    return min(cap, most) if cap > 0 else most


def schedule(kind: str, most: int) -> list[int]:
    """Cards per round for a schedule kind and M; the turning point is played once."""
    up = list(range(1, most + 1))
    down = up[::-1]
    if kind == "ascending":
        return up
    if kind == "fixed":
        return [most] * most
    if kind == "descending":
        return down
    if kind == "down_up":
        return down + up[1:]
    if kind == "up_down":
        return up + down[1:]
    raise ValueError(f"unknown schedule {kind!r}")


def _sort_key(card: str) -> tuple[int, int]:
    return _SUIT_ORDER[card[1]], french_rank(card)


class ProphetState(State):
    """One game of Prophet. ``phase`` is "bid", "play" or "over"; ``turn`` is who acts."""

    ACTIONS: ClassVar[frozenset[type[Action]]] = frozenset((Bid, Play))

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        n = self.num_players
        options = self.options
        most = max_cards(len(self.game.cards(options)), n, options["cap"])
        self.schedule: list[int] = schedule(options["schedule"], most)
        self.round = 0  # 1-based once dealt
        self.dealer: int = params["dealer"]
        self.phase = "bid"
        self.turn: int | None = None
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.deck: list[str] = []
        self.trump: str | None = None
        self.bids: list[int | None] = [None] * n
        self.tricks: list[int] = [0] * n
        self.won: list[list[str]] = [[] for _ in range(n)]
        self.trick: list[list[Any]] = []
        self.leader: int | None = None
        self.last_trick: dict[str, Any] | None = None
        self.sheet: list[list[int]] = []
        self.totals: list[int] = [0] * n
        self.round_event = 0  # index in ``events`` of this round's deal
        #: Index in ``events`` of the previous round's final trick (its first play), where a
        #: view's events start until this round's first trick is won; round 1: its deal.
        self.tail_event = 0
        self._deal()

    # --- the round cycle ----------------------------------------------------------------------

    def _deal(self) -> None:
        """Start the next round: a fresh deck (stacked for round 1 only), hands, trump."""
        n = self.num_players
        self.round += 1
        stacked = self.params["deck"] if self.round == 1 else None
        all_cards = self.game.cards(self.options)
        cards = order_deck(all_cards, stacked, self.seed, f"round{self.round}")
        k = self.schedule[self.round - 1]
        for i in range(n):
            seat = (self.dealer + 1 + i) % n
            self.hands[seat] = sorted(cards[i * k : (i + 1) * k], key=_sort_key)
        self.trump = cards[n * k]
        self.deck = cards[n * k + 1 :]
        self.bids = [None] * n
        self.tricks = [0] * n
        self.won = [[] for _ in range(n)]
        self.trick = []
        self.leader = None
        # ``last_trick`` stays: the old round's final trick until this round's first is won.
        self.phase = "bid"
        self.turn = (self.dealer + 1) % n
        self.round_event = len(self.events)
        self.events.append(
            {
                "e": "deal",
                "round": self.round,
                "dealer": self.dealer,
                "cards": k,
                "trump": self.trump,
            }
        )

    def _finish_round(self) -> None:
        """Score the round (ruling 6), then deal the next one or end the game."""
        # The final trick's plays and its ``trick_won`` are the latest events.
        assert self.last_trick is not None
        self.tail_event = len(self.events) - len(self.last_trick["cards"]) - 1
        scores = [10 + b if b == t else 0 for b, t in zip(self.bids, self.tricks, strict=True)]
        self.sheet.append(scores)
        self.totals = [a + b for a, b in zip(self.totals, scores, strict=True)]
        self.events.append(
            {
                "e": "round_scored",
                "round": self.round,
                "bids": list(self.bids),
                "tricks": list(self.tricks),
                "scores": scores,
                "totals": list(self.totals),
            }
        )
        if self.round < len(self.schedule):
            self.dealer = (self.dealer + 1) % self.num_players
            self._deal()
            return
        self.phase = "over"
        self.turn = None
        outcome = self.outcome()
        assert outcome is not None
        self.events.append(
            {"e": "game_over", "totals": list(self.totals), "winners": outcome.winners}
        )

    # --- rules helpers ------------------------------------------------------------------------

    def cards_this_round(self) -> int:
        return self.schedule[self.round - 1]

    def forbidden_bid(self) -> int | None:
        """The number the dealer may not bid (ruling 4), or None when no bid is forbidden."""
        k = self.cards_this_round()
        rest = k - sum(b for b in self.bids if b is not None)
        return rest if 0 <= rest <= k else None

    def _led_suit(self) -> str | None:
        trick = self.trick
        if trick:
            led: str = trick[0][1][1]
            return led
        return None

    def trick_winner(self, trick: list[list[Any]]) -> int:
        """Ruling 5: the highest trump wins, else the highest card of the led suit."""
        trump = self.trump[1] if self.trump else None
        led = trump if any(c[1] == trump for _, c in trick) else trick[0][1][1]
        best = max((p for p in trick if p[1][1] == led), key=lambda p: french_rank(p[1]))
        winner: int = best[0]
        return winner

    # --- State API ----------------------------------------------------------------------------

    def pending(self) -> dict[int, Ask]:
        if self.turn is None:
            return {}
        if self.phase == "bid":
            forbidden = self.forbidden_bid() if self.turn == self.dealer else None
            info = {"max": self.cards_this_round(), "forbidden": forbidden}
            return {self.turn: Ask("bid", info)}
        return {self.turn: Ask("play", {"led": self._led_suit()})}

    def legal_actions(self, seat: int) -> list[Action]:
        if seat != self.turn:
            return []
        if self.phase == "bid":
            forbidden = self.forbidden_bid() if seat == self.dealer else None
            return [_BID[b] for b in range(self.cards_this_round() + 1) if b != forbidden]
        hand = self.hands[seat]
        led = self._led_suit()
        follow = [c for c in hand if c[1] == led] if led else None
        return [_PLAY[c] for c in (follow or hand)]

    def explain_illegal(self, seat: int, action: Action) -> str:
        kind = action.TYPE
        if kind == "bid":
            if self.phase != "bid":
                return "Bidding is over: play a card."
            k = self.cards_this_round()
            assert isinstance(action, Bid)
            bid = action.tricks
            if not 0 <= bid <= k:
                return f"Bid a number of tricks from 0 to {k}."
            return (
                f"As dealer you may not bid {bid}: the bids would add up to {k}, the number of "
                "tricks this round, and someone must miss."
            )
        if self.phase != "play":
            return "Bid first: play starts when everyone has bid."
        assert isinstance(action, Play)
        card = action.card
        if card not in self.hands[seat]:
            return f"You do not hold {card}."
        led = self._led_suit()
        return f"You must follow suit: you hold a {_SUIT_NAMES.get(led or '', led)}."

    def _apply(self, seat: int, action: Action) -> None:
        n = self.num_players
        if type(action) is not Play:
            assert type(action) is Bid
            self.bids[seat] = action.tricks
            self.events.append({"e": "bid", "seat": seat, "tricks": action.tricks})
            if seat == self.dealer:
                self.phase = "play"
                self.leader = (self.dealer + 1) % n
                self.turn = self.leader
            else:
                self.turn = (seat + 1) % n
            return
        card = action.card
        self.hands[seat].remove(card)
        if not self.trick:
            self.leader = seat
        self.trick.append([seat, card])
        self.events.append({"e": "play", "seat": seat, "card": card})
        if len(self.trick) < n:
            self.turn = (seat + 1) % n
            return
        winner = self.trick_winner(self.trick)
        self.tricks[winner] += 1
        self.won[winner].extend(c for _, c in self.trick)
        self.last_trick = {
            "round": self.round,
            "leader": self.leader,
            "cards": self.trick,
            "winner": winner,
        }
        self.events.append({"e": "trick_won", "seat": winner, "cards": self.trick})
        self.trick = []
        self.leader = winner
        self.turn = winner
        if not self.hands[winner]:
            self._finish_round()

    def _private_view(self, seat: int | None) -> dict[str, Any]:
        return {"hand": list(self.hands[seat]) if seat is not None else None}

    def _public_view(self) -> dict[str, Any]:
        last = self.last_trick
        return {
            "hand_sizes": [len(h) for h in self.hands],
            "trump": self.trump,
            "trump_suit": self.trump[1] if self.trump else None,
            "round": self.round,
            "rounds": len(self.schedule),
            "cards": self.cards_this_round(),
            "schedule": list(self.schedule),
            "dealer": self.dealer,
            "phase": self.phase,
            "turn": self.turn,
            "bids": list(self.bids),
            "tricks": list(self.tricks),
            "trick": [list(p) for p in self.trick],
            "leader": self.leader,
            "last_trick": last and {**last, "cards": [list(p) for p in last["cards"]]},
            "played": [c for pile in self.won for c in pile],
            "sheet": [list(r) for r in self.sheet],
            "totals": list(self.totals),
        }

    def visible_events(self, seat: int | None, since: int | None = None) -> list[dict[str, Any]]:
        """Events from ``since``; without it (as in a view) this round's, from its deal, and
        until this round's first trick is won also the previous round's tail: its final
        trick's plays, ``trick_won`` and ``round_scored``. That tail is dealt over in the same
        action that ends the round, so no view would show it otherwise.

        Every round deals a fresh deck, so an older event names a card that may now lie in
        someone's hand or the undealt deck; the score sheet keeps what earlier rounds decided.
        Cards of the final trick were seen by everyone as they were played, so the tail tells
        nobody anything about the new deal.
        """
        if since is None:
            since = self.view_events_start()
        return super().visible_events(seat, since)

    def view_events_start(self) -> int:
        """This round's events, or, until its first trick is won, from the previous round's
        tail (see :meth:`visible_events`)."""
        return self.round_event if any(self.tricks) else self.tail_event

    def outcome(self) -> Outcome | None:
        if self.phase != "over":
            return None
        n = self.num_players
        order = tie_order(self.dealer, n)
        best = max(self.totals)
        winners = [s for s in order if self.totals[s] == best]
        ranking = sorted(order, key=lambda s: -self.totals[s])
        return Outcome(
            ranking=ranking,
            scores=list(self.totals),
            winners=winners,
            detail={"sheet": [list(r) for r in self.sheet], "last_dealer": self.dealer},
        )

    def card_locations(self) -> dict[str, list[str]]:
        places: dict[str, list[str]] = {"deck": list(self.deck)}
        places["trump"] = [self.trump] if self.trump else []
        places["trick"] = [c for _, c in self.trick]
        for s in range(self.num_players):
            places[f"hand:{s}"] = list(self.hands[s])
            places[f"won:{s}"] = list(self.won[s])
        return places


class ProphetGame(Game):
    """Prophet's fixed facts: 3–6 players, a 32- or 52-card French deck, five schedules."""

    name = "prophet"
    title = "Prophet"
    min_players = 3
    max_players = 6
    deck = "french32"
    options = {  # noqa: RUF012
        "deck": OptionSpec(32, choices=(32, 52), help="32 cards (A–7) or the full 52."),
        "schedule": OptionSpec(
            "ascending",
            choices=SCHEDULES,
            help="Cards per round: 1…M, M rounds of M, M…1, M…1…M or 1…M…1.",
        ),
        "cap": OptionSpec(
            0, minimum=0, maximum=17, help="Most cards in a round (0: as many as the deck allows)."
        ),
    }
    state_class = ProphetState

    def deck_name(self, options: dict[str, Any]) -> str:
        return "french52" if options.get("deck", 32) == 52 else "french32"


PROPHET = register(ProphetGame())
ProphetState.game = PROPHET
