"""The line between two framed panels stacked into one box: ``├─ title ───┤``.

Where there is no row to spare for a panel's own bottom border (the Fortunes won tricks above
the hand, at 80×24), the upper panel has no bottom border and the lower no top border, and
this line stands between them: it carries the lower panel's title on a border whose ends
join the sides of both, so the two read as one box in two parts, not as one box drawn over
another.

At its right end it may carry a line said at the table, when the panel above has no row for
it (the Fortunes won tricks at 80x24 while a card is to be played): one row already there,
drawn again alone, where a notice would lay the whole screen out again as it came and went.
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.widget import Widget

from ..chat_in_log import CUT, cut
from ..shared_lines import SharedCache
from .choice_row import ChoiceRow

#: The fewest cells a line said is shown in (less reads as nothing: the chat panel has it).
SAID_LEAST = 12
#: A chat line made into the line's content, once for every app in the process, by the id of
#: the (shared) line: the value keeps the line, so its id is not reused meanwhile.
SAID_MADE: SharedCache[tuple[Text, Content]] = SharedCache(256)


def said_content(line: Text) -> Content:
    """``line`` (a chat line, gambit_tui/chat_in_log.py) as the join shows it."""
    made = SAID_MADE.get(id(line))
    if made is None or made[0] is not line:
        made = SAID_MADE.put(id(line), (line, Content.from_rich_text(line)))
    return made[1]


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
        self._said: Text | None = None

    def show_title_of(self, row: ChoiceRow) -> None:
        """Carry ``row``'s title (the row below, drawn without its top border)."""
        title = row.title_content()
        if title is self._title or (
            title.plain == self._title.plain and title.spans == self._title.spans
        ):
            return
        self._title = title
        self.refresh()

    def show_said(self, line: Text | None) -> None:
        """Carry ``line`` (a line said at the table) at the right end, or none."""
        if line is self._said:
            return
        self._said = line
        self.refresh()

    @property
    def title(self) -> Content:
        """The title shown on the line."""
        return self._title

    @property
    def said(self) -> Text | None:
        """The line said the join carries (shown when it has room)."""
        return self._said

    def render(self) -> Content:
        width = self.size.width
        title = self._title
        if title.cell_length > width - 6:
            title = title.truncate(max(0, width - 6), ellipsis=True)
        head = Content("├─ ") if title.plain else Content("├─")
        tail = " " if title.plain else ""
        # (three cells of border at least between the title and the line said: "─ ... ─┤")
        said = self._said_shown(width - head.cell_length - title.cell_length - len(tail) - 7)
        end = Content.assemble(" ", said, " ─┤") if said is not None else Content("┤")
        fill = max(0, width - head.cell_length - title.cell_length - len(tail) - end.cell_length)
        title = title.stylize_before("$foreground") if title.plain else title
        return Content.assemble(head, title, tail + "─" * fill, end)

    def _said_shown(self, room: int) -> Content | None:
        """The line said, in at most ``room`` cells, cut after a word as the won tricks' box
        cuts it; None when there is none or too little room."""
        if self._said is None or room < SAID_LEAST:
            return None
        said = said_content(self._said)
        if said.cell_length > room:
            kept = cut(said.plain, room)
            said = said[: len(kept) - len(CUT)] + CUT
            if said.cell_length > room:  # (wide characters)
                said = said.truncate(room, ellipsis=True)
        return said.stylize_before("$foreground")
