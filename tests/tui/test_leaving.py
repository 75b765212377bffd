"""Leaving a game in play and coming back (issue 18, item 8): the player is asked first and
told what it means; what the stand-in bot did with their chips is told when they sit down
again; in the lobby, j (like o and Enter) takes them back to their own table."""

from __future__ import annotations

import asyncio

import pytest

from gambit_tui.screens.confirm import ConfirmScreen
from gambit_tui.screens.lobby import LobbyScreen
from gambit_tui.screens.prophet_table import ProphetTableScreen
from server.hub import Hub
from tests.hub.harness import Client, connect

from .conftest import enter_lobby, make_app, screen_text, tui_config, wait_for


@pytest.fixture
async def quick_hub(store):
    h = Hub(store, tui_config(between_games=0.05))
    await h.start()
    yield h
    await h.stop()


async def keep_playing(client: Client, table: int) -> None:
    """Bo answers every decision of his with his first legal action, game after game."""
    answered: set[int] = set()
    while True:
        msg = client.tables.get(table)
        view = (msg or {}).get("view") or {}
        if view.get("ask") and view.get("legal") and id(msg) not in answered:
            answered.add(id(msg))
            await client.send("act", table=table, action=view["legal"][0])
        await asyncio.sleep(0.005)


async def test_leaving_mid_game_is_confirmed_and_the_stand_in_result_told_on_return(
    quick_hub, store
):
    hub = quick_hub
    bo = await connect(hub)
    await bo.hello("Bo", identity="key-bo")
    await bo.send("create_table", game="prophet", players=3, stake=10, options={"cap": 2})
    table = (await bo.expect("table"))["table"]
    await bo.send("add_bot", table=table, seat=2)
    await bo.until(lambda m: m["t"] == "table" and m["info"]["seats"][2]["bot"])
    player = asyncio.get_running_loop().create_task(keep_playing(bo, table))
    app = make_app(hub)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await enter_lobby(pilot)
            await wait_for(pilot, lambda: table in app.model.tables)
            await pilot.press("j")
            await wait_for(pilot, lambda: isinstance(app.screen, ProphetTableScreen))
            screen = app.screen
            start = store.balance("player:SHA256:ada")
            await bo.send("start", table=table)
            await wait_for(pilot, lambda: screen.view is not None and not screen.view["over"])

            # q asks first, and says what leaving means; n keeps the seat.
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            text = " ".join(screen_text(app).replace("│", " ").split())
            assert "A bot will play your seat" in text, text
            assert "Your chips stay at stake" in text, text
            await pilot.press("n")
            await wait_for(pilot, lambda: app.screen is screen)
            await pilot.pause(0.1)
            assert hub.tables[table].seats[1].player == "SHA256:ada"

            # y leaves: the seat is the stand-in's, kept for her.
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("y")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
            seat = hub.tables[table].seats[1]
            assert seat.player is None and seat.bot and seat.reserved == "SHA256:ada"

            # The bot finishes her game with her chips, then plays on with the bank's.
            await wait_for(pilot, lambda: hub.tables[table].games_played >= 2, timeout=10)
            moved = store.balance("player:SHA256:ada") - start
            await pilot.press("j")
            await wait_for(pilot, lambda: isinstance(app.screen, ProphetTableScreen))
            await wait_for(pilot, lambda: app.stand_in_notices)
            told = app.stand_in_notices[0]
            assert "a bot played 1 game in your seat with your chips" in told, told
            if moved > 0:
                assert f"it won {moved} chip" in told, told
            elif moved < 0:
                assert f"it lost {-moved} chip" in told, told
            else:
                assert "neither won nor lost" in told, told

            # Back in the lobby with her seat, j (like o) takes her to her table.
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await pilot.press("j")
            await wait_for(pilot, lambda: isinstance(app.screen, ProphetTableScreen))
            assert hub.tables[table].seats[1].player == "SHA256:ada"
    finally:
        player.cancel()


async def test_opening_a_table_again_at_once_keeps_one_screen_for_it(hub):
    """Esc and j at once: the table's old screen unmounts after its new one is up, and must
    not take the new one's place with it (the next update would push a second screen)."""
    from textual.widgets import Select

    from gambit_tui.screens.create_table import CreateTableScreen
    from gambit_tui.screens.pg_table import PGTableScreen

    app = make_app(hub)
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
        app.screen.query_one("#players", Select).value = 4
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        old = app.screen
        # Back to the lobby and in again before the old screen has unmounted (a quick player
        # on a busy server): the calls Esc and j make, back to back.
        app.leave_table_screen(old.table_id, keep_seat=True)
        app.open_table(old.table_id)
        await wait_for(
            pilot, lambda: isinstance(app.screen, PGTableScreen) and app.screen is not old
        )
        new = app.screen
        await pilot.pause(0.3)  # the old screen unmounts
        await pilot.press("b")  # a table update: it goes to the screen that is up
        await wait_for(pilot, lambda: sum(bool(s["bot"]) for s in new.info["seats"]) == 1)
        await pilot.pause(0.2)
        tables = [s for s in app.screen_stack if isinstance(s, PGTableScreen)]
        assert tables == [new], tables
