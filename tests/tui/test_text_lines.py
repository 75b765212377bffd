"""Line-drawn widgets repaint only the rows whose text changed, and still show everything."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.strip import Strip

from gambit_tui.widgets.text_lines import TextLines, retitle, shown


class Rows(TextLines):
    DEFAULT_CSS = "Rows { border: round white; height: 10; padding: 0 1; }"

    rows: shown[list[str]] = shown(list)

    def __init__(self) -> None:
        super().__init__()
        self.drawn: list[int] = []

    def build(self) -> Text:
        return Text("\n".join(self.rows))

    def render_line(self, y: int) -> Strip:
        self.drawn.append(y)
        return super().render_line(y)


class RowsApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Rows()


def screen_text(app: App) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


ROWS = [f"row {i}" for i in range(8)]


async def test_one_changed_row_is_the_only_row_drawn_again() -> None:
    app = RowsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        rows = app.query_one(Rows)
        rows.rows = list(ROWS)
        await pilot.pause()
        assert "row 7" in screen_text(app)
        rows.drawn.clear()

        rows.rows = [*ROWS[:3], "row three, now longer", *ROWS[4:]]
        await pilot.pause()

        assert rows.drawn == [3]
        shown_now = screen_text(app)
        assert "row three, now longer" in shown_now
        assert "row 2" in shown_now and "row 4" in shown_now


async def test_equal_text_draws_nothing_and_a_same_title_repaints_nothing() -> None:
    app = RowsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        rows = app.query_one(Rows)
        rows.rows = list(ROWS)
        retitle(rows, "Rows")
        await pilot.pause()
        rows.drawn.clear()

        rows.rows = list(ROWS)  # a new list, equal text
        retitle(rows, "Rows")
        await pilot.pause()

        assert rows.drawn == []
        retitle(rows, "Other")
        await pilot.pause()
        assert rows.drawn  # a new title repaints the border, so the rows with it
        assert "Other" in screen_text(app)


async def test_rows_that_all_moved_are_drawn_whole_and_shorter_text_clears_the_rest() -> None:
    app = RowsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        rows = app.query_one(Rows)
        rows.rows = list(ROWS)
        await pilot.pause()
        rows.drawn.clear()

        rows.rows = [*ROWS[1:], "row 8"]  # a log gaining a line at the bottom
        await pilot.pause()
        assert sorted(set(rows.drawn)) == list(range(8))
        rows.drawn.clear()

        rows.rows = [*ROWS[1:], "row 8"][:6]  # two rows fewer: they must go blank
        await pilot.pause()
        assert sorted(set(rows.drawn)) == [6, 7]
        text = screen_text(app)
        assert "row 6" in text and "row 7" not in text and "row 8" not in text


async def test_a_resize_draws_every_row_at_the_new_width() -> None:
    app = RowsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        rows = app.query_one(Rows)
        rows.rows = ["x" * 60]
        await pilot.pause()
        assert "x" * 36 in screen_text(app) and "x" * 37 not in screen_text(app)
        rows.drawn.clear()
        await pilot.resize_terminal(70, 12)
        await pilot.pause()
        assert 0 in rows.drawn
        assert "x" * 60 in screen_text(app)
