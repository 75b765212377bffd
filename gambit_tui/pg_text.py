"""Prophet's Gambit in words: the event log and the question each decision asks.

The engine reports what happened as small event records and what a seat must decide as an ask
kind with a little detail; this module is the one place that turns both into sentences in the
player's language. Card faces inside the sentences keep their suit colours.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text

from .cards import CardStyle, card_text, cards_text
from .i18n import _, ngettext
from .sentences import fill

Names = Callable[[int], str]


def _names(seats: list[int], names: Names) -> str:
    return ", ".join(names(s) for s in seats)


class _Said:
    """What an event's line is made of: the event, the players' names, the card style."""

    __slots__ = ("ev", "names", "style")

    def __init__(self, ev: dict[str, Any], names: Names, style: CardStyle) -> None:
        self.ev, self.names, self.style = ev, names, style

    @property
    def who(self) -> str:
        """The name of the event's seat."""
        return self.names(self.ev["seat"]) if "seat" in self.ev else ""

    def name(self, key: str) -> str:
        return self.names(self.ev[key])

    def card(self, key: str = "card") -> Text:
        return card_text(self.ev.get(key), self.style)

    def cards(self, key: str = "cards") -> Text:
        return cards_text(self.ev[key], self.style)

    def seats(self) -> str:
        return _names(self.ev["seats"], self.names)


def _bids(s: _Said) -> Text:
    shown = Text(", ").join(
        fill("{name} {card}", name=s.names(seat), card=card_text(code, s.style))
        for seat, code in enumerate(s.ev["cards"])
    )
    return fill(_("The Bid is shown: {cards}."), cards=shown)


def _play(s: _Said) -> Text:
    if s.ev.get("bonus"):
        return fill(_("{name} plays {card} and may draw and discard."), name=s.who, card=s.card())
    return fill(_("{name} plays {card}."), name=s.who, card=s.card())


def _draw(s: _Said) -> Text:
    n = s.ev.get("n", 1)
    return fill(ngettext("{name} draws a card.", "{name} draws {n} cards.", n), name=s.who, n=n)


def _discard(s: _Said) -> Text:
    template = {
        "risk": _("{name} discards {card} and Risks."),
        "beast": _("{name} discards {card} to the Beast."),
        "darklord": _("{name} discards {card} for the Darklord."),
        "donjon": _("{name} discards {card} for the Donjon."),
    }.get(s.ev.get("why") or "", _("{name} discards {card}."))
    return fill(template, name=s.who, card=s.card())


def _marionette(s: _Said) -> Text:
    template = (
        _("{name} makes {target} play their highest numbered card.")
        if s.ev["order"] == "highest"
        else _("{name} makes {target} play their lowest numbered card.")
    )
    return fill(template, name=s.who, target=s.name("target"))


def _execution(s: _Said) -> Text:
    if s.ev.get("kill"):
        return fill(_("{name} kills the Focus."), name=s.who)
    return fill(_("{name} saves the Focus."), name=s.who)


