"""Rows of cells in aligned columns, as lines of ``Text``.

Rich's ``Table.grid`` measures every cell twice and renders through several layers; a table
screen repaints its seats after every move, for every player at the table, all in one server
process. A grid of short, no-wrap cells only needs each column's widest cell, and each line
is put together directly from the cells' text and spans (``Text.append_text`` per cell, and a
copy per styled column, were most of the cost of drawing the seats).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from rich.cells import cell_len as str_cells
from rich.text import Span, Text


def grid_lines(
    rows: Sequence[Sequence[Text | str]],
    *,
    gap: int = 1,
    min_widths: Sequence[int] = (),
    max_widths: Sequence[int | None] = (),
    styles: Sequence[str] = (),
    right: Sequence[bool] = (),
    fit: int | None = None,
    keys: Sequence[Hashable] | None = None,
    made: dict[Hashable, Any] | None = None,
    shared: dict[Hashable, Any] | None = None,
) -> list[Text]:
    """``rows`` as lines of columns ``gap`` cells apart; a cell wider than its column's
    ``max_widths`` entry ends in an ellipsis, ``styles`` style a whole column, and a column
    whose ``right`` entry is true is aligned right. Columns too wide together for ``fit``
    cells each give up a share of the excess, as Rich's tables do (their cells end in an
    ellipsis).

    With ``keys`` (one per row, equal only for rows of equal cells) and ``made`` (a dict the
    caller keeps), a row whose line was made before at the same column widths is not made
    again, nor its cells measured: ``made`` is left holding this call's lines and
    measures. ``shared`` (a dict kept by callers alike, that they keep small) holds them too,
    for rows made by another caller: keys must then say everything a row is made of."""
    before = dict(made) if made is not None else {}
    if made is not None:
        made.clear()
    measures: list[tuple[int, ...]] = []
    for number, row in enumerate(rows):
        key = keys[number] if keys is not None else None
        measure = before.get((key,)) if key is not None else None
        if measure is None and shared is not None and key is not None:
            measure = shared.get((key,))
        if measure is None:
            measure = tuple(
                cell.cell_len if isinstance(cell, Text) else str_cells(cell) for cell in row
            )
            if shared is not None and key is not None:
                shared[(key,)] = measure
        if made is not None and key is not None:
            made[(key,)] = measure
        measures.append(measure)
    columns = max((len(measure) for measure in measures), default=0)
    natural = [0] * columns
    for measure in measures:
        for index, cells in enumerate(measure):
            if cells > natural[index]:
                natural[index] = cells
    for index in range(columns):
        if index < len(min_widths):
            natural[index] = max(natural[index], min_widths[index])
        if index < len(max_widths) and (most := max_widths[index]) is not None:
            natural[index] = min(natural[index], most)
    widths: list[int | None] = list(natural) if fit is None else _fitted(natural, gap, fit)
    spacer = " " * gap
    lines: list[Text] = []
    shape = tuple(widths)
    for number, given in enumerate(rows):
        key = keys[number] if keys is not None else None
        line_key = (key, shape) if key is not None else None
        if line_key is not None and (
            (line := before.get(line_key)) is not None
            or (shared is not None and (line := shared.get(line_key)) is not None)
        ):
            lines.append(line)
            if made is not None:
                made[line_key] = line
            continue
        texts = [cell if isinstance(cell, Text) else Text(cell) for cell in given]
        parts: list[str] = []
        spans: list[Span] = []
        at = 0  # characters so far (span offsets count characters, widths count cells)
        last = len(texts) - 1
        for index, cell in enumerate(texts):
            width = widths[index]
            if width is None:
                continue  # no room left for it at all
            cell_len = cell.cell_len
            if cell_len > width:
                if width:
                    cell = cell.copy()
                    cell.truncate(width, overflow="ellipsis")
                else:
                    cell = Text()
                cell_len = cell.cell_len
            if index < len(right) and right[index] and width > cell_len:
                # Padded as Rich pads a cell: in the cell's own style.
                cell = Text(" " * (width - cell_len), style=cell.style) + cell
                cell_len = width
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
            if index != last:  # up to the next column
                parts.append(" " * (width - cell_len) + spacer)
                at += width - cell_len + gap
        line = Text("".join(parts), spans=spans, no_wrap=True, end="")
        line.rstrip()
        lines.append(line)
        if made is not None and line_key is not None:
            made[line_key] = line
        if shared is not None and line_key is not None:
            shared[line_key] = line
    return lines


def _fitted(widths: list[int], gap: int, fit: int) -> list[int | None]:
    """Column widths that fit in ``fit`` cells, as Rich's ``Table.grid`` makes them: each
    column counts its gap (the last its width, and at least one cell), none more than ``fit``;
    the excess is taken from the columns in equal shares, each no more than it has, and a
    column left with no cell at all is dropped (None), gap and all."""
    last = len(widths) - 1
    gaps = [gap if index < last else 0 for index in range(len(widths))]
    padded = [min((width + pad) or 1, fit) for width, pad in zip(widths, gaps, strict=True)]
    excess = sum(padded) - fit
    shares = len(padded)
    for index, width in enumerate(padded):
        if excess <= 0:
            break
        cut = min(width, round(excess / shares))
        padded[index] = width - cut
        excess -= cut
        shares -= 1
    return [
        None if width == 0 else max(0, width - pad) for width, pad in zip(padded, gaps, strict=True)
    ]


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
