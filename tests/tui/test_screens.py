"""Rules, settings and preferences, the turn alert, and language per app."""

from __future__ import annotations

import pytest
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


async def test_plain_mode_chosen_in_settings_is_remembered_with_the_key(hub):
    """Issue 44: the plain mode chosen in Settings is kept with the player's prefs, where the
    SSH host looks for it (``Hub.stored_plain``) before starting the next session."""
    assert not hub.stored_plain("SHA256:ada")
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("comma")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
        app.screen.query_one("#plain", Select).value = True
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await wait_for(pilot, lambda: hub.stored_plain("SHA256:ada"))
        said = [n.message for n in app._notifications]
        assert any("plain mode starts when you next connect" in m for m in said), said
    assert not hub.stored_plain("SHA256:bob")
    assert not hub.stored_plain(None)


async def test_plain_mode_chosen_on_the_welcome_screen(hub):
    """Issue 44: a player with a key may choose the plain mode on the welcome screen too."""
    app = make_app(hub, identity="SHA256:cy", name="Cy")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: bool(app.screen.query("#plain")))
        app.screen.query_one("#lang", Select).value = "de"
        app.screen.query_one("#plain", Select).value = True
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await wait_for(pilot, lambda: hub.stored_plain("SHA256:cy"))
        await wait_for(pilot, lambda: hub.stored_language("SHA256:cy") == "de")
    guest = make_app(hub, identity=None, name="Gus")
    async with guest.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: bool(guest.screen.query("#lang")))
        assert not guest.screen.query("#plain")  # (a guest's settings end with them)


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


async def _open_table(pilot, game: str):
    from .conftest import start_pg_deal
    from .test_fortunes_table import open_fortunes_table
    from .test_prophet_table import open_prophet_table

    if game == "prophets_gambit":
        return await start_pg_deal(pilot)
    if game == "prophet":
        return await open_prophet_table(pilot)
    return await open_fortunes_table(pilot)


@pytest.mark.parametrize("game", ["prophets_gambit", "prophet", "fortunes"])
async def test_a_table_whose_chat_was_opened_shows_only_the_too_small_notice(hub, game):
    """A table screen used to show and hide its chat (as it opened, too) by setting its
    panels' ``display`` inline, which beat the rule that hides them below 80x24: the log
    showed over the notice, with a scroll bar beside it."""
    from gambit_tui.widgets.chat_panel import ChatPanel
    from gambit_tui.widgets.too_small import TooSmall

    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await _open_table(pilot, game)
        await pilot.press("c")
        await wait_for(pilot, lambda: table.chat_open)
        assert table.query_one(ChatPanel).display
        await pilot.press("escape")
        await wait_for(pilot, lambda: not table.chat_open)
        assert not table.query_one(ChatPanel).display
        for size in ((70, 22), (80, 23), (79, 30)):
            await pilot.resize_terminal(*size)
            await pilot.pause(0.1)
            shown = [w for w in table._compositor.visible_widgets if w is not table]
            assert shown and all(isinstance(w, TooSmall) for w in shown), (size, shown)
            lines = [line.strip() for line in screen_text(app).splitlines() if line.strip()]
            assert lines == [
                "The terminal is too small.",
                "Gambit needs at least 80 × 24; please enlarge it.",
            ], size
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.1)
        assert "too small" not in screen_text(app)
        await pilot.press("c")  # the chat still opens in place of the game's own panel
        await wait_for(pilot, lambda: table.chat_open)
        assert table.query_one(ChatPanel).display
        assert "Table chat" in screen_text(app)
