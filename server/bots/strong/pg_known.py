"""Where a Prophet's Gambit seat knows hidden cards to be, read from its view's events.

A world (:mod:`.pg_world`) deals the cards a seat has not seen at random; but some hidden
cards the seat has seen, and knows where they went, as a player at the table remembers:

* a card taken from the discard pile with the Ghost is in the taker's hand;
* its own card given with the Tempter or the Raven is in the hand it went to (the engine
  records the Raven's gift in a private ``gave`` event);
* the hand it saw with the Darklord (a private ``saw_hand`` event at the pick) is the
  target's, but for the card picked (discarded face-up) and the one drawn after;
* after the Mists its old Fate (``was`` on its private ``fate`` event) is its left
  neighbour's among the affected seats, and every Fate it knows moves on the same way;
* the Fates the Seer showed it (its private ``saw_fates`` event), moved on by the Mists.

What it knows stops where the cards move unseen: a seat that passes a card with the Raven to
someone else, or swaps one with the Tempter with someone else, may have passed the very card.

:func:`ruled_out_fates` says where hidden cards are not: a Fate stays hidden with its seat,
so no card this seat saw out of the Fates since that Fate came to its seat can be it, though
a reshuffle, the Ghost or a pass may have hidden the card again since.
"""

from __future__ import annotations

from typing import Any

#: A known place: ``(True, seat)`` a Fate, ``(False, seat)`` in a hand.
Place = tuple[bool, int]


def _forget_hand(places: dict[str, Place], seat: int) -> None:
    for card in [c for c, p in places.items() if p == (False, seat)]:
        del places[card]


def _raven(places: dict[str, Place], events: list[dict[str, Any]], i: int, me: int) -> None:
    """The Raven at ``events[i]``: each affected seat passes a card to the next one."""
    order = events[i]["seats"]
    gave: dict[str, Any] | None = None
    received: dict[int, str] = {}
    for ev in events[i + 1 :]:
        if ev["e"] == "received":
            received[ev["from"]] = ev["card"]
        elif ev["e"] == "gave":
            gave = ev
        else:
            break
    for k, giver in enumerate(order):
        to = order[(k + 1) % len(order)]
        if giver == me:
            continue
        if to == me:
            # It passed this seat a card it sees: the others it held are where they were.
            places.pop(received.get(giver, ""), None)
        else:
            _forget_hand(places, giver)
    if gave is not None:
        places[gave["card"]] = (False, gave["target"])


def _tempter(places: dict[str, Place], events: list[dict[str, Any]], i: int, me: int) -> None:
    """The Tempter at ``events[i]``: a card of the turner's for a random one of the target's."""
    turner, target = events[i]["seat"], events[i]["target"]
    if me not in (turner, target):
        _forget_hand(places, turner)
        _forget_hand(places, target)
        return
    swap = next((ev for ev in events[i + 1 :] if ev["e"] == "swap"), None)
    if swap is None:
        return
    places[swap["gave"]] = (False, target if me == turner else turner)
    places.pop(swap["got"], None)


class _RuledOut:
    """Per seat, the cards its Fate cannot be, followed event by event (see
    :func:`ruled_out_fates`)."""

    def __init__(self, n: int) -> None:
        self.out: list[set[str]] = [set() for _ in range(n)]
        self.discard: set[str] = set()
        self.drawing: int | None = None  # a seat drawing its new Fate (a reshuffle first)

    def seen(self, cards: Any, but: int | None = None) -> None:
        for s, out in enumerate(self.out):
            if s != but:
                out.update(cards)

    def step(self, ev: dict[str, Any], places: dict[str, Place]) -> None:
        """``ev`` read; ``places``: where the seat knows hidden cards to be, after it."""
        kind = ev["e"]
        if kind == "reshuffle":  # the discard pile, hidden again in the deck
            self.seen(self.discard, self.drawing)
            self.discard.clear()
            return
        self.drawing = None
        if kind == "deal":
            self.seen((ev["focus"],))
        elif kind in ("bids", "discard_hand", "drew", "saw_hand"):
            self.seen(ev["cards"])
            if kind == "discard_hand":
                self.discard.update(ev["cards"])
        elif kind in ("play", "discard", "take", "received", "gave"):
            self.seen((ev["card"],))
            if kind == "discard":
                self.discard.add(ev["card"])
            elif kind == "take":
                self.discard.discard(ev["card"])
        elif kind == "swap":
            self.seen((ev["gave"], ev["got"]))
        elif kind == "replace_fate":
            # The new Fate is none of the cards known elsewhere now; after a reshuffle it
            # may be any card of the old discard pile, the old Fate too.
            seat = ev["seat"]
            self.out[seat] = set(places)
            self.seen((ev["card"],), seat)
            self.discard.add(ev["card"])
            self.drawing = seat
        elif kind == "artifact":  # the turner's Fate is the old Focus, shown
            self.out[ev["seat"]] = set()
            self.seen((ev["fate"], ev["focus"]), ev["seat"])
        elif kind == "mists":  # each Fate moves on with what rules it out
            seats = ev["seats"]
            moved = [self.out[s] for s in seats]
            for k, s in enumerate(seats):
                self.out[s] = moved[k - 1]


