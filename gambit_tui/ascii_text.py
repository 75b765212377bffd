"""ASCII stand-ins for what the app draws, for a terminal whose locale is not UTF-8.

Such a terminal shows each byte of a UTF-8 character as a character of its own, so a border,
a "·" or a Cyrillic word turns into rubble. Two levels of stand-ins:

* :func:`asciify` is for text the app has not laid out yet (messages, key names, the rules):
  a glyph may become several letters ("…" → "...", "≤" → "<=", German umlauts as "ae").
  Ukrainian letters stay one letter each ("Стіл" → "Stil"): the national transliteration
  ("щ" → "shch") made words longer than the columns laid out for them.
* :func:`ascii_cells` is for text already laid out on the screen (what a driver sends): every
  character becomes as many ASCII characters as the cells it took, so nothing moves. Borders
  become Textual's own ASCII border (``+-+``, ``|``).

The tables are here, in the app, because they are about what the app draws; the SSH server
uses :func:`ascii_cells` as the last step for such terminals.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from rich.cells import cell_len

#: One ASCII character per cell: glyphs the app and Textual draw.
_CELL: dict[str, str] = {
    "·": "-",
    "•": "*",
    "…": "~",
    "—": "-",
    "–": "-",
    "−": "-",
    "‐": "-",
    "×": "x",
    "≤": "<",
    "≥": ">",
    "✓": "+",
    "✔": "+",
    "✗": "x",
    "✘": "x",
    "★": "*",
    "☆": "*",
    "♠": "S",
    "♥": "H",
    "♦": "D",
    "♣": "C",
    "●": "o",
    "○": "o",
    "♛": "^",
    "⏎": "<",
    "←": "<",
    "→": ">",
    "↑": "^",
    "↓": "v",
    "▲": "^",
    "△": "^",
    "▼": "v",
    "▽": "v",
    "▶": ">",
    "►": ">",
    "▸": ">",
    "◀": "<",
    "◄": "<",
    "◂": "<",
    "“": '"',
    "”": '"',
    "„": '"',
    "«": '"',
    "»": '"',
    "‘": "'",
    "’": "'",
    "‚": "'",
    "ß": "s",
    "ʼ": "'",
    "№": "#",
    "€": "E",
    "°": "o",
    "\u00a0": " ",
    "\u2009": " ",
    "\u202f": " ",
    # Ukrainian (and Russian) letters, one Latin letter each.
    **dict(
        zip(
            "абвгґдеєжзиіїйклмнопрстуфхцчшщьюяыэъё",
            "abvhgdeezzyiijklmnoprstufhccss'uaye\"e",
            strict=True,
        )
    ),
    **dict(
        zip(
            "АБВГҐДЕЄЖЗИІЇЙКЛМНОПРСТУФХЦЧШЩЬЮЯЫЭЪЁ",
            "ABVHGDEEZZYIIJKLMNOPRSTUFHCCSS'UAYE\"E",
            strict=True,
        )
    ),
}

#: Several letters where there is room: text that is laid out after this.
_WORDS: dict[str, str] = {
    "…": "...",
    "≤": "<=",
    "≥": ">=",
    "→": "->",
    "←": "<-",
    "⏎": "Enter",
    "ä": "ae",
    "ö": "oe",
    "ü": "ue",
    "Ä": "Ae",
    "Ö": "Oe",
    "Ü": "Ue",
    "ß": "ss",
}


@lru_cache(maxsize=4096)
def _cell(char: str) -> str:
    """``char`` as ASCII, one character per cell it takes."""
    if char in _CELL:
        return _CELL[char]
    width = cell_len(char)
    name = unicodedata.name(char, "")
    if name.startswith("BOX DRAWINGS"):
        if "HORIZONTAL" in name and "VERTICAL" not in name:
            return "-"
        if "VERTICAL" in name and "HORIZONTAL" not in name:
            return "|"
        return "+" if "DIAGONAL" not in name else "/"
    if name.endswith(("ONE EIGHTH BLOCK", "ONE QUARTER BLOCK")) or "HALF BLOCK" in name:
        if name.startswith(("UPPER", "LOWER")):
            return "-"
        return "|"
    if name.startswith(("FULL BLOCK", "LIGHT SHADE", "MEDIUM SHADE", "DARK SHADE")):
        return "#"
    if name.startswith(("LEFT", "RIGHT")) and "BLOCK" in name:
        return "|"
    if name.startswith("QUADRANT") or "BLOCK" in name:
        return "#"
    base = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
    if len(base) == width:
        return base
    return "?" * width


def ascii_cells(text: str) -> str:
    """``text`` in ASCII, each character replaced by as many characters as cells it takes
    (laid-out text stays where it is)."""
    if text.isascii():
        return text
    return "".join(ch if ch < "\x80" else _cell(ch) for ch in text)


def asciify(text: str) -> str:
    """``text`` in ASCII for a terminal without UTF-8, before it is laid out."""
    if text.isascii():
        return text
    return "".join(ch if ch < "\x80" else _word(ch) for ch in text)


def _word(char: str) -> str:
    found = _WORDS.get(char)
    return _cell(char) if found is None else found
