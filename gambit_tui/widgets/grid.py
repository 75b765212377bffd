"""Rows of cells in aligned columns, as lines of ``Text``.

Rich's ``Table.grid`` measures every cell twice and renders through several layers; a table
screen repaints its seats after every move, for every player at the table, all in one server
process. A grid of short, no-wrap cells only needs each column's widest cell, and each line
is put together directly from the cells' text and spans (``Text.append_text`` per cell, and a
copy per styled column, were most of the cost of drawing the seats).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from rich.text import Span, Text


def grid_lines(
    rows: Sequence[Sequence[Text | str]],
    *,
    gap: int = 1,
    min_widths: Sequence[int] = (),
    max_widths: Sequence[int | None] = (),
    styles: Sequence[str] = (),
    keys: Sequence[Hashable] | None = None,
    made: dict[Hashable, Text] | None = None,
) -> list[Text]:
    """``rows`` as lines of columns ``gap`` cells apart; a cell wider than its column's
    ``max_widths`` entry ends in an ellipsis, ``styles`` style a whole column.

    With ``keys`` (one per row, equal only for rows of equal cells) and ``made`` (a dict the
    caller keeps), a row whose line was made before at the same column widths is not made
    again: ``made`` is left holding this call's lines."""
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
    spacer = " " * gap
    lines: list[Text] = []
    before = dict(made) if made is not None else {}
    if made is not None:
        made.clear()
    for number, row in enumerate(cells):
        key = keys[number] if keys is not None else None
        line_key = (key, tuple(widths)) if key is not None else None
        if line_key is not None and (line := before.get(line_key)) is not None:
            lines.append(line)
            if made is not None:
                made[line_key] = line
            continue
        parts: list[str] = []
        spans: list[Span] = []
        at = 0  # characters so far (span offsets count characters, widths count cells)
        last = len(row) - 1
        for index, cell in enumerate(row):
            if index:
                parts.append(spacer)
                at += gap
            width = widths[index]
            cell_len = cell.cell_len
            if cell_len > width:
                cell = cell.copy()
                cell.truncate(width, overflow="ellipsis")
                cell_len = cell.cell_len
            plain = cell.plain
            end = at + len(plain)
            if end > at:
                if cell.style:
                    spans.append(Span(at, end, cell.style))
                spans.extend(Span(at + s.start, at + s.end, s.style) for s in cell.spans)
                if index < len(styles) and styles[index]:
                    spans.append(Span(at, end, styles[index]))  # over the cell's own styles
            parts.append(plain)
            at = end
            if index != last and width > cell_len:
                parts.append(" " * (width - cell_len))
                at += width - cell_len
        line = Text("".join(parts), spans=spans, no_wrap=True, end="")
        line.rstrip()
        lines.append(line)
        if made is not None and line_key is not None:
            made[line_key] = line
    return lines


def grid_text(
    rows: Sequence[Sequence[Text | str]],
    *,
    gap: int = 1,
    min_widths: Sequence[int] = (),
    max_widths: Sequence[int | None] = (),
    styles: Sequence[str] = (),
) -> Text:
    """The lines of :func:`grid_lines` as one ``Text``."""
    lines = grid_lines(rows, gap=gap, min_widths=min_widths, max_widths=max_widths, styles=styles)
    return Text("\n", no_wrap=True, end="").join(lines)
