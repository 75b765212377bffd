"""The Ukrainian and German catalogs: complete, consistent with the code, valid for gettext."""

from __future__ import annotations

import re
import shutil
import string
from pathlib import Path
from types import SimpleNamespace

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po
from textual._context import active_app
from textual.widgets import Select

from gambit_tui import catalog as catalog_tool
from gambit_tui.catalog import catalog_path, extract
from gambit_tui.i18n import _, translations
from gambit_tui.screens.create_table import CreateTableScreen
from gambit_tui.screens.lobby import LobbyScreen
from gambit_tui.screens.pg_table import PGTableScreen
from gambit_tui.screens.settings import SettingsScreen
from gambit_tui.screens.welcome import WelcomeScreen
from protocol.term import TermInfo
from tests.po_checks import assert_msgfmt_accepts

from .conftest import enter_lobby, make_app, screen_text, wait_for

LANGS = ("uk", "de")
NPLURALS = {"uk": 3, "de": 2}
UK_PLURALS = (
    "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
    "(n%100<10 || n%100>=20) ? 1 : 2);"
)


def load(lang: str) -> Catalog:
    with catalog_path(lang).open("rb") as handle:
        return read_po(handle, locale=lang)


def fields(text: str) -> set[str]:
    """The replacement fields of a ``str.format`` pattern, and any %-style ones."""
    names = {f"{{{name}}}" for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    return names | set(re.findall(r"%(?:\([a-z_]+\))?[sdr]", text))


@pytest.mark.parametrize("lang", LANGS)
def test_every_message_the_code_uses_is_translated(lang):
    translated = load(lang)
    missing, untranslated = [], []
    for message in extract():
        if not message.id:
            continue
        entry = translated.get(message.id, context=message.context)
        if entry is None:
            missing.append(message.id)
            continue
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        if entry.fuzzy or not all(strings):
            untranslated.append(message.id)
    assert not missing, f"run python -m gambit_tui.catalog, then translate: {missing}"
    assert not untranslated, f"{lang} lacks translations for {untranslated}"


@pytest.mark.parametrize("lang", LANGS)
def test_placeholders_are_the_same_in_every_translation(lang):
    for entry in load(lang):
        if not entry.id or not entry.string:
            continue
        if isinstance(entry.id, tuple):
            singular, plural = (fields(text) for text in entry.id)
            for form in entry.string:
                # Each form names what the plural names; a form may spell out "one" as a word
                # where the English singular does, but nothing the singular needs may go.
                assert singular <= fields(form) <= plural, (lang, entry.id, form)
        else:
            assert fields(entry.string) == fields(entry.id), (lang, entry.id, entry.string)


@pytest.mark.parametrize("lang", LANGS)
def test_plural_entries_have_every_form(lang):
    catalog = load(lang)
    assert catalog.num_plurals == NPLURALS[lang]
    plurals = [entry for entry in catalog if isinstance(entry.id, tuple)]
    assert plurals
    for entry in plurals:
        assert len(entry.string) == NPLURALS[lang], entry.id


def test_ukrainian_plural_rule():
    assert UK_PLURALS in catalog_path("uk").read_text(encoding="utf-8").replace('"\n"', "")
    forms = ("{name} draws a card.", "{name} draws {n} cards.")
    uk = translations("uk")
    words = {n: uk.ngettext(*forms, n).format(name="Ада", n=n) for n in (1, 2, 5, 11, 21, 22, 25)}
    assert words[1] == "Ада витягує 1 карту."
    assert words[21] == "Ада витягує 21 карту."
    assert words[2] == words[22].replace("22", "2") == "Ада витягує 2 карти."
    assert words[5] == "Ада витягує 5 карт."
    assert words[11] == "Ада витягує 11 карт."
    de = translations("de")
    assert de.ngettext(*forms, 1).format(name="Ada", n=1) == "Ada zieht eine Karte."
    assert de.ngettext(*forms, 3).format(name="Ada", n=3) == "Ada zieht 3 Karten."


def test_the_games_own_words():
    uk, de = translations("uk"), translations("de")
    for english, word in {
        "Focus": "Фокус",
        "Fate": "Доля",
        "Master": "Майстер",
        "Play": "Зіграти",
        "Risk": "Ризикнути",
        "The Reveal": "Розкриття",
        "Family": "Родина",
        "Circle": "Коло",
        "Fortune": "Фортуна",
        "Village": "Селище",
        "Guild": "Гільдія",
        "Three of a kind": "Трійка",
        "Two pairs": "Дві пари",
        "One pair": "Пара",
        "Highest card": "Старша карта",
    }.items():
        assert uk.gettext(english) == word
    assert "Страта" in uk.gettext("The Execution: kill the Focus or save it?")
    assert "Вища колода" in uk.gettext(
        "Your turn in round {n}: Play a card (the High deck is empty)."
    )
    for english, word in {
        "Stake": "Einsatz",
        "Bid": "Ansage",
        "Highest rating": "Maximale Spielstärke",
        "Cards per round": "Karten pro Runde",
        "ascending": "aufsteigend",
        "descending": "absteigend",
        "fixed": "fix",
    }.items():
        assert de.gettext(english) == word
    assert "Runde" in de.gettext("Round {n}: {name} shows the highest card and starts.")


#: German addresses the player formally everywhere ("Sie", "Ihr", "Tippen Sie ..."); these are
#: the familiar forms, pronouns and the imperatives the plain mode once used.
DU_FORMS = re.compile(r"\b(du|dein\w*|dich|dir|tippe|drücke|wähle|verbinde)\b", re.IGNORECASE)
SSH_DE = Path(__file__).parents[2] / "server" / "ssh" / "locale" / "de" / "LC_MESSAGES"


@pytest.mark.parametrize("path", [catalog_path("de"), SSH_DE / "gambit_ssh.po"], ids=["app", "ssh"])
def test_german_says_sie_never_du(path):
    with path.open("rb") as handle:
        catalog = read_po(handle, locale="de")
    familiar = []
    for entry in catalog:
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        familiar += [text for text in strings if entry.id and text and DU_FORMS.search(text)]
    assert not familiar, familiar


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_msgfmt_accepts_the_catalog(lang):
    assert_msgfmt_accepts(catalog_path(lang))


def test_the_tool_merges_new_messages_and_keeps_translations(tmp_path, monkeypatch):
    """``python -m gambit_tui.catalog`` adds a new message to uk and de untranslated, keeps the
    translations and the Plural-Forms, and leaves an up-to-date catalog byte for byte."""
    locale = tmp_path / "locale"
    shutil.copytree(catalog_path("en").parents[2], locale)
    monkeypatch.setattr(catalog_tool, "LOCALE_DIR", locale)
    before = {lang: catalog_tool.catalog_path(lang).read_bytes() for lang in LANGS}
    assert catalog_tool.main() == 0
    for lang in LANGS:
        assert catalog_tool.catalog_path(lang).read_bytes() == before[lang]

    template = extract()
    template.add("A brand new message", locations=[("screens/lobby.py", 1)])
    monkeypatch.setattr(catalog_tool, "extract", lambda: template)
    assert catalog_tool.main() == 0
    for lang in LANGS:
        merged = load_from(catalog_tool.catalog_path(lang), lang)
        assert merged.get("A brand new message").string == ""
        assert merged.get("Focus").string == {"uk": "Фокус", "de": "Fokus"}[lang]
        assert merged.num_plurals == NPLURALS[lang]
    assert UK_PLURALS in catalog_tool.catalog_path("uk").read_text("utf-8").replace('"\n"', "")


def load_from(path, lang: str) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=lang)


