"""The plain mode's short verbosity (``set verbosity short``): a busy table said in fewer
sentences.

A trick is said once, when it is won, as one sentence naming each card and who played it
("Trick 3 to Anna: Bob 7 of Wands, Cy Knight of Wands, Anna Ace of Wands."), instead of one
sentence per card. When the player must play into a trick under way, the cards played so far
come first, in one sentence, so nothing needed to decide is missing. A play that changes what
may be played (a Fortunes flip, the Stars set free) is still said at once, in full. Every other
event is said as in full verbosity. Which chatter is left out (other tables', spectators') is
decided by the client (``settings.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..i18n import _, ngettext

#: Each game's event that ends a trick.
TRICK_ENDS = {"prophet": "trick_won", "fortunes": "trick"}


class ShortTricks:
    """The cards of each table's trick under way, gathered until the trick is won."""

    def __init__(self) -> None:
        #: Per table: "Bob 7 of Wands" for each card of the trick under way.
        self._plays: dict[int, list[str]] = {}

    def lines(
        self,
        table_id: int,
        game: str,
        events: list[dict[str, Any]],
        start: int,
        names: Callable[[int], str],
        card: Callable[[str | None], str],
        full: Callable[[dict[str, Any]], str | None],
    ) -> list[str]:
        """The sentences for ``events[start:]`` (the new ones of a view whose whole window is
        ``events``); ``full`` says one event as full verbosity does (None: not worth a line)."""
        ends = TRICK_ENDS.get(game)
        out: list[str] = []
        for i in range(start, len(events)):
            ev = events[i]
            kind = ev.get("e")
            if ends is None:
                said = full(ev)
            elif kind == "play":
                plays = self._plays.setdefault(table_id, [])
                plays.append(f"{names(ev['seat'])} {card(ev.get('card'))}")
                said = full(ev) if ev.get("flip") or ev.get("stars_free") else None
            elif kind == ends:
                seat = ev["winner"] if kind == "trick" else ev["seat"]
                plays = self._plays.pop(table_id, [])
                said = self._trick(ev, _trick_number(events, i, ends), names(seat), plays)
            else:
                if kind == "deal":
                    self._plays.pop(table_id, None)
                said = full(ev)
            if said:
                out.append(said)
        return out

    @staticmethod
    def _trick(ev: dict[str, Any], n: int | None, winner: str, plays: list[str]) -> str:
        cards = ", ".join(plays)
        if "points" in ev:  # (Fortunes: the trick's points count)
            points = int(ev["points"])
            return ngettext(
                "Trick {n} to {name}: {cards}; {points} point.",
                "Trick {n} to {name}: {cards}; {points} points.",
                points,
            ).format(n=ev.get("n", n), name=winner, cards=cards, points=points)
        if n is None:
            return _("The trick goes to {name}: {cards}.").format(name=winner, cards=cards)
        return _("Trick {n} to {name}: {cards}.").format(n=n, name=winner, cards=cards)

    def so_far(self, table_id: int) -> str | None:
        """The trick under way at a table, in one sentence (None: no card is down)."""
        plays = self._plays.get(table_id)
        if not plays:
            return None
        return _("So far in this trick: {cards}.").format(cards=", ".join(plays))

    def forget(self, table_id: int) -> None:
        self._plays.pop(table_id, None)


def _trick_number(events: list[dict[str, Any]], at: int, ends: str) -> int | None:
    """Which trick of its deal ``events[at]`` ends (None when the window does not reach back
    to the deal)."""
    n = 0
    for ev in reversed(events[: at + 1]):
        if ev.get("e") == ends:
            n += 1
        elif ev.get("e") == "deal":
            return n
    return None
