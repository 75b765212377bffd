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

Names = Callable[[int], str]


def _fill(template: str, style: CardStyle, **parts: Any) -> Text:
    """``template`` with ``{name}`` fields filled; Text parts keep their styles."""
    out = Text()
    rest = template
    while rest:
        start = rest.find("{")
        end = rest.find("}", start)
        if start < 0 or end < 0:
            out.append(rest)
            break
        out.append(rest[:start])
        key = rest[start + 1 : end]
        value = parts.get(key, "{" + key + "}")
        if isinstance(value, Text):
            out.append_text(value)
        else:
            out.append(str(value))
        rest = rest[end + 1 :]
    return out


def _names(seats: list[int], names: Names) -> str:
    return ", ".join(names(s) for s in seats)


def event_text(ev: dict[str, Any], names: Names, style: CardStyle) -> Text | None:
    """One line of the event log, or None for an event not worth a line."""
    e = ev.get("e")
    who = names(ev["seat"]) if "seat" in ev else ""

    def card(key: str = "card") -> Text:
        return card_text(ev.get(key), style)

    if e == "deal":
        return _fill(
            _("{dealer} deals. The Focus is {card}."),
            style,
            dealer=names(ev["dealer"]),
            card=card("focus"),
        )
    if e == "committed":
        return _fill(_("{name} commits a card to the Bid."), style, name=who)
    if e == "bids":
        shown = Text(", ").join(
            _fill("{name} {card}", style, name=names(s), card=card_text(c, style))
            for s, c in enumerate(ev["cards"])
        )
        return _fill(_("The Bid is shown: {cards}."), style, cards=shown)
    if e == "round":
        return _fill(
            _("Round {n}: {name} shows the highest card and starts."),
            style,
            n=ev["round"],
            name=names(ev["starter"]),
        )
    if e == "keep_fate":
        return _fill(_("{name} keeps their Fate."), style, name=who)
    if e == "replace_fate":
        return _fill(
            _("{name} discards their Fate {card} and draws a new one."),
            style,
            name=who,
            card=card(),
        )
    if e == "new_fate":
        return _fill(_("Your new Fate is {card}."), style, card=card())
    if e == "turn":
        return _fill(_("{name}'s turn."), style, name=who)
    if e == "play":
        if ev.get("bonus"):
            return _fill(
                _("{name} plays {card} and may draw and discard."), style, name=who, card=card()
            )
        return _fill(_("{name} plays {card}."), style, name=who, card=card())
    if e == "pass":
        return _fill(_("{name} does not draw."), style, name=who)
    if e == "draw":
        n = ev.get("n", 1)
        return _fill(
            ngettext("{name} draws a card.", "{name} draws {n} cards.", n), style, name=who, n=n
        )
    if e == "drew":
        return _fill(_("You drew {cards}."), style, cards=cards_text(ev["cards"], style))
    if e == "discard":
        why = ev.get("why")
        template = {
            "risk": _("{name} discards {card} and Risks."),
            "beast": _("{name} discards {card} to the Beast."),
            "darklord": _("{name} discards {card} for the Darklord."),
            "donjon": _("{name} discards {card} for the Donjon."),
        }.get(why or "", _("{name} discards {card}."))
        return _fill(template, style, name=who, card=card())
    if e == "high":
        return _fill(_("{name} turns the {card}!"), style, name=who, card=card())
    if e == "artifact":
        return _fill(
            _(
                "{name}'s Fate and the Focus change places: the Focus is {focus}, "
                "{name}'s Fate {fate} is open."
            ),
            style,
            name=who,
            focus=card("focus"),
            fate=card("fate"),
        )
    if e == "discard_hand":
        return _fill(
            _("{name} discards their hand: {cards}."),
            style,
            name=who,
            cards=cards_text(ev["cards"], style),
        )
    if e == "mists":
        return _fill(
            _("The Mists move the Fates of {names} one seat clockwise."),
            style,
            names=_names(ev["seats"], names),
        )
    if e == "fate":
        return _fill(_("Your Fate is now {card}."), style, card=card())
    if e == "seer":
        return _fill(_("You see the Fates of {names}."), style, names=_names(ev["seats"], names))
    if e == "chosen":
        return _fill(_("{name} has chosen."), style, name=who)
    if e == "raven":
        return _fill(
            _("The Raven: {names} pass a card to the left."),
            style,
            names=_names(ev["seats"], names),
        )
    if e == "received":
        return _fill(
            _("You receive {card} from {name}."), style, card=card(), name=names(ev["from"])
        )
    if e == "donjon":
        return Text(_("The Donjon: everyone discards down to three cards, then the Reveal."))
    if e == "darklord":
        return _fill(
            _("{name} looks at {target}'s hand."), style, name=who, target=names(ev["target"])
        )
    if e == "tempter":
        return _fill(
            _("{name} swaps a card with {target}."), style, name=who, target=names(ev["target"])
        )
    if e == "swap":
        return _fill(_("You give {gave} and get {got}."), style, gave=card("gave"), got=card("got"))
    if e == "marionette":
        template = (
            _("{name} makes {target} play their highest numbered card.")
            if ev["order"] == "highest"
            else _("{name} makes {target} play their lowest numbered card.")
        )
        return _fill(template, style, name=who, target=names(ev["target"]))
    if e == "no_effect":
        return _fill(_("The {card} has no effect."), style, card=card())
    if e == "execution_start":
        return _fill(_("The Execution: {name} decides whether the Focus dies."), style, name=who)
    if e == "execution":
        if ev.get("kill"):
            return _fill(_("{name} kills the Focus."), style, name=who)
        return _fill(_("{name} saves the Focus."), style, name=who)
    if e == "reveal":
        return _fill(_("The Reveal: {name} wins the deal."), style, name=names(ev["winner"]))
    if e == "reshuffle":
        return Text(_("The discard pile is shuffled into a new draw pile."))
    if e == "draw_skipped":
        return _fill(_("{name} cannot draw: no cards are left."), style, name=who)
    if e == "take":
        return _fill(_("{name} takes {card} from the discard pile."), style, name=who, card=card())
    return None


