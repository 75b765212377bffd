"""The result of a game said in full, one sentence per place: for Prophet's Gambit each
player's best hand and Fate, for the other games their score, and for everyone the chips
won or lost; then the pot and the player's rating. The numbers are the full-screen result's
(:mod:`gambit_tui.result_text`); only the way they are said differs."""

from __future__ import annotations

from typing import Any

from ..cards import CardStyle
from ..i18n import _, ngettext
from ..names import category_name, seat_name
from ..result_text import _rating_line, duplicate_lines, payouts
from .words import card_name


def result_lines(message: dict[str, Any], style: CardStyle) -> list[str]:
    """The result's sentences (none before the hub sends an outcome)."""
    view = message.get("view") or {}
    outcome = view.get("outcome")
    if not outcome:
        return []
    info = message["info"]
    game = info.get("game", "")
    stake = int(info.get("stake", 0) or 0)
    paid = payouts(outcome, stake)
    contrib = outcome.get("contributions") or [1] * len(paid)
    hands = outcome.get("hands") if game == "prophets_gambit" else None
    lines = []
    for place, seat in enumerate(outcome.get("ranking", [])):
        name = seat_name(info["seats"][seat])
        if seat == message.get("seat"):
            name += " " + _("(you)")
        chips = f"{paid[seat] - contrib[seat] * stake:+d}"
        if hands:
            hand = hands[seat] or {}
            lines.append(
                _("Place {place}: {name}, {category}: {cards}; Fate {fate}; chips {chips}.").format(
                    place=place + 1,
                    name=name,
                    category=category_name(hand.get("category", "")),
                    cards=", ".join(card_name(game, c) for c in hand.get("cards", [])),
                    fate=card_name(game, hand.get("fate")),
                    chips=chips,
                )
            )
            continue
        score = (outcome.get("scores") or [0] * (seat + 1))[seat]
        lines.append(
            ngettext(
                "Place {place}: {name}, {score} point; chips {chips}.",
                "Place {place}: {name}, {score} points; chips {chips}.",
                score,
            ).format(place=place + 1, name=name, score=score, chips=chips)
        )
    winners = [seat_name(info["seats"][s]) for s in outcome.get("winners", [])]
    pot = sum(paid)
    if winners and pot:
        lines.append(
            ngettext(
                "{names} wins the pot of {pot} chip.", "{names} wins the pot of {pot} chips.", pot
            ).format(names=", ".join(winners), pot=pot)
        )
    elif winners:
        lines.append(_("Winner: {names}.").format(names=", ".join(winners)))
    extra = [*_rating_line(message, outcome), *duplicate_lines(message)]
    lines.extend(line.plain.strip() + ("" if line.plain.endswith(".") else ".") for line in extra)
    return lines
