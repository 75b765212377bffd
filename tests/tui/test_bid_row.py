"""Prophet's "Your bid" row is on the player's terminal at every first-round bid (issue 18,
item 1: both players of a 4-seat game once saw only their hand while bidding, until a resize).

Many first rounds (a one-round schedule, so every game is a round 1), each begun in another
of the orderings a real session meets: from the waiting room; the last game's result open when
the deal starts; a dialog over the table when the deal starts (the table is drawn when it is
on top again); the screen recomposed (a language or theme change) as the deal starts; the
table's screen opened again while the bid is asked; and a player back in after a dropped
connection, at a bid (a new app whose table screen mounts with the ask already there). Each
bid is read off a terminal emulator fed the bytes the real channel driver sent (with the
screen diff and the erasing of blank runs a tmux-like terminal gets), and the whole terminal
must match what Textual draws from scratch. A last test shows the row in the order that hid a
layout's changes from the terminal (a stale map of widgets, server/apphost/laid_out_map.py).
"""

from __future__ import annotations

import asyncio

import pytest
from textual.pilot import Pilot

from gambit_tui import events
from gambit_tui.app import GambitApp
from gambit_tui.screens import table_base
from gambit_tui.screens.lobby import LobbyScreen
from gambit_tui.screens.prophet_table import ProphetTableScreen
from gambit_tui.screens.rules import RulesScreen
from gambit_tui.widgets.chat_panel import ChatPanel
from gambit_tui.widgets.choice_row import ChoiceRow
from gambit_tui.widgets.line_input import LineInput
from gambit_tui.widgets.prompt_bar import PromptBar
from protocol.event_log import expand
from server.apphost import laid_out_map
from server.hub import Hub
from server.terminal.driver import bind
from tests.ssh.test_driver import FakeTerminal, wait_until

from .conftest import enter_lobby, make_app, tui_config, wait_for
from .test_draw_now import whole_screen
from .test_prophet_table import open_prophet_table

#: How each game's first round begins: the first from the waiting room, each later one with
#: the last game's result open (it closes by itself as the deal begins) and ...
ORDERINGS = (
    "from_waiting_room",
    "result_open",
    "dialog_over_table",
    "recomposed",
    "screen_opened_again",
)
#: Games played (every one a first round), one per ordering.
GAMES = len(ORDERINGS)
#: Long enough for the result of a game to come up before the next deal.
BETWEEN_GAMES = 0.5


@pytest.fixture
async def hub(store):
    h = Hub(store, tui_config(between_games=BETWEEN_GAMES))
    await h.start()
    yield h
    await h.stop()


def bids_on(screen: str) -> bool:
    """Whether ``screen`` shows the bid row: its title, and the bids under it, one picked."""
    lines = screen.splitlines()
    heads = [i for i, line in enumerate(lines) if "╭─ Your bid " in line]
    return len(heads) == 1 and heads[0] + 1 < len(lines) and "[" in lines[heads[0] + 1]


async def terminal_problem(pilot: Pilot, term: FakeTerminal, table: ProphetTableScreen) -> str:
    """What is wrong with the bid row, laid out and on the terminal, once the screen has
    settled ("" if nothing): within a second (a toast may be coming or going, the screen
    recomposing) the row must be laid out and shown, and the whole terminal show what Textual
    draws."""
    app = pilot.app
    problem = ""
    for _ in range(20):
        await pilot.pause(0.05)
        rows = table.query("#bids").results(ChoiceRow)
        row = next(rows, None)
        placed = table._compositor.visible_widgets.get(row) if row is not None else None
        shown, drawn = term.screen(), whole_screen(app)
        if placed is None or placed[0].height != 3:
            problem = f"the bid row is not laid out ({placed})\n{shown}"
        elif not bids_on(shown) or shown != drawn:
            problem = f"the terminal shows\n{shown}\n--- Textual draws ---\n{drawn}"
        else:
            return ""
    return problem


