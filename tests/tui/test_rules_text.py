"""The rules in Ukrainian and German: the same document as the English one, the seeds' own
terms, the catalogs' card names, and the rules screen in the player's language."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from gambit_tui import fortunes_text, names
from gambit_tui.i18n import translations
from gambit_tui.screens.rules import (
    CONTENT_DIR,
    HOUSE_RULE,
    RulesScreen,
    rules_text,
    sections,
)
from protocol.term import TermInfo

from .conftest import enter_lobby, make_app, screen_text, wait_for

TRANSLATIONS = ("uk", "de")
#: How each file marks an option (the English word for German; the uk catalog's "Параметри").
OPTION = {"en": "Option", "uk": "Параметр", "de": "Option"}

#: Terms of the Ukrainian Prophet's Gambit seed and of the Ukrainian catalog.
UK_TERMS = (
    "Роздавач",
    "Фокус",
    "Доля",
    "Вища колода",
    "Звичайна колода",
    "Майстер",
    "Зіграти",
    "Ризикнути",
    "Страта",
    "Розкриття",
    "Родина",
    "Коло",
    "Фортуна",
    "Селище",
    "Гільдія",
    "Трійка",
    "Дві пари",
    "Пара",
    "Старша карта",
)
#: Terms of the German Prophet seed, its table options among them.
DE_TERMS = (
    "Stich",
    "Trumpf",
    "Ansage",
    "Runde",
    "Einsatz",
    "Farbzwang",
    "kein Stich- und kein Trumpfzwang",
    "Maximale Spielstärke",
    "Karten pro Runde",
    "Fix",
    "Aufsteigend",
    "Absteigend",
    "Absteigend und aufsteigend",
    "Aufsteigend und absteigend",
    "nur Freunde von Ihnen",
    "direkt von Ihnen eingeladen",
)
REQUIRED = {"uk": UK_TERMS, "de": DE_TERMS}


def flat(text: str) -> str:
    """The text with every run of whitespace as one space (markers may wrap across lines)."""
    return " ".join(text.split())


def blocks(text: str) -> list[str]:
    """The document's block structure: headings, paragraphs, lists, items and table cells,
    in order (Textual renders the rules with markdown-it, so this is what the screen sees)."""
    tokens = MarkdownIt().enable("table").parse(text)
    return [token.type for token in tokens if token.type.endswith("_open")]


def headings(text: str) -> list[str]:
    """The heading levels in order ("#", "##", "###")."""
    return [line.split()[0] for line in text.splitlines() if line.startswith("#")]


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_translation_has_the_english_structure(lang):
    """Same headings at the same levels, the same house rules and options, the same tables
    and card codes: a translation that drops or adds a rule fails here."""
    english, text = rules_text("en"), rules_text(lang)
    assert text != english
    assert (CONTENT_DIR / f"rules.{lang}.md").is_file()
    assert headings(text) == headings(english)
    assert len(headings(text)) == 39
    for marks in (HOUSE_RULE, OPTION):
        counts = (flat(text).count(f"**{marks[lang]}**"), flat(english).count(f"**{marks['en']}**"))
        assert counts[0] == counts[1] > 0, (marks[lang], counts)
    assert blocks(text) == blocks(english)
    assert re.findall(r"`[^`]*`", text) == re.findall(r"`[^`]*`", english)


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_translation_uses_the_seed_terms(lang):
    text = flat(rules_text(lang))
    missing = [term for term in REQUIRED[lang] if term not in text]
    assert not missing


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_translation_names_cards_hands_and_options_as_the_catalog_does(lang):
    """The rules and the table screen must call a card by the same name: every High card,
    Tarokka name, suit and hand category, and every option choice, as the catalog has it."""
    from protocol import cards

    catalog = translations(lang)
    text = flat(rules_text(lang))
    terms = [
        *names.HIGH_CARDS.values(),
        *names.TAROKKA_SUITS.values(),
        *cards.TAROKKA_NAMES.values(),
        *names.CATEGORIES.values(),
        "Master",
        "Focus",
        "Fate",
        "Bid",
        "Risk",
        "Play",
    ]
    missing = [(t, catalog.gettext(t)) for t in terms if catalog.gettext(t) not in text]
    assert not missing
    choices = [*names.CHOICE_LABELS.values(), "Deck", "Cap", "Betting", "Cards per round"]
    lowered = text.casefold()
    missing = [c for c in choices if catalog.gettext(c).casefold() not in lowered]
    assert not missing


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_fortunes_and_prophet_screens_use_the_rules_words(lang):
    """Suits, ranks, seats, teams, dispositions and the betting keys of Fortunes, and the French
    suits and court cards of Prophet, as whole words of the rules text (so "Ріг" for the
    rules' "Ріх" fails, though "Рігу" is in the text)."""
    catalog = translations(lang)
    text = flat(rules_text(lang)).casefold()
    terms = [
        *fortunes_text.SUIT_NAMES.values(),
        *fortunes_text.RANK_NAMES.values(),
        *fortunes_text.COMPASS,
        *fortunes_text.TEAMS.values(),
        *names.FRENCH_SUITS.values(),
        *names.FRENCH_COURTS.values(),
        "well-disposed",
        "ill-disposed",
        "Reading",
        "Stay",
        "Raise",
        "Fold",
    ]
    missing = [
        (term, catalog.gettext(term))
        for term in terms
        if not re.search(rf"(?<!\w){re.escape(catalog.gettext(term).casefold())}(?!\w)", text)
    ]
    assert not missing
    assert catalog.gettext("Star {n}").format(n=7) in rules_text(lang)


def test_sections_follow_the_language_and_fall_back_to_english():
    for lang in TRANSLATIONS:
        parts = sections(lang)
        assert len(parts) == len(sections("en")) == 5
        assert f"**▲ {HOUSE_RULE[lang]}**" in parts[3]  # Fortunes has the house rules
    assert sections("fr") == sections("en")
    assert sections("uk")[2].startswith("# Пророк")
    assert sections("de")[4].startswith("# Kartenkürzel und Symbole")


async def test_rules_screen_shows_the_players_language_and_follows_a_switch(hub):
    """A Ukrainian player reads the Ukrainian rules; switching to German in the settings
    recomposes the open rules screen in German."""
    app = make_app(hub, term=TermInfo(lang="uk_UA.UTF-8"))
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        assert app.lang == "uk"
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, RulesScreen))
        await wait_for(pilot, lambda: "Гра блефу й удачі" in screen_text(app))
        assert "Гамбіт Пророка" in screen_text(app)
        await pilot.press("4")
        await wait_for(pilot, lambda: "# Фортуни" in app.screen.query_one("Markdown").source)
        assert "▲ Домашнє правило" in app.screen.query_one("Markdown").source
        await wait_for(pilot, lambda: "Гра на взятки для двох команд" in screen_text(app))

        app.save_settings("de", app.prefs)
        await wait_for(pilot, lambda: "Ein Stichspiel für zwei Teams" in screen_text(app))
        assert isinstance(app.screen, RulesScreen)
        assert "▲ Hausregel" in app.screen.query_one("Markdown").source
        await pilot.press("3")
        await wait_for(pilot, lambda: "Sie genau vorhersagen müssen" in screen_text(app))


@pytest.mark.parametrize("lang", ["en", "uk", "de"])
def test_the_fortunes_rules_say_what_each_suit_sign_and_the_reversed_card_mean(lang):
    """Issue 38: cards shown with ♣ are Wands, and the winning card is drawn reversed; the
    rules say both, in the player's language, and a terminal without UTF-8 reads the signs
    as the letters its cards show ("W" for Wands, where ``asciify`` alone made ♣ a "C")."""
    from gambit_tui.ascii_text import asciify
    from gambit_tui.screens.rules import suit_letters

    catalog = translations(lang)
    fortunes = next(part for part in sections(lang) if "  - 22 **" in part)
    flat = " ".join(fortunes.split())
    for suit, sign in zip("WCSP", "♣♥♠♦", strict=True):
        name = catalog.gettext(fortunes_text.SUIT_NAMES[suit])
        assert f"{sign} {name}" in flat, (lang, name)
        assert asciify(f"{suit} {name}") in asciify(suit_letters(flat))
    assert {"en": "reverse colours", "de": "umgekehrten Farben", "uk": "оберненому"}[lang] in flat
