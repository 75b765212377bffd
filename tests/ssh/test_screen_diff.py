"""Sending only what changed must leave the player's terminal exactly as sending everything."""

from __future__ import annotations

import pyte
from hypothesis import given, settings
from hypothesis import strategies as st

from server.terminal.screen_diff import SYNC_END, SYNC_START, SentScreen

COLS, ROWS = 20, 6


def show(data: str) -> list[str]:
    return Shown().feed(data)


class Shown:
    """A terminal that keeps what it was sent: fed a stream piece by piece, it shows what the
    whole stream would (pyte's parser keeps its state between feeds), without reading the
    stream again from its start at every frame."""

    def __init__(self) -> None:
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.Stream(self.screen)

    def feed(self, data: str) -> list[str]:
        self.stream.feed(data)
        return list(self.screen.display)


def piece(row: int, column: int, text: str, colour: int) -> str:
    return f"\x1b[{row};{column}H\x1b[38;5;{colour}m{text}\x1b[0m"


pieces = st.tuples(
    st.integers(1, ROWS),
    st.integers(1, COLS - 3),
    st.text("ab♠ ", min_size=1, max_size=4),
    st.integers(0, 2),
)
frames = st.lists(st.lists(pieces, min_size=1, max_size=6), min_size=1, max_size=25)


@settings(max_examples=300, deadline=None)
@given(frames)
def test_diffed_output_draws_the_same_screen(frame_list):
    sent = SentScreen()
    full, diffed = Shown(), Shown()  # everything sent so far, and the diffs of it
    for frame in frame_list:
        # As Textual writes: rows in order, a newline between rows, the cursor placed last.
        rows = sorted({p[0] for p in frame})
        lines = ["".join(piece(*p) for p in frame if p[0] == row) for row in rows]
        text = SYNC_START + "\n".join(lines) + "\x1b[1;1H" + SYNC_END
        parts = sent.diff_pieces(text)
        # Every piece starts with an escape sequence (sgr.compact_pieces relies on it).
        assert all(part.startswith("\x1b") for part in parts), parts
        assert diffed.feed("".join(parts)) == full.feed(text)


def test_an_unchanged_repaint_sends_nothing():
    sent = SentScreen()
    frame = piece(1, 1, "hello", 1) + "\n" + piece(2, 1, "world", 2)
    assert sent.diff(frame) == frame.replace("\n", "")  # each piece has its own move
    assert sent.diff(frame) == ""
    changed = piece(1, 1, "hello", 1) + "\n" + piece(2, 1, "wor1d", 2)
    assert sent.diff(changed) == piece(2, 1, "wor1d", 2)


def test_after_a_reset_everything_is_sent_again():
    sent = SentScreen()
    frame = piece(3, 4, "x", 1)
    sent.diff(frame)
    sent.reset()
    assert sent.diff(frame) == frame


def test_anything_unknown_is_sent_as_it_is():
    sent = SentScreen()
    frame = piece(1, 1, "abc", 1)
    sent.diff(frame)
    odd = "\x1b[2J" + frame  # a clear screen: not Textual's, not understood
    assert sent.diff(odd) == odd
    assert sent.diff(frame) == frame  # and nothing is assumed about the screen after it


def log_frame(lines: list[str], top: int, height: int, extra: list[tuple]) -> str:
    """A log box of whole rows (its last ``height`` lines) plus pieces elsewhere."""
    rows = []
    shown = lines[-height:]
    for i in range(height):
        text = (shown[i] if i < len(shown) else "").ljust(COLS)[:COLS]
        rows.append(piece(top + i, 1, text, sum(map(ord, text)) % 3))  # styled by content
    others = "".join(piece(*p) for p in extra)
    return SYNC_START + "\n".join(rows) + others + "\x1b[1;1H" + SYNC_END


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.text("xy♠ z", min_size=1, max_size=12), min_size=0, max_size=3),
            st.lists(pieces, max_size=2),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_a_scrolling_log_is_scrolled_and_draws_the_same_screen(steps):
    sent = SentScreen(width=COLS)
    lines: list[str] = []
    full, diffed = Shown(), Shown()  # everything sent so far, and the diffs of it
    for added, extra in steps:
        lines.extend(added)
        others = [p for p in extra if p[0] == 1]  # pieces outside the box (row 1 only)
        frame = log_frame(lines, 2, ROWS - 1, others)
        assert diffed.feed(sent.diff(frame)) == full.feed(frame)


