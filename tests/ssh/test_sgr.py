"""Styles rewritten as changes draw the same screen, in fewer bytes."""

from __future__ import annotations

import functools
import re

import pyte
from hypothesis import given, settings
from hypothesis import strategies as st
from pyte.screens import Char

from server.terminal.sgr import PLAIN, Pen, apply, change, compact, compact_pieces

COLOURS = ["38;5;24", "38;5;253", "38;5;246", "31", "92", "38;2;10;20;30"]
BACKS = ["48;5;233", "48;5;234", "44", "48;2;1;2;3"]
ATTRS = ["1", "2", "3", "4", "7", "9"]
# The strategies drawn from in the loops below, made once: a strategy made anew at each draw
# is validated anew, which cost more than the drawing and the checks together.
SOME_ATTRS = st.lists(st.sampled_from(ATTRS), max_size=2)
A_COLOUR, A_BACK, BOOLEANS = st.sampled_from(COLOURS), st.sampled_from(BACKS), st.booleans()
RUNS = st.sampled_from([" ", "   ", "ab", "│", "7♦ x", " M● ", "load 1"])
BLANK_RUNS = st.sampled_from(["│", "ab", " " * 11, " " * 12, " " * 30, "x" + " " * 14 + "y"])
ONE_TO = {n: st.integers(1, n) for n in (4, 6, 10, 30)}


@st.composite
def sgr(draw: st.DrawFn) -> str:
    parts = draw(SOME_ATTRS)
    if draw(BOOLEANS):
        parts.append(draw(A_COLOUR))
    if draw(BOOLEANS):
        parts.append(draw(A_BACK))
    return ";".join(parts)


PENS = sgr()


@st.composite
def textual_frame(draw: st.DrawFn) -> str:
    """Pieces the way Textual writes them: a cursor move, then styled runs each reset."""
    out = []
    for _ in range(draw(ONE_TO[4])):
        row, column = draw(ONE_TO[6]), draw(ONE_TO[30])
        out.append(f"\x1b[{row};{column}H")
        for _ in range(draw(ONE_TO[6])):
            text = draw(RUNS)
            out.append(f"\x1b[{draw(PENS)}m{text}\x1b[0m")
    return "".join(out)


@st.composite
def frame_with_blank_runs(draw: st.DrawFn) -> str:
    """As ``textual_frame``, with the long blank runs of log lines and prompts, inside 140
    columns (Textual never writes past the edge; the most here is 10 + 4 × 30)."""
    out = []
    for _ in range(draw(ONE_TO[4])):
        row, column = draw(ONE_TO[6]), draw(ONE_TO[10])
        out.append(f"\x1b[{row};{column}H")
        for _ in range(draw(ONE_TO[4])):
            text = draw(BLANK_RUNS)
            out.append(f"\x1b[{draw(PENS)}m{text}\x1b[0m")
    return "".join(out)


@functools.cache
def seen(c: Char) -> tuple:
    """What the player sees in a cell: a space's foreground, weight and slant do not show.
    (Kept for each cell's value met: a screen is mostly the same few.)"""
    ink = bool(c.data.strip()) or c.reverse or c.underscore or c.strikethrough
    glyph = bool(c.data.strip())
    return (
        c.data,
        c.fg if ink else "",
        c.bg,
        c.bold and glyph,
        c.italics and glyph,
        c.underscore,
        c.reverse,
        c.strikethrough,
    )


def screen_after(frame: str, width: int = 40) -> list[list[tuple]]:
    screen = pyte.Screen(width, 8)
    stream = pyte.Stream(screen)
    stream.feed(frame)
    return [[seen(c) for c in map(screen.buffer[y].__getitem__, range(width))] for y in range(8)]


@settings(max_examples=300, deadline=None)
@given(textual_frame())
def test_the_screen_is_the_same_cell_for_cell(frame: str) -> None:
    smaller = compact(frame)
    assert screen_after(smaller) == screen_after(frame)
    assert len(smaller) <= len(frame)


@settings(max_examples=300, deadline=None)
@given(frame_with_blank_runs())
def test_erasing_blank_runs_draws_the_same_screen(frame: str) -> None:
    erased = compact(frame, erase=True)
    assert screen_after(erased, 140) == screen_after(frame, 140)
    assert len(erased) <= len(compact(frame))


