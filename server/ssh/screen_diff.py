"""Send only what changed on a player's screen.

Textual draws by widget: when anything in a widget changes, the whole widget is sent again,
and whole-screen repaints are common (a screen pushed, a layout pass, a screen below the
current one changing). On a network that is most of the bytes. Textual's output is regular,
though: each piece is a cursor move to (row, column) followed by styled text for that run of
cells, every style opened and closed inside the piece. So the driver can remember what each
run of cells last received and skip a piece that would write exactly the same thing again.

The memory is of what was *sent*, so it stays true when frames are dropped for a slow client.
Anything this module does not understand (another escape sequence inside a piece) is sent as
it is, and the memory is forgotten, so the worst case is today's output, never a wrong screen.
"""

from __future__ import annotations

import re

from rich.cells import cell_len

SYNC_START = "\x1b[?2026h"
SYNC_END = "\x1b[?2026l"
_MOVE = re.compile(r"\x1b\[(\d+);(\d+)H")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_STYLE = re.compile(r"\x1b\[[0-9;:]*m|\x1b\]8;[^\x07\x1b]*(?:\x07|\x1b\\)")


class SentScreen:
    """What the player's terminal shows, as runs of cells we wrote there, row by row."""

    def __init__(self) -> None:
        # row → [(first column, end column, the piece's text)]
        self._rows: dict[int, list[tuple[int, int, str]]] = {}
        #: Frames sent as they were, not understood (a measure of how well this works).
        self.not_understood = 0

    def reset(self) -> None:
        """Forget everything (resize, a fresh screen, the player asked for a redraw)."""
        self._rows.clear()

    def diff(self, frame: str) -> str:
        """``frame`` without the pieces the terminal already shows ("" if nothing is left)."""
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
            return frame
        kept: list[str] = []
        rows = self._rows
        for index in range(1, len(parts), 3):
            row, column = int(parts[index]), int(parts[index + 1])
            text = parts[index + 2].rstrip("\n")
            plain = _STYLE.sub("", text)
            if _CONTROL.search(plain):
                self.reset()
                self.not_understood += 1
                return frame
            width = cell_len(plain)
            if width == 0:
                continue  # a bare cursor move (the cursor is hidden): not worth a byte
            end = column + width
            runs = rows.get(row)
            if runs and (column, end, text) in runs:
                continue
            # Remember it at once: a later piece of this frame may cover these cells again.
            runs = [r for r in runs or () if r[1] <= column or r[0] >= end]
            runs.append((column, end, text))
            rows[row] = runs
            kept.append(f"\x1b[{row};{column}H{text}")
        if not kept:
            return ""
        return head + "".join(kept) + tail
