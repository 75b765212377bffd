"""Send only what changed on a player's screen.

Textual draws by widget: when anything in a widget changes, the whole widget is sent again,
and whole-screen repaints are common (a screen pushed, a layout pass, a screen below the
current one changing). On a network that is most of the bytes. Textual's output is regular,
though: each piece is a cursor move to (row, column) followed by styled text for that run of
cells, every style opened and closed inside the piece. So the driver can remember what each
run of cells last received and skip a piece that would write exactly the same thing again.

When a block of whole rows moves up (a log gaining a line at the bottom), rewriting every row
would cost as much as the first paint of that block; the terminal can move them itself. Rows
that show, in the new frame, exactly what the rows a few lines below them showed are scrolled
up inside a scroll region (DECSTBM, which every VT100 descendant has), and only the rows that
are really new are written.

A piece that changed only in part (a seat's card count, a panel title's colour) is cut down to
the cells that changed: the runs of text and style it shares with what that span of cells last
received, at its start and at its end, are left on the terminal as they are.

The driver hands most frames over as their pieces already (:meth:`SentScreen.diff_drawn`); a
frame that arrives as a string is split at its cursor moves into the same pieces.

The memory is of what was *sent*, so it stays true when frames are dropped for a slow client.
Anything this module does not understand (another escape sequence inside a piece) is sent as
it is, and the memory is forgotten, so the worst case is today's output, never a wrong screen.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from rich.cells import cell_len

from .sgr import PLAIN, NotUnderstood, Pen, apply, change

SYNC_START = "\x1b[?2026h"
SYNC_END = "\x1b[?2026l"
_MOVE = re.compile(r"\x1b\[(\d+);(\d+)H")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_STYLE = re.compile(r"\x1b\[[0-9;:]*m|\x1b\]8;[^\x07\x1b]*(?:\x07|\x1b\\)")
#: The same, to split a piece at (``re.split`` with the group: text, style, text, ...).
_STYLE_SPLIT = re.compile(f"({_STYLE.pattern})")


class SentScreen:
    """What the player's terminal shows, as runs of cells we wrote there, row by row."""

    #: Shifts looked for when rows move up (a log gains at most a few lines per frame).
    MAX_SHIFT = 4

    def __init__(self, width: int = 0) -> None:
        # row → [(first column, end column, the piece's text)]
        self._rows: dict[int, list[tuple[int, int, str]]] = {}
        #: The terminal's width; rows are only scrolled when it is known (0: never).
        self.width = width
        #: Frames sent as they were, not understood (a measure of how well this works).
        self.not_understood = 0

    def reset(self) -> None:
        """Forget everything (resize, a fresh screen, the player asked for a redraw)."""
        self._rows.clear()

    def diff(self, frame: str) -> str:
        """``frame`` without the pieces the terminal already shows ("" if nothing is left)."""
        return "".join(self.diff_pieces(frame))

    def diff_pieces(self, frame: str) -> list[str]:
        """:meth:`diff` as the pieces it joins (none if nothing is left): the sync markers,
        scrolls, and cursor moves each with its text (the whole frame as one piece if it is
        not understood). ``sgr.compact_pieces`` rewrites them a piece at a time."""
        body = frame
        head = tail = ""
        if body.startswith(SYNC_START):
            head, body = SYNC_START, body[len(SYNC_START) :]
        if body.endswith(SYNC_END):
            tail, body = SYNC_END, body[: -len(SYNC_END)]
        parts = _MOVE.split(body)
        if parts[0].strip("\n"):
            self.reset()  # something before the first move: not a frame we understand
            self.not_understood += 1
            return [frame]
        pieces: list[tuple[int, int, str, int]] = []
        for index in range(1, len(parts), 3):
            row, column = int(parts[index]), int(parts[index + 1])
            text = parts[index + 2].rstrip("\n")
            width = _cells(text)
            if width < 0:
                self.reset()
                self.not_understood += 1
                return [frame]
            pieces.append((row, column, text, width))
        return [p if isinstance(p, str) else p[0] + p[1] for p in self._diff(pieces, head, tail)]

    def diff_drawn(
        self,
        drawn: Iterable[tuple[int, int, str, int | None]],
        sync: bool,
        frame: Callable[[], str],
    ) -> list[str | tuple[str, str]]:
        """:meth:`diff_pieces` for a frame given as its pieces, (row, column, text, cells) as
        the cursor moves in the frame would place them (``chops_display.py``; cells None if
        not known), ``sync`` if it is within synchronised-output markers: no string to parse.
        A piece that is left comes back as (cursor move, text); sync markers and scrolls as
        strings (``frame()``, the frame as a string, if it is not understood)."""
        pieces: list[tuple[int, int, str, int]] = []
        for row, column, piece, cells in drawn:
            text = piece.rstrip("\n")
            if cells is not None and text is piece and _measured(text):
                width = cells
            else:
                width = _cells(text)
            if width < 0:
                self.reset()
                self.not_understood += 1
                return [frame()]
            pieces.append((row, column, text, width))
        return self._diff(pieces, SYNC_START if sync else "", SYNC_END if sync else "")

    def _diff(
        self, pieces: list[tuple[int, int, str, int]], head: str, tail: str
    ) -> list[str | tuple[str, str]]:
        """What is left of a frame's pieces (row, column, text, cells) once what the
        terminal shows is taken out, the memory brought up to date."""
        kept: list[str | tuple[str, str]] = self._scroll(pieces) if self.width else []
        rows = self._rows
        for row, column, text, width in pieces:
            if width == 0:
                continue  # a bare cursor move (the cursor is hidden): not worth a byte
            end = column + width
            runs = rows.get(row)
            if runs and (column, end, text) in runs:
                continue
            part = None
            if runs:
                for first, last, old in runs:
                    if first == column and last == end:
                        part = _changed_part(old, text)
                        break
                # Remember it at once: a later piece of this frame may cover these cells.
                runs = [r for r in runs if r[1] <= column or r[0] >= end]
                runs.append((column, end, text))
            else:
                runs = [(column, end, text)]
            rows[row] = runs
            if part is not None:
                skipped, text = part
                kept.append((f"\x1b[{row};{column + skipped}H", text))
            else:
                kept.append((f"\x1b[{row};{column}H", text))
        if not kept:
            return []
        if head:
            kept.insert(0, head)
        if tail:
            kept.append(tail)
        return kept

    def _whole(self, row: int) -> str | None:
        """The text of ``row`` if one piece we sent covers all of it."""
        runs = self._rows.get(row)
        if runs and len(runs) == 1 and runs[0][:2] == (1, self.width + 1):
            return runs[0][2]
        return None

    def _scroll(self, pieces: list[tuple[int, int, str, int]]) -> list[str | tuple[str, str]]:
        """Scroll up the blocks of rows that ``pieces`` would rewrite with what the rows below
        them show now; the memory follows, so those rows' pieces are then skipped."""
        width = self.width
        new: dict[int, str | None] = {}
        for row, column, row_text, cells in pieces:
            whole = column == 1 and cells == width and row not in new
            new[row] = row_text if whole else None
        rows = self._rows
        span = (1, width + 1)

        def shown(row: int) -> str | None:  # as _whole
            runs = rows.get(row)
            if runs and len(runs) == 1 and runs[0][:2] == span:
                return runs[0][2]
            return None

        ops: list[str | tuple[str, str]] = []
        done: set[int] = set()
        shifts = range(1, self.MAX_SHIFT + 1)
        for top in sorted(new):
            text = new[top]
            if text is None or top in done or text == shown(top):
                continue
            if new.get(top + 1) is None or new.get(top + 2) is None:
                continue  # two rows move at least, and one at least is new
            if all(shown(top + shift) != text for shift in shifts):
                continue  # no block starts here, whatever the shift
            for shift in shifts:
                bottom = top
                while (
                    new.get(bottom) is not None
                    and new[bottom] != shown(bottom)
                    and shown(bottom + shift) == new[bottom]
                ):
                    bottom += 1
                moved = bottom - top  # rows that will show what was ``shift`` rows below
                fresh = range(bottom, bottom + shift)  # rows the frame must write anew
                if moved >= 2 and all(new.get(r) is not None for r in fresh):
                    end = bottom + shift - 1
                    ops.append(f"\x1b[{top};{end}r\x1b[{end};1H" + "\n" * shift + "\x1b[r")
                    for r in range(top, bottom):
                        rows[r] = list(rows[r + shift])
                    for r in fresh:
                        rows.pop(r, None)
                    done.update(range(top, end + 1))
                    break
        return ops


