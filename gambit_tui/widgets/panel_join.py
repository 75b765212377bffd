"""The line between two framed panels stacked into one box: ``├─ title ───┤``.

Where there is no row to spare for a panel's own bottom border (the Fortunes won tricks above
the hand, at 80×24), the upper panel has no bottom border and the lower no top border, and
this line stands between them: it carries the lower panel's title on a border whose ends
join the sides of both, so the two read as one box in two parts, not as one box drawn over
another.
"""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

from .choice_row import ChoiceRow


class PanelJoin(Widget):
    """A border line with the title of the row below it (its look while active included)."""

    DEFAULT_CSS = """
    PanelJoin {
        height: 1;
        color: $primary 50%;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._title: Content = Content("")

    def show_title_of(self, row: ChoiceRow) -> None:
        """Carry ``row``'s title (the row below, drawn without its top border)."""
        title = row.title_content()
        if title is self._title or (
            title.plain == self._title.plain and title.spans == self._title.spans
        ):
            return
        self._title = title
        self.refresh()

    @property
    def title(self) -> Content:
        """The title shown on the line."""
        return self._title

    def render(self) -> Content:
        width = self.size.width
        title = self._title
        if title.cell_length > width - 6:
            title = title.truncate(max(0, width - 6), ellipsis=True)
        head = Content("├─ ") if title.plain else Content("├─")
        tail = " " if title.plain else ""
        fill = max(0, width - head.cell_length - title.cell_length - len(tail) - 1)
        title = title.stylize_before("$foreground") if title.plain else title
        return Content.assemble(head, title, tail + "─" * fill + "┤")
