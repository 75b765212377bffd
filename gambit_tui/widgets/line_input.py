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

    The typed text is drawn as soon as the key is handled (the screen's ``draw_now``), not
    at Textual's next frame: a key echoes without waiting behind other apps' work.
    """

    def _watch_value(self, value: str) -> None:
        self.set_reactive(Widget.virtual_size, Size(self.content_width, 1))
        self.refresh()
        super()._watch_value(value)  # the virtual size is equal now: no layout
        self.call_next(self._draw_now)

    def _draw_now(self) -> None:
        draw = getattr(self.screen, "draw_now", None) if self.is_attached else None
        if draw is not None:
            draw()
