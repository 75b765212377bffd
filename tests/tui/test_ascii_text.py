"""ASCII stand-ins for terminals without UTF-8: every glyph the app draws has a real one (not
"?"), and text already laid out keeps its width."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len

from gambit_tui import ascii_text
from gambit_tui.ascii_text import ascii_cells, asciify

PACKAGE = Path(ascii_text.__file__).parent


def drawn_characters() -> set[str]:
    """Every non-ASCII character in the app's code, catalogs and rules."""
    found: set[str] = set()
    for pattern in ("**/*.py", "locale/*/LC_MESSAGES/*.po", "content/*.md"):
        for path in PACKAGE.glob(pattern):
            found.update(ch for ch in path.read_text("utf-8") if not ch.isascii())
    return found


def test_every_glyph_the_app_draws_has_a_stand_in():
    missing = sorted(ch for ch in drawn_characters() if "?" in ascii_cells(ch) + asciify(ch))
    assert not missing, [f"{ch} U+{ord(ch):04X}" for ch in missing]


@pytest.mark.parametrize(
    "text",
    ["╭─ Tables ─╮", "│ Ada · 1,000 chips…", "▁▔▊▎█▒", "Стіл · Größe", "⏎ Play ←→", "日本"],
)
def test_laid_out_text_keeps_its_cells(text):
    assert ascii_cells(text).isascii()
    assert len(ascii_cells(text)) == cell_len(text)


def test_text_not_laid_out_reads_well():
    assert ascii_cells("╭─ Tables ─╮") == "+- Tables -+"
    assert asciify("Loading…") == "Loading..."
    assert asciify("rating ≤ {n}") == "rating <= {n}"
    assert asciify("Стіл, Захід · Висока") == "Stil, Zahid - Vysoka"  # as long as it was
    assert asciify("Größe") == "Groesse"
