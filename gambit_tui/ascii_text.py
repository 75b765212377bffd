"""ASCII stand-ins for what the app draws, for a terminal whose locale is not UTF-8.

Such a terminal shows each byte of a UTF-8 character as a character of its own, so a border,
a "·" or a Cyrillic word turns into rubble. Two levels of stand-ins:

* :func:`asciify` is for text the app has not laid out yet (messages, key names, the rules):
  a glyph may become several letters ("…" → "...", "≤" → "<=", Ukrainian in the national
  Latin transliteration, German umlauts as "ae").
* :func:`ascii_cells` is for text already laid out on the screen (what a driver sends): every
  character becomes as many ASCII characters as the cells it took, so nothing moves. Borders
  become Textual's own ASCII border (``+-+``, ``|``).

The tables are here, in the app, because they are about what the app draws; the SSH server
uses :func:`ascii_cells` as the last step for such terminals.
"""

from __future__ import annotations

import re
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
#: Ukrainian, by the national transliteration (2010); a word's first є ї й ю я differ.
_UKRAINIAN = (
    "а=a б=b в=v г=h ґ=g д=d е=e є=ie ж=zh з=z и=y і=i ї=i й=i к=k л=l м=m н=n о=o п=p р=r "
    "с=s т=t у=u ф=f х=kh ц=ts ч=ch ш=sh щ=shch ь= ю=iu я=ia"
)
_WORDS.update(pair.split("=") for pair in _UKRAINIAN.split())
_WORDS.update({k.upper(): v.capitalize() for k, v in list(_WORDS.items()) if k.islower()})
_FIRST = {"є": "ye", "ї": "yi", "й": "y", "ю": "yu", "я": "ya"}
_FIRST.update({k.upper(): v.capitalize() for k, v in list(_FIRST.items())})
_WORD_START = re.compile(r"(?<![^\W\d_])[єїйюяЄЇЙЮЯ]")


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
    text = _WORD_START.sub(lambda m: _FIRST[m.group(0)], text)
    return "".join(ch if ch < "\x80" else _word(ch) for ch in text)


def _word(char: str) -> str:
    found = _WORDS.get(char)
    return _cell(char) if found is None else found
