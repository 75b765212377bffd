"""Log lines made once per event: every table message repeats all the earlier events of the
deal, and formatting them all again after each move was a tenth of a table's redraw."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

from rich.text import Text


class EventLines:
    """Remembers each event's line, for as long as what the lines depend on (``context``: the
    card style, the names at the table) stays the same."""

    def __init__(self) -> None:
        self._made: dict[str, Text | None] = {}
        self._context: Hashable = None

    def lines(
        self,
        events: Iterable[dict[str, Any]],
        make: Callable[[dict[str, Any]], Text | None],
        context: Hashable,
    ) -> list[Text]:
        """The lines of ``events`` (an event ``make`` gives no line for is left out)."""
        if context != self._context:
            self._made.clear()
            self._context = context
        known = self._made
        made: dict[str, Text | None] = {}
        out: list[Text] = []
        for event in events:
            key = repr(event)
            line = known[key] if key in known else make(event)
            made[key] = line
            if line is not None:
                out.append(line)
        self._made = made  # only this message's events: the memory stays one deal long
        return out
