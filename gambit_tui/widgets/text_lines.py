"""A widget drawn from a rich ``Text``, a line at a time, converted only when it changed.

Under load the server draws every table for every seated player after every move, all in one
process, and Textual's general path for a widget's ``render()`` (a Visual, then Content, then
wrapping and formatting) cost 0.3–0.5 ms per line. Table widgets hold short, unwrapped lines,
so this class turns their text into strips directly (Textual's Line API) and keeps them until
the text, the width or the widget's own style changes.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget


class TextLines(Widget):
    """Subclasses write :meth:`build` (what ``render`` would return: a ``Text`` of lines)."""

    #: Wrap lines longer than the widget (otherwise they are cropped).
    WRAP = False

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._text: Text | None = None
        self._key: tuple[int, Style] | None = None
        self._strips: list[Strip] = []
        self._look: tuple[object, ...] | None = None
        self._drawn: list[Strip] = []

    def build(self) -> Text:
        """The widget's content: one line of the widget per line of text (no wrapping)."""
        return Text()

    def render_lines(self, crop: Region) -> list[Strip]:
        text = self.build()
        key = (self.size.width, self.rich_style)
        styles = self.styles
        # Everything else the finished lines depend on: a change of class or focus shows here.
        look = (crop, self.size, styles.border, styles.padding, self.border_title)
        if text == self._text and key == self._key and look == self._look:
            # Refreshed, but nothing shown changed (a move elsewhere at the table): the lines
            # with their border and padding are the ones drawn last time.
            return self._drawn
        if key != self._key or text != self._text:
            self._text, self._key = text, key
            self._strips = self._to_strips(text, *key)
        self._look = look
        self._drawn = super().render_lines(crop)
        return self._drawn

    def _to_strips(self, text: Text, width: int, base: Style) -> list[Strip]:
        console = self.app.console
        strips = []
        lines = text.split("\n", allow_blank=True)
        if self.WRAP:
            lines = [part for line in lines for part in line.wrap(console, max(1, width))]
        for line in lines:
            strip = Strip(line.render(console, end=""))
            strips.append(strip.crop_extend(0, width, base).apply_style(base))
        return strips

    def render_line(self, y: int) -> Strip:
        if y < len(self._strips):
            return self._strips[y]
        return Strip.blank(self.size.width, self.rich_style)


class TextPanel(TextLines):
    """A ``Static`` for text that changes often: set :attr:`text`; an equal text repaints
    nothing, and a change never asks for a new layout (the panel's size is set by CSS)."""

    def __init__(
        self, *, wrap: bool = False, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.WRAP = wrap
        self._content = Text()

    @property
    def text(self) -> Text:
        return self._content

    @text.setter
    def text(self, value: Text | str) -> None:
        value = Text(value) if isinstance(value, str) else value
        if value != self._content:
            self._content = value
            self.refresh()

    def build(self) -> Text:
        return self._content