async def whole_terminal_problem(pilot: Pilot, term: FakeTerminal) -> str:
    """What the terminal shows that Textual would not draw, once the screen has settled
    (within a second; "" if nothing)."""
    app = pilot.app
    problem = ""
    for _ in range(20):
        await pilot.pause(0.05)
        shown, drawn = term.screen(), whole_screen(app)
        if shown == drawn:
            return ""
        problem = f"the terminal shows\n{shown}\n--- Textual draws ---\n{drawn}"
    return problem


async def dialog_until_bid(pilot: Pilot, table: ProphetTableScreen) -> None:
    """The rules over the table until the next game asks for a bid, then closed."""
    app = pilot.app
    await pilot.press("question_mark")
    await wait_for(pilot, lambda: isinstance(app.screen, RulesScreen))
    await wait_for(pilot, lambda: (table.ask or {}).get("kind") == "bid")
    await pilot.pause(0.1)
    await pilot.press("escape")
    await wait_for(pilot, lambda: app.screen is table)


async def start_app(hub: Hub) -> tuple[GambitApp, FakeTerminal, asyncio.Task[None]]:
    """Ada's app on the real channel driver, to a terminal that erases in colour (tmux)."""
    app = make_app(hub)
    term = FakeTerminal()
    bind(app, term, erase=True)
    run = asyncio.create_task(app.run_async(size=(80, 24)))
    await wait_until(lambda: term.driver is not None and app.is_running)
    return app, term, run


def bidding(app: GambitApp) -> bool:
    screen = app.screen
    return isinstance(screen, ProphetTableScreen) and (screen.ask or {}).get("kind") == "bid"


async def test_the_bid_row_is_on_the_terminal_at_every_first_round_bid(hub, monkeypatch):
    # The result of a game comes up well before the next deal (which waits BETWEEN_GAMES).
    monkeypatch.setattr(table_base, "RESULT_DELAY", (0.05, 0.1))
    app, term, run = await start_app(hub)
    failures: list[str] = []
    bids_seen: dict[int, str] = {}
    done: list[str] = []  # the orderings that were set up
    received = app.receive

    def receive(message):
        # "recomposed": the deal's first message finds the screen starting to recompose.
        # (A table message comes as a delta of the last: read it whole, as the app will.)
        screen = app.screen
        if message.get("t") == "table":
            message_whole = expand(app.model.views.get(message.get("table")), message)
        else:
            message_whole = message
        games = message_whole.get("info", {}).get("games_played")
        if (
            isinstance(screen, ProphetTableScreen)
            and message.get("t") == "table"
            and games is not None
            and ORDERINGS[games % len(ORDERINGS)] == "recomposed"
            and (screen.view or {}).get("over")
            and not (message_whole.get("view") or {}).get("over", True)
        ):
            screen.post_message(events.LookChanged())
            done.append("recomposed")
        received(message)

    app.receive = receive
    try:
        with app._context():
            pilot = Pilot(app)
            await enter_lobby(pilot)
            table = await open_prophet_table(pilot, players=4, schedule="ascending", cap=1)
            await pilot.press("s")
            last = None
            for _ in range(3000):
                games = table.info.get("games_played", 0)
                if games >= GAMES:
                    break
                ordering = ORDERINGS[games % len(ORDERINGS)]
                view = table.view or {}
                ask = table.ask or {}
                if (
                    ordering == "dialog_over_table"
                    and view.get("over")
                    and app.screen is table
                    and table.result_open
                ):
                    # A dialog over the table as the next game begins, closed once the bid
                    # is asked: the table is drawn when it is on top again.
                    await dialog_until_bid(pilot, table)
                    done.append(ordering)
                    continue
                key = table._decision_key()
                if app.screen is not table or not ask or key == last or table.keys_quiet():
                    await pilot.pause(0.02)
                    continue
                last = key
                if ask.get("kind") == "bid":
                    if table.result_open:  # (a player who had not closed it yet)
                        await pilot.press("enter")
                    if ordering == "screen_opened_again" and bids_seen.get(games) is None:
                        bids_seen[games] = "left"
                        await pilot.press("escape")
                        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
                        await pilot.press("o")
                        await wait_for(pilot, lambda: isinstance(app.screen, ProphetTableScreen))
                        table = app.screen
                        done.append(ordering)
                    bids_seen[games] = ordering
                    problem = await terminal_problem(pilot, term, table)
                    if problem:
                        failures.append(f"game {games + 1} ({ordering}): {problem}")
                await pilot.press("enter")
    finally:
        app.exit()
        await asyncio.wait_for(run, 10)
    assert not failures, "\n\n".join(failures)
    assert sorted(bids_seen) == list(range(GAMES)), bids_seen
    assert bids_seen == dict(enumerate(ORDERINGS)), bids_seen
    assert done == ["dialog_over_table", "recomposed", "screen_opened_again"], done


