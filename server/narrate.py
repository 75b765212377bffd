"""Readable English lines for public game events (the demo's commentary and server logs).

The app will render events through its own translated catalog; this is the plain-text
narration used where there is no screen, such as ``gambit demo``.
"""

from __future__ import annotations

from typing import Any

from protocol.cards import describe

PER_SEAT_KEYS = {"scores", "totals", "bids", "tricks"}
SEAT_KEYS = {"seat", "dealer", "winner", "target", "starter", "from", "leader", "by"}

TEMPLATES: dict[str, str] = {
    # Prophet's Gambit
    "deal": "{dealer} deals.{focus_text}{trump_text}",
    "committed": "{seat} commits a card to the Bid.",
    "bids": "The Bid is revealed: {cards}.",
    "round": "Round {round} begins; {starter} has the highest card showing.",
    "keep_fate": "{seat} keeps their Fate.",
    "replace_fate": "{seat} discards their Fate ({card}) and draws a new one.",
    "turn": "{seat}'s turn.",
    "play": "{seat} plays {card}.{bonus_text}",
    "draw": "{seat} draws {n} {n_word}.",
    "draw_skipped": "{seat} cannot draw: the deck and the discard pile are empty.",
    "pass": "{seat} does not draw.",
    "discard": "{seat} {why_text}discards {card}.",
    "reshuffle": "The discard pile is shuffled into a new deck of {cards} {cards_word}.",
    "high": "{seat} turns the {card}!",
    "no_effect": "The {card} has no effect.",
    "artifact": "{seat}'s Fate and the Focus swap: the Focus is now {focus}; {seat}'s Fate is "
    "{fate}.",
    "discard_hand": "{seat} discards the whole hand: {cards}.",
    "take": "{seat} takes {card} from the discard pile.",
    "mists": "The Mists rotate the Fates of {seats} one place clockwise.",
    "chosen": "{seat} has chosen.",
    "raven": "Each of {seats} passes a card to the left.",
    "donjon": "Donjon! Everyone discards down to three cards; on to the Reveal.",
    "darklord": "{seat} looks at {target}'s hand.",
    "tempter": "{seat} swaps a card with {target}.",
    "marionette": "{seat} makes {target} play their {order} card.",
    "execution_start": "{seat} decides the fate of the Focus.",
    "execution": "{seat} {kill_text} the Focus.",
    "reveal": "The Reveal: {winner} wins.",
    # Prophet
    "bid": "{seat} bids {tricks}.",
    "trick_won": "{seat} wins the trick.",
    "round_scored": "Round {round} scores {scores}; totals {totals}.",
    "game_over": "Game over.",
    # Fortunes
    "trick": "Trick {n}: {winner} wins with {top} ({direction} wins, {disposition}-disposed, "
    "{points:+d} {points_word}).",
    "stay": "{seat} stays.",
    "raise": "{seat} raises.",
    "fold": "{seat} folds.",
    "deal_end": "Deal {deal} ends. Scores: {scores}. Tricks: {tricks}.",
    "next_deal": "{seat} is ready for the next deal.",
}


def plural(count: Any, one: str, many: str) -> str:
    """``one`` for a count of 1 (or -1), else ``many``: "1 card", "2 cards", "+1 point"."""
    return one if isinstance(count, int) and abs(count) == 1 else many


class Narrator:
    """Turns events into sentences for one table: seat numbers become names, codes card names."""

    def __init__(self, deck: str, names: list[str]) -> None:
        self.deck = deck
        self.names = names

    def card(self, code: str) -> str:
        try:
            return describe(self.deck, code).name
        except (ValueError, KeyError):
            return code

    def value(self, key: str, value: Any) -> str:
        if isinstance(value, bool) or value is None:
            return str(value)
        if isinstance(value, int) and key in SEAT_KEYS:
            return self.names[value] if 0 <= value < len(self.names) else str(value)
        if isinstance(value, str):
            return self.card(value)
        if isinstance(value, list):
            if key in PER_SEAT_KEYS and len(value) == len(self.names):
                return ", ".join(
                    f"{n} {self.value(key, v)}" for n, v in zip(self.names, value, strict=True)
                )
            if key in {"seats", "winners", "high", "low"}:
                return ", ".join(self.value("seat", v) for v in value)
            return ", ".join(self.value(key, v) for v in value)
        if isinstance(value, dict):
            return ", ".join(f"{k}: {self.value(k, v)}" for k, v in value.items())
        return str(value)

    def line(self, event: dict[str, Any]) -> str:
        kind = event.get("e", "?")
        fields: dict[str, Any] = {k: self.value(k, v) for k, v in event.items() if k != "e"}
        if isinstance(event.get("points"), int):
            fields["points"] = event["points"]
        fields["points_word"] = plural(event.get("points"), "point", "points")
        fields["n_word"] = plural(event.get("n"), "card", "cards")
        fields["cards_word"] = plural(event.get("cards"), "card", "cards")
        fields["focus_text"] = f" The Focus is {fields['focus']}." if "focus" in event else ""
        if kind == "deal" and "high" in event:
            fields["focus_text"] = f" High team: {fields['high']}; Low team: {fields['low']}."
        fields["trump_text"] = (
            f" Round {event.get('round')}: {event.get('cards')} "
            f"{plural(event.get('cards'), 'card', 'cards')} each; trump card {fields['trump']}."
            if "trump" in event
            else ""
        )
        fields["bonus_text"] = " (may draw and discard)" if event.get("bonus") else ""
        fields["why_text"] = "risks: " if event.get("why") == "risk" else ""
        fields["kill_text"] = "kills" if event.get("kill") else "saves"
        template = TEMPLATES.get(kind)
        if template is not None:
            try:
                return template.format(**fields)
            except (KeyError, IndexError):
                pass
        details = ", ".join(
            f"{k} {v}" for k, v in fields.items() if not k.endswith(("_text", "_word"))
        )
        return f"{kind.replace('_', ' ')}: {details}" if details else kind.replace("_", " ")
