"""The table's event log: the latest things that happened, newest at the bottom."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ..i18n import _


class EventLog(Widget):
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

    lines: reactive[list[Text]] = reactive(list)
    """Every line of the deal so far (an equal list repaints nothing)."""

    def on_mount(self) -> None:
        self.border_title = _("Log")

    def render(self) -> Text:
        height = max(1, self.content_size.height)
        width = max(1, self.content_size.width)
        shown: list[Text] = []
        used = 0
        for line in reversed(self.lines):
            rows = max(1, -(-line.cell_len // width))
            if used + rows > height:
                break
            shown.append(line)
            used += rows
        return Text("\n").join(reversed(shown))
