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
:func:`fate_choices` and :func:`fate_likelihood` read a round's starter keeping or replacing
its Fate the way the heuristic bot decides it (replace when most of a few unseen cards would
make a better hand as its Fate).
"""

from __future__ import annotations

import math
import random
from itertools import combinations
from typing import Any

from server.engine.prophets_gambit.hands import ONE_PAIR, hand_key

from ..prophets_gambit import KEEP, SAMPLES, potential
from .pg_sim import BIT, INDEX, fate_better

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


#: One Fate choice of a round's starter: ``(replaced, fate, focus, public, since)``: whether
#: it replaced its Fate; the Fate it judged (None: the one it holds now, a world's own); the
#: Focus then; the cards it had seen out then (:func:`mask` bits: its unseen pool is the
#: rest); and what its hand did since, oldest first: ``(True, card)`` a card it removed,
#: ``(False, card)`` one it took in (the Ghost, a card passed to it; draws are not undone,
#: as for :func:`signals`).
FateChoice = tuple[bool, "str | None", "str | None", int, list[tuple[bool, str]]]

#: Cards a candidate's Fate choice is judged on (the heuristic itself looks at ``SAMPLES``).
FATE_SAMPLES = 8
#: The least a contradicted Fate choice weighs (a seat that does not decide as the
#: heuristic does, a human, still keeps a Fate it could have improved).
FATE_FLOOR = 0.05


#: The last view read and its Fate choices (every world of a decision reads the same view).
_LAST: list[Any] = [None, None]


def fate_choices(view: dict[str, Any]) -> dict[int, list[FateChoice]]:
    """Each other seat's choices to keep or replace its Fate this deal. A replaced Fate is
    shown (its card is the one judged); a kept one is the seat's Fate now until it moves: a
    later replacement shows it, the Artifact makes it the Focus, the Mists send it on unseen
    (that choice is then dropped). Shared by the calls on one view: not to be changed."""
    if _LAST[0] is view:
        return _LAST[1]
    found = _read_fate_choices(view)
    _LAST[0], _LAST[1] = view, found
    return found


def _read_fate_choices(view: dict[str, Any]) -> dict[int, list[FateChoice]]:
    me = view["seat"]
    records: dict[int, list[list[Any]]] = {}
    focus = view["focus"] if view["focus"] is not None else view["killed"]
    for ev in view["events"]:  # the Focus dealt (the Artifact's swaps since undone)
        if ev["e"] == "deal":
            focus = ev["focus"]
            break
        if ev["e"] == "artifact":
            focus = ev["fate"]
            break
    seen: set[str] = {focus} if focus else set()
    discard: set[str] = set()
    tempted: int | None = None  # the other seat of a Tempter this seat was in
    for ev in view["events"]:
        kind = ev["e"]
        seat = ev.get("seat")
        mine = records.get(seat, ()) if seat is not None else ()
        if kind in ("keep_fate", "replace_fate"):
            old = ev.get("card")
            if old is not None:
                for rec in mine:
                    if rec[1] is None:
                        rec[1] = old  # the Fate it kept before, shown now
            if seat != me:
                public = mask(seen | discard)
                records.setdefault(seat, []).append([old is not None, old, focus, public, []])
            if old is not None:
                discard.add(old)
        elif kind == "artifact":
            for rec in mine:
                if rec[1] is None:
                    rec[1] = ev["focus"]  # its Fate went to the Focus
            focus = ev["focus"]
            seen.update((ev["fate"], ev["focus"]))
        elif kind == "mists":
            for s in ev["seats"]:
                records[s] = [r for r in records.get(s, ()) if r[1] is not None]
        elif kind in ("bids", "discard_hand"):
            seen.update(ev["cards"])
            if kind == "discard_hand":
                discard.update(ev["cards"])
                for rec in mine:
                    rec[4] += [(True, c) for c in ev["cards"]]
        elif kind in ("play", "discard"):
            (seen if kind == "play" else discard).add(ev["card"])
            for rec in mine:
                rec[4].append((True, ev["card"]))
        elif kind == "take":
            discard.discard(ev["card"])
            for rec in mine:
                rec[4].append((False, ev["card"]))
        elif kind == "received":  # its card passed to this seat with the Raven
            for rec in records.get(ev["from"], ()):
                rec[4].append((True, ev["card"]))
        elif kind == "gave":  # this seat's card passed to it
            for rec in records.get(ev["target"], ()):
                rec[4].append((False, ev["card"]))
        elif kind == "tempter":
            other = {ev["seat"], ev["target"]} - {me}
            tempted = other.pop() if len(other) == 1 else None
        elif kind == "swap" and tempted is not None:  # a card for one of this seat's
            for rec in records.get(tempted, ()):
                rec[4] += [(True, ev["got"]), (False, ev["gave"])]
        elif kind == "reshuffle":
            discard.clear()
    records.pop(me, None)
    return {
        s: [(r[0], r[1], r[2], r[3], r[4]) for r in recs] for s, recs in records.items() if recs
    }


def mask(cards: Any) -> int:
    """Common cards as bits (:data:`.pg_sim.BIT`)."""
    bits = 0
    for c in cards:
        bits |= BIT[INDEX[c]]
    return bits


def _replace_chance(better: int, looked: int) -> float:
    """The chance the heuristic replaces a Fate that ``better`` of ``looked`` unseen cards
    beat: it replaces when more than half of its ``SAMPLES`` do (a binomial on the share,
    shrunk a little toward one half: ``looked`` cards only estimate it)."""
    share = (better + 0.5) / (looked + 1)
    n = SAMPLES
    return sum(
        math.comb(n, k) * share**k * (1 - share) ** (n - k) for k in range(n // 2 + 1, n + 1)
    )


_CHANCES: dict[tuple[int, int], float] = {}
_ALL = range(len(BIT))


def fate_likelihood(
    hand: list[str], fate: str | None, said: list[FateChoice], rng: random.Random
) -> float:
    """How likely the heuristic, holding a candidate's ``hand`` and ``fate`` today, was to
    make each of ``said``'s Fate choices (their product; each at least ``FATE_FLOOR``). The
    hand then is today's with the cards removed since put back (and those taken since taken
    out); the unseen cards it judged by are ``FATE_SAMPLES`` drawn from those it had not seen
    (all of them when fewer)."""
    weight = 1.0
    for replaced, judged, focus, public, since in said:
        old = judged if judged is not None else fate
        if old is None:
            continue
        then = set(hand)
        for removed, card in reversed(since):
            if removed:
                then.add(card)
            else:
                then.discard(card)
        then.discard(old)
        if focus is not None:
            then.discard(focus)
        if not then:
            continue
        held = [INDEX[c] for c in sorted(then)]
        # Not the cards it held, nor the Focus (``public`` has it when read from a view):
        # beside them, a card it could not draw would be judged in a five holding it twice.
        out = public | BIT[INDEX[old]] | (BIT[INDEX[focus]] if focus else 0)
        for c in held:
            out |= BIT[c]
        pool = [c for c in _ALL if not out & BIT[c]]
        m = len(pool)
        looked = min(FATE_SAMPLES, m)
        if not looked:
            continue
        # ``looked`` of the pool by a partial shuffle (``random.sample``'s law, cheaper).
        r = rng.random
        for j in range(looked):
            k = j + int(r() * (m - j))
            pool[j], pool[k] = pool[k], pool[j]
        cards = pool[:looked]
        better = fate_better(held, INDEX[old], INDEX[focus] if focus else -1, cards)
        chance = _CHANCES.get((better, looked))
        if chance is None:
            chance = _CHANCES[(better, looked)] = _replace_chance(better, looked)
        fit = chance if replaced else 1.0 - chance
        weight *= FATE_FLOOR + (1.0 - FATE_FLOOR) * fit
    return weight
