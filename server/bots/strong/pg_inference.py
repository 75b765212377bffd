"""What an opponent's own choices say about the cards it kept (Prophet's Gambit).

A seat that plays, bids or discards a card by choice keeps the others because it likes them
better. Hands dealt uniformly from the unseen cards ignore that and come out far weaker than
the hands players really hold (measured: two pairs held where a world dealt one pair), which
made every search believe it was ahead. :func:`choices` lists each opponent's voluntary
removals from the view's events; :func:`misfits` counts how many of them a candidate hand
contradicts (removing the card instead of one kept would have left a better hand, by the
heuristic bot's own measure, with the candidate's Fate and today's Focus). A world then
keeps, for each opponent, one of a few candidate hands drawn with weight ``exp(-λ misfits)``
(sampling-importance resampling). :func:`signals` adds what its turns say of its hand's
strength (a Play without a draw: Two pairs or better; a Risk: One pair or worse), which
brings the worlds' opponents from weaker than the true ones to about as strong.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from server.engine.prophets_gambit.hands import ONE_PAIR, hand_key

from ..prophets_gambit import KEEP, potential

#: Discards a seat chooses itself (the Darklord's is its chooser's, a Broken One's forced).
_OWN_DISCARDS = (None, "risk", "beast", "donjon")


def choices(view: dict[str, Any]) -> dict[int, list[str]]:
    """Each other seat's voluntary removals this deal (bid, plays, own discards)."""
    out: dict[int, list[str]] = {}
    me = view["seat"]
    forced: set[int] = set()
    for ev in view["events"]:
        kind = ev["e"]
        if kind == "bids":
            for s, card in enumerate(ev["cards"]):
                out.setdefault(s, []).append(card)
        elif kind == "marionette":
            forced.add(ev["target"])
        elif kind == "play":
            if ev["seat"] in forced:
                forced.discard(ev["seat"])
            else:
                out.setdefault(ev["seat"], []).append(ev["card"])
        elif kind == "discard" and ev.get("why") in _OWN_DISCARDS:
            out.setdefault(ev["seat"], []).append(ev["card"])
    out.pop(me, None)
    return out


def misfits(hand: list[str], fixed: list[str], removed: list[str], limit: int = 99) -> int:
    """How many ``removed`` cards would have been better kept in place of one of ``hand``
    (counting stops at ``limit``: a hand that misfits that often weighs next to nothing)."""
    if not hand or limit <= 0:
        return 0
    now = potential(hand, fixed)
    count = 0
    # Kept are three of the hand beside the fixed cards. A swapped-in card beats ``now`` only
    # in a kept three holding it and two others of the hand (two that leave a card of the
    # hand to swap out: any two, in a hand of four or more), so the pairs are checked alone.
    pairs = list(combinations(hand, 2)) if len(hand) > KEEP and fixed else None
    for card in removed:
        if card in hand or card in fixed:
            continue  # back in play since (a reshuffle, the Ghost)
        if pairs is not None:
            if any(hand_key([card, a, b, *fixed]) > now for a, b in pairs):
                count += 1
        else:
            for i in range(len(hand)):
                swapped = [*hand[:i], card, *hand[i + 1 :]]
                if potential(swapped, fixed) > now:
                    count += 1
                    break
        if count >= limit:
            break
    return count


#: One Play-or-Risk choice: whether the seat Played without earning a draw (its hand was at
#: least Two pairs: the heuristic Risks with less), and the cards it removed since.
Signal = tuple[bool, list[str]]


def signals(view: dict[str, Any]) -> dict[int, list[Signal]]:
    """Each other seat's turns that say how strong its hand was. The heuristic bot Risks
    exactly when its best Play earns no draw and leaves at most One pair: a Play without a
    draw says "Two pairs or better" and a Risk says "One pair or worse" (of the hand kept
    then, with its Fate and the Focus). The cards removed since let :func:`signal_misses`
    rebuild that hand from a candidate's hand of today (draws since are not undone)."""
    me = view["seat"]
    out: dict[int, list[tuple[bool, list[str]]]] = {}
    forced: set[int] = set()
    for ev in view["events"]:
        kind = ev["e"]
        seat = ev.get("seat")
        if kind == "marionette":
            forced.add(ev["target"])
            continue
        if seat is None or seat == me:
            continue
        if kind == "play":
            for _, later in out.get(seat, []):
                later.append(ev["card"])
            if seat in forced:
                forced.discard(seat)
            elif not ev.get("bonus"):
                out.setdefault(seat, []).append((True, []))
        elif kind == "discard":
            for _, later in out.get(seat, []):
                later.append(ev["card"])
            if ev.get("why") == "risk":
                out.setdefault(seat, []).append((False, []))
    return out


def signal_misses(hand: list[str], fixed: list[str], sigs: list[Signal]) -> int:
    """How many of a seat's Play-or-Risk signals a candidate hand contradicts."""
    count = 0
    for strong, later in sigs:
        # A card may have left the hand twice since (taken back with the Ghost, or drawn
        # again after a reshuffle): it was held once.
        then = list(dict.fromkeys([*hand, *(c for c in later if c not in fixed)]))
        if not then:
            continue
        category = potential(then, fixed)[0]
        if strong != (category > ONE_PAIR):
            count += 1
    return count
