"""The fourteen High cards (RULINGS.md, Prophet's Gambit rulings 8, 10 and 11).

A mixin of :class:`~.state.PGState`: :meth:`HighCards._resolve_high` resolves the card a Risk
turned, either at once (Artifact, Broken One, Mists, Seer, Horseman's draw…) or by asking the
seats that must choose. Choices made by several seats at once (Beast, Raven) are held in
``picks`` and carried out only when every affected seat has chosen, so nobody sees another's
choice first. Ruling 10: the Innocent's holder is skipped by every High card another seat
turns after it — :meth:`HighCards._affected` and the target lists are the only places that
decide who a card touches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.actions import Action, Discard, Give, Pick, Take, Target
from protocol.cards import tarokka_number

if TYPE_CHECKING:
    import random

# Cards that stay in front of the seat that turned them instead of going to the High discard.
STAYS_IN_FRONT = ("HEX", "HIN")

_EFFECTS = {
    "HAR": "_artifact",
    "HBE": "_beast",
    "HBR": "_broken_one",
    "HDA": "_darklord",
    "HDO": "_donjon",
    "HEX": "_stays",
    "HMI": "_mists",
    "HGH": "_ghost",
    "HHO": "_horseman",
    "HIN": "_stays",
    "HMA": "_marionette",
    "HRA": "_raven",
    "HSE": "_seer",
    "HTE": "_tempter",
}


class HighCards:
    """High-card resolution for PGState; uses its hands, fates, asks and event helpers."""

    num_players: int
    hands: list[list[str]]
    fates: list[str | None]
    fate_open: list[bool]
    fronts: list[list[str]]
    asks: list[list[Any] | None]
    events: list[dict[str, Any]]
    picks: list[str | None]
    turned: list[bool]
    discard: list[str]
    high_discard: list[str]
    focus: str | None
    current: int | None
    donjon: bool
    glimpse: dict[str, Any] | None

    if TYPE_CHECKING:  # PGState's and State's: the mixin comes first in PGState's bases

        def rng(self) -> random.Random: ...
        def _draw(self, seat: int, count: int) -> list[str]: ...
        def _discard(self, seat: int, card: str, why: str | None = None) -> None: ...
        def _play(self, seat: int, card: str) -> None: ...

    # --- who a card touches (ruling 10) -------------------------------------------------------

    def _protected(self, seat: int, turner: int) -> bool:
        return seat != turner and "HIN" in self.fronts[seat]

    def _affected(self, turner: int) -> list[int]:
        """Every seat a table-wide card touches, clockwise from the turner."""
        n = self.num_players
        seats = ((turner + i) % n for i in range(n))
        return [s for s in seats if not self._protected(s, turner)]

    def _others(self, turner: int) -> list[int]:
        """The other players the turner may choose: unprotected, with cards in hand."""
        return [s for s in self._affected(turner) if s != turner and self.hands[s]]

    def _no_effect(self, turner: int, card: str) -> None:
        self.events.append({"e": "no_effect", "seat": turner, "card": card})

    # --- turning ----------------------------------------------------------------------------

    def _resolve_high(self, turner: int, card: str) -> None:
        self.events.append({"e": "high", "seat": turner, "card": card})
        if card in STAYS_IN_FRONT:
            self.fronts[turner].append(card)
        else:
            self.high_discard.append(card)
        getattr(self, _EFFECTS[card])(turner)

    def _stays(self, turner: int) -> None:
        """Executioner and Innocent act later (the Execution; every later High card)."""

    def _artifact(self, turner: int) -> None:
        self.fates[turner], self.focus = self.focus, self.fates[turner]
        self.fate_open[turner] = True
        self.events.append(
            {"e": "artifact", "seat": turner, "fate": self.fates[turner], "focus": self.focus}
        )

    def _broken_one(self, turner: int) -> None:
        hand = self.hands[turner]
        self.hands[turner] = []
        self.discard.extend(hand)
        self.events.append({"e": "discard_hand", "seat": turner, "cards": list(hand)})
        self._draw(turner, len(hand))

    def _horseman(self, turner: int) -> None:
        # Discard as many as were drawn: a skipped draw (ruling 9) must not shrink the hand.
        got = self._draw(turner, 2)
        if got:
            self.asks[turner] = ["discard", {"count": len(got)}]

    def _ghost(self, turner: int) -> None:
        if self.discard:
            self.asks[turner] = ["ghost", {}]

    def _on_ghost(self, seat: int, action: Take, info: dict[str, Any]) -> None:
        card = action.card
        self.discard.remove(card)
        self.hands[seat].append(card)
        self.events.append({"e": "take", "seat": seat, "card": card})
        self.asks[seat] = ["discard", {"count": 1}]

    def _mists(self, turner: int) -> None:
        seats = self._affected(turner)
        if len(seats) < 2:
            self._no_effect(turner, "HMI")
            return
        fates = [self.fates[s] for s in seats]
        marks = [self.fate_open[s] for s in seats]
        for i, s in enumerate(seats):  # each Fate moves to the next affected seat clockwise
            self.fates[s] = fates[i - 1]
            self.fate_open[s] = marks[i - 1]
        self.events.append({"e": "mists", "seats": seats})
        for i, s in enumerate(seats):  # "was": the seat's old Fate, now its left neighbour's
            ev = {"e": "fate", "seat": s, "card": self.fates[s], "was": fates[i], "to": [s]}
            self.events.append(ev)

    def _seer(self, turner: int) -> None:
        seen = {str(s): self.fates[s] for s in self._affected(turner) if s != turner}
        self.glimpse = {"seat": turner, "fates": seen}
        self.events.append(
            {"e": "seer", "seat": turner, "seats": sorted(map(int, seen)), "to": [turner]}
        )
        # What it saw stays in its own record, as a player remembers it (the screen shows the
        # Fates only until its next action, ruling 11's "once"; a bot reads them here after).
        self.events.append({"e": "saw_fates", "seat": turner, "fates": dict(seen), "to": [turner]})

    # --- simultaneous choices: Beast, Raven, Donjon -----------------------------------------

    def _beast(self, turner: int) -> None:
        for s in self._affected(turner):
            if self.hands[s]:
                self.asks[s] = ["beast", {}]

    def _on_beast(self, seat: int, action: Discard, info: dict[str, Any]) -> None:
        self.picks[seat] = action.card
        self.events.append({"e": "chosen", "seat": seat})
        if any(self.asks):
            return
        order = self._picked()
        for s, card in order:
            self._discard(s, card, "beast")
        for s, _ in order:
            self._draw(s, 1)
        self.picks = [None] * self.num_players

    def _raven(self, turner: int) -> None:
        seats = [s for s in self._affected(turner) if self.hands[s]]
        if len(seats) < 2:
            self._no_effect(turner, "HRA")
            return
        for s in seats:
            self.asks[s] = ["raven", {}]

    def _on_raven(self, seat: int, action: Give, info: dict[str, Any]) -> None:
        self.picks[seat] = action.card
        self.events.append({"e": "chosen", "seat": seat})
        if any(self.asks):
            return
        picked = self._picked()
        for s, card in picked:
            self.hands[s].remove(card)
        order = [s for s, _ in picked]
        self.events.append({"e": "raven", "seats": order})
        for i, (s, card) in enumerate(picked):  # each passes to the next affected seat on the left
            to = order[(i + 1) % len(order)]
            self.hands[to].append(card)
            self.events.append({"e": "received", "seat": to, "card": card, "from": s, "to": [to]})
            self.events.append({"e": "gave", "seat": s, "card": card, "target": to, "to": [s]})
        self.picks = [None] * self.num_players

    def _picked(self) -> list[tuple[int, str]]:
        """Seats that chose, each with its card, clockwise from the seat whose turn it is."""
        n = self.num_players
        start = self.current
        assert start is not None  # a Beast or Raven is turned in a seat's turn
        picks = self.picks
        return [
            (s, card) for s in ((start + i) % n for i in range(n)) if (card := picks[s]) is not None
        ]

    def _donjon(self, turner: int) -> None:
        self.donjon = True
        self.events.append({"e": "donjon", "seat": turner})
        for s in self._affected(turner):
            extra = len(self.hands[s]) - 3
            if extra > 0:
                self.asks[s] = ["donjon", {"count": extra}]

    def _on_donjon(self, seat: int, action: Discard, info: dict[str, Any]) -> None:
        self._discard(seat, action.card, "donjon")
        extra = len(self.hands[seat]) - 3
        if extra > 0:
            self.asks[seat] = ["donjon", {"count": extra}]

    # --- choosing another player: Darklord, Tempter, Marionette -----------------------------

    def _darklord(self, turner: int) -> None:
        targets = self._others(turner)
        if not targets:
            self._no_effect(turner, "HDA")
            return
        self.asks[turner] = ["darklord", {"targets": targets}]

    def _on_darklord(self, seat: int, action: Target, info: dict[str, Any]) -> None:
        target = action.seat
        self.events.append({"e": "darklord", "seat": seat, "target": target})
        # The hand is shown in this seat's own ask only: nobody else's view carries it.
        self.asks[seat] = ["darklord_pick", {"target": target, "hand": list(self.hands[target])}]

    def _on_darklord_pick(self, seat: int, action: Pick, info: dict[str, Any]) -> None:
        target = info["target"]
        # The hand the chooser saw, kept in its own record (its ask showed it until now).
        hand = list(info["hand"])
        self.events.append(
            {"e": "saw_hand", "seat": seat, "target": target, "cards": hand, "to": [seat]}
        )
        self._discard(target, action.card, "darklord")
        self._draw(target, 1)

    def _tempter(self, turner: int) -> None:
        if not self.hands[turner] or not self._others(turner):
            self._no_effect(turner, "HTE")
            return
        self.asks[turner] = ["tempter", {}]

    def _on_tempter(self, seat: int, action: Give, info: dict[str, Any]) -> None:
        targets = self._others(seat)
        self.asks[seat] = ["tempter_target", {"card": action.card, "targets": targets}]

    def _on_tempter_target(self, seat: int, action: Target, info: dict[str, Any]) -> None:
        target = action.seat
        mine = info["card"]
        theirs_hand = self.hands[target]
        theirs = theirs_hand[self.rng().randrange(len(theirs_hand))]
        self.hands[seat].remove(mine)
        theirs_hand.remove(theirs)
        self.hands[seat].append(theirs)
        theirs_hand.append(mine)
        self.events.append({"e": "tempter", "seat": seat, "target": target})
        self.events.append({"e": "swap", "gave": mine, "got": theirs, "to": [seat]})
        self.events.append({"e": "swap", "gave": theirs, "got": mine, "to": [target]})

    def _marionette(self, turner: int) -> None:
        targets = [s for s in self._others(turner) if not self.turned[s]]
        if not targets:
            self._no_effect(turner, "HMA")
            return
        self.asks[turner] = ["marionette", {"targets": targets}]

    def _on_marionette(self, seat: int, action: Target, info: dict[str, Any]) -> None:
        self.asks[seat] = ["marionette_order", {"target": action.seat}]

    def _on_marionette_order(self, seat: int, action: Action, info: dict[str, Any]) -> None:
        target = info["target"]
        order = action.TYPE
        self.turned[target] = True  # the forced Play is the target's turn this round
        self.events.append({"e": "marionette", "seat": seat, "target": target, "order": order})
        cards = marionette_cards(self.hands[target], order)
        if len(cards) == 1:
            self._play(target, cards[0])
        else:
            self.asks[target] = ["forced", {"order": order, "by": seat, "cards": cards}]


def marionette_cards(hand: list[str], order: str) -> list[str]:
    """The cards a Marionette's target may play: its highest or lowest numbered cards (all
    tied ones), or any card when it holds no numbered card (ruling 11)."""
    numbered = [(num, c) for c in hand if (num := tarokka_number(c)) is not None]
    if not numbered:
        return list(hand)
    want = max(n for n, _ in numbered) if order == "highest" else min(n for n, _ in numbered)
    return [c for n, c in numbered if n == want]
