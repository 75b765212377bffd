"""Prophet in words: the event log, the question each decision asks, and the round line.

The one place that turns the Prophet engine's events and asks into sentences in the player's
language (as :mod:`gambit_tui.pg_text` does for Prophet's Gambit). Card faces keep their
suit colours inside the sentences.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text

from .cards import CardStyle, french_text
from .i18n import _, ngettext
from .names import choice_label, french_suit_name
from .sentences import Face, Names, Said, fill


def scores_text(scores: list[int], names: Names) -> str:
    """ "Ada 12, Bob 0, Cleo 11": one round's (or the totals') points per player."""
    return ", ".join(f"{names(seat)} {points}" for seat, points in enumerate(scores))


def round_scored_text(round_no: int, scores: list[int], names: Names) -> Text:
    return Text(
        _("Round {round} scored: {scores}.").format(
            round=round_no, scores=scores_text(scores, names)
        ),
        style="bold",
    )


def _deal(s: Said) -> Text:
    n = s.ev["cards"]
    return fill(
        ngettext(
            "Round {round}: {dealer} deals {n} card each. Trump: {card}.",
            "Round {round}: {dealer} deals {n} cards each. Trump: {card}.",
            n,
        ),
        round=s.ev["round"],
        dealer=s.name("dealer"),
        n=n,
        card=s.card("trump"),
    )


#: Each kind of event and how its line reads; an event not here is not worth a line.
_LINES: dict[str, Callable[[Said], Text]] = {
    "deal": _deal,
    "bid": lambda s: Text(_("{name} bids {n}.").format(name=s.who, n=s.ev["tricks"])),
    "play": lambda s: fill(_("{name} plays {card}."), name=s.who, card=s.card()),
    "trick_won": lambda s: Text(_("{name} wins the trick.").format(name=s.who), style="bold"),
    "round_scored": lambda s: round_scored_text(s.ev["round"], s.ev["scores"], s.names),
    "game_over": lambda s: Text(
        _("The game is over. Highest total: {names}.").format(names=s.seats("winners")),
        style="bold",
    ),
}


def event_text(
    ev: dict[str, Any], names: Names, style: CardStyle, face: Face = french_text
) -> Text | None:
    """One line of the event log, or None for an event not worth a line (``face``: how a
    card is shown; the plain mode says its name)."""
    kind: Any = ev.get("e")  # (the hub's: any kind, known or not)
    line = _LINES.get(kind)
    return line(Said(ev, names, style, face)) if line is not None else None


def ask_text(ask: dict[str, Any], view: dict[str, Any], style: CardStyle) -> Text:
    """The question of the player's pending decision, asked exactly."""
    if ask.get("kind") == "bid":
        return Text(
            _("Your bid: how many tricks will you take? (0 to {max})").format(
                max=ask.get("max", view.get("cards", 0))
            )
        )
    led = ask.get("led")
    if not led:
        return Text(_("Your turn: lead a card."))
    suit = french_suit_name(led)
    if any(a.get("card", "  ")[1] == led for a in view.get("legal", [])):
        return Text(_("Your turn: follow suit ({suit}).").format(suit=suit))
    return Text(_("Your turn: you have no {suit}, so play any card.").format(suit=suit))


def bid_hint(ask: dict[str, Any], view: dict[str, Any]) -> Text:
    """What the bidder should know: the number the dealer may not bid and why, or how far
    the bids so far add up."""
    cards = view.get("cards", 0)
    forbidden = ask.get("forbidden")
    if forbidden is not None:
        reason = _("You may not bid {n}: the bids would add up to the number of cards ({cards}).")
        return Text(reason.format(n=forbidden, cards=cards), style="bold")
    total = sum(b for b in view.get("bids", []) if b is not None)
    if view.get("dealer") == view.get("seat"):
        free = _("You deal and bid last: the bids already exceed {cards}, so any bid is allowed.")
        return Text(free.format(cards=cards), style="dim")
    return Text(
        ngettext(
            "The bids so far add up to {total} of {n} trick.",
            "The bids so far add up to {total} of {n} tricks.",
            cards,
        ).format(total=total, n=cards),
        style="dim",
    )


def round_line(view: dict[str, Any]) -> Text:
    """ "Round 3 of 10 · 3 cards · schedule up and down"."""
    n = view.get("cards", 0)
    schedule = (view.get("options") or {}).get("schedule", "ascending")
    out = Text(
        _("Round {round} of {rounds}").format(round=view.get("round"), rounds=view.get("rounds")),
        style="bold",
    )
    out.append(" · " + ngettext("{n} card", "{n} cards", n).format(n=n))
    out.append(" · " + _("schedule {name}").format(name=choice_label(schedule)), style="dim")
    return out


def trump_line(view: dict[str, Any], names: Names, style: CardStyle) -> Text:
    """ "Trump K♥ (Hearts) · Dealer Bob · Bids 3 for 5 tricks"."""
    out = Text()
    trump = view.get("trump")
    if trump:
        out.append_text(
            fill(
                _("Trump {card} ({suit})"),
                card=french_text(trump, style),
                suit=french_suit_name(trump[1]),
            )
        )
    out.append(" · " + _("Dealer {name}").format(name=names(view.get("dealer", 0))))
    bids = [b for b in view.get("bids", []) if b is not None]
    if bids:
        n = view.get("cards", 0)
        out.append(
            " · "
            + ngettext("Bids {total} for {n} trick", "Bids {total} for {n} tricks", n).format(
                total=sum(bids), n=n
            ),
            style="dim",
        )
    return out
