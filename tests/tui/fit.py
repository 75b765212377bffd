"""What a screen means to show against what it shows: finds text cut at the terminal's size.

Each widget on the top screen is asked what it was given (a Static's content, a line widget's
lines, a table's column labels and cells, a drop-down's options, a border title, the footer's
keys), and that text is looked for, whole, in the cells the widget covers on the screen.
A label cut at its right edge, a table column pushed out of sight, a line that ends in "…"
where the widget was given more, a drop-down list drawn past its dialog's border: each is a
problem, named with the widget and the text it lost.
"""

from __future__ import annotations

from bisect import bisect_left

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.app import App
from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, OptionList, Select, Static
from textual.widgets._select import SelectOverlay

from gambit_tui.widgets.footer import GambitFooter
from gambit_tui.widgets.status_bar import StatusBar
from gambit_tui.widgets.text_lines import TextLines

#: Line widgets that show the end of what they hold by design (a log shows its newest lines).
TAILS = ("EventLog",)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _plain(content: object) -> str:
    if isinstance(content, Text):
        return content.plain
    if isinstance(content, str):
        return Content.from_markup(content).plain
    plain = getattr(content, "plain", None)
    return plain if isinstance(plain, str) else str(content)


def _table_texts(table: Table) -> list[str]:
    """A rich table's headers and cells."""
    texts = []
    for column in table.columns:
        for cell in [column.header, *column._cells]:
            if isinstance(cell, Table):
                texts.extend(_table_texts(cell))
            else:
                texts.append(_plain(cell))
    return [text for text in texts if text.strip()]


def _in_front(visible: dict[Widget, tuple[Region, Region]]) -> dict[Widget, list[Region]]:
    """For each widget, the regions of widgets on a higher layer or overlay drawn over it
    (a result panel over a table, a drop-down's list): the widget is not checked there."""
    order = list(visible)  # front-most first
    over: dict[Widget, list[Region]] = {}
    lifted: list[Widget] = []  # those of the widgets so far on a higher layer or overlay
    for widget in order:
        region = visible[widget][0]
        for front in lifted:
            if front in widget.ancestors or widget in front.ancestors:
                continue
            if front.region.overlaps(region):
                over.setdefault(widget, []).append(front.region)
        if widget.styles.layer not in ("", "default") or widget.styles.overlay == "screen":
            lifted.append(widget)
    return over


class ScreenCells:
    """The top screen's cells as text, row by row."""

    def __init__(self, app: App) -> None:
        strips = app.screen._compositor.render_strips()
        self.rows = [strip.text for strip in strips]
        #: Each row's cell where each of its characters starts (made when first asked).
        self._starts: list[list[int] | None] = [None] * len(self.rows)

    def _cell_starts(self, y: int) -> list[int]:
        starts = self._starts[y]
        if starts is None:
            # Cells, not characters: a wide character takes two.
            starts, cells = [], 0
            for ch in self.rows[y]:
                starts.append(cells)
                cells += cell_len(ch)
            self._starts[y] = starts
        return starts

    def region(self, region: Region) -> list[str]:
        """The characters of ``region``, row by row: those that start in its columns."""
        out = []
        for y in range(max(region.y, 0), min(region.bottom, len(self.rows))):
            starts = self._cell_starts(y)
            first = bisect_left(starts, region.x)
            out.append(self.rows[y][first : bisect_left(starts, region.right, first)])
        return out

    def shows(self, region: Region, wanted: str) -> bool:
        """Whether ``wanted`` (its words, in order, however wrapped) is in ``region``."""
        wanted = _flat(wanted)
        return not wanted or wanted in _flat(" ".join(self.region(region)))


def _visible(app: App) -> dict[Widget, tuple[Region, Region]]:
    """The top screen's widgets in sight: their region and the region they are clipped to."""
    return dict(app.screen._compositor.visible_widgets)