#: The last view read and what it said (every world of a decision reads the same view).
_LAST: list[Any] = [None, None]

#: What :func:`_read` finds: cards known in each other seat's hand, other seats' Fates
#: known, and per seat the cards its Fate cannot be.
Found = tuple[dict[int, list[str]], dict[int, str], list[set[str]]]


def _found(view: dict[str, Any]) -> Found:
    if _LAST[0] is not view:
        _LAST[0], _LAST[1] = view, _read(view)
    found: Found = _LAST[1]
    return found


def known_places(view: dict[str, Any]) -> tuple[dict[int, list[str]], dict[int, str]]:
    """The hidden cards this seat knows the place of: cards in each other seat's hand, and
    other seats' Fates (open Fates, its own cards and public piles are the view's already).
    The result is shared by the calls on one view: not to be changed."""
    hands, fates, _ = _found(view)
    return hands, fates


def ruled_out_fates(view: dict[str, Any]) -> list[set[str]]:
    """Per seat, the cards its Fate cannot be: every card this seat saw out of the Fates
    (the Focus, a bid, a play, the discard pile, a hand) or knew to be elsewhere since that
    Fate came to the seat. A world that deals a seat such a Fate contradicts the view (a
    seat that kept its Fate while the card was the Focus would judge a five holding it
    twice). The Mists move each Fate with what rules it out; a replaced Fate starts afresh.
    Shared by the calls on one view: not to be changed."""
    return _found(view)[2]


def _read(view: dict[str, Any]) -> Found:
    me = view["seat"]
    events = view["events"]
    places: dict[str, Place] = {}
    my_fate: str | None = None  # this seat's Fate, as far as the events tell
    moved: dict[int, int] = {}  # the last Mists: each affected seat's left neighbour
    ruled_out = _RuledOut(view["players"])
    for i, ev in enumerate(events):
        kind = ev["e"]
        if kind in ("play", "discard", "replace_fate", "received"):
            places.pop(ev["card"], None)
            if kind == "replace_fate" and ev["seat"] == me:
                my_fate = None
        elif kind in ("bids", "discard_hand"):
            for card in ev["cards"]:
                places.pop(card, None)
        elif kind in ("new_fate", "fate"):
            was = ev.get("was", my_fate) if kind == "fate" else None
            if was is not None and me in moved:
                places[was] = (True, moved[me])
            my_fate = ev["card"]
            places.pop(my_fate, None)
        elif kind == "artifact":
            places.pop(ev["fate"], None)
            places.pop(ev["focus"], None)
            if ev["seat"] == me:
                my_fate = ev["fate"]
        elif kind == "take":
            places[ev["card"]] = (False, ev["seat"])
        elif kind == "tempter":
            _tempter(places, events, i, me)
        elif kind == "raven":
            _raven(places, events, i, me)
        elif kind == "mists":
            seats = ev["seats"]
            moved = {s: seats[(k + 1) % len(seats)] for k, s in enumerate(seats)}
            for card, (fate, s) in list(places.items()):
                if fate and s in moved:
                    places[card] = (True, moved[s])
        elif kind == "saw_hand":
            for card in ev["cards"]:
                places[card] = (False, ev["target"])
        elif kind == "saw_fates":
            for s, card in ev["fates"].items():
                places[card] = (True, int(s))
        ruled_out.step(ev, places)
    public = set(view["hand"]) | set(view["discard"]) | set(view["open_fates"].values())
    public.update(c for c in (view.get("fate"), view["focus"], view["killed"]) if c)
    hands: dict[int, list[str]] = {}
    fates: dict[int, str] = {}
    for card, (fate, s) in places.items():
        if card in public or s == me:
            continue
        if fate:
            if str(s) not in view["open_fates"]:
                fates[s] = card
        else:
            hands.setdefault(s, []).append(card)
    for s, cards in list(hands.items()):
        if len(cards) > view["hand_sizes"][s]:
            del hands[s]  # the history was read wrongly somewhere: claim nothing of it
    return hands, fates, ruled_out.out
