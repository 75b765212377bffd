"""Sending only what changed must leave the player's terminal exactly as sending everything."""

from __future__ import annotations

import pyte
from hypothesis import given, settings
from hypothesis import strategies as st

from server.ssh.screen_diff import SYNC_END, SYNC_START, SentScreen

COLS, ROWS = 20, 6


def show(data: str) -> list[str]:
    screen = pyte.Screen(COLS, ROWS)
    pyte.Stream(screen).feed(data)
    return [line for line in screen.display]


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
    full, diffed = "", ""
    for frame in frame_list:
        # As Textual writes: rows in order, a newline between rows, the cursor placed last.
        rows = sorted({p[0] for p in frame})
        lines = ["".join(piece(*p) for p in frame if p[0] == row) for row in rows]
        text = SYNC_START + "\n".join(lines) + "\x1b[1;1H" + SYNC_END
        full += text
        diffed += sent.diff(text)
        assert show(diffed) == show(full)


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
    full, diffed = "", ""
    for added, extra in steps:
        lines.extend(added)
        others = [p for p in extra if p[0] == 1]  # pieces outside the box (row 1 only)
        frame = log_frame(lines, 2, ROWS - 1, others)
        full += frame
        diffed += sent.diff(frame)
        assert show(diffed) == show(full)


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
