"""A finished game, step by step, as text: what each move did and where every card lay.

The record is replayed with the engine from its revealed seed; a frame is the table after one
more action: the sentences the move produced (``server.narrate``) and every place's cards
(every hand open, as after the end), or just what one seat could see then.
"""

from __future__ import annotations

from typing import Any

from protocol.actions import action_from_wire
from protocol.codec import ProtocolError
from server.engine import RulesError, get_game
from server.narrate import Narrator


class ReplayError(Exception):
    """The record cannot be replayed; the message says where and why."""


#: Places never listed when showing one seat's view: they are secret to that seat.
_SECRET = ("deck", "high_deck", "set_aside")


def _names(record: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for seat in record["seats"]:
        name = seat.get("name") if isinstance(seat, dict) else None
        names.append(name or f"Bot {seat.get('seat', len(names)) + 1}")
    return names


def _visible(place: str, seat: int | None) -> bool:
    """Whether ``seat`` (None: every hand open) may see the cards in ``place``."""
    if seat is None:
        return True
    if place in _SECRET:
        return False
    if place.startswith(("hand:", "fate:")):
        return place.split(":")[1] == str(seat)
    return True


def _place_name(place: str, names: list[str]) -> str:
    kind, _, who = place.partition(":")
    if who.isdigit() and int(who) < len(names):
        return f"{kind} of {names[int(who)]}"
    return kind.replace("_", " ")


def frames(record: dict[str, Any], seat: int | None = None) -> list[str]:
    """One text frame per moment of the game: the deal, then after each action."""
    params, actions = record["params"], record["actions"]
    names = _names(record)
    if seat is not None and not 0 <= seat < len(names):
        raise ReplayError(f"there is no seat {seat} in this game (seats 0 to {len(names) - 1})")
    try:
        game = get_game(params["game"])
        state = game.replay(params, [])
    except (RulesError, KeyError, TypeError) as err:
        raise ReplayError(f"the record's game cannot be set up: {err}") from None
    narrator = Narrator(game.deck_name(state.options), names)
    title = record.get("title") or game.title
    out: list[str] = []
    seen = 0

    def frame(step: int, heading: str) -> None:
        nonlocal seen
        lines = [f"{title} · game {record.get('id', '?')} · move {step} of {len(actions)}"]
        lines.append(heading)
        events = state.visible_events(seat, since=seen)
        seen = len(state.events)
        lines.extend("  " + narrator.line(ev) for ev in events)
        lines.append("")
        for place, cards in state.card_locations().items():
            if _visible(place, seat) and cards:
                lines.append(f"{_place_name(place, names):>22}: {' '.join(cards)}")
        out.append("\n".join(lines))

    frame(0, "The deal.")
    for step, entry in enumerate(actions, start=1):
        try:
            who, action = entry
            state.apply(who, action_from_wire(action))
        except (RulesError, ProtocolError, TypeError, ValueError) as err:
            raise ReplayError(f"move {step} cannot be replayed: {err}") from None
        detail = ", ".join(f"{k} {v}" for k, v in action.items() if k != "type")
        frame(step, f"{names[who]}: {action.get('type')}{' ' + detail if detail else ''}")
    outcome = state.outcome()
    if outcome is not None:
        result = ", ".join(
            f"{place}. {names[s]} ({outcome.scores[s]})"
            for place, s in enumerate(outcome.ranking, start=1)
        )
        out[-1] += f"\n\nResult: {result}"
    return out
