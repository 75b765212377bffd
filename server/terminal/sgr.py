"""Fewer bytes for the same colours: SGR sequences rewritten as changes of state.

Textual writes every run of text as a complete style, the text, and a reset
(``ESC[38;5;253;48;5;233m text ESC[0m``), so on a card table more than half of a frame's
bytes are styles repeated between neighbouring runs. This module replays a frame's styles as
the terminal would see them and writes only what changes from one run to the next; spaces
whose look does not depend on the foreground keep whatever foreground is set. The screen
that results is the same cell for cell (``tests/ssh/test_sgr.py`` checks it with a terminal
emulator). A frame with anything this module does not understand is sent as it was.

A long run of blank cells (the rest of a log line, a prompt, a panel) costs a byte per cell. On
a terminal that erases in the current background colour (terminfo's ``bce``: xterm and its
kind, tmux) the run is erased instead and the cursor moved over it, ``ESC[nX ESC[nC``: ten
bytes for any run up to 99 cells.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

#: The sequences a frame is split at (``re.split`` with the group: text, token, text, ...): a
#: style (ends in "m"), a cursor move, a scroll region, a sync marker.
_TOKEN = re.compile(r"(\x1b\[[0-9;:]*m|\x1b\[\d+;\d+[Hr]|\x1b\[r|\x1b\[\?2026[hl])")

#: Attribute codes and the code that turns each off.
_OFF = {1: 22, 2: 22, 3: 23, 4: 24, 5: 25, 7: 27, 8: 28, 9: 29, 21: 24, 53: 55}
#: Attributes that change how a space looks (the others only shape glyphs).
_VISIBLE_ON_SPACE = frozenset({4, 7, 8, 9, 21, 53})
#: Blank runs at least this long are erased rather than written (shorter ones cost no more).
_ERASE_RUN = re.compile(r" {12,}")


class Pen(NamedTuple):
    """The terminal's current style: foreground, background (as SGR parameters), attributes."""

    fg: str | None = None
    bg: str | None = None
    attrs: frozenset[int] = frozenset()


PLAIN = Pen()


class NotUnderstood(ValueError):
    """A sequence this module does not rewrite."""


@lru_cache(maxsize=4096)
def apply(pen: Pen, params: str) -> Pen:
    """The pen after ``ESC[{params}m`` (remembered: a server's frames use a few dozen styles)."""
    if ":" in params:
        raise NotUnderstood(params)
    codes = [int(p) if p else 0 for p in params.split(";")]
    fg, bg, attrs = pen
    i = 0
    while i < len(codes):
        code = codes[i]
        if code == 0:
            fg, bg, attrs = None, None, frozenset()
        elif code in (38, 48):
            if i + 2 < len(codes) and codes[i + 1] == 5:
                colour, i = f"{code};5;{codes[i + 2]}", i + 2
            elif i + 4 < len(codes) and codes[i + 1] == 2:
                colour = f"{code};2;{codes[i + 2]};{codes[i + 3]};{codes[i + 4]}"
                i += 4
            else:
                raise NotUnderstood(params)
            if code == 38:
                fg = colour
            else:
                bg = colour
        elif 30 <= code <= 37 or 90 <= code <= 97:
            fg = str(code)
        elif 40 <= code <= 47 or 100 <= code <= 107:
            bg = str(code)
        elif code == 39:
            fg = None
        elif code == 49:
            bg = None
        elif code in _OFF:
            attrs = attrs | {code}
        elif code in (22, 23, 24, 25, 27, 28, 29, 55):
            attrs = frozenset(a for a in attrs if _OFF[a] != code)
        else:
            raise NotUnderstood(params)
        i += 1
    return Pen(fg, bg, attrs)


@lru_cache(maxsize=4096)
def change(old: Pen, new: Pen) -> str:
    """The shortest simple SGR that takes the terminal from ``old`` to ``new`` ("" if none)."""
    if old == new:
        return ""
    if new == PLAIN:
        return "\x1b[0m"
    params: list[str] = []
    gone = old.attrs - new.attrs
    offs = {_OFF[a] for a in gone}
    params.extend(str(code) for code in sorted(offs))
    # 22 turns off both bold and dim: put back the one that stays.
    added = new.attrs - old.attrs | (new.attrs & {1, 2} if 22 in offs else frozenset())
    params.extend(str(a) for a in sorted(added))
    if new.fg != old.fg:
        params.append(new.fg or "39")
    if new.bg != old.bg:
        params.append(new.bg or "49")
    reset = "0;" + ";".join(
        [str(a) for a in sorted(new.attrs)] + [c for c in (new.fg, new.bg) if c]
    )
    short = ";".join(params)
    return f"\x1b[{short if len(short) <= len(reset) else reset}m"


