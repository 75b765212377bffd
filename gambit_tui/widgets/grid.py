"""Rows of cells in aligned columns, as one ``Text``.

Rich's ``Table.grid`` measures every cell twice and renders through several layers; a table
screen repaints its seats after every move, for every player at the table, all in one server
process. A grid of short, no-wrap cells only needs each column's widest cell.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text


def grid_text(
    rows: Sequence[Sequence[Text | str]],
    *,
    gap: int = 1,
    min_widths: Sequence[int] = (),
    max_widths: Sequence[int | None] = (),
    styles: Sequence[str] = (),
) -> Text:
    """``rows`` as lines of columns ``gap`` cells apart; a cell wider than its column's
    ``max_widths`` entry ends in an ellipsis, ``styles`` style a whole column."""
    cells = [[cell if isinstance(cell, Text) else Text(cell) for cell in row] for row in rows]
    columns = max((len(row) for row in cells), default=0)
    widths = [0] * columns
    for row in cells:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], cell.cell_len)
    for index in range(columns):
        if index < len(min_widths):
            widths[index] = max(widths[index], min_widths[index])
        if index < len(max_widths) and max_widths[index] is not None:
            widths[index] = min(widths[index], max_widths[index])
    out = Text(no_wrap=True, end="")
    for number, row in enumerate(cells):
        if number:
            out.append("\n")
        line = Text()
        for index, cell in enumerate(row):
            if index:
                line.append(" " * gap)
            if index < len(styles) and styles[index]:
                cell = cell.copy()
                cell.stylize(styles[index])
            if cell.cell_len > widths[index]:
                cell = cell.copy()
                cell.truncate(widths[index], overflow="ellipsis")
            last = index == len(row) - 1
            line.append_text(cell)
            if not last:
                line.append(" " * (widths[index] - cell.cell_len))
        line.rstrip()
        out.append_text(line)
    return out