def test_one_new_log_line_costs_one_row():
    sent = SentScreen(width=COLS)
    lines = [f"line {i}" for i in range(5)]
    sent.diff(log_frame(lines, 2, 5, []))
    lines.append("line 5")
    frame = log_frame(lines, 2, 5, [])
    out = sent.diff(frame)
    assert "\x1b[2;6r" in out and out.count("line") == 1  # scrolled, one row written
    full = log_frame(lines[:-1], 2, 5, []) + frame
    assert show(log_frame(lines[:-1], 2, 5, []) + out) == show(full)


def cells(data: str) -> list[list[tuple]]:
    """Every cell's character and colours."""
    return Terminal().feed(data)


class Terminal:
    """A terminal fed piece by piece, its cells read after each piece."""

    def __init__(self) -> None:
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.Stream(self.screen)

    def feed(self, data: str) -> list[list[tuple]]:
        self.stream.feed(data)
        buffer = self.screen.buffer
        return [
            [(c.data, c.fg, c.bg, c.bold) for c in map(buffer[y].__getitem__, range(COLS))]
            for y in range(ROWS)
        ]


STYLES = ["38;5;24", "38;5;253;48;5;233", "1;38;5;197", "48;5;58"]
#: Spans Textual would keep from frame to frame (a widget's line), as (row, column, width).
SPANS = [(1, 1, COLS), (2, 3, 12), (3, 1, 8), (3, 9, 12), (5, 2, 16)]
# The strategies drawn from in the loops below, made once (making them is most of the cost).
RUNS = st.text(st.sampled_from("ab ♠字é"), min_size=1, max_size=5)
RUN_STYLES = st.sampled_from(STYLES)
SPAN_CHOICES = st.lists(st.sampled_from(SPANS), min_size=1, max_size=4, unique=True)


@st.composite
def styled_line(draw: st.DrawFn, width: int) -> str:
    """``width`` cells as styled runs, each style reset after its run, as Textual writes."""
    out, used = [], 0
    while used < width:
        text = draw(RUNS)
        text = text.replace("é", "e\u0301")  # a combining accent: no cell of its own
        fitted = ""
        for char in text:
            size = 2 if char == "字" else 0 if char == "\u0301" else 1
            if used + size > width:
                break
            fitted += char
            used += size
        if not fitted:
            fitted, used = " " * (width - used), width
        out.append(f"\x1b[{draw(RUN_STYLES)}m{fitted}\x1b[0m")
    return "".join(out)


@st.composite
def changing_spans(draw: st.DrawFn) -> list[str]:
    """Frames that redraw some of the same spans, each with new or partly changed runs."""
    frames = []
    for _ in range(draw(st.integers(1, 8))):
        chosen = draw(SPAN_CHOICES)
        chosen.sort()
        text = "".join(
            f"\x1b[{row};{column}H{draw(styled_line(width))}" for row, column, width in chosen
        )
        frames.append(SYNC_START + text + SYNC_END)
    return frames


@settings(max_examples=300, deadline=None)
@given(changing_spans())
def test_pieces_cut_to_their_changed_cells_draw_the_same_screen(frame_list):
    sent = SentScreen(width=COLS)
    full, diffed = Terminal(), Terminal()
    for frame in frame_list:
        assert diffed.feed(sent.diff(frame)) == full.feed(frame)


def test_a_changed_count_in_a_seat_row_costs_only_its_cells():
    sent = SentScreen(width=COLS)
    row = "\x1b[2;1H\x1b[38;5;24m│\x1b[0m\x1b[38;5;253m Ada \x1b[0m\x1b[38;5;246mhand {}  \x1b[0m"
    first = sent.diff(row.format(5))
    out = sent.diff(row.format(4))
    assert out.startswith("\x1b[2;12H") and "Ada" not in out and "4" in out
    assert len(out) < len(first) / 2
    assert cells(first + out) == cells(row.format(4))


def test_a_combining_accent_is_never_left_behind_or_cut_off():
    for old, new in (("e\u0301x", "ex"), ("x\u0301", "y\u0301"), ("ab", "ae\u0301")):
        old, new = "long enough" + old, "long enough" + new  # worth cutting
        sent = SentScreen(width=COLS)
        line = "\x1b[3;2H\x1b[1;38;5;197m{}\x1b[0m"
        shown = sent.diff(line.format(old)) + sent.diff(line.format(new))
        assert cells(shown) == cells(line.format(new)), (old, new)