def ask_text(ask: dict[str, Any], view: dict[str, Any], names: Names, style: CardStyle) -> Text:
    """The question of a pending decision, asked exactly."""
    kind = ask.get("kind")
    if kind == "bid":
        return Text(_("The Bid: choose a card to commit in secret."))
    if kind == "fate":
        return Text(_("You show the highest card: replace your Fate or keep it?"))
    if kind == "turn":
        if view.get("high_deck"):
            return _fill(
                _("Your turn in round {n}: Play a card, or Risk one for a High card."),
                style,
                n=ask.get("round", view.get("round")),
            )
        return _fill(
            _("Your turn in round {n}: Play a card (the High deck is empty)."),
            style,
            n=ask.get("round", view.get("round")),
        )
    if kind == "bonus":
        return _fill(
            _("You played {card}: draw a card and then discard one, or pass?"),
            style,
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
        return _fill(
            _("The Darklord: pick the card {name} must discard."), style, name=names(ask["target"])
        )
    if kind == "ghost":
        return Text(_("The Ghost: take a card from the discard pile."))
    if kind == "tempter":
        return Text(_("The Tempter: choose a card of yours to swap."))
    if kind == "tempter_target":
        return _fill(
            _("The Tempter: choose the player who gets your {card}."),
            style,
            card=card_text(ask.get("card"), style),
        )
    if kind == "marionette":
        return Text(_("The Marionette: choose a player who has not had a turn this round."))
    if kind == "marionette_order":
        return _fill(
            _("The Marionette: must {name} play their highest or lowest card?"),
            style,
            name=names(ask["target"]),
        )
    if kind == "forced":
        if ask.get("order") == "highest":
            return Text(_("The Marionette makes you play your highest numbered card."))
        return Text(_("The Marionette makes you play your lowest numbered card."))
    if kind == "execution":
        return Text(_("The Execution: kill the Focus or save it?"))
    return Text(_("Decide."))
