"""A changed cell repaints its row only, and the table looks as Textual would draw it
(``server/apphost/data_table_rows``)."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from server.apphost import data_table_rows

from .conftest import enter_lobby, make_app, wait_for

COLUMNS = ("id", "game", "seats", "status")


def rows(changed: dict[tuple[int, str], str] | None = None) -> list[tuple[str, ...]]:
    changed = changed or {}
    return [tuple(changed.get((n, c), f"{c}-{n}") for c in COLUMNS) for n in range(30)]


class Tables(App[None]):
    def __init__(self, content: list[tuple[str, ...]]) -> None:
        super().__init__()
        self.content = content

    def compose(self) -> ComposeResult:
        yield DataTable(cursor_type="row", zebra_stripes=False)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for column in COLUMNS:
            table.add_column(column, key=column)
        for number, row in enumerate(self.content):
            table.add_row(*row, key=str(number))


def lines(table: DataTable) -> list[list[tuple[str, object]]]:
    """What the table shows now, segment by segment."""
    height = table.size.height
    return [
        [(segment.text, segment.style) for segment in table.render_line(y)] for y in range(height)
    ]


def drawn_lines(table: DataTable) -> list[int]:
    """The lines ``table`` draws from now on (its ``render_line`` counted)."""
    drawn: list[int] = []
    render_line = table.render_line

    def counted(y: int):
        drawn.append(y)
        return render_line(y)

    table.render_line = counted  # type: ignore[method-assign]  # a stand-in that counts or records
    return drawn


def test_the_textual_internals_data_table_rows_reads_are_there():
    """An upgrade of Textual that renames what the module reads fails here."""
    assert DataTable.update_cell is data_table_rows.update_cell  # installed (conftest)
    assert DataTable._on_idle is data_table_rows.on_idle
    table = DataTable()
    for name in (
        "_data",
        "_row_locations",
        "_column_locations",
        "_cell_render_cache",
        "_row_render_cache",
        "_row_renderable_cache",
        "_line_cache",
        "_get_offsets",
        "_updated_cells",
        "_require_update_dimensions",
        "_label_column",
        "_update_count",
    ):
        assert hasattr(table, name), name


async def test_a_changed_cell_repaints_its_row_and_shows_what_a_new_table_would():
    changes = {(2, "seats"): "seats-X", (3, "status"): "busy", (25, "game"): "game-Y"}
    app = Tables(rows())
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(DataTable)
        table.move_cursor(row=3)
        await pilot.pause()
        lines(table)  # every cache warm
        drawn = drawn_lines(table)
        for (number, column), value in changes.items():
            table.update_cell(str(number), column, value)
        await pilot.pause()
        # Rows 2 and 3 are in sight (under the header), row 25 is not: two lines drawn.
        assert sorted(drawn) == [3, 4]
        del table.render_line
        shown = lines(table)
        table.move_cursor(row=25)  # scrolled down to the row changed out of sight
        await pilot.pause()
        scrolled = lines(table)

    fresh = Tables(rows(changes))
    async with fresh.run_test(size=(60, 12)) as pilot:
        table = fresh.query_one(DataTable)
        table.move_cursor(row=3)
        await pilot.pause()
        assert lines(table) == shown
        table.move_cursor(row=25)
        await pilot.pause()
        assert lines(table) == scrolled
    assert any("seats-X" in text for line in shown for text, _ in line)
    assert any("game-Y" in text for line in scrolled for text, _ in line)


async def test_a_wider_cell_is_still_textuals_and_widens_its_column():
    app = Tables(rows())
    async with app.run_test(size=(80, 12)) as pilot:
        table = app.query_one(DataTable)
        await pilot.pause()
        before = table.columns["status"].content_width
        table.update_cell("1", "status", Text("a much longer status"), update_width=True)
        await pilot.pause()
        assert table.columns["status"].content_width > before
        assert any("a much longer status" in text for line in lines(table) for text, _ in line)


async def test_the_lobby_list_changes_one_row_when_a_seat_is_taken(hub):
    """The lobby's row for a table whose seat was taken shows it, alone redrawn."""
    owner = make_app(hub, name="Owner", identity="SHA256:owner")
    watcher = make_app(hub)
    async with owner.run_test(size=(100, 30)) as opilot:
        await enter_lobby(opilot)
        async with watcher.run_test(size=(100, 30)) as pilot:
            await enter_lobby(pilot)
            player = next(p for p in hub.players.values() if p.name == "Owner")
            session = next(iter(player.sessions))
            create = {"t": "create_table", "game": "prophets_gambit", "players": 4, "timer": 0}
            hub.handle(session, create)
            await wait_for(pilot, lambda: watcher.model.tables)
            table_id = next(iter(watcher.model.tables))
            lobby_table = watcher.screen.query_one("#tables", DataTable)
            await wait_for(pilot, lambda: lobby_table.row_count == 1)
            await pilot.pause(0.3)
            drawn = drawn_lines(lobby_table)
            hub.handle(session, {"t": "add_bot", "table": table_id, "seat": 1})
            await wait_for(pilot, lambda: drawn)
            await pilot.pause(0.3)
            assert drawn == [1]  # the table's row, under the header
            assert "2/4" in "".join(segment.text for segment in lobby_table.render_line(1))


async def test_a_data_tables_cleared_caches_are_freed_without_the_collector():
    """A ``DataTable`` clears its caches at every row added or removed (the lobby's tables
    list, at each lobby update); Textual's ``LRUCache.clear`` left each cache's ring of entries,
    with the rendered cells, rows and lines, in a reference cycle for the collector (in an app
    worker: frozen, then swept; ``textual_patches.lru_clear``)."""
    import gc

    app = Tables(rows())
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(DataTable)
        await pilot.pause()
        assert len(table._line_cache) and len(table._row_render_cache)  # drawn: cached
        gc.collect()
        gc.disable()
        try:
            table._clear_caches()  # (what adding or removing a row does first)
            left = gc.collect()
        finally:
            gc.enable()
        assert left == 0  # all freed by reference counting alone
        assert not len(table._line_cache)


async def test_a_row_drawn_before_the_table_measures_it_is_drawn_again_at_its_width():
    """Textual widens a table's columns for new rows only when the table is next idle, and
    caches each rendered cell under the table's update count, which widening leaves as it
    was. A row drawn in between (the screen laid out by another widget's change first, as on
    a loaded server) stayed cut to the header's width: "Frida" for "Friday", for good."""
    app = Tables([])
    async with app.run_test(size=(80, 12)) as pilot:
        table = app.query_one(DataTable)
        table.styles.height = 8  # (a fixed height: a new row resizes nothing)
        await pilot.pause()
        table.add_row("1", "Prophet's Gambit", "3/4", "Registering", key="new")
        early = "".join(segment.text for segment in table.render_line(1))  # before its idle
        assert "Registering" not in early  # (cut to the header's width, as Textual draws it)
        await pilot.pause()
        assert table.columns["status"].content_width == len("Registering")
        drawn = "".join(segment.text for segment in table.render_line(1))
        assert "Prophet's Gambit" in drawn and "Registering" in drawn, drawn
