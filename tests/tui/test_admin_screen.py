"""The admin screen (issue 21): an admin sees who is connected and kicks from the app; anyone
else has no admin key at all."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from gambit_tui.screens.admin import AdminScreen
from gambit_tui.screens.ask_name import AskNameScreen
from server.hub import Hub
from tests.hub.harness import connect

from .conftest import enter_lobby, make_app, screen_text, tui_config, wait_for


@pytest.fixture
async def hub(store):
    h = Hub(store, tui_config(admins=frozenset({"SHA256:boss"})))
    await h.start()
    yield h
    await h.stop()


async def test_an_admin_kicks_from_the_app(hub):
    eve = await connect(hub)
    await eve.hello("Eve", identity="SHA256:eve")
    app = make_app(hub, name="Boss", identity="SHA256:boss")
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        assert "Admin" in screen_text(app)
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, AdminScreen))
        table = app.screen.query_one("#sessions", DataTable)
        await wait_for(pilot, lambda: table.row_count == 2)
        assert "Eve" in screen_text(app) and "Boss" in screen_text(app)
        row = table.get_row_index("SHA256:eve")
        table.move_cursor(row=row)
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, AskNameScreen))
        await pilot.press(*"rude", "enter")
        bye = await eve.until(lambda m: m["t"] == "bye")
        assert bye["code"] == "kicked" and "rude" in bye["message"]
        await wait_for(pilot, lambda: table.row_count == 1)
        assert hub.store.admin_log()[0]["action"] == "kick"


async def test_no_admin_key_for_a_player(hub):
    app = make_app(hub, name="Ada", identity="SHA256:ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        assert "Admin" not in screen_text(app)
        await pilot.press("A")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, AdminScreen)