#: Each kind of event and how its line reads; an event not here is not worth a line.
_LINES: dict[str, Callable[[_Said], Text]] = {
    "deal": lambda s: fill(
        _("{dealer} deals. The Focus is {card}."), dealer=s.name("dealer"), card=s.card("focus")
    ),
    "committed": lambda s: fill(_("{name} commits a card to the Bid."), name=s.who),
    "bids": _bids,
    "round": lambda s: fill(
        _("Round {n}: {name} shows the highest card and starts."),
        n=s.ev["round"],
        name=s.name("starter"),
    ),
    "keep_fate": lambda s: fill(_("{name} keeps their Fate."), name=s.who),
    "replace_fate": lambda s: fill(
        _("{name} discards their Fate {card} and draws a new one."), name=s.who, card=s.card()
    ),
    "new_fate": lambda s: fill(_("Your new Fate is {card}."), card=s.card()),
    "turn": lambda s: fill(_("{name}'s turn."), name=s.who),
    "play": _play,
    "pass": lambda s: fill(_("{name} does not draw."), name=s.who),
    "draw": _draw,
    "drew": lambda s: fill(_("You drew {cards}."), cards=s.cards()),
    "discard": _discard,
    "high": lambda s: fill(_("{name} turns the {card}!"), name=s.who, card=s.card()),
    "artifact": lambda s: fill(
        _(
            "{name}'s Fate and the Focus change places: the Focus is {focus}, "
            "{name}'s Fate {fate} is open."
        ),
        name=s.who,
        focus=s.card("focus"),
        fate=s.card("fate"),
    ),
    "discard_hand": lambda s: fill(
        _("{name} discards their hand: {cards}."), name=s.who, cards=s.cards()
    ),
    "mists": lambda s: fill(
        _("The Mists move the Fates of {names} one seat clockwise."), names=s.seats()
    ),
    "fate": lambda s: fill(_("Your Fate is now {card}."), card=s.card()),
    "seer": lambda s: fill(_("You see the Fates of {names}."), names=s.seats()),
    "chosen": lambda s: fill(_("{name} has chosen."), name=s.who),
    "raven": lambda s: fill(_("The Raven: {names} pass a card to the left."), names=s.seats()),
    "received": lambda s: fill(
        _("You receive {card} from {name}."), card=s.card(), name=s.name("from")
    ),
    "donjon": lambda s: Text(
        _("The Donjon: everyone discards down to three cards, then the Reveal.")
    ),
    "darklord": lambda s: fill(
        _("{name} looks at {target}'s hand."), name=s.who, target=s.name("target")
    ),
    "tempter": lambda s: fill(
        _("{name} swaps a card with {target}."), name=s.who, target=s.name("target")
    ),
    "swap": lambda s: fill(
        _("You give {gave} and get {got}."), gave=s.card("gave"), got=s.card("got")
    ),
    "marionette": _marionette,
    "no_effect": lambda s: fill(_("The {card} has no effect."), card=s.card()),
    "execution_start": lambda s: fill(
        _("The Execution: {name} decides whether the Focus dies."), name=s.who
    ),
    "execution": _execution,
    "reveal": lambda s: fill(_("The Reveal: {name} wins the deal."), name=s.name("winner")),
    "reshuffle": lambda s: Text(_("The discard pile is shuffled into a new draw pile.")),
    "draw_skipped": lambda s: fill(_("{name} cannot draw: no cards are left."), name=s.who),
    "take": lambda s: fill(
        _("{name} takes {card} from the discard pile."), name=s.who, card=s.card()
    ),
}


def event_text(ev: dict[str, Any], names: Names, style: CardStyle) -> Text | None:
    """One line of the event log, or None for an event not worth a line."""
    line = _LINES.get(ev.get("e"))  # type: ignore[arg-type]
    return line(_Said(ev, names, style)) if line is not None else None


def ask_text(ask: dict[str, Any], view: dict[str, Any], names: Names, style: CardStyle) -> Text:
    """The question of a pending decision, asked exactly."""
    kind = ask.get("kind")
    if kind == "bid":
        return Text(_("The Bid: choose a card to commit in secret."))
    if kind == "fate":
        return Text(_("You show the highest card: replace your Fate or keep it?"))
    if kind == "turn":
        if view.get("high_deck"):
            return fill(
                _("Your turn in round {n}: Play a card, or Risk one for a High card."),
                n=ask.get("round", view.get("round")),
            )
        return fill(
            _("Your turn in round {n}: Play a card (the High deck is empty)."),
            n=ask.get("round", view.get("round")),
        )
    if kind == "bonus":
        return fill(
            _("You played {card}: draw a card and then discard one, or pass?"),
            card=card_text(ask.get("card"), style),
        )
    if kind == "discard":
        n = ask.get("count", 1)
        return Text(ngettext("Discard a card.", "Discard {n} cards, one at a time.", n).format(n=n))
    if kind == "beast":
        return Text(_("The Beast: choose a card to discard; you then draw one."))
    if kind == "donjon":
        n = ask.get("count", 1)
        return Text(
            ngettext(
                "The Donjon: discard one more card.",
                "The Donjon: discard {n} more cards, one at a time.",
                n,
            ).format(n=n)
        )
    if kind == "raven":
        return Text(_("The Raven: choose a card to pass to your left."))
    if kind == "darklord":
        return Text(_("The Darklord: choose a player whose hand you will see."))
    if kind == "darklord_pick":
        return fill(
            _("The Darklord: pick the card {name} must discard."), name=names(ask["target"])
        )
    if kind == "ghost":
        return Text(_("The Ghost: take a card from the discard pile."))
    if kind == "tempter":
        return Text(_("The Tempter: choose a card of yours to swap."))
    if kind == "tempter_target":
        return fill(
            _("The Tempter: choose the player who gets your {card}."),
            card=card_text(ask.get("card"), style),
        )
    if kind == "marionette":
        return Text(_("The Marionette: choose a player who has not had a turn this round."))
    if kind == "marionette_order":
        return fill(
            _("The Marionette: must {name} play their highest or lowest card?"),
            name=names(ask["target"]),
        )
    if kind == "forced":
        if ask.get("order") == "highest":
            return Text(_("The Marionette makes you play your highest numbered card."))
        return Text(_("The Marionette makes you play your lowest numbered card."))
    if kind == "execution":
        return Text(_("The Execution: kill the Focus or save it?"))
    return Text(_("Decide."))
