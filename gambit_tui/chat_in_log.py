"""A table's chat lines in its event log, among the moves, where they were said.

A chat line at a table was a notice (a toast) on the screen of every player whose chat was
closed: Textual mounts a widget for it and lays the whole screen out again, as it comes and
as it goes, which cost each of them about three moves' worth of drawing (docs/benchmarks.md,
"What a table's chat costs"). In the log it is one more line, drawn as a move's line is, and
the same line object for every app of the process (:func:`chat_line`), so the log's tail is
made once for the players who see the same (gambit_tui/shared_lines.py).

Every line said goes in, the player's own and spectators' too (the hub sends a table's chat
to those who may read it): the log is the table's record, and a conversation read with one
side missing makes no sense. It shows when the chat panel is closed (an open panel takes the
log's place), and the panel keeps every line as before.

A chat line stays after the log lines there were when it came, and the moves after it come
below it. The log's own lines are made anew with every table message, and sometimes start
later than before (a new game's, or old rounds let go of): :class:`ChatInLog` keeps each line
said at its place in the log counted from the screen's start, and learns how the new lines
line up with the last ones by their identity (equal log lines are one object:
gambit_tui/event_lines.py).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from rich.text import Text

from gambit_tui.shared_memos import shared_memo

#: The most of a chat line the log shows, name and all (two rows at 80 columns): a long line
#: would push the moves out of the log; the chat panel (c) shows it whole.
SHOWN_CHARS = 140
#: Chat lines kept in a log (the oldest go first; the chat panel keeps more).
KEPT = 50
#: What a cut line ends with.
CUT = "…"

#: Lines made, by sender and text, for every app in the process (at most ``SHARED``).
_made: dict[tuple[str, str], Text] = shared_memo("chat lines", {})
SHARED = 1024


def printable(text: str) -> str:
    """``text`` without control characters (the hub takes them out of chat already; a line
    from elsewhere, a moved app's state, must not carry a terminal command either)."""
    return text if text.isprintable() else "".join(ch for ch in text if ch.isprintable())


def chat_line(sender: str, text: str) -> Text:
    """A chat line as the log shows it: "Name: text", the name in bold and the text in
    italics (no move's line reads so); never markup. One object per sender and text for
    every app in the process."""
    key = (sender, text)
    line = _made.get(key)
    if line is None:
        name = printable(sender)
        said = cut(printable(text), SHOWN_CHARS - len(name) - 2)
        line = Text()
        line.append(name, style="bold")
        line.append(": ")
        line.append(said, style="italic")
        _made[key] = line
        if len(_made) > SHARED:
            del _made[next(iter(_made))]
    return line


def cut(text: str, most: int) -> str:
    """``text`` if it has at most ``most`` characters, else its start ending in :data:`CUT`,
    after a whole word when one ends near the cut."""
    if len(text) <= most:
        return text
    start = text[: max(1, most - 1)]
    space = start.rfind(" ")
    if space > 0 and space >= len(start) - 20:
        start = start[:space]
    return start.rstrip() + CUT


def gone_before(last: list[Text], lines: list[Text]) -> int:
    """How many of the ``last`` log lines are no longer at the start of ``lines``, the next
    log: 0 while the log only grows (or its lines were made anew, in another language, the
    same number or more of them); ``k`` when ``lines`` goes on from ``last[k:]`` (old rounds
    let go of); ``len(last)`` when it starts afresh (a new game)."""
    n = len(last)
    if not n or (len(lines) >= n and lines[n - 1] is last[-1]):
        return 0
    if lines:
        first = lines[0]
        for k in range(1, n):
            overlap = n - k
            if (
                last[k] is first
                and len(lines) >= overlap
                and all(a is b for a, b in zip(last[k:], lines[:overlap], strict=True))
            ):
                return k
    return 0 if len(lines) >= n else n


class ChatInLog:
    """The chat lines of one table's log, each at its place: after the log line it came
    after, counted from the start of the screen's log (its first line ever is 0)."""

    def __init__(self) -> None:
        #: (place, sender, text), oldest first: places never go down.
        self._said: deque[tuple[int, str, str]] = deque(maxlen=KEPT)
        #: The log's lines last shown, and the place of the first of them.
        self._last: list[Text] = []
        self._first = 0
        #: Lines a moved app handed over, by how many log lines came after each (see
        #: :meth:`take_over`), placed when the first log comes.
        self._handed: list[tuple[int, str, str]] = []

    def said(self, sender: str, text: str) -> None:
        """A line said now: after every log line there is."""
        self._said.append((self._first + len(self._last), sender, text))

    def lines(self, log: list[Text]) -> list[Text]:
        """``log`` (the events' lines, oldest first) with the chat lines said among them;
        ``log`` itself while no line was said."""
        self._first += gone_before(self._last, log)
        self._last = log
        if self._handed:
            end = self._first + len(log)
            handed = [(max(self._first, end - after), s, t) for after, s, t in self._handed]
            self._said = deque([*handed, *self._said], maxlen=KEPT)
            self._handed = []
        if not self._said:
            return log
        out: list[Text] = []
        shown = 0
        for place, sender, text in self._said:
            at = min(len(log), max(0, place - self._first))
            if at > shown:
                out.extend(log[shown:at])
                shown = at
            out.append(chat_line(sender, text))
        out.extend(log[shown:])
        return out

    def hand_over(self) -> list[list[Any]]:
        """The lines said, for a new app (plain data): each with how many log lines came
        after it."""
        end = self._first + len(self._last)
        return [[end - place, sender, text] for place, sender, text in self._said]

    def take_over(self, said: Iterable[Any]) -> None:
        """The lines an old app handed over (:meth:`hand_over`): they keep as many log lines
        after them as the new log has (a log that starts later puts them at its top)."""
        self._handed = [(int(after), str(sender), str(text)) for after, sender, text in said]
