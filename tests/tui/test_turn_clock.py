"""Time you can see (issue 18, item 10): while a dialog covers the table where it is the
player's turn, the dialog's status bar counts their seconds down and the bell rings at 10 s."""

from __future__ import annotations

import pytest

from gambit_tui.screens.prophet_table import ProphetTableScreen
from gambit_tui.screens.score_sheet import ScoreSheetScreen
from server.hub import Hub

from .conftest import enter_lobby, make_app, screen_text, tui_config, wait_for
from .test_prophet_table import open_prophet_table


@pytest.fixture
async def timed_hub(store):
    h = Hub(store, tui_config(turn_timer=12.0))
    await h.start()
    yield h
    await h.stop()


async def test_a_dialog_over_the_table_shows_the_turn_clock_and_rings_at_ten_seconds(timed_hub):
    app = make_app(timed_hub)
    bells: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await open_prophet_table(pilot, players=3)
        await pilot.press("s")
        await wait_for(pilot, lambda: table.ask is not None)
        await pilot.pause(0.3)
        # On the table itself the seats show the timer: the status bar says where we are.
        assert "Your turn:" not in screen_text(app).splitlines()[0]
        app.bell = lambda: bells.append("ding")  # type: ignore[method-assign]  # a stand-in that counts or records
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreSheetScreen))
        await wait_for(pilot, lambda: "Your turn:" in screen_text(app).splitlines()[0])
        first = screen_text(app).splitlines()[0]
        seconds = int(first.split("Your turn: ")[1].split(" s")[0])
        assert 10 < seconds <= 12, first
        assert not bells
        await wait_for(pilot, lambda: bells, timeout=3)
        await pilot.pause(1.1)
        assert bells == ["ding"]  # once per decision
        # Back at the table, the clock leaves the status bar.
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ProphetTableScreen))
        await wait_for(pilot, lambda: "Your turn:" not in screen_text(app).splitlines()[0])
