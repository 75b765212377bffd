"""An opponent's past choices replayed by the heuristic's own rules on a candidate hand.

The opponents the strong bot meets most are heuristic bots, whose choices are a function of
their cards: the Bid is the card whose loss leaves the best potential (the highest number on
ties), a turn Plays the card that leaves the best potential (a draw earned, then the lowest
number, breaking ties), or Risks when no Play earns a draw and the hand is at most One pair,
and a discard drops the card that leaves the best potential (the lowest number on ties).
Given a candidate for a seat's hand and Fate today, :func:`timeline` and :func:`replay_misses`
rebuild the hand it held at each of those choices (walking back from today: a removed card
was in the hand, a drawn one was not yet) and count the choices the heuristic would not have
made. The cards a seat drew are not known: every way of taking them back is tried and the
best kept. Deals where a seat's cards moved unseen (Raven, Tempter, Mists, Artifact) are not
replayed (None): the caller weighs those by the coarser :mod:`.pg_inference` counts.

It reads the view's public events only: a seat's own view is all it needs.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from protocol.cards import tarokka_number
from server.engine.prophets_gambit.hands import ONE_PAIR

from ..prophets_gambit import potential, without

#: One step of a seat's history, oldest first: ``(kind, card, right)`` where ``kind`` is
#: ``bid``, ``play`` and ``risk`` (a turn; ``right`` is the number showing on its right),
#: ``keep`` (a discard it chose), ``gone`` (a card it lost without choosing), ``take`` (a
#: card from the discard pile), ``draw`` (``card`` is how many) or ``fate`` (its Fate before
#: a replacement).
Step = tuple[str, Any, Any]

#: Events that move a seat's cards where its view cannot follow them.
_UNSEEN = ("raven", "tempter", "mists", "artifact")


def timeline(view: dict[str, Any], seat: int) -> list[Step] | None:
    """``seat``'s choices and draws this deal, from ``view``'s events (None: its cards moved
    unseen, or its Bid is not shown yet)."""
    n = view["players"]
    tops: list[str | None] = [None] * n
    steps: list[Step] = []
    forced = False
    bid_seen = False
    for ev in view["events"]:
        kind = ev["e"]
        if kind == "bids":
            bid_seen = True
            steps.append(("bid", ev["cards"][seat], None))
            tops = list(ev["cards"])
        elif kind == "play":
            s = ev["seat"]
            if s == seat:
                if forced:
                    steps.append(("gone", ev["card"], None))
                    forced = False
                else:
                    steps.append(("play", ev["card"], _number(tops[(s - 1) % n])))
            tops[s] = ev["card"]
        elif kind == "marionette" and ev["target"] == seat:
            forced = True
        elif ev.get("seat") != seat:
            if kind in _UNSEEN and seat in (ev.get("seats") or ()):
                return None
            if kind == "tempter" and ev.get("target") == seat:
                return None
        elif kind == "discard":
            why = ev.get("why")
            if why == "risk":
                steps.append(("risk", ev["card"], _number(tops[(seat - 1) % n])))
            elif why == "darklord":
                steps.append(("gone", ev["card"], None))
            else:
                steps.append(("keep", ev["card"], None))
        elif kind == "discard_hand":
            steps += [("gone", c, None) for c in ev["cards"]]
        elif kind == "draw":
            steps.append(("draw", ev["n"], None))
        elif kind == "take":
            steps.append(("take", ev["card"], None))
        elif kind == "replace_fate":
            steps.append(("fate", ev["card"], None))
        elif kind in _UNSEEN:
            return None
    return steps if bid_seen else None


def _number(card: str | None) -> int | None:
    return tarokka_number(card) if card else None


def _keep_best(hand: list[str], fixed: list[str]) -> set[str]:
    """The cards the heuristic may discard (ties: every card it might take)."""
    values = {c: (potential(without(hand, c), fixed), -(tarokka_number(c) or 10)) for c in hand}
    top = max(values.values())
    return {c for c, v in values.items() if v == top}


def _fits(step: Step, hand: list[str], fixed: list[str]) -> bool:
    """Whether the heuristic, holding ``hand``, makes ``step``'s choice."""
    kind, card, right = step
    if kind == "keep":
        return card in _keep_best(hand, fixed)
    if kind == "bid":
        values = {c: (potential(without(hand, c), fixed), tarokka_number(c) or 0) for c in hand}
        top = max(values.values())
        return values[card] == top
    # A turn: the best Play, unless it earns no draw and keeps at most One pair (then Risk).
    turn_values = {}
    for c in hand:
        num = tarokka_number(c)
        bonus = num is None or (right is not None and num < right)
        turn_values[c] = (potential(without(hand, c), fixed), bonus, -(num or 10))
    turn_top = max(turn_values.values())
    risks = not turn_top[1] and turn_top[0][0] <= ONE_PAIR
    if kind == "risk":
        return risks and card in _keep_best(hand, fixed)
    return not risks and turn_values[card] == turn_top


def replay_misses(
    steps: list[Step],
    hand: list[str],
    fate: str | None,
    focus: str | None,
    limit: int = 99,
) -> int:
    """How many of the choices in ``steps`` the heuristic would not have made, had the seat
    held ``hand`` and ``fate`` today (the fewest over the ways its draws may have gone;
    counting stops at ``limit``)."""
    best = [limit]

    def back(i: int, now: list[str], fate_then: str | None, missed: int) -> None:
        while i >= 0 and missed < best[0]:
            kind, card, _ = steps[i]
            if kind == "draw":
                if card > len(now):
                    return
                for drawn in combinations(now, card):
                    rest = [c for c in now if c not in drawn]
                    back(i - 1, rest, fate_then, missed)
                return
            if kind == "fate":
                fate_then = card
            elif kind == "take":
                if card not in now:
                    return
                now = without(now, card)
            else:
                if card in now:
                    return  # it cannot be removed again
                now = [*now, card]
                if kind != "gone":
                    fixed = [c for c in (fate_then, focus) if c]
                    if not _fits(steps[i], now, fixed):
                        missed += 1
            i -= 1
        best[0] = min(best[0], missed)

    back(len(steps) - 1, list(hand), fate, 0)
    return best[0]