@pytest.mark.parametrize(
    ("lang", "welcome", "lobby"),
    [
        ("uk_UA.UTF-8", "Вітаємо в Gambit", "Доступ"),
        ("de_DE.UTF-8", "Willkommen bei Gambit", "Zutritt"),
    ],
)
async def test_the_app_speaks_the_clients_language(hub, lang, welcome, lobby):
    app = make_app(hub, term=TermInfo(lang=lang))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
        await pilot.pause(0.1)
        assert welcome in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.pause(0.1)
        assert lobby in screen_text(app)
        assert "Who may join" not in screen_text(app)


def description(screen: type, action: str) -> str:
    """The footer text (a msgid, or a context key) of ``screen``'s binding for ``action``."""
    return next(b.description for b in screen.BINDINGS if getattr(b, "action", None) == action)


def test_one_english_word_with_two_meanings_gets_two_translations():
    """Saving the Focus at the Execution is a rescue, saving settings is storing them; the
    Prophet option "Deck" is a German Blatt, the draw piles a Stapel. English keeps one word."""
    save_focus = description(PGTableScreen, "act('save')")
    save_settings = description(SettingsScreen, "save")
    words = {"en": ("Save", "Save"), "uk": ("Врятувати", "Зберегти"), "de": ("Retten", "Speichern")}
    for lang, (focus, settings) in words.items():
        token = active_app.set(SimpleNamespace(translations=translations(lang)))
        try:
            # The footer translates every description with _(), context keys included.
            assert (_(save_focus), _(save_settings)) == (focus, settings)
        finally:
            active_app.reset(token)
    de = translations("de")
    assert de.gettext("Deck") == "Blatt"
    assert de.pgettext("the Common and High decks", "Deck") == "Stapel"
    assert translations("uk").pgettext("the Common and High decks", "Deck") == "Колода"


def test_counts_follow_each_languages_plural_rule():
    seats = (
        "Waiting for players: {n} seat free. Add bots or invite friends.",
        "Waiting for players: {n} seats free. Add bots or invite friends.",
    )
    uk, de = translations("uk"), translations("de")
    said = {n: uk.ngettext(*seats, n).format(n=n) for n in (1, 2, 5, 21)}
    assert "1 вільне місце." in said[1] and "21 вільне місце." in said[21]
    assert "2 вільні місця." in said[2] and "5 вільних місць." in said[5]
    assert "1 Platz frei." in de.ngettext(*seats, 1).format(n=1)
    assert "3 Plätze frei." in de.ngettext(*seats, 3).format(n=3)
    pot = ("{names} wins the pot of {pot} chip.", "{names} wins the pot of {pot} chips.")
    assert uk.ngettext(*pot, 21).format(names="Ада", pot=21) == "Ада виграє банк у 21 фішку."
    assert uk.ngettext(*pot, 30).format(names="Ада", pot=30) == "Ада виграє банк у 30 фішок."
    watching = ("{n} watching", "{n} watching")
    assert [uk.ngettext(*watching, n).format(n=n) for n in (1, 3, 7)] == [
        "1 глядач",
        "3 глядачі",
        "7 глядачів",
    ]


async def test_a_free_seat_is_counted_in_the_players_language(hub):
    app = make_app(hub, term=TermInfo(lang="uk_UA.UTF-8"))
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
        app.screen.query_one("#players", Select).value = 3
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        await wait_for(pilot, lambda: "2 вільні місця" in screen_text(app))
        await pilot.press("b")
        await wait_for(pilot, lambda: "1 вільне місце" in screen_text(app))
        assert "q Піти" in screen_text(app)  # leaving the table is not quitting the app
