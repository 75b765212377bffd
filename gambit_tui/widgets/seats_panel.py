"""What every table's seats panel shares: its frame and what the screen sets on it."""

from __future__ import annotations

from typing import Any

from ..cards import CardStyle
from .text_lines import TextLines, shown


class SeatsPanel(TextLines):
    """The seats of a table in a framed panel. Everything comes from the table message the
    screen sets; timers come as seconds left per seat, counted down by the screen."""

    DEFAULT_CSS = """
    SeatsPanel {
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
    timers: shown[dict[int, float]] = shown(dict, always_update=True)
    """Seconds left on each seat's turn timer."""
