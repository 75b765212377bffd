"""Aligned columns of styled cells (``widgets/grid.py``), checked cell by cell."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style
from rich.table import Table
from rich.text import Text

from gambit_tui.widgets.grid import grid_lines, grid_text

CONSOLE = Console(width=200, color_system="truecolor")


def styles_of(line: Text) -> list[tuple[str, Style]]:
    """Every character with the style it is drawn in."""
    return [(ch, seg.style or Style()) for seg in line.render(CONSOLE) for ch in seg.text]


def test_columns_line_up_at_their_widest_cell_and_trailing_space_goes():
    lines = grid_lines([["▶", "Ada", "7★"], [" ", "Oleksandra", "M●"], ["", "Bo"]])
    assert [line.plain for line in lines] == ["▶ Ada        7★", "  Oleksandra M●", "  Bo"]


def test_gap_min_and_max_widths():
    lines = grid_lines(
        [["Focus", "6★"], ["Discards", "2 · top 5♦ and a long tail"]],
        gap=2,
        min_widths=(9,),
        max_widths=(None, 10),
    )
    assert [line.plain for line in lines] == ["Focus      6★", "Discards   2 · top 5…"]


def test_a_column_style_goes_over_the_cells_own_styles():
    cell = Text("ab", style="red")
    cell.stylize("bold", 1, 2)
    (line,) = grid_lines([["x", cell]], styles=("", "dim"))
    drawn = styles_of(line)
    assert drawn[0] == ("x", Style())
    assert drawn[2] == ("a", Style(color="red", dim=True))
    assert drawn[3] == ("b", Style(color="red", bold=True, dim=True))


cells = st.one_of(
    st.text(alphabet="ab★● ", max_size=6),
    st.builds(
        lambda text, style: Text(text, style=style),
        st.text(alphabet="xyz♦", max_size=5),
        st.sampled_from(["", "bold", "red", "dim strike"]),
    ),
)


@given(st.lists(st.lists(cells, max_size=4), max_size=5), st.integers(1, 3))
def test_every_cell_starts_where_its_column_starts(rows, gap):
    lines = grid_lines(rows, gap=gap)
    assert grid_text(rows, gap=gap).plain == "\n".join(line.plain for line in lines)
    texts = [[c if isinstance(c, Text) else Text(c) for c in row] for row in rows]
    widths = [
        max((row[i].cell_len for row in texts if i < len(row)), default=0)
        for i in range(max((len(r) for r in texts), default=0))
    ]
    for row, line in zip(texts, lines, strict=True):
        start = 0
        for index, cell in enumerate(row):
            drawn = line.plain[start : start + len(cell.plain)]
            assert drawn == cell.plain[: len(drawn)]  # the end of a line may be stripped
            for offset, (_char, style) in enumerate(styles_of(line)[start : start + len(drawn)]):
                if cell.plain[offset] != " ":
                    assert style == (cell.get_style_at_offset(CONSOLE, offset) or Style())
            start += widths[index] + gap


def test_rows_made_before_at_the_same_widths_are_not_made_again():
    made: dict = {}
    rows = [[Text("a"), Text("bb", style="bold")], [Text("ccc"), Text("d")]]
    first = grid_lines(rows, keys=["r0", "r1"], made=made)
    assert first == grid_lines(rows)
    again = grid_lines(rows, keys=["r0", "r1"], made=made)
    assert again[0] is first[0] and again[1] is first[1]
    # Another row changes the column widths: every line is made anew, and right.
    wider = [*rows, [Text("eeeeee"), Text("f")]]
    lines = grid_lines(wider, keys=["r0", "r1", "r2"], made=made)
    assert lines == grid_lines(wider)
    assert lines[0] is not first[0]
    # Only this call's lines are kept, and the measures of their cells.
    assert sum(isinstance(v, Text) for v in made.values()) == 3
    assert made[("r2",)] == (6, 1)
    # A row without a key is always made (and measured).
    lines = grid_lines(wider, keys=["r0", None, "r2"], made=made)
    assert lines == grid_lines(wider) and sum(isinstance(v, Text) for v in made.values()) == 2
    # A row's measures come from ``made`` by its key: the widths follow the kept measures.
    made[("r0",)] = (8, 2)
    assert grid_lines(wider, keys=["r0", "r1", "r2"], made=made)[1].plain == "ccc      d"


def rich_grid(rows: list[list[Text]], right: list[bool], width: int) -> list[str]:
    """The rows as a Rich ``Table.grid`` of no-wrap columns draws them ``width`` cells wide."""
    table = Table.grid(padding=(0, 1))
    for flag in right:
        table.add_column(no_wrap=True, justify="right" if flag else "left")
    for row in rows:
        table.add_row(*row)
    console = Console(width=width, color_system=None)
    lines = console.render_lines(table, console.options.update_width(width), pad=False)
    drawn = ["".join(seg.text for seg in line)[:width].rstrip() for line in lines]
    return drawn[: len(rows)]


def test_a_right_aligned_column_is_padded_in_the_cells_style():
    (line,) = grid_lines(
        [["a", Text("7", style="bold"), "b"]], min_widths=(0, 3), right=(False, True)
    )
    assert line.plain == "a   7 b"
    assert [style.bold for _char, style in styles_of(line)[2:5]] == [True, True, True]


@given(
    st.lists(
        st.tuples(st.text(alphabet="ab★", max_size=9), st.text(alphabet="xy", max_size=4)),
        min_size=1,
        max_size=5,
    ),
    st.lists(st.booleans(), min_size=5, max_size=5),
    st.integers(1, 30),
)
def test_columns_too_wide_to_fit_shrink_as_rich_tables_do(columns, right, width):
    """As the Prophet seats drew with ``Table.grid`` before they drew their own lines."""
    rows = [[Text(column[row]) for column in columns] for row in (0, 1)]
    right = right[: len(columns)]
    lines = grid_lines(rows, right=right, fit=width)
    assert [line.plain[:width].rstrip() for line in lines] == rich_grid(rows, right, width)
