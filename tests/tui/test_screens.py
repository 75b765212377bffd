"""Rules, settings and preferences, the turn alert, and language per app."""

from __future__ import annotations

from textual.widgets import Select

from gambit_tui.prefs import Prefs
from gambit_tui.screens.lobby import LobbyScreen
from gambit_tui.screens.rules import RulesScreen
from gambit_tui.screens.settings import SettingsScreen

from .conftest import enter_lobby, make_app, screen_text, wait_for


async def test_question_mark_opens_the_rules_with_house_rules_marked(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, RulesScreen))
        await pilot.pause(0.2)
        assert "Prophet's Gambit" in screen_text(app)
        assert "A game of bluff and luck" in screen_text(app)
        await pilot.press("4")  # Fortunes: the section with house rules
        await pilot.pause(0.2)
        markdown = app.screen.query_one("Markdown")
        assert "▲ House rule" in markdown.source
        assert "Fortunes" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))


async def test_settings_are_saved_per_identity_and_come_back(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("comma")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
        screen = app.screen
        screen.query_one("#theme", Select).value = "mono"
        screen.query_one("#faces", Select).value = "ascii"
        screen.query_one("#letters", Select).value = True
        await pilot.pause()
        assert "7S" in screen_text(app)  # the ASCII sample
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert app.theme == "gambit-mono"
        assert app.card_style.ascii
    # A new session of the same identity gets the preferences back in its welcome.
    again = make_app(hub)
    async with again.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        assert again.prefs == Prefs(theme="mono", ascii=True, suit_letters=True)
        assert again.theme == "gambit-mono"


async def test_light_theme_and_four_colours(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        app.save_settings("en", Prefs(theme="light", four_colour=True))
        await pilot.pause()
        assert app.theme == "textual-light"
        assert app.card_style.suit_style("C") != app.card_style.suit_style("S")


async def test_language_switch_recomposes_screens(hub, monkeypatch):
    """Every app has its own translations: switching one app's language re-renders its
    screens and leaves another app alone."""
    import gettext
    import re

    from gambit_tui import i18n

    class Shouting(gettext.NullTranslations):
        def gettext(self, message: str) -> str:
            return re.sub(r"(\{[^}]*\})|([^{]+)", lambda m: m[1] or m[2].upper(), message)

    real = i18n.translations
    monkeypatch.setattr(
        "gambit_tui.app.translations", lambda lang: Shouting() if lang == "de" else real(lang)
    )
    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    async with ada.run_test(size=(80, 24)) as ada_pilot, bob.run_test(size=(80, 24)) as bob_pilot:
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        ada.save_settings("de", ada.prefs)
        await ada_pilot.pause(0.2)
        assert "WHO MAY JOIN" in screen_text(ada)
        assert "Who may join" in screen_text(bob)
        await wait_for(ada_pilot, lambda: ada.model.you.get("lang") == "de")