@lru_cache(maxsize=4096)
def _measured(piece: str) -> bool:
    """Whether the cells a strip counts for a piece are what :func:`_cells` would count: no
    control character (which :func:`_cells` does not understand) and none of the characters
    that join others (rich measures them across what the strip counts as two segments)."""
    plain = _STYLE.sub("", piece)
    return not (_CONTROL.search(plain) or "\u200d" in plain or "\ufe0f" in plain)


@lru_cache(maxsize=4096)
def _cells(piece: str) -> int:
    """The cells a piece covers; -1 if it holds a control character (not understood).
    Remembered: the players at one table are sent many of the same pieces."""
    plain = _STYLE.sub("", piece)
    return -1 if _CONTROL.search(plain) else cell_len(plain)


@lru_cache(maxsize=4096)
def _styled_runs(text: str) -> tuple[tuple[Pen, str], ...] | None:
    """A piece as (style, text) runs, each style as the terminal has it from a plain start.
    Remembered: the piece sent last frame is this frame's old one, and the players at one
    table are sent many of the same pieces."""
    parts = _STYLE_SPLIT.split(text)
    runs: list[tuple[Pen, str]] = [(PLAIN, parts[0])] if parts[0] else []
    pen = PLAIN
    try:
        for i in range(1, len(parts), 2):
            style = parts[i]
            if style[1] == "]":
                return None  # a hyperlink: not cut
            pen = apply(pen, style[2:-1])
            if parts[i + 1]:
                runs.append((pen, parts[i + 1]))
    except NotUnderstood:
        return None
    return tuple(runs)


