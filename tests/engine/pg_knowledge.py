"""What a Prophet's Gambit seat legitimately learns beyond public cards and its own hand.

The conformance suite tracks knowledge from card locations between actions. Three things show
cards that are in a hidden place at every step boundary:

* the Seer shows the seat that turned it every affected player's Fate;
* the Darklord shows the chooser the chosen player's hand;
* a card discarded face-up and shuffled back into the deck within the same action (ruling 9:
  the draw that follows finds the deck empty) was seen by everyone (key ``None``).

Called *before* the action is applied, so it reads what the action is about to reveal.
"""

from __future__ import annotations

from protocol.actions import Action, Risk, Target
from server.engine.prophets_gambit.state import PGState

MOST_DRAWN_IN_ONE_ACTION = 6  # Broken One redraws a whole hand; Beast draws one per seat


def pg_glimpses(
    state: PGState, seat: int, action: Action, reshuffle: bool = True
) -> dict[int | None, set[str]]:
    """``reshuffle``: also play the action on a copy to find cards discarded and reshuffled
    within it (a caller that applies the action itself reads them from its events instead:
    :func:`may_reshuffle`, :func:`shown_in_reshuffle`)."""
    ask = state.pending().get(seat)
    if ask is None:
        return {}
    out: dict[int | None, set[str]] = {}
    if ask.kind == "turn" and type(action) is Risk and state.high_deck[-1:] == ["HSE"]:
        # Ruling 10, read from the table rather than from the engine's own helper: every other
        # seat's Fate except an Innocent holder's.
        others = (s for s in range(state.num_players) if s != seat)
        out[seat] = {state.fates[s] for s in others if "HIN" not in state.fronts[s]}
    if ask.kind == "darklord" and type(action) is Target:
        out[seat] = set(state.hands[action.seat])
    if reshuffle and may_reshuffle(state):
        out[None] = _discarded_then_reshuffled(state, seat, action)
    return out


def may_reshuffle(state: PGState) -> bool:
    """Whether the next action may draw the deck empty and shuffle the discards back."""
    return len(state.deck) < MOST_DRAWN_IN_ONE_ACTION


def _discarded_then_reshuffled(state: PGState, seat: int, action: Action) -> set[str]:
    after = state.clone()
    after.apply(seat, action)
    return shown_in_reshuffle(after.events[len(state.events) :])


def shown_in_reshuffle(new: list[dict]) -> set[str]:
    """The cards one action's events (``new``) show face-up and shuffle back into the deck
    (none unless the deck was reshuffled)."""
    if not any(e["e"] == "reshuffle" for e in new):
        return set()
    shown: set[str] = set()
    for e in new:
        if e["e"] in ("discard", "replace_fate"):
            shown.add(e["card"])
        elif e["e"] == "discard_hand":
            shown.update(e["cards"])
    return shown