async def test_the_bid_row_is_on_the_terminal_of_a_player_back_in_at_a_first_round_bid(hub):
    """A player whose connection dropped comes back while asked for a first-round bid: the
    app starts, goes straight back to the table, and its screen mounts with the ask there."""
    hub.config.grace = 10.0  # the seat waits for the player
    app, term, run = await start_app(hub)
    with app._context():
        pilot = Pilot(app)
        await enter_lobby(pilot)
        await open_prophet_table(pilot, players=4, schedule="ascending", cap=1)
        await pilot.press("s")
        await wait_for(pilot, lambda: bidding(app))
    app.exit()
    await asyncio.wait_for(run, 10)
    app, term, run = await start_app(hub)
    try:
        with app._context():
            pilot = Pilot(app)
            await wait_for(pilot, lambda: bidding(app))
            problem = await terminal_problem(pilot, term, app.screen)
    finally:
        app.exit()
        await asyncio.wait_for(run, 10)
    assert not problem, problem


@pytest.mark.parametrize("compositor", ["fixed", "textuals"])
async def test_the_bid_row_shown_while_the_widget_map_is_stale_reaches_the_terminal(
    hub, monkeypatch, compositor
):
    """The bid row shown again (the second game's first bid: the row keeps the size it had)
    in the order that hid a change from the layout (server/apphost/laid_out_map.py): Textual
    applies the styles that show it, then, before the screen lays it out, a frame draws the
    hidden chat box's repaint (the map of widgets goes stale) and a widget refreshes (the map
    is rebuilt with the row in place). With Textual's own compositor the layout then finds
    nothing to draw and the terminal keeps the log panel the row took its rows from."""
    if compositor == "textuals":
        for name, value in laid_out_map.TEXTUALS.items():
            monkeypatch.setattr(laid_out_map.Compositor, name, value)
    monkeypatch.setattr(table_base, "RESULT_DELAY", (0.05, 0.1))
    app, term, run = await start_app(hub)
    raced: list[bool] = []
    try:
        with app._context():
            pilot = Pilot(app)
            await enter_lobby(pilot)
            table = await open_prophet_table(pilot, players=4, schedule="ascending", cap=1)
            row = table.query_one("#bids", ChoiceRow)
            update_styles = row.update_node_styles

            def styles_then_stale_map(*args, **kwargs):
                hidden = not row.display
                update_styles(*args, **kwargs)
                second_game = table.info.get("games_played", 0) >= 1
                if hidden and row.display and second_game and not raced:
                    chat = table.query_one(ChatPanel).query_one(LineInput)
                    table._compositor.update_widgets({chat})  # a frame of its repaint
                    table.query_one(PromptBar).refresh()
                    raced.append(True)

            # In place from the start: on a loaded machine the second game's first bid can
            # show the row in the same step that tells the app the first game ended.
            row.update_node_styles = styles_then_stale_map
            await pilot.press("s")
            last = None
            for _ in range(3000):
                games = table.info.get("games_played", 0)
                if games >= 1 and bidding(app):
                    break
                key = table._decision_key()
                if not table.ask or key == last or table.keys_quiet():
                    await pilot.pause(0.02)
                    continue
                last = key
                if table.result_open:
                    await pilot.press("enter")
                await pilot.press("enter")
            problem = await terminal_problem(pilot, term, table)
    finally:
        app.exit()
        await asyncio.wait_for(run, 10)
    assert raced == [True]
    if compositor == "fixed":
        assert not problem, problem
    else:
        assert "the terminal shows" in problem, problem