@lru_cache(maxsize=4096)
def _changed_part(old: str, new: str) -> tuple[int, str] | None:
    """Where ``new`` starts to differ from ``old`` (both the same span of cells), in cells,
    and ``new`` from there up to where the two agree again; None if cutting saves nothing.
    Remembered: the players at one table see many of the same changes."""
    before, after = _styled_runs(old), _styled_runs(new)
    if not before or not after:
        return None
    first = 0  # runs alike at the start
    limit = min(len(before), len(after))
    while first < limit and before[first] == after[first]:
        first += 1
    last = 0  # runs alike at the end, not overlapping the start
    while last < limit - first and before[len(before) - 1 - last] == after[len(after) - 1 - last]:
        last += 1
    middle = list(after[first : len(after) - last])
    if not middle:
        return None
    skipped = sum(cell_len(t) for _, t in after[:first])
    # Within the first and last changed runs, characters alike in the same style stay too.
    old_middle = before[first : len(before) - last]
    if old_middle:
        (pen, text), (old_pen, old_text) = middle[0], old_middle[0]
        if pen == old_pen:
            same = _common_prefix(old_text, text)
            if same and same < len(text):
                skipped += cell_len(text[:same])
                middle[0] = (pen, text[same:])
        (pen, text), (old_pen, old_text) = middle[-1], old_middle[-1]
        if pen == old_pen:
            same = _common_suffix(old_text, text)
            if same and same < len(text):
                middle[-1] = (pen, text[: len(text) - same])
    out = []
    for pen, text in middle:
        out.append("\x1b[0m" + change(PLAIN, pen) if pen != PLAIN else "\x1b[0m")
        out.append(text)
    out.append("\x1b[0m")
    part = "".join(out)
    return (skipped, part) if len(part) < len(new) else None


def _common_prefix(a: str, b: str) -> int:
    """Characters ``a`` and ``b`` share at the start, never ending before a zero-width one."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    while n > 0 and ((n < len(a) and cell_len(a[n]) == 0) or (n < len(b) and cell_len(b[n]) == 0)):
        n -= 1
    return n


def _common_suffix(a: str, b: str) -> int:
    """Characters ``a`` and ``b`` share at the end, never starting on a zero-width one."""
    n = 0
    for x, y in zip(reversed(a), reversed(b), strict=False):
        if x != y:
            break
        n += 1
    while n > 0 and (cell_len(a[len(a) - n]) == 0 or cell_len(b[len(b) - n]) == 0):
        n -= 1
    return n
