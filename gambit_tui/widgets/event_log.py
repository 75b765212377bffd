"""The table's event log: the latest things that happened, newest at the bottom."""

from __future__ import annotations

from rich.text import Text

from ..i18n import _
from ..shared_lines import LOG_TAILS, SharedList
from .text_lines import TextLines, shown


class EventLog(TextLines):
    """Shows the tail of the deal's events that fits, and the table's chat lines said among
    them (gambit_tui/chat_in_log.py). The whole deal's events come with every table message,
    so the log is rebuilt rather than appended (a reconnect loses nothing)."""

    DEFAULT_CSS = """
    EventLog {
        border: round $primary 50%;
        border-title-color: $foreground;
        height: 1fr;
        padding: 0 1;
    }
    """

    lines: shown[list[Text]] = shown(list)
    """Every line of the deal so far (an equal list repaints nothing)."""

    def on_mount(self) -> None:
        self.border_title = _("Log")

    def build(self) -> list[Text]:
        height = max(1, self.content_size.height)
        width = max(1, self.content_size.width)
        # The lines that may show (each takes a row at least): the same objects for every
        # player of the table in the same language (gambit_tui/event_lines.py), so the tail
        # is made once for all of them (gambit_tui/shared_lines.py).
        candidates = tuple(self.lines[-height:])
        key = (tuple(map(id, candidates)), width, height)
        found = LOG_TAILS.get(key)
        if found is not None:
            return found[1]
        return LOG_TAILS.put(key, (candidates, SharedList(self._tail(width, height))))[1]

    def _tail(self, width: int, height: int) -> list[Text]:
        """The last lines that fit, wrapped at ``width``."""
        console = self.app.console
        shown: list[Text] = []
        for line in reversed(self.lines):
            rows = list(line.wrap(console, width)) if line.cell_len > width else [line]
            if len(shown) + len(rows) > height:
                break
            shown.extend(reversed(rows))
        return shown[::-1]
