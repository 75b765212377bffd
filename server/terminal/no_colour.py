"""No colour at all for a terminal that has none (``TERM=vt100``, ``xterm-mono``) or a player
who asked for none (``NO_COLOR``).

Textual renders every style with its colours whatever the session's colour system (with none
it falls back to 24-bit codes), so the driver takes the colour parameters out of every SGR
sequence it sends. What the colours meant must not vanish with them: a highlighted row, a
focused button or a cursor is a light background under dark text, which the app's monochrome
theme (greys only) keeps lighter than its surroundings. Such a cell gets reverse video
instead, so the player's own colours show it the same way. Bold, dim, italic, underline and
reverse pass as they are.
"""

from __future__ import annotations

import re
from functools import lru_cache

_SGR = re.compile(r"\x1b\[([0-9;:]*)m")

#: A background at least this light (0 black … 1 white) shows as reverse video, when the text
#: on it is darker than it (or in the terminal's own colour).
LIGHT = 0.5

#: The 16 ANSI colours' lightness, roughly (xterm's palette).
_ANSI = (0.0, 0.3, 0.4, 0.45, 0.3, 0.35, 0.45, 0.75, 0.5, 0.55, 0.7, 0.85, 0.55, 0.6, 0.8, 1.0)


def _rgb(r: int, g: int, b: int) -> float:
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def _eight_bit(n: int) -> float:
    if n < 16:
        return _ANSI[n]
    if n >= 232:
        return (8 + 10 * (n - 232)) / 255
    n -= 16
    steps = (0, 95, 135, 175, 215, 255)
    return _rgb(steps[n // 36], steps[n // 6 % 6], steps[n % 6])


@lru_cache(maxsize=1024)
def _without_colour(params: str) -> str:
    """The parameters of one SGR sequence with its colours taken out (reverse added where the
    colours made a light background under darker text)."""
    codes = [int(p) if p.isdigit() else 0 for p in re.split("[;:]", params)] if params else [0]
    kept: list[int] = []
    fg: float | None = None
    bg: float | None = None
    i = 0
    while i < len(codes):
        code = codes[i]
        if code in (38, 48):
            light: float | None = None
            if codes[i + 1 : i + 2] == [5] and i + 2 < len(codes):
                light, i = _eight_bit(codes[i + 2] % 256), i + 2
            elif codes[i + 1 : i + 2] == [2] and i + 4 < len(codes):
                light, i = _rgb(*(min(c, 255) for c in codes[i + 2 : i + 5])), i + 4
            else:
                i = len(codes)  # a colour we cannot read: nothing after it is trusted
            if code == 38:
                fg = light
            else:
                bg = light
        elif 30 <= code <= 37 or 90 <= code <= 97:
            fg = _ANSI[code - 30 if code < 90 else code - 82]
        elif 40 <= code <= 47 or 100 <= code <= 107:
            bg = _ANSI[code - 40 if code < 100 else code - 92]
        elif code not in (39, 49):
            kept.append(code)
        i += 1
    if bg is not None and bg >= LIGHT and (fg is None or fg < bg):
        # Reverse video shows it; a style already reversed was dark on light to begin with.
        kept = [c for c in kept if c != 7] if 7 in kept else [*kept, 7]
    return ";".join(map(str, kept))  # "" when only colours were set: the sequence goes


def _replace(match: re.Match[str]) -> str:
    params = _without_colour(match.group(1))
    return f"\x1b[{params}m" if params else ""


def strip_colour(text: str) -> str:
    """``text`` with no colour in any of its SGR sequences."""
    if "\x1b[" not in text:
        return text
    return _SGR.sub(_replace, text)
