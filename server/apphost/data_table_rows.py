"""A changed cell of a ``DataTable`` repaints its own row, not the whole table.

Textual's ``DataTable.update_cell`` counts an update (``_update_count``), which every one of
the table's render caches is keyed by, and refreshes the whole widget: every visible row is
rendered again, cell by cell through Rich. The lobby's list of tables changes a row whenever
a seat is taken or freed at any table on the server, and every player in the lobby drew the
whole list again: some 13 ms of CPU per lobby per change
(``bench/lobby_arrivals.py --table-changes``), so a hundred players in the lobby cost the
server over a second of CPU for each seat taken anywhere. Here a cell whose column keeps its
width drops only its own row's cached renders and refreshes that row's region; a cell that
may widen its column, or a row whose height follows its content, is still Textual's.

A row drawn before its table measured it is drawn again once the columns are widened
(:func:`on_idle`): Textual widens them only when the table is next idle, and that leaves the
update count as it was, so a row drawn in between (the screen laid out first for another
widget's change, as happens on a loaded server) stayed cut to the header's width for good.

Private names of Textual 8.2's ``DataTable`` it reads: ``_data``, ``_row_locations``,
``_column_locations``, ``_cell_render_cache``, ``_row_render_cache``,
``_row_renderable_cache``, ``_line_cache`` (each keyed as noted in :func:`_forget_row`),
``_get_offsets``, ``_updated_cells``, ``_require_update_dimensions``, ``_label_column`` and
``_update_count``; it replaces ``_on_idle``. Guarded by ``tests/tui/test_data_table_rows.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.cache import LRUCache
from textual.widgets import DataTable

from .textual_private import ColumnKey, RowKey

#: Textual's own, for what this module leaves to it (and for tests).
TEXTUALS = DataTable.update_cell
TEXTUALS_ON_IDLE = DataTable._on_idle


def update_cell(
    self: DataTable[Any],
    row_key: RowKey | str,
    column_key: ColumnKey | str,
    value: Any,
    *,
    update_width: bool = False,
) -> None:
    """``DataTable.update_cell``, repainting only the row when the column keeps its width."""
    row_key = RowKey(row_key) if isinstance(row_key, str) else row_key
    column_key = ColumnKey(column_key) if isinstance(column_key, str) else column_key
    row = self.rows.get(row_key)
    if update_width or row is None or row.auto_height or column_key not in self._column_locations:
        TEXTUALS(self, row_key, column_key, value, update_width=update_width)
        return
    self._data[row_key][column_key] = value
    _forget_row(self, row_key)
    index = self._row_locations.get(row_key)
    if index is not None:  # (it is: the row is there)
        self.refresh_row(index)


async def on_idle(self: DataTable[Any], event: Any) -> None:
    """``DataTable._on_idle``, then, if it changed a column's width, every row drawn again.

    Every render the table caches (cells, a row's lines, whole lines) is keyed by its update
    count. Textual's idle handler widens the columns for new rows and wider cells without
    counting an update, so what was drawn since the change, at the old widths, was still
    taken from the caches afterwards."""
    if not (self._updated_cells or self._require_update_dimensions):
        await TEXTUALS_ON_IDLE(self, event)  # (it has nothing to measure)
        return
    before = _render_widths(self)
    await TEXTUALS_ON_IDLE(self, event)
    if _render_widths(self) != before:
        self._update_count += 1
        self.refresh()


def _render_widths(table: DataTable[Any]) -> tuple[int, ...]:
    widths = tuple(column.get_render_width(table) for column in table.ordered_columns)
    return (*widths, table._label_column.content_width)


def _forget_row(table: DataTable[Any], row_key: RowKey) -> None:
    """Drop what the table's caches hold of one row's content."""
    # Cells and a row's lines: keyed by the row key first.
    _drop(table._cell_render_cache, lambda key: key[0] == row_key)
    _drop(table._row_render_cache, lambda key: key[0] == row_key)
    # A row's renderables: keyed (update count, row index).
    index = table._row_locations.get(row_key)
    _drop(table._row_renderable_cache, lambda key: key[1] == index)
    # Whole lines: keyed by the line's y in the table (header included) first.
    _drop(table._line_cache, lambda key: _row_at(table, key[0]) == row_key)


def _drop(cache: LRUCache[Any, Any], stale: Callable[[Any], bool]) -> None:
    for key in [key for key in tuple(cache.keys()) if stale(key)]:
        cache.discard(key)


def _row_at(table: DataTable[Any], y: int) -> RowKey | None:
    try:
        return table._get_offsets(y)[0]
    except LookupError:  # (IndexError too: a line past the last row)
        return None