def compact(frame: str, erase: bool = False) -> str:
    """``frame`` with its styles rewritten as changes (the frame itself if not understood);
    with ``erase``, long blank runs erased (only for terminals that erase in colour)."""
    out: list[str] = []
    try:
        shown, _pen = _rewrite(out, frame, PLAIN, PLAIN, erase)
    except NotUnderstood:
        return frame
    out.append(change(shown, PLAIN))
    return "".join(out)


def compact_pieces(pieces: Sequence[str | tuple[str, str]], erase: bool = False) -> str:
    """``compact("".join(pieces), erase)``, a piece at a time: each piece (a cursor move and
    its text, a scroll, a sync marker: every piece starts with an escape sequence, so none
    of the frame's tokens spans two) is rewritten once for the pens it starts from, and
    remembered. The players at a table are sent mostly the same pieces, from the same pens:
    tokenizing and replaying every frame's styles was a tenth of the driver's work.

    A piece may come as (cursor move, text) (``SentScreen.diff_drawn``): the move is sent as
    it is and the text rewritten, remembered by the text alone (the same string, often the
    same object, frame after frame, whatever its row)."""
    out: list[str] = []
    shown = pen = PLAIN
    for piece in pieces:
        if isinstance(piece, str):
            done = _compact_piece(piece, shown, pen, erase)
        else:
            move, text = piece
            out.append(move)
            done = _compact_piece(text, shown, pen, erase)
        if done is None:
            return "".join(p if isinstance(p, str) else p[0] + p[1] for p in pieces)
        text, shown, pen = done
        out.append(text)
    out.append(change(shown, PLAIN))
    return "".join(out)


@lru_cache(maxsize=4096)
def _compact_piece(piece: str, shown: Pen, pen: Pen, erase: bool) -> tuple[str, Pen, Pen] | None:
    """One piece rewritten from the pens ``shown`` (the terminal's) and ``pen`` (the frame's):
    its text and both pens after it; None if not understood."""
    out: list[str] = []
    try:
        shown, pen = _rewrite(out, piece, shown, pen, erase)
    except NotUnderstood:
        return None
    return "".join(out), shown, pen


def _rewrite(out: list[str], frame: str, shown: Pen, pen: Pen, erase: bool) -> tuple[Pen, Pen]:
    """Append ``frame`` to ``out`` with its styles as changes, from the pens ``shown`` and
    ``pen``: the pens after it (raises NotUnderstood). (``_write`` inlined: this runs for
    every run of text of every piece a frame sends for the first time.)"""
    append = out.append
    parts = _TOKEN.split(frame)  # text, token, text, ..., text
    last = len(parts) - 1
    i = 0
    while True:
        text = parts[i]
        if text:
            if "\x1b" in text:
                raise NotUnderstood(text)
            if (
                erase
                and len(text) >= 12
                and "            " in text
                and pen.attrs.isdisjoint(_VISIBLE_ON_SPACE)
            ):
                shown = _write_erasing(out, text, shown, pen)
            elif (
                not text.strip(" ")
                and pen.bg == shown.bg
                and pen.attrs.isdisjoint(_VISIBLE_ON_SPACE)
                and shown.attrs.isdisjoint(_VISIBLE_ON_SPACE)
            ):
                append(text)  # spaces look the same whatever the foreground and weight
            else:
                if shown is not pen:
                    append(change(shown, pen))
                    shown = pen
                append(text)
        if i == last:
            return shown, pen
        token = parts[i + 1]
        if token[-1] == "m":
            pen = apply(pen, token[2:-1])
        else:
            append(token)  # a cursor move, scroll region or sync marker
        i += 2


def _write(out: list[str], text: str, shown: Pen, pen: Pen) -> Pen:
    if "\x1b" in text:
        raise NotUnderstood(text)
    if (
        text.strip(" ") == ""
        and pen.bg == shown.bg
        and not (pen.attrs | shown.attrs) & _VISIBLE_ON_SPACE
    ):
        out.append(text)  # spaces look the same whatever the foreground and weight
        return shown
    out.append(change(shown, pen))
    out.append(text)
    return pen


def _write_erasing(out: list[str], text: str, shown: Pen, pen: Pen) -> Pen:
    """As ``_write``, with long blank runs erased in the background colour (ECH) and skipped
    (CUF). Erased cells take only the background, so a pen that shows on a blank (reverse,
    underline, strike) writes its spaces."""
    if len(text) < 12 or pen.attrs & _VISIBLE_ON_SPACE or "            " not in text:
        return _write(out, text, shown, pen)
    pos = 0
    for run in _ERASE_RUN.finditer(text):
        if run.start() > pos:
            shown = _write(out, text[pos : run.start()], shown, pen)
        if shown.bg != pen.bg or shown.attrs & _VISIBLE_ON_SPACE:
            out.append(change(shown, pen))
            shown = pen
        cells = run.end() - run.start()
        out.append(f"\x1b[{cells}X\x1b[{cells}C")
        pos = run.end()
    if pos < len(text):
        shown = _write(out, text[pos:], shown, pen)
    return shown
