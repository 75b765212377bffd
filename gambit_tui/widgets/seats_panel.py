"""What a table's framed panels share (the seats, the Fortunes deal): the frame and what the
screen sets on them."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from ..cards import CardStyle
from .text_lines import TextLines, shown


class TablePanel(TextLines):
    """A framed panel of a table's screen, drawn from the table message the screen sets."""

    DEFAULT_CSS = """
    TablePanel {
        border: round $primary 50%;
        border-title-color: $foreground;
        height: 100%;
        width: 1fr;
        padding: 0 1;
    }
    """

    message: shown[dict[str, Any] | None] = shown(None, always_update=True)
    """The last ``table`` message of this table."""
    style: shown[CardStyle] = shown(CardStyle)
    """How to draw cards."""


class SeatsPanel(TablePanel):
    """The seats of a table. Timers come as seconds left per seat, counted down by the
    screen."""

    timers: shown[dict[int, float]] = shown(dict, always_update=True)
    """Seconds left on each seat's turn timer."""

    def timer_text(self, seat: int) -> Text:
        """The seconds left on ``seat``'s turn timer, red in the last ten."""
        left = self.timers.get(seat)
        if left is None:
            return Text("")
        return Text(f"{int(left + 0.999)}s", style="bold" if left > 10 else "bold red")
