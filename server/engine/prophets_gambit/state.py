"""One deal of Prophet's Gambit, from the deal to the Reveal (RULINGS.md, Prophet's Gambit 1–15).

**Deal layout** (tests stack decks against it). ``params["deck"]`` may mix common and High
codes. The common codes, in their order, stack the top of the common deck and the High codes
the top of the High deck; the rest of each deck is shuffled by the seed (salts ``"common"`` and
``"high"``). From the top of the common deck: the Focus, then one Fate per seat from the
dealer's left clockwise, then the 6-card hands in blocks — the dealer's left takes the next six
cards, then the next seat, the dealer last.

**Flow.** Every decision is an *ask* stored per seat in ``asks[seat]`` as ``[kind, info]``;
several seats are asked at once only for simultaneous choices (the Bid, Beast, Raven, Donjon).
A multi-step choice (Play → draw or pass → discard; Darklord → target → card) is a chain of
asks, each with a short list of legal actions. When nobody has anything left to decide,
:meth:`PGState._proceed` moves the deal on: the next turn clockwise from the round's starter,
round 2, the Execution, or — after a Donjon — straight to the Reveal.

Phases: ``"bid"`` → ``"round"`` (``round`` 1, then 2) → ``"execution"`` → ``"over"``.
Hands shrink by exactly one card per turn: 6 → 5 after the Bid → 4 → 3.
"""

from __future__ import annotations

from typing import Any, ClassVar

from protocol.actions import (
    Action,
    BidCard,
    Discard,
    Draw,
    Give,
    Highest,
    Keep,
    Kill,
    Lowest,
    Pass,
    Pick,
    Play,
    Replace,
    Risk,
    Save,
    Take,
    Target,
)
from protocol.cards import TAROKKA_COMMON, TAROKKA_HIGH, is_high, tarokka_number
from server.engine.base import Ask, Outcome, State, tie_order
from server.engine.rng import order_deck

from .hands import best_hand, describe
from .high_cards import HighCards

#: The card actions the legal lists hand out, made once (``protocol.actions.Made``).
_PLAY, _RISK, _DISCARD, _BID, _GIVE = Play.made, Risk.made, Discard.made, BidCard.made, Give.made

HAND_SIZE = 6
FINAL_HAND = 3

# What each ask kind lets a seat do, for readable refusals.
_ASK_HELP = {
    "bid": "commit one card of your hand to the Bid",
    "fate": "decide whether to replace your Fate (replace or keep)",
    "turn": "Play a card or Risk (discard a card and turn a High card)",
    "bonus": "draw a card or pass",
    "discard": "discard a card",
    "beast": "discard a card for the Beast",
    "donjon": "discard down to three cards for the Donjon",
    "raven": "choose a card to pass to your left for the Raven",
    "darklord": "choose a player for the Darklord",
    "darklord_pick": "pick the card the Darklord makes them discard",
    "ghost": "take a card from the discard pile",
    "tempter": "choose a card of yours to swap for the Tempter",
    "tempter_target": "choose the player to swap with",
    "marionette": "choose a player for the Marionette",
    "marionette_order": "direct them to play their highest or lowest numbered card",
    "forced": "play the card the Marionette directs",
    "execution": "kill or save the Focus",
}
_ASK_TYPES = {
    "bid": ("bid",),
    "fate": ("replace", "keep"),
    "turn": ("play", "risk"),
    "bonus": ("draw", "pass"),
    "discard": ("discard",),
    "beast": ("discard",),
    "donjon": ("discard",),
    "raven": ("give",),
    "darklord": ("target",),
    "darklord_pick": ("pick",),
    "ghost": ("take",),
    "tempter": ("give",),
    "tempter_target": ("target",),
    "marionette": ("target",),
    "marionette_order": ("highest", "lowest"),
    "forced": ("play",),
    "execution": ("kill", "save"),
}


def _split_stack(stack: list[str] | None) -> tuple[list[str], list[str]]:
    """The stacked common codes and the stacked High codes, each in their given order."""
    common: list[str] = []
    high: list[str] = []
    for code in stack or []:
        if not isinstance(code, str) or not code:
            raise ValueError(f"{code!r} is not a card of this deck")
        (high if is_high(code) else common).append(code)
    return common, high


