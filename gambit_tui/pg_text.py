"""Prophet's Gambit in words: the event log and the question each decision asks.

The engine reports what happened as small event records and what a seat must decide as an ask
kind with a little detail; this module is the one place that turns both into sentences in the
player's language. Card faces inside the sentences keep their suit colours.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text

from .cards import CardStyle, card_text
from .i18n import N_, _, ngettext
from .sentences import Face, Names, Said, fill


def _bids(s: Said) -> Text:
    shown = Text(", ").join(
        fill("{name} {card}", name=s.names(seat), card=s.face(code, s.style))
        for seat, code in enumerate(s.ev["cards"])
    )
    return fill(_("The Bid is shown: {cards}."), cards=shown)


def _play(s: Said) -> Text:
    if s.ev.get("bonus"):
        return fill(_("{name} plays {card} and may draw and discard."), name=s.who, card=s.card())
    return fill(_("{name} plays {card}."), name=s.who, card=s.card())


def _draw(s: Said) -> Text:
    n = s.ev.get("n", 1)
    return fill(ngettext("{name} draws a card.", "{name} draws {n} cards.", n), name=s.who, n=n)


def _discard(s: Said) -> Text:
    template = {
        "risk": _("{name} discards {card} and Risks."),
        "beast": _("{name} discards {card} to the Beast."),
        "darklord": _("{name} discards {card} for the Darklord."),
        "donjon": _("{name} discards {card} for the Donjon."),
    }.get(s.ev.get("why") or "", _("{name} discards {card}."))
    return fill(template, name=s.who, card=s.card())


def _marionette(s: Said) -> Text:
    template = (
        _("{name} makes {target} play their highest numbered card.")
        if s.ev["order"] == "highest"
        else _("{name} makes {target} play their lowest numbered card.")
    )
    return fill(template, name=s.who, target=s.name("target"))


def _execution(s: Said) -> Text:
    if s.ev.get("kill"):
        return fill(_("{name} kills the Focus."), name=s.who)
    return fill(_("{name} saves the Focus."), name=s.who)


#: Each kind of event and how its line reads; an event not here is not worth a line.
_LINES: dict[str, Callable[[Said], Text]] = {
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


def event_text(
    ev: dict[str, Any], names: Names, style: CardStyle, face: Face = card_text
) -> Text | None:
    """One line of the event log, or None for an event not worth a line (``face``: how a
    card is shown; the plain mode says its name)."""
    kind: Any = ev.get("e")  # (the hub's: any kind, known or not)
    line = _LINES.get(kind)
    return line(Said(ev, names, style, face)) if line is not None else None


class _Asked:
    """What a question is made of: the ask, the seat's view, the players' names, the card
    style."""

    __slots__ = ("ask", "face", "names", "style", "view")

    def __init__(
        self,
        ask: dict[str, Any],
        view: dict[str, Any],
        names: Names,
        style: CardStyle,
        face: Face = card_text,
    ) -> None:
        self.ask, self.view, self.names, self.style, self.face = ask, view, names, style, face

    def card(self) -> Text:
        return self.face(self.ask.get("card"), self.style)

    def target(self) -> str:
        return self.names(self.ask["target"])

    @property
    def count(self) -> int:
        return self.ask.get("count", 1)


def _asked(message: str) -> Callable[[_Asked], Text]:
    """A question that is the same every time (``message`` marked with ``N_``)."""
    return lambda a: Text(_(message))


def _turn(a: _Asked) -> Text:
    n = a.ask.get("round", a.view.get("round"))
    if a.view.get("high_deck"):
        return fill(_("Your turn in round {n}: Play a card, or Risk one for a High card."), n=n)
    return fill(_("Your turn in round {n}: Play a card (the High deck is empty)."), n=n)


def _forced(a: _Asked) -> Text:
    if a.ask.get("order") == "highest":
        return Text(_("The Marionette makes you play your highest numbered card."))
    return Text(_("The Marionette makes you play your lowest numbered card."))


#: Each kind of decision and the question it asks.
_ASKS: dict[str, Callable[[_Asked], Text]] = {
    "bid": _asked(N_("The Bid: choose a card to commit in secret.")),
    "fate": _asked(N_("You show the highest card: replace your Fate or keep it?")),
    "turn": _turn,
    "bonus": lambda a: fill(
        _("You played {card}: draw a card and then discard one, or pass?"), card=a.card()
    ),
    "discard": lambda a: Text(
        ngettext("Discard a card.", "Discard {n} cards, one at a time.", a.count).format(n=a.count)
    ),
    "beast": _asked(N_("The Beast: choose a card to discard; you then draw one.")),
    "donjon": lambda a: Text(
        ngettext(
            "The Donjon: discard one more card.",
            "The Donjon: discard {n} more cards, one at a time.",
            a.count,
        ).format(n=a.count)
    ),
    "raven": _asked(N_("The Raven: choose a card to pass to your left.")),
    "darklord": _asked(N_("The Darklord: choose a player whose hand you will see.")),
    "darklord_pick": lambda a: fill(
        _("The Darklord: pick the card {name} must discard."), name=a.target()
    ),
    "ghost": _asked(N_("The Ghost: take a card from the discard pile.")),
    "tempter": _asked(N_("The Tempter: choose a card of yours to swap.")),
    "tempter_target": lambda a: fill(
        _("The Tempter: choose the player who gets your {card}."), card=a.card()
    ),
    "marionette": _asked(N_("The Marionette: choose a player who has not had a turn this round.")),
    "marionette_order": lambda a: fill(
        _("The Marionette: must {name} play their highest or lowest card?"), name=a.target()
    ),
    "forced": _forced,
    "execution": _asked(N_("The Execution: kill the Focus or save it?")),
}


def ask_text(
    ask: dict[str, Any],
    view: dict[str, Any],
    names: Names,
    style: CardStyle,
    face: Face = card_text,
) -> Text:
    """The question of a pending decision, asked exactly."""
    kind: Any = ask.get("kind")  # (the hub's: any kind, known or not)
    question = _ASKS.get(kind)
    if question is None:
        return Text(_("Decide."))
    return question(_Asked(ask, view, names, style, face))
