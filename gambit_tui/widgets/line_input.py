"""A one-line text box whose typing repaints the box, not the whole screen."""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Input


class LineInput(Input):
    """Textual's Input, without a layout of the whole screen on every key.

    Input records the width of its text as its virtual size on every change, and the virtual
    size is a layout reactive: each key laid the screen out again (in a busy lobby the most
    expensive thing typing did). The box keeps its size and the text scrolls inside it, so the
    virtual size is set quietly and a repaint of the box is enough.
    """

    def _watch_value(self, value: str) -> None:
        self.set_reactive(Widget.virtual_size, Size(self.content_width, 1))
        self.refresh()
        super()._watch_value(value)  # the virtual size is equal now: no layout
