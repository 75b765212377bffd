"""Log lines made once per event: every table message repeats all the earlier events of the
deal, and formatting them all again after each move was a tenth of a table's redraw.

A line depends on the event and the context only (the card style, the names at the table, the
language's catalog), never on who reads it: the players at a table, whose apps share a worker
process, get each new event's line made once for all of them (:data:`_shared`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

from rich.errors import StyleSyntaxError
from rich.style import Style
from rich.text import Span, Text

from gambit_tui.shared_memos import shared_memo

#: Lines already made, for every app in the process, by context and the event's ``repr``
#: (at most ``SHARED_LINES``, the oldest made go first). Lines are never changed once made.
_shared: dict[tuple[Hashable, str], Text | None] = shared_memo("event lines", {})
SHARED_LINES = 4096
#: Each line made, by its text and styles (see ``_one_of_its_kind``); as bounded.
_alike: dict[tuple[object, ...], Text] = shared_memo("alike lines", {})
_MISSING = Text()  # (a sentinel: never one of the lines kept)


class EventLines:
    """Remembers each event's line, for as long as what the lines depend on (``context``: the
    card style, the names at the table, the catalog) stays the same."""

    def __init__(self) -> None:
        #: By the event's ``id``: the event itself (kept, so the id is not reused meanwhile)
        #: and its line. A table message's events are the last message's own objects, but
        #: for the new ones (``protocol.event_log.expand`` copies only what a delta changes):
        #: most are found without writing them out (``repr``) at all.
        self._made: dict[int, tuple[dict[str, Any], Text | None]] = {}
        self._context: Hashable = None

    def lines(
        self,
        events: Iterable[dict[str, Any]],
        make: Callable[[dict[str, Any]], Text | None],
        context: Hashable,
    ) -> list[Text]:
        """The lines of ``events`` (an event ``make`` gives no line for is left out). ``make``
        must draw an event from it and ``context`` alone: its lines are shared."""
        if context != self._context:
            self._made.clear()
            self._context = context
        known = self._made
        made: dict[int, tuple[dict[str, Any], Text | None]] = {}
        out: list[Text] = []
        for event in events:
            entry = known.get(id(event))
            if entry is not None and entry[0] is event:
                line = entry[1]
            else:
                line = _line(event, make, context)
            made[id(event)] = (event, line)
            if line is not None:
                out.append(line)
        self._made = made  # only this message's events: the memory stays one deal long
        return out


def _line(
    event: dict[str, Any], make: Callable[[dict[str, Any]], Text | None], context: Hashable
) -> Text | None:
    """``event``'s line, made by ``make`` unless another app made it already."""
    key = (context, repr(event))
    line = _shared.get(key, _MISSING)
    if line is _MISSING:
        line = _shared[key] = _one_of_its_kind(make(event))
        if len(_shared) > SHARED_LINES:
            del _shared[next(iter(_shared))]
    return line


def _one_of_its_kind(line: Text | None) -> Text | None:
    """The line made already if an equal one was (events that differ for each seat may
    read alike): equal lines are one object, so a log's shown tail, keyed by its lines'
    ids, is shared by the players who see the same (gambit_tui/shared_lines.py)."""
    if line is None:
        return None
    key = (line.plain, str(line.style), *line.spans)
    found = _alike.get(key)
    if found is not None:
        return found
    _alike[key] = line
    if len(_alike) > SHARED_LINES:
        del _alike[next(iter(_alike))]
    return line


def line_data(line: Text) -> list[Any]:
    """``line`` as plain data (msgpack), for a moved app (gambit_tui/resume.py): its text,
    its style and its spans, each style as written (a ``Style`` as the words that parse to it)."""
    spans = [[s.start, s.end, str(s.style), isinstance(s.style, str)] for s in line.spans]
    return [line.plain, str(line.style), isinstance(line.style, str), spans]


def line_of(data: Any) -> Text | None:
    """The line :func:`line_data` made ``data`` of, the very object an equal line made in this
    process is (see :func:`_one_of_its_kind`); None for data that is not such a line. A line
    with a control character (from a moved app's state: never a terminal command) loses it
    and its styles."""
    try:
        plain, style, style_is_str, spans = data
        made = [
            Span(int(start), int(end), str(s) if is_str else Style.parse(str(s)))
            for start, end, s, is_str in spans
        ]
        base: str | Style = str(style) if style_is_str else Style.parse(str(style))
    except (TypeError, ValueError, StyleSyntaxError):
        return None
    text = str(plain)
    if not text.isprintable():
        return Text("".join(ch for ch in text if ch.isprintable()))
    return _one_of_its_kind(Text(text, style=base, spans=made))
