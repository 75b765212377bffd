"""Hole 3 of issue 17 through the app's own screens: a player who keeps opening tables from
the lobby gets three, then a refusal they can read, and the lobby stays as it was."""

from __future__ import annotations

import pytest

from gambit_tui.screens.create_table import CreateTableScreen
from gambit_tui.screens.lobby import LobbyScreen
from gambit_tui.screens.pg_table import PGTableScreen
from server.hub import Hub, HubConfig
from tests.tui.conftest import enter_lobby, make_app, screen_text, wait_for


@pytest.fixture
async def hub(store):
    # The hub's real limits, only its timers fast.
    h = Hub(
        store,
        HubConfig(bot_delay=0.0, lobby_interval=0.02, seed=1, bot_think_ms=5.0, bot_workers=0),
    )
    await h.start()
    yield h
    await h.stop()


async def test_the_fourth_table_is_refused_with_a_message(hub):
    app = make_app(hub)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await enter_lobby(pilot)
        for opened in range(1, 5):
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
            await pilot.press("ctrl+s")
            if opened <= 3:
                await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
                await pilot.press("escape")  # back to the lobby, keeping the seat
                await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
            else:  # told in the form, which stays open (issue 18, item 6)
                await wait_for(pilot, lambda: "3 tables open" in screen_text(app))
                assert isinstance(app.screen, CreateTableScreen)
                await pilot.press("escape")
        assert len(hub.tables) == 3
        await wait_for(pilot, lambda: len(app.model.tables) == 3)
