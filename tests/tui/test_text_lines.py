"""Line-drawn widgets repaint only the rows whose text changed, and still show everything."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widget import Widget

from gambit_tui.widgets.choice_row import ChoiceRow
from gambit_tui.widgets.prompt_bar import PromptBar
from gambit_tui.widgets.text_lines import TextLines, retitle, shown


class Rows(TextLines):
    DEFAULT_CSS = "Rows { border: round white; height: 10; padding: 0 1; }"

    rows: shown[list[str]] = shown(list)

    def __init__(self) -> None:
        super().__init__()
        self.drawn: list[int] = []

    def build(self) -> Text:
        return Text.from_markup("\n".join(self.rows))

    def _line_strip(self, line: Text) -> Strip:
        # The lines turned into strips again (the costly part of a repaint).
        self.drawn.append(line.plain)
        return super()._line_strip(line)


class RowsApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Rows()


def screen_text(app: App) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


ROWS = [f"row {i}" for i in range(8)]


@asynccontextmanager
async def showing_rows(title: str | None = None) -> AsyncIterator[tuple[App, Pilot, Rows]]:
    """An app whose widget shows ROWS (and ``title``), with nothing counted as drawn yet."""
    app = RowsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        rows = app.query_one(Rows)
        rows.rows = list(ROWS)
        if title is not None:
            retitle(rows, title)
        await pilot.pause()
        assert "row 7" in screen_text(app)
        rows.drawn.clear()
        yield app, pilot, rows


async def test_one_changed_row_is_the_only_row_drawn_again() -> None:
    async with showing_rows() as (app, pilot, rows):
        rows.rows = [*ROWS[:3], "row three, now longer", *ROWS[4:]]
        await pilot.pause()

        assert rows.drawn == ["row three, now longer"]
        shown_now = screen_text(app)
        assert "row three, now longer" in shown_now
        assert "row 2" in shown_now and "row 4" in shown_now


async def test_equal_text_draws_nothing_and_a_same_title_repaints_nothing() -> None:
    async with showing_rows(title="Rows") as (app, pilot, rows):
        rows.rows = list(ROWS)  # a new list, equal text
        retitle(rows, "Rows")
        await pilot.pause()

        assert rows.drawn == []
        retitle(rows, "Other")
        await pilot.pause()
        assert "Other" in screen_text(app)


async def test_rows_that_all_moved_are_drawn_whole_and_shorter_text_clears_the_rest() -> None:
    async with showing_rows() as (app, pilot, rows):
        rows.rows = [*ROWS[1:], "row 8"]  # a log gaining a line at the bottom
        await pilot.pause()
        assert rows.drawn == ["row 8"]  # the rows that moved up keep what was drawn
        text = screen_text(app)
        assert "row 0" not in text and all(f"row {i}" in text for i in range(1, 9))
        rows.drawn.clear()

        rows.rows = [*ROWS[1:], "row 8"][:5]  # three rows fewer: they must go blank
        await pilot.pause()
        assert rows.drawn == []
        text = screen_text(app)
        assert "row 5" in text and "row 6" not in text and "row 8" not in text


async def test_rows_that_all_moved_repaint_whole_rows_but_not_the_border_around_them(
    monkeypatch,
) -> None:
    """A log that gains a line repaints its rows of text from edge to edge (the driver can
    scroll only whole rows), and not its border rows, which stay as they are (every
    repainted row is composed again, at every move of every player)."""
    painted: list[Region] = []
    original = TextLines.render_lines

    def render_lines(self: TextLines, crop: Region) -> list[Strip]:
        painted.append(crop)
        return original(self, crop)

    monkeypatch.setattr(TextLines, "render_lines", render_lines)
    async with showing_rows() as (app, pilot, rows):
        painted.clear()
        rows.rows = [*ROWS[1:], "row 8"]
        await pilot.pause()

        lines = sorted({y for crop in painted for y in crop.line_range})
        assert lines == list(range(1, 9))  # the 8 rows of text; the border is rows 0 and 9
        assert all(crop.column_span == (0, 40) for crop in painted)  # sides and all
        assert all(f"row {i}" in screen_text(app) for i in range(1, 9))


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
        assert rows.drawn == ["x" * 60]
        assert "x" * 60 in screen_text(app)


async def test_a_new_size_is_one_layout_and_every_row_at_the_new_size(monkeypatch) -> None:
    """Textual lays the screen out a second time for a widget whose size changed; a text
    widget does not need it (a result panel shown made every player's screen lay out twice)."""
    from textual.screen import Screen

    layouts = [0]
    original = Screen._refresh_layout

    def counted(self, size=None, scroll=False):
        layouts[0] += 1
        return original(self, size, scroll)

    async with showing_rows() as (app, pilot, rows):
        monkeypatch.setattr(Screen, "_refresh_layout", counted)
        rows.styles.height = 6
        await pilot.pause()
        await pilot.pause()
        assert layouts[0] == 1
        text = screen_text(app).split("\n")
        assert "row 3" in text[4] and "row 4" not in screen_text(app)  # 4 rows inside the border
        assert text[5].startswith("╰")  # the bottom border at the new height


async def test_a_tail_that_fits_is_made_again_when_the_height_changes() -> None:
    """A log shows the tail of its lines that fits: grown taller (a footer row fewer), it
    shows more of them, not the tail that fitted before with blank rows under it."""
    from gambit_tui.widgets.event_log import EventLog

    class LogApp(App[None]):
        def compose(self) -> ComposeResult:
            yield EventLog()

    app = LogApp()
    async with app.run_test(size=(40, 12)) as pilot:
        log = app.query_one(EventLog)
        log.styles.height = 4  # two rows inside the border
        await pilot.pause()
        log.lines = [Text(f"event {i}") for i in range(6)]
        await pilot.pause()
        assert "event 4" in screen_text(app) and "event 3" not in screen_text(app)
        log.styles.height = 7
        await pilot.pause()
        await pilot.pause()
        text = screen_text(app).split("\n")
        assert [row.strip("│ ") for row in text[1:6]] == [f"event {i}" for i in range(1, 6)]


def cells(strip: Strip) -> list[tuple[str, object]]:
    return [(char, segment.style) for segment in strip for char in segment.text]


STYLES = [
    "Rows { border: round white; height: 10; padding: 0 1; }",
    "Rows { border: heavy red; height: 10; padding: 1 2; background: blue; color: yellow; }",
    "Rows { height: 10; }",
    "Rows { border-left: thick green; height: 10; padding: 0 0 0 3; }",
    "Rows { border: round $primary 50%; height: 10; padding: 0 1; border-title-color: red; }",
]


@pytest.mark.parametrize("filters", ["", "monochrome", "dim"])
@pytest.mark.parametrize("css", STYLES)
async def test_rows_beside_their_borders_are_what_textual_draws(css: str, filters: str) -> None:
    """Also with other line filters than the default's (apps share filtered rows: one with
    a monochrome theme must not get another app's colours)."""
    from textual.filter import DimFilter, Monochrome

    class StyledRows(Rows):
        DEFAULT_CSS = css

    class StyledApp(App[None]):
        def compose(self) -> ComposeResult:
            yield StyledRows()

    app = StyledApp()
    if filters == "monochrome":
        app._filters.append(Monochrome())
    elif filters == "dim":
        app._filters.append(DimFilter(0.3))
    async with app.run_test(size=(40, 12)) as pilot:
        rows = app.query_one(StyledRows)
        retitle(rows, "Title")
        rows.rows = [*ROWS[:4], "[bold]x[/] " + "y" * 50, "", "[dim red]row[/] 6"]
        await pilot.pause()
        rows.rows = [*ROWS[:4], "changed", "", "row 6"]
        await pilot.pause()
        rows.rows = [*ROWS[1:4], "changed", "", "row 6", "row 7"]  # moved up, as in a log
        await pilot.pause()
        whole = Region(0, 0, *rows.outer_size)
        ours = rows.render_lines(whole)
        rows.refresh()  # Textual's own way, from scratch
        theirs = Widget.render_lines(rows, whole)
        assert [cells(row) for row in ours] == [cells(row) for row in theirs]
        assert any("changed" in row.text for row in ours)


@given(
    words=st.lists(st.text(alphabet="ab ★·\t←", min_size=0, max_size=12), max_size=8),
    width=st.integers(min_value=1, max_value=40),
    bold_end=st.integers(min_value=0, max_value=20),
)
def test_a_line_kept_unwrapped_is_what_rich_would_have_wrapped_it_to(words, width, bold_end):
    from rich.console import Console

    from gambit_tui.widgets.text_lines import needs_wrap

    line = Text(" ".join(words), style="italic")
    line.stylize("bold", 0, bold_end)
    if not needs_wrap(line, width):
        wrapped = line.wrap(Console(width=200), width)
        assert list(wrapped) == [line]


async def test_a_line_is_made_into_a_strip_once_for_every_widget_that_shows_it() -> None:
    from gambit_tui.widgets import text_lines

    def rows_with_id(name: str | None) -> Rows:
        rows = Rows()
        rows.id = name
        return rows

    class ManyRows(App[None]):
        CSS = "Rows { height: 4; } #narrow { width: 20; } #red { background: red; }"

        def compose(self) -> ComposeResult:
            yield rows_with_id("wide")
            yield rows_with_id("narrow")
            yield rows_with_id("red")
            yield rows_with_id("twin")

    app = ManyRows()
    async with app.run_test(size=(40, 16)) as pilot:
        wide, narrow, red, twin = app.query(Rows)
        line = "[bold]same[/] line " + "z" * 25
        wide.rows = [line]
        await pilot.pause()
        for rows in (narrow, red, twin):
            rows.rows = [line]
        await pilot.pause()
        made = [rows.render_line(0) for rows in (wide, narrow, red, twin)]
        assert made[3] is made[0]  # the same line, width and style: made once, shared
        assert made[1] is not made[0] and made[1].cell_length == narrow.content_size.width
        assert made[2] is not made[0] and made[2].text == made[0].text
        assert cells(made[2]) != cells(made[0])  # another background
        assert len(text_lines._made_strips) <= text_lines.MADE_STRIPS


async def test_apps_with_other_line_filters_do_not_share_filtered_rows() -> None:
    """Apps share filtered rows; a monochrome app after a colour one (the same line, width and
    style, so the same strip) gets grey, exactly as Textual would draw it."""
    from textual.filter import Monochrome

    class ColourRows(Rows):
        DEFAULT_CSS = "ColourRows { height: 4; color: yellow; background: blue; }"

    class ColourApp(App[None]):
        def compose(self) -> ComposeResult:
            yield ColourRows()

    drawn = []
    for monochrome in (False, True):
        app = ColourApp()
        if monochrome:
            app._filters.append(Monochrome())
        async with app.run_test(size=(30, 6)) as pilot:
            rows = app.query_one(ColourRows)
            rows.rows = ["one", "[red]two[/]"]
            await pilot.pause()
            rows.rows = ["one", "[red]two[/]", "[green]three[/]"]
            await pilot.pause()
            whole = Region(0, 0, *rows.outer_size)
            ours = [cells(row) for row in rows.render_lines(whole)]
            rows.refresh()
            assert ours == [cells(row) for row in Widget.render_lines(rows, whole)]
            drawn.append(ours)
    assert drawn[0] != drawn[1]


async def test_apps_share_a_row_between_its_sides_unless_their_colours_differ() -> None:
    """Two apps showing the same row between alike borders get one strip (rendered once for
    the driver); an app of another colour depth gets its own (a strip keeps the text it was
    rendered to). Every one is the row Textual draws."""
    from rich.console import COLOR_SYSTEMS

    drawn = []
    for system in ("truecolor", "truecolor", "standard"):
        app = RowsApp()
        app.console._color_system = COLOR_SYSTEMS[system]  # as server/apphost/colour_depth.py
        async with app.run_test(size=(40, 12)) as pilot:
            rows = app.query_one(Rows)
            rows.rows = ["[red]shared[/] row", "another"]
            await pilot.pause()
            rows.rows = ["[red]shared[/] row", "[green]changed[/]"]
            await pilot.pause()
            whole = Region(0, 0, *rows.outer_size)
            row = rows.render_lines(whole)[2]  # the changed one (under the top border)
            drawn.append(row)
            rows.refresh()
            assert cells(row) == cells(Widget.render_lines(rows, whole)[2])
    first, second, other = drawn
    assert second is first
    assert other is not first


class _TitledRow(App[None]):
    CSS = "ChoiceRow { border: round $primary; height: 3; }"

    def __init__(self, theme: str) -> None:
        super().__init__()
        self.chosen_theme = theme

    def compose(self) -> ComposeResult:
        yield ChoiceRow()

    def on_mount(self) -> None:
        self.theme = self.chosen_theme


async def _active_title(theme: str) -> tuple[object, str, list[Any]]:
    """An active row's title in an app of ``theme``: the content, the theme's accent, and the
    styles of the title as drawn on the border."""
    app = _TitledRow(theme)
    async with app.run_test(size=(40, 5)) as pilot:
        row = app.query_one(ChoiceRow)
        row.heading = "Your hand"
        row.active = True
        await pilot.pause()
        strip = row.render_lines(Region(0, 0, row.size.width, 1))[0]
        styles = [seg.style for seg in strip if "Your hand" in seg.text]
        return row._gambit_title, app.theme_variables["accent"], styles


async def test_an_active_title_is_made_once_and_drawn_in_each_apps_accent():
    """Active rows' titles are made once for every app (choice_row's ``_active_titles``) and
    drawn in the accent of each app's own theme."""
    dark, dark_accent, dark_styles = await _active_title("textual-dark")
    nord, nord_accent, nord_styles = await _active_title("nord")
    assert dark is nord  # (Content's == compares text only)
    assert dark_accent.lower() != nord_accent.lower()
    for styles, accent in ((dark_styles, dark_accent), (nord_styles, nord_accent)):
        assert styles and styles[0].reverse and styles[0].bold
        assert styles[0].color.triplet.hex.lower() == accent.lower()


class _Prompt(App[None]):
    def compose(self) -> ComposeResult:
        yield PromptBar()


async def test_the_prompt_highlight_follows_a_change_of_theme() -> None:
    """The highlight of the player's own decision is remembered between moves, and made
    again when the theme changes (it is the theme's accent)."""
    app = _Prompt()
    async with app.run_test(size=(40, 4)) as pilot:
        app.theme = "textual-dark"
        prompt = app.query_one(PromptBar)
        prompt.question = Text("Your turn.")
        prompt.yours = True
        await pilot.pause()

        def background() -> object:
            strip = prompt.render_lines(Region(0, 0, prompt.size.width, 1))[0]
            return next(seg.style.bgcolor for seg in strip if "Your turn" in seg.text)

        dark = background()
        prompt.question = Text("Your turn, still.")
        await pilot.pause()
        assert background() == dark
        app.theme = "nord"
        await pilot.pause()
        prompt.question = Text("Your turn.")  # the next move
        await pilot.pause()
        assert background() != dark