def _number(code: str | None) -> int | None:
    return None if code is None else tarokka_number(code)


class PGState(HighCards, State):
    """One deal. All attributes are plain data; decks and piles keep their top card *last*."""

    ACTIONS: ClassVar[frozenset[type[Action]]] = frozenset(
        {
            BidCard,
            Replace,
            Keep,
            Play,
            Risk,
            Draw,
            Pass,
            Discard,
            Give,
            Pick,
            Take,
            Target,
            Highest,
            Lowest,
            Kill,
            Save,
        }
    )

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        n = self.num_players
        self.dealer: int = params["dealer"]
        common, high = _split_stack(params.get("deck"))
        top = order_deck(TAROKKA_COMMON, common, self.seed, "common")
        self.high_deck: list[str] = order_deck(TAROKKA_HIGH, high, self.seed, "high")[::-1]
        seats = tie_order(self.dealer, n)
        self.focus: str | None = top[0]
        self.killed: str | None = None
        self.fates: list[str | None] = [None] * n
        self.fate_open: list[bool] = [False] * n  # known to all (Artifact); moves with the card
        self.hands: list[list[str]] = [[] for _ in range(n)]
        for i, s in enumerate(seats):
            self.fates[s] = top[1 + i]
            start = 1 + n + HAND_SIZE * i
            self.hands[s] = top[start : start + HAND_SIZE]
        self.deck: list[str] = top[1 + n + HAND_SIZE * n :][::-1]
        self.discard: list[str] = []
        self.high_discard: list[str] = []
        self.shown: list[list[str]] = [[] for _ in range(n)]
        self.fronts: list[list[str]] = [[] for _ in range(n)]
        self.bids: list[str | None] = [None] * n
        self.picks: list[str | None] = [None] * n  # Beast / Raven choices until all have chosen
        self.phase = "bid"
        self.round = 0
        self.order: list[int] = []
        self.turned: list[bool] = [False] * n
        self.current: int | None = None
        self.donjon = False
        self.glimpse: dict[str, Any] | None = None  # Seer: {"seat": s, "fates": {seat: code}}
        self.result: dict[str, Any] | None = None
        self.asks: list[list[Any] | None] = [["bid", {}] for _ in range(n)]
        self.events.append({"e": "deal", "dealer": self.dealer, "focus": self.focus})

    # --- asks and legal actions -------------------------------------------------------------

    def pending(self) -> dict[int, Ask]:
        return {s: Ask(a[0], a[1]) for s, a in enumerate(self.asks) if a is not None}

    def ask(self, seat: int) -> Ask | None:
        a = self.asks[seat] if 0 <= seat < self.num_players else None
        return Ask(a[0], a[1]) if a is not None else None

    def waiting(self) -> list[int]:
        return [s for s, a in enumerate(self.asks) if a is not None]

    def legal_actions(self, seat: int) -> list[Action]:
        if seat is None or not 0 <= seat < self.num_players:
            return []
        ask = self.asks[seat]
        if ask is None:
            return []
        kind, info = ask
        hand = self.hands[seat]
        if kind == "turn":
            out = [_PLAY[c] for c in hand]
            if self.high_deck:
                out += [_RISK[c] for c in hand]
            return out
        if kind in ("discard", "beast", "donjon"):
            return [_DISCARD[c] for c in hand]
        if kind == "bonus":
            return [Draw.of(), Pass.of()]
        if kind == "bid":
            return [_BID[c] for c in hand]
        if kind == "fate":
            return [Replace.of(), Keep.of()]
        if kind in ("raven", "tempter"):
            return [_GIVE[c] for c in hand]
        if kind in ("darklord", "marionette", "tempter_target"):
            return [Target.of(s) for s in info["targets"]]
        if kind == "darklord_pick":
            return [Pick.of(c) for c in self.hands[info["target"]]]
        if kind == "ghost":
            return [Take.of(c) for c in self.discard]
        if kind == "marionette_order":
            return [Highest.of(), Lowest.of()]
        if kind == "forced":
            return [_PLAY[c] for c in info["cards"]]
        if kind == "execution":
            return [Kill.of(), Save.of()]
        raise AssertionError(f"unknown ask {kind!r}")

    def explain_illegal(self, seat: int, action: Action) -> str:
        ask = self.asks[seat]
        assert ask is not None  # only a seat that is asked is told why not
        kind, info = ask
        kind_types = _ASK_TYPES[kind]
        t = action.TYPE
        if t not in kind_types:
            return f"Not now: you must {_ASK_HELP[kind]}."
        card = getattr(action, "card", None)
        if kind == "forced":
            return (
                f"The Marionette directs you to play your {info['order']} numbered card: "
                f"play one of {', '.join(info['cards'])}."
            )
        if kind == "darklord_pick":
            return f"{card} is not in that player's hand."
        if kind == "ghost":
            return f"{card} is not in the discard pile."
        if t == "risk":
            if card in self.hands[seat]:
                return "The High deck is empty: you can only Play."
            return f"You do not hold {card}."
        if card is not None:
            return f"You do not hold {card}."
        if t == "target":
            assert isinstance(action, Target)
            target = action.seat
            if target == seat:
                return "Choose another player, not yourself."
            if not 0 <= target < self.num_players:
                return "There is no such seat at this table."
            if "HIN" in self.fronts[target]:
                return "That player holds the Innocent: your High card cannot touch them."
            if kind == "marionette" and self.turned[target]:
                return "That player has already had a turn this round."
            return "That player cannot be chosen now."
        return f"Not now: you must {_ASK_HELP[kind]}."

    # --- applying actions -------------------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> None:
        if self.glimpse is not None and self.glimpse["seat"] == seat:
            self.glimpse = None  # the Seer's sight lasts until that seat's next action
        ask = self.asks[seat]
        assert ask is not None  # check_action let only an asked seat act
        kind, info = ask
        self.asks[seat] = None
        getattr(self, "_on_" + kind)(seat, action, info)
        if self.phase == "round" and not any(self.asks):
            self._proceed()

    def _on_bid(self, seat: int, action: BidCard, info: dict[str, Any]) -> None:
        card = action.card
        self.hands[seat].remove(card)
        self.bids[seat] = card
        self.events.append({"e": "committed", "seat": seat})
        bids = [b for b in self.bids if b is not None]
        if len(bids) < self.num_players:
            return
        for s, b in enumerate(bids):
            self.shown[s].append(b)
        self.events.append({"e": "bids", "cards": bids})
        self.bids = [None] * self.num_players
        self._start_round(1)

    def _on_fate(self, seat: int, action: Action, info: dict[str, Any]) -> None:
        if type(action) is Keep:
            self.events.append({"e": "keep_fate", "seat": seat})
            return
        old = self.fates[seat]
        assert old is not None  # every seat holds a Fate in the rounds
        self.discard.append(old)
        self.fate_open[seat] = False
        self.events.append({"e": "replace_fate", "seat": seat, "card": old})
        new = self._take_top(seat)  # the pile holds at least the old Fate, so never None
        self.fates[seat] = new
        self.events.append({"e": "new_fate", "seat": seat, "card": new, "to": [seat]})

    def _on_turn(self, seat: int, action: Play | Risk, info: dict[str, Any]) -> None:
        card = action.card
        if type(action) is Play:
            self._play(seat, card)
            return
        self._discard(seat, card, "risk")
        high = self.high_deck.pop()
        self._resolve_high(seat, high)

    def _on_forced(self, seat: int, action: Play, info: dict[str, Any]) -> None:
        self._play(seat, action.card)

    def _on_bonus(self, seat: int, action: Action, info: dict[str, Any]) -> None:
        if type(action) is Pass:
            self.events.append({"e": "pass", "seat": seat})
            return
        if self._draw(seat, 1):
            self.asks[seat] = ["discard", {"count": 1}]

    def _on_discard(self, seat: int, action: Discard, info: dict[str, Any]) -> None:
        self._discard(seat, action.card)
        count = info["count"] - 1
        if count:
            self.asks[seat] = ["discard", {"count": count}]

    def _on_execution(self, seat: int, action: Action, info: dict[str, Any]) -> None:
        kill = type(action) is Kill
        self.events.append({"e": "execution", "seat": seat, "kill": kill})
        if kill:
            self.killed, self.focus = self.focus, None
        self._reveal()

    # --- building blocks --------------------------------------------------------------------

    def _play(self, seat: int, card: str) -> None:
        """Ruling 7: cover the previous card; a Master or a lower number earns draw-and-discard."""
        right = self.shown[(seat - 1) % self.num_players]
        right_num = _number(right[-1] if right else None)
        num = tarokka_number(card)
        bonus = num is None or (right_num is not None and num < right_num)
        self.hands[seat].remove(card)
        self.shown[seat].append(card)
        self.events.append({"e": "play", "seat": seat, "card": card, "bonus": bonus})
        if bonus and (self.deck or self.discard):
            self.asks[seat] = ["bonus", {"card": card}]

    def _discard(self, seat: int, card: str, why: str | None = None) -> None:
        self.hands[seat].remove(card)
        self.discard.append(card)
        ev = {"e": "discard", "seat": seat, "card": card}
        if why:
            ev["why"] = why
        self.events.append(ev)

    def _take_top(self, seat: int) -> str | None:
        """The top common card, reshuffling the discard pile when the deck is empty (ruling 9)."""
        if not self.deck:
            if not self.discard:
                self.events.append({"e": "draw_skipped", "seat": seat})
                return None
            self.deck, self.discard = self.discard, []
            self.rng().shuffle(self.deck)
            self.events.append({"e": "reshuffle", "cards": len(self.deck)})
        return self.deck.pop()

    def _draw(self, seat: int, count: int) -> list[str]:
        """Draw up to ``count`` cards into ``seat``'s hand; a skipped draw stops early."""
        got: list[str] = []
        for _ in range(count):
            card = self._take_top(seat)
            if card is None:
                break
            got.append(card)
        if got:
            self.hands[seat].extend(got)
            self.events.append({"e": "draw", "seat": seat, "n": len(got)})
            self.events.append({"e": "drew", "seat": seat, "cards": got, "to": [seat]})
        return got

    def _highest_showing(self) -> int:
        """Rulings 2 and 3: the highest numbered showing card; ties and all-Masters by seat."""
        best, best_num = None, 0
        for s in tie_order(self.dealer, self.num_players):
            num = tarokka_number(self.shown[s][-1])
            if num is not None and num > best_num:
                best, best_num = s, num
        return best if best is not None else (self.dealer + 1) % self.num_players

    # --- moving the deal on -----------------------------------------------------------------

    def _start_round(self, number: int) -> None:
        """Ruling 6: the highest showing card may replace its Fate, then takes the first turn."""
        n = self.num_players
        starter = self._highest_showing()
        self.phase = "round"
        self.round = number
        self.order = [(starter + i) % n for i in range(n)]
        self.turned = [False] * n
        self.current = None
        self.events.append({"e": "round", "round": number, "starter": starter})
        self.asks[starter] = ["fate", {}]

    def _proceed(self) -> None:
        """Nobody is deciding: start the next turn, the next round, the Execution or Reveal."""
        if self.donjon:
            self._reveal()
            return
        for s in self.order:
            if self.turned[s]:
                continue
            self.turned[s] = True
            if not self.hands[s]:
                continue  # nothing to play or risk with (cannot happen in a normal deal)
            self.current = s
            self.events.append({"e": "turn", "seat": s})
            self.asks[s] = ["turn", {"round": self.round}]
            return
        self.current = None
        if self.round == 1:
            self._start_round(2)
            return
        holder = self._front_holder("HEX")
        decider = holder if holder is not None else self._highest_showing()
        self.phase = "execution"
        self.events.append({"e": "execution_start", "seat": decider})
        self.asks[decider] = ["execution", {}]

    def _reveal(self) -> None:
        """Rulings 13–14: best five of hand + Fate + Focus (four when killed); ties by ruling 2."""
        n = self.num_players
        self.phase = "over"
        self.asks = [None] * n
        self.current = None
        self.glimpse = None
        extra = [self.focus] if self.focus is not None else []
        keys = []
        hands = []
        for s in range(n):
            hand = list(self.hands[s])
            fate = self.fates[s]
            cards = hand + ([fate] if fate is not None else []) + extra
            key, used = best_hand(cards, 5)
            keys.append(list(key))
            hands.append({**describe(key), "cards": list(used), "fate": fate, "hand": hand})
        ranking = sorted(tie_order(self.dealer, n), key=lambda s: keys[s], reverse=True)
        scores = [0] * n
        for pos, s in enumerate(ranking):
            scores[s] = n - 1 - pos
        self.result = {
            "ranking": ranking,
            "scores": scores,
            "winners": [ranking[0]],
            "hands": hands,
            "detail": {
                "focus": self.focus if self.focus is not None else self.killed,
                "killed": self.killed is not None,
                "donjon": self.donjon,
                "keys": keys,
            },
        }
        self.events.append({"e": "reveal", "winner": ranking[0]})

    def outcome(self) -> Outcome | None:
        r = self.result
        if r is None:
            return None
        return Outcome(
            ranking=list(r["ranking"]),
            scores=list(r["scores"]),
            winners=list(r["winners"]),
            hands=r["hands"],
            contributions=[1] * self.num_players,
            detail=r["detail"],
        )

    # --- what a seat sees -------------------------------------------------------------------

    def _front_holder(self, code: str) -> int | None:
        for s, front in enumerate(self.fronts):
            if code in front:
                return s
        return None

    def _public_view(self) -> dict[str, Any]:
        n = self.num_players
        view: dict[str, Any] = {
            "dealer": self.dealer,
            "phase": self.phase,
            "round": self.round,
            "turn": self.current,
            "turned": list(self.turned),
            "showing": [st[-1] if st else None for st in self.shown],
            "stacks": [len(st) for st in self.shown],
            "hand_sizes": [len(h) for h in self.hands],
            "focus": self.focus,
            "killed": self.killed,
            "open_fates": {str(s): self.fates[s] for s in range(n) if self.fate_open[s]},
            "fronts": [list(f) for f in self.fronts],
            "deck": len(self.deck),
            "high_deck": len(self.high_deck),
            "discard": list(self.discard),
            "discard_top": self.discard[-1] if self.discard else None,
            "high_discard": list(self.high_discard),
        }
        if self.phase == "bid":
            view["committed"] = [b is not None for b in self.bids]
        if self.result is not None:
            view["reveal"] = [
                {"hand": list(self.hands[s]), "fate": self.fates[s]} for s in range(n)
            ]
        return view

    def _private_view(self, seat: int | None) -> dict[str, Any]:
        view: dict[str, Any] = {}
        if seat is not None:
            view["hand"] = list(self.hands[seat])
            view["fate"] = self.fates[seat]
            if self.phase == "bid":
                view["bid"] = self.bids[seat]
            if self.picks[seat] is not None:  # own Beast/Raven choice, hidden from the others
                view["picked"] = self.picks[seat]
            if self.glimpse is not None and self.glimpse["seat"] == seat:
                view["glimpse"] = dict(self.glimpse["fates"])
        return view

    def card_locations(self) -> dict[str, list[str]]:
        n = self.num_players
        places: dict[str, list[str]] = {
            "deck": list(self.deck),
            "high_deck": list(self.high_deck),
            "focus": [self.focus] if self.focus is not None else [],
            "killed": [self.killed] if self.killed is not None else [],
            "discard": list(self.discard),
            "high_discard": list(self.high_discard),
        }
        over = self.result is not None
        for s in range(n):
            places[f"shown:{s}"] = list(self.shown[s])
            places[f"front:{s}"] = list(self.fronts[s])
            fate_card, bid = self.fates[s], self.bids[s]
            fate = [fate_card] if fate_card is not None else []
            hand = list(self.hands[s]) + ([bid] if bid is not None else [])
            if over:  # the Reveal shows every hand and Fate
                places[f"revealed:{s}"] = hand + fate
            else:
                places[f"hand:{s}"] = hand
                places[f"fate:{s}" if not self.fate_open[s] else f"open_fate:{s}"] = fate
        return places