FRAMES = st.one_of(textual_frame(), frame_with_blank_runs())


@st.composite
def pieces_of_a_frame(draw: st.DrawFn) -> list[str]:
    """A frame as the driver hands it over (sync markers, then a piece per cursor move), some
    of its resets left out so that pens run on from one piece into the next."""
    frame = draw(FRAMES)
    frame = "".join(
        part if part != "\x1b[0m" or draw(BOOLEANS) else ""
        for part in re.split(r"(\x1b\[0m)", frame)
    )
    pieces = [p for p in re.split(r"(?=\x1b\[\d+;\d+H)", frame) if p]
    return ["\x1b[?2026h", *pieces, "\x1b[?2026l"]


@settings(max_examples=400, deadline=None)
@given(pieces_of_a_frame(), st.booleans())
def test_pieces_rewritten_one_by_one_give_the_frame_rewritten_whole(pieces, erase) -> None:
    """Each piece's rewriting is remembered by the pens it starts from: the same pieces come
    from other frames here, from other pens (and a piece not understood sends the frame as
    it is)."""
    assert compact_pieces(pieces, erase=erase) == compact("".join(pieces), erase=erase)
    odd = [*pieces[:2], "\x1b[38:5:1mx", *pieces[2:]]
    assert compact_pieces(odd, erase=erase) == compact("".join(odd), erase=erase)


def test_a_log_line_erases_its_blank_end_but_not_under_a_reverse_pen() -> None:
    line = (
        "\x1b[15;1H\x1b[38;5;24;48;5;233m│\x1b[0m\x1b[38;5;253;48;5;233m load0004 draws 2 cards."
        + " " * 54
        + "\x1b[0m\x1b[38;5;24;48;5;233m│\x1b[0m"
    )
    erased = compact(line, erase=True)
    assert "\x1b[54X\x1b[54C" in erased
    assert len(erased) < len(compact(line)) - 40
    assert screen_after(erased, 80) == screen_after(line, 80)
    selected = "\x1b[1;1H\x1b[7;48;5;233m" + " " * 20 + "\x1b[0m"  # a highlighted bar
    assert "X" not in compact(selected, erase=True)


def test_a_textual_line_shrinks_by_more_than_half() -> None:
    line = (
        "\x1b[4;1H\x1b[38;5;24;48;5;233m│\x1b[0m\x1b[48;5;233m \x1b[0m\x1b[38;5;112;48;5;233m✓"
        "\x1b[0m\x1b[38;5;253;48;5;233m load0001         \x1b[0m\x1b[38;5;246;48;5;233m··\x1b[0m"
        "\x1b[38;5;253;48;5;233m \x1b[0m\x1b[38;5;246;48;5;233mhand 5\x1b[0m\x1b[38;5;253;48;5;233m"
        " \x1b[0m\x1b[38;5;246;48;5;233m▒▒\x1b[0m\x1b[38;5;253;48;5;233m             \x1b[0m"
        "\x1b[48;5;233m \x1b[0m\x1b[38;5;24;48;5;233m│\x1b[0m"
    )
    smaller = compact(line)
    assert len(smaller.encode()) < len(line.encode()) / 2
    assert screen_after(smaller) == screen_after(line)


def test_pen_changes() -> None:
    bold_red = apply(PLAIN, "1;31")
    assert bold_red == Pen("31", None, frozenset({1}))
    assert change(PLAIN, bold_red) == "\x1b[1;31m"
    assert change(bold_red, PLAIN) == "\x1b[0m"
    # Bold off but dim on: 22 turns off both, so dim comes back.
    assert apply(
        apply(PLAIN, "1;2"), change(Pen(attrs=frozenset({1, 2})), Pen(attrs=frozenset({2})))[2:-1]
    ) == Pen(attrs=frozenset({2}))


def test_anything_else_is_left_alone() -> None:
    for frame in ("\x1b[38:5:1mx", "\x1b]2;title\x07", "\x1b[1;31mx\x1b[2Jy", "\x1b[58;5;1mx"):
        assert compact(frame) == frame
