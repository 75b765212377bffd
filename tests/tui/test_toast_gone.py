"""A toast that has gone leaves the player's terminal (issue 18: once, in a full run of
tests/tui/test_bid_row.py, "The next game has started." stayed over the seats panel more than
a second after Textual had removed it, the table's screen having been opened again from the
lobby while the toast showed).

The cause (server/apphost/laid_out_map.py): the hidden chat box of the table asked for a
repaint, which left the screen's map of widgets stale; the toast's removal made the next
refresh rebuild the map without the toast, and the layout after it found nothing to draw.
The test makes that order happen, through the real channel driver, and compares the whole
terminal with what Textual draws from scratch.
"""

from __future__ import annotations

import asyncio

import pytest
from textual.pilot import Pilot
from textual.widgets._toast import Toast

from gambit_tui.screens.lobby import LobbyScreen
from gambit_tui.screens.prophet_table import ProphetTableScreen
from gambit_tui.widgets.chat_panel import ChatPanel
from gambit_tui.widgets.line_input import LineInput
from server.apphost import laid_out_map

from .conftest import enter_lobby, wait_for
from .test_bid_row import start_app, whole_terminal_problem
from .test_prophet_table import open_prophet_table

NOTICE = "The next game has started."


async def stale_map(pilot: Pilot, table: ProphetTableScreen) -> None:
    """The hidden chat box asks for a repaint until the table's map of widgets is stale (the
    next thing that asks a widget's place rebuilds it)."""
    chat = table.query_one(ChatPanel).query_one(LineInput)
    for _ in range(50):
        chat.refresh()
        await pilot.pause(0.02)
        if table._compositor._full_map_invalidated:
            return
    raise AssertionError("the map of widgets never went stale")


@pytest.mark.parametrize("compositor", ["fixed", "textuals"])
async def test_a_toast_gone_after_the_table_was_opened_again_leaves_the_terminal(
    hub, monkeypatch, compositor
):
    if compositor == "textuals":
        for name, value in laid_out_map.TEXTUALS.items():
            monkeypatch.setattr(laid_out_map.Compositor, name, value)
    app, term, run = await start_app(hub)
    try:
        with app._context():
            pilot = Pilot(app)
            await enter_lobby(pilot)
            table = await open_prophet_table(pilot, players=4, schedule="ascending", cap=1)
            table.notice(NOTICE, timeout=30)
            await wait_for(pilot, lambda: NOTICE in term.screen())
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await pilot.press("o")
            await wait_for(pilot, lambda: isinstance(app.screen, ProphetTableScreen))
            table = app.screen
            assert not await whole_terminal_problem(pilot, term)
            assert NOTICE in term.screen()
            await stale_map(pilot, table)
            table.query_one(Toast)._expire()  # what the toast's timer does
            problem = await whole_terminal_problem(pilot, term)
            gone = NOTICE not in term.screen()
    finally:
        app.exit()
        await asyncio.wait_for(run, 10)
    if compositor == "fixed":
        assert not problem, problem
        assert gone
    else:  # Textual's own compositor: the order above is the one that left the toast there
        assert NOTICE in problem.split("--- Textual draws ---")[0]
