"""The table's event log: the latest things that happened, newest at the bottom."""

from __future__ import annotations

from rich.text import Text

from ..i18n import _
from .text_lines import TextLines, shown


class EventLog(TextLines):
    """Shows the tail of the deal's events that fits. The whole deal's events come with every
    table message, so the log is rebuilt rather than appended (a reconnect loses nothing)."""

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
        console = self.app.console
        shown: list[Text] = []
        for line in reversed(self.lines):
            rows = list(line.wrap(console, width)) if line.cell_len > width else [line]
            if len(shown) + len(rows) > height:
                break
            shown.extend(reversed(rows))
        return shown[::-1]
