"""A Fortunes hand: the shared hand row, on two lines when its 19 cards do not fit one.

Everything but the drawing (sorting by the ``sort`` preference, dimming the cards that may not
be played, the cursor, digits, :class:`~gambit_tui.widgets.hand_row.HandRow.Play`) is the
shared row's.
"""

from __future__ import annotations

from rich.text import Text
from textual import events

from .choice_row import digit_range
from .hand_row import HandRow, choice_item


class FortunesHand(HandRow):
    """The shared hand row with room for a second line: a full Fortunes hand (19 cards) fits
    one 80-column line only bare and one space apart, and not at all with suit letters. So
    the row is drawn, of these, the first that fits: every card with its digit on one line;
    every card padded, over two lines; every card bare, over as many lines as it takes."""

    DEFAULT_CSS = """
    FortunesHand {
        height: 4;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: Where each choice was drawn: (line, first cell, last cell + 1), for mouse clicks.
        self._spots: list[tuple[int, int, int]] = []

    def build(self) -> Text:
        if not self.choices:
            return Text(self.placeholder, style="dim")
        width = self.layout_width()
        lines = self._lines(self._items(numbered=self.numbered, padded=True), width, "  ")
        if len(lines) > 1:
            lines = self._lines(self._items(numbered=False, padded=True), width, " ")
        if len(lines) > 2:
            lines = self._lines(self._items(numbered=False, padded=False), width, " ")
        return Text("\n").join(lines)

    def digit_keys(self) -> str:
        """The digits beside the cards, which only the one-line layout shows ("" for a hand
        drawn over two lines or more: 19 cards at 80 columns)."""
        if not self.numbered or not self.choices:
            return ""
        spots = self._spots  # (the layout below remembers its own spots: keep the drawn ones)
        items = self._items(numbered=True, padded=True)
        one_line = len(self._lines(items, self.layout_width(), "  ")) == 1
        self._spots = spots
        return digit_range(len(self.choices)) if one_line else ""

    def _items(self, *, numbered: bool, padded: bool) -> list[Text]:
        """Each choice drawn: its digit (the first ten), dimmed and struck through when it
        may not be picked, in brackets and reverse video under the cursor."""
        return [
            choice_item(choice, i, self.cursor, numbered=numbered, padded=padded)
            for i, choice in enumerate(self.choices)
        ]

    def _lines(self, items: list[Text], width: int, gap: str) -> list[Text]:
        """``items`` broken between cards into lines of at most ``width`` cells."""
        lines: list[Text] = [Text()]
        self._spots = []
        for item in items:
            line = lines[-1]
            if line.cell_len and line.cell_len + len(gap) + item.cell_len > width:
                lines.append(Text())
                line = lines[-1]
            if line.cell_len:
                line.append(gap)
            self._spots.append((len(lines) - 1, line.cell_len, line.cell_len + item.cell_len))
            line.append_text(item)
        return lines

    def on_click(self, event: events.Click) -> None:
        """A click picks the card under it, on whichever line it was drawn; a double click
        on the picked card plays it (as the shared row does on its one line)."""
        event.prevent_default()  # the one-line rows' own handlers would misread the spot
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for index, (line, start, end) in enumerate(self._spots):
            if line == offset.y and start <= offset.x < end:
                if index == self.cursor and event.chain >= 2:
                    self.play()
                else:
                    self.pick(index)
                return
