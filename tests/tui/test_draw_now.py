"""A table's screen draws a move in the callback that brought it (``draw_now``), on the real
channel driver, and the terminal then shows exactly the screen Textual would draw whole."""

from __future__ import annotations

import asyncio

import pyte
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from gambit_tui.screens.pg_table import PGTableScreen
from gambit_tui.widgets.choice_row import ChoiceRow
from server.terminal.driver import bind
from tests.ssh.test_driver import FakeTerminal, wait_until

from .conftest import enter_lobby, make_app, start_pg_deal
from .test_pg_table import play_deal_by_keys


def whole_screen(app) -> str:
    """The screen as Textual draws it from scratch, as a terminal shows it."""
    width, height = app.size
    drawn = app.screen._compositor.render_full_update().render_segments(app.console)
    screen = pyte.Screen(width, height)
    pyte.Stream(screen).feed(drawn)
    return "\n".join(screen.display)


def styled_cells(screen: pyte.Screen) -> list[tuple[object, ...]]:
    """Every cell of a terminal as the player sees it: character, colours and attributes (a
    blank's foreground and weight do not show, so they are left out)."""
    cells = []
    for y in range(screen.lines):
        for x in range(screen.columns):
            c = screen.buffer[y][x]
            glyph = bool(c.data.strip())
            ink = glyph or c.reverse or c.underscore or c.strikethrough
            cells.append(
                (c.data, c.fg if ink else "", c.bg, c.bold and glyph, c.reverse, c.strikethrough)
            )
    return cells


def whole_screen_styled(app) -> list[tuple[object, ...]]:
    """:func:`whole_screen` with every cell's look (:func:`styled_cells`)."""
    width, height = app.size
    drawn = app.screen._compositor.render_full_update().render_segments(app.console)
    screen = pyte.Screen(width, height)
    pyte.Stream(screen).feed(drawn)
    return styled_cells(screen)


def terminal_styled(term: FakeTerminal, app) -> list[tuple[object, ...]]:
    """What the player's terminal shows, every cell's look (:func:`styled_cells`)."""
    width, height = app.size
    screen = pyte.Screen(width, height)
    pyte.ByteStream(screen).feed(bytes(term.out))
    return styled_cells(screen)


async def test_a_move_is_drawn_at_once_and_the_terminal_shows_the_whole_screen(hub):
    app = make_app(hub)
    term = FakeTerminal()
    bind(app, term)
    run = asyncio.create_task(app.run_async(size=(80, 24)))
    await wait_until(lambda: term.driver is not None and app.is_running)
    pilot = Pilot(app)
    received = app.receive
    moves = drawn_at_once = 0
    stale: list[object] = []  # (raised in the app's reader, an assertion would be lost)

    def receive(message):
        nonlocal moves, drawn_at_once
        on_table = isinstance(app.screen, PGTableScreen) and message.get("t") == "table"
        before = len(term.out)
        received(message)
        if not on_table:
            return
        moves += 1
        if len(term.out) > before:  # drawn before the message's callback returned
            drawn_at_once += 1
            # Cell by cell, styles too: a row or hint kept from an earlier move must be current.
            if terminal_styled(term, app) != whole_screen_styled(app):
                stale.append(message.get("view", {}).get("events"))

    app.receive = receive
    result_drawn: list[bool] = []
    # The pilot drives the app from this task: in the app's context, as ``run_test`` does,
    # so a timer the pilot starts (``pause`` updates the screen) knows its app.
    with app._context():
        try:
            await enter_lobby(pilot)
            table = await start_pg_deal(pilot)
            result_due = table._result_due

            def due(message):
                before = len(term.out)
                result_due(message)  # the result comes up: drawn before the timer's callback ends
                result_drawn.append(len(term.out) > before and term.screen() == whole_screen(app))

            table._result_due = due
            # The hand's title alone changes (it stands out while the player must pick): its
            # border row is drawn again, the rest of the row box stays (text_lines.retitle).
            row = table.query_one(ChoiceRow)
            for active in (not row.active, row.active):
                before = len(term.out)
                row.active = active
                table.draw_now()
                assert len(term.out) > before
                assert terminal_styled(term, app) == whole_screen_styled(app)
            await play_deal_by_keys(pilot)
        finally:
            app.exit()
            await asyncio.wait_for(run, 10)
    assert not stale
    assert result_drawn == [True]
    assert moves >= 20
    # Every move is drawn at once but the few that lay the screen out again (the deal's start
    # and end, a log growing its scroll bar).
    print(drawn_at_once, moves)
    assert drawn_at_once >= moves * 0.8, (drawn_at_once, moves)


def test_the_textual_internals_draw_now_reads_are_there():
    """``draw_now`` reads private attributes of Textual; an upgrade that renames them fails
    here, not on a player's screen."""
    for name in (
        "_layout_required",
        "_scroll_required",
        "_repaint_required",
        "_recompose_required",
        "_dirty_widgets",
        "_layout_widgets",
        "_compositor",
    ):
        assert hasattr(Screen(), name), name
    assert callable(Screen._on_timer_update)
    assert callable(Screen._context)
    widget = Widget()
    for name in (
        "_layout_required",
        "_refresh_styles_required",
        "_scroll_required",
        "_repaint_required",
        "_layout_updates",
    ):
        assert hasattr(widget, name), name
    for name in ("_clear_arrangement_cache", "_set_dirty"):
        assert callable(getattr(widget, name)), name
