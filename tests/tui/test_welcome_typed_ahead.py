"""Enter typed before the welcome screen's form is built (a busy server) takes the player to
the lobby once it is, instead of ending the session (the form was looked up too early)."""

from __future__ import annotations

from gambit_tui.screens.lobby import LobbyScreen
from gambit_tui.screens.welcome import WelcomeScreen

from .conftest import make_app, wait_for


async def test_enter_before_the_form_is_built_goes_to_the_lobby(hub):
    app = make_app(hub, identity=None)  # a guest: the welcome screen stays for them
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
        early = WelcomeScreen()
        app.push_screen(early)
        assert not early.query("#name")  # not built yet: the key comes first
        early.action_enter_lobby()
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert app.is_running