def cuts(app: App) -> list[str]:
    """Every text a widget on the top screen was given that the screen does not show whole."""
    cells = ScreenCells(app)
    problems: list[str] = []
    visible = _visible(app)
    covered = _in_front(visible)

    def lost(widget: Widget, text: str, what: str = "") -> None:
        name = type(widget).__name__ + (f"#{widget.id}" if widget.id else "")
        problems.append(f"{name}{what}: {text!r}")

    for widget, (region, clip) in visible.items():
        if not widget.display or region.area == 0 or widget in covered:
            continue
        content = widget.content_region
        shown = content.intersection(clip)
        # In a view scrolled up and down only the width matters; clipped elsewhere, it is cut.
        scrolled = shown.height < content.height and _scrolls(widget)
        title = widget.border_title
        if title and widget.styles.border_top[0]:
            top = Region(region.x, region.y, region.width, 1)
            if not cells.shows(top, _plain(title)):
                lost(widget, _plain(title), " (title)")
        if isinstance(widget, SelectOverlay) and widget.display:
            frame = _dialog_of(widget)
            if frame is not None and not frame.region.contains_region(region):
                lost(widget, f"drawn at {region}, outside {frame.region}", " (past the dialog)")
        # Where the player is, or the turn clock that stands in its place while a table of
        # theirs is out of sight.
        place = widget.turn or widget.context if isinstance(widget, StatusBar) else ""
        if isinstance(widget, StatusBar) and not cells.shows(region, place):
            lost(widget, place, " (place)")
        if isinstance(widget, TextLines):
            lines = [line.plain.rstrip() for line in widget._shown_lines]
            while lines and not lines[-1]:
                lines.pop()
            if type(widget).__name__ in TAILS:
                continue
            for line in lines:
                if cell_len(line) > content.width:
                    lost(widget, line)
            if len(lines) > content.height and not scrolled:
                lost(widget, " / ".join(lines[content.height :]), " (below)")
        elif isinstance(widget, GambitFooter):
            for item in widget.items:
                label = widget._label(item)
                if not cells.shows(region, label):
                    lost(widget, label)
        elif isinstance(widget, DataTable):
            head = Region(content.x, content.y, content.width, 1)
            for column in widget.columns.values():
                if not cells.shows(head, _plain(column.label)):
                    lost(widget, _plain(column.label), " (column)")
            for row_index in range(widget.row_count):
                y = content.y + 1 + row_index - int(widget.scroll_y)
                if not content.y < y < content.bottom:
                    continue
                row_region = Region(content.x, y, content.width, 1)
                for value in widget.get_row_at(row_index):
                    if not cells.shows(row_region, _plain(value)):
                        lost(widget, _plain(value), f" (row {row_index})")
        elif isinstance(widget, OptionList) and not widget.allow_vertical_scroll:
            for index in range(widget.option_count):
                prompt = _plain(widget.get_option_at_index(index).prompt)
                if not cells.shows(shown, prompt):
                    lost(widget, prompt, " (option)")
        elif isinstance(widget, Input):
            text = widget.value or _plain(widget.placeholder)
            if text and not cells.shows(shown, text[: content.width]):
                lost(widget, text)
            if widget.value and cell_len(widget.value) >= content.width:
                lost(widget, widget.value, " (longer than the field)")
            elif not widget.value and cell_len(_plain(widget.placeholder)) > content.width:
                lost(widget, _plain(widget.placeholder), " (placeholder)")
        elif isinstance(widget, Button):
            if not cells.shows(shown, _plain(widget.label)):
                lost(widget, _plain(widget.label))
        elif isinstance(widget, Static) and isinstance(widget.content, Table):
            for text in _table_texts(widget.content):
                if not scrolled and not cells.shows(shown, text):
                    lost(widget, text, " (cell)")
        elif isinstance(widget, Static):
            text = _plain(widget.content)
            if scrolled:
                for line in text.splitlines():
                    if cell_len(line) > content.width and widget.styles.text_wrap == "nowrap":
                        lost(widget, line)
            elif not cells.shows(shown, text):
                lost(widget, text)
    problems.extend(_ellipses(app, cells))
    return problems


def _ellipses(app: App, cells: ScreenCells) -> list[str]:
    """A "…" right after a word, anywhere on the screen, is text cut short, unless the
    player's language writes it there ("Loading…"). So is a "…" after a space with nothing
    after it up to the next border or the row's end ("Deck 9 · High …": a value cut between
    words); a "…" with more after it stands for what was left out ("│ … ★3✓": older tricks)."""
    catalog = getattr(app, "translations", None)
    meant = [m for m in getattr(catalog, "_catalog", {}).values() if isinstance(m, str)]
    meant = [m.split("{")[-1].split("}")[-1] for m in meant if m.endswith("…")]
    found = []
    for row in cells.rows:
        for index, ch in enumerate(row):
            if ch != "…" or index == 0 or row[index - 1] in "│|":
                continue
            if row[index - 1] == " ":
                rest = row[index + 1 :]
                ends = [at for at in (rest.find("│"), rest.find("|")) if at >= 0]
                if rest[: min(ends, default=len(rest))].strip():
                    continue
            before = row[: index + 1]
            if not any(m and before.endswith(m) for m in meant):
                found.append(f"cut with an ellipsis: {row.strip()!r}")
    return found


def _scrolls(widget: Widget) -> bool:
    """Whether ``widget`` is inside a view that scrolls up and down (its text can be seen)."""
    return (
        any(isinstance(node, Widget) and node.allow_vertical_scroll for node in widget.ancestors)
        or widget.allow_vertical_scroll
    )


def _dialog_of(widget: Widget) -> Widget | None:
    """The dialog (a bordered container with the ``dialog`` class) holding ``widget``."""
    for node in widget.ancestors:
        if isinstance(node, Widget) and node.has_class("dialog"):
            return node
    return None


def select_fields(app: App) -> list[Select]:
    return list(app.screen.query(Select))
