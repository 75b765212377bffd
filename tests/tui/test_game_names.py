"""The games' names, one decision in all three languages (issue 18, item 16).

A game's name is a proper name. Where a seed (the rule text the game came with) names it in a
language, that is its name there: Ukrainian «Гамбіт Пророка» (the Ukrainian seed's title), German
"Prophet" (the German seed's title). Where no seed does, German keeps the English name (as
German players of "Fortunes" and "Prophet's Gambit" meet them) and Ukrainian translates it as its
seed translated the flagship's («Пророк», «Фортуни»). The catalog holds the names; the rules
pages and every screen take them from there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gambit_tui.i18n import translations

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "seeds"
CONTENT = ROOT / "gambit_tui" / "content"
GAMES = ("Prophet's Gambit", "Prophet", "Fortunes")
NAMES = {
    "en": ("Prophet's Gambit", "Prophet", "Fortunes"),
    "de": ("Prophet's Gambit", "Prophet", "Fortunes"),
    "uk": ("Гамбіт Пророка", "Пророк", "Фортуни"),
}


@pytest.mark.parametrize("lang", sorted(NAMES))
def test_the_catalog_names_each_game_as_decided(lang):
    catalog = translations(lang)
    assert tuple(catalog.gettext(game) for game in GAMES) == NAMES[lang]


@pytest.mark.parametrize("lang", sorted(NAMES))
def test_the_rules_page_heads_each_game_with_its_catalog_name(lang):
    page = CONTENT / ("rules.md" if lang == "en" else f"rules.{lang}.md")
    headings = re.findall(r"^# (.+)$", page.read_text(encoding="utf-8"), re.MULTILINE)
    assert [h for h in headings if h in NAMES[lang]] == list(NAMES[lang])


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seeds are not beside this checkout")
def test_the_names_follow_the_seeds_where_a_seed_names_the_game():
    assert (SEEDS / "prophets-gambit.uk.txt").read_text(encoding="utf-8").splitlines()[0] == (
        NAMES["uk"][0]
    )
    assert (SEEDS / "prophet.de.txt").read_text(encoding="utf-8").startswith(NAMES["de"][1] + ":")
