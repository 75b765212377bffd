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


async def test_the_rest_of_an_admins_powers_from_the_app(hub):
    """Chips, closing a table, the audit, reports, a restart and calling it off, unbanning."""
    ada = await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    await ada.send("create_table", game="prophet", players=3)
    table = (await ada.expect("table"))["table"]
    app = make_app(hub, name="Boss", identity="SHA256:boss")
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, AdminScreen))
        admin = app.screen
        sessions = admin.query_one("#sessions", DataTable)
        await wait_for(pilot, lambda: sessions.row_count == 2)
        sessions.move_cursor(row=sessions.get_row_index("SHA256:ada"))
        await pilot.press("g")
        await wait_for(pilot, lambda: isinstance(app.screen, AskNameScreen))
        await pilot.press(*"300", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AskNameScreen))
        await pilot.press(*"prize", "enter")
        await wait_for(pilot, lambda: hub.store.balance("player:SHA256:ada") == 1300)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, AskNameScreen))
        await pilot.press(*str(table), "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AskNameScreen))
        await pilot.press(*"stuck", "enter")
        await wait_for(pilot, lambda: table not in hub.tables)
        await pilot.press("v")
        await wait_for(pilot, lambda: "The ledger is in order." in screen_text(app))
        await pilot.press("R")
        await wait_for(pilot, lambda: hub.admin.restart_at is not None)
        await pilot.press("x")
        await wait_for(pilot, lambda: hub.admin.restart_at is None)
        hub.store.add_ban(fingerprint=None, address="203.0.113.9", until=None, reason="x", by="y")
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, AskNameScreen))
        await pilot.press(*"203.0.113.9", "enter")
        await wait_for(pilot, lambda: hub.store.ban_on(address="203.0.113.9") is None)
        actions = [entry["action"] for entry in hub.store.admin_log()]
        assert {"chips", "close_table", "restart", "cancel_restart", "unban"} <= set(actions)
