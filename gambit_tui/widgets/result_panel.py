"""The result of a deal, drawn over the table it belongs to.

A panel on the table screen's own upper layer, not a screen of its own: pushing a dialog
screen and closing it again made Textual compose, style and lay out a new screen, repaint the
whole terminal twice, then lay out and repaint the table again: at the end of every deal,
for every player at the table at once, about 110 ms of the server's time per player. Showing
and hiding a panel repaints the rows it covers. The table around and below it stays in sight
and keeps up with the next deal.
"""

from __future__ import annotations

from rich.text import Text

from .text_lines import TextPanel, retitle

#: The panel is at most this wide (the dialogs' width) ...
WIDTH = 76
#: ... and leaves this many rows of the screen free at the top and bottom.
MARGIN_ROWS = 2


class ResultPanel(TextPanel):
    """Hidden until :meth:`show`; the screen places it (:meth:`place`) and closes it."""

    DEFAULT_CSS = """
    ResultPanel {
        layer: dialog;
        display: none;
        border: round $accent;
        border-title-color: $foreground;
        background: $surface;
        padding: 0 1;
    }
    ResultPanel.-open {
        display: block;
    }
    """

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def show(self, title: str, text: Text) -> None:
        retitle(self, title)
        self.text = text
        self.add_class("-open")
        self.place()

    def close(self) -> None:
        self.remove_class("-open")

    def place(self) -> None:
        """Size the panel to its text and centre it on the screen."""
        width, height = self.screen.size
        lines = len(self.text.plain.split("\n"))
        box_width = max(1, min(WIDTH, width - 2))
        box_height = max(3, min(lines + 2, height - 2 * MARGIN_ROWS))
        styles = self.styles
        styles.width = box_width
        styles.height = box_height
        styles.offset = ((width - box_width) // 2, max(1, (height - box_height) // 2))
