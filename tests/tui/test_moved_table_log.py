"""Issue 39: an app moved to another worker shows its table's log as it was, nothing lost.

A move is a fresh app that goes on from the old one's state (gambit_tui/resume.py) on the
same connection to the hub. A Prophet table's view carries only the round under way, so the
log of earlier rounds is the screen's own: it must cross with the rest. Each test moves an app
the way the worker does (the old app ends, a new one takes over its connection from the old
one's state as it crosses the worker link) and compares the table's log lines before and after.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from textual.pilot import Pilot

from gambit_tui.app import GambitApp
from gambit_tui.widgets.event_log import EventLog
from protocol.actions import action_from_wire
from protocol.requests import Act, Chat
from server.apphost import worker_link as wl

from .conftest import enter_lobby, make_app, start_pg_deal, wait_for
from .test_prophet_table import open_prophet_table


def log_lines(app: GambitApp) -> list[str]:
    """Every line of the table's log (not only the tail shown)."""
    return [line.plain for line in app.screen.query_one(EventLog).lines]


def hand_over(old: GambitApp) -> dict[str, Any]:
    """What ``old`` leaves a new app as it moves, as it crosses the worker link."""
    return wl.unpack(wl.pack(old.resume_state()))


def moved(old: GambitApp, state: dict[str, Any]) -> GambitApp:
    """A new app going on from ``state`` (:func:`hand_over`), once ``old`` has ended, on
    its connection to the hub."""
    return GambitApp(old.conn, term=old.term, identity=old.identity, name="Ada", resume=state)


async def said_and_handed_over(pilot, table, text: str) -> tuple[list[str], dict[str, Any]]:
    """The player says ``text`` at ``table``; once it is in the log: the log's lines, and
    what the app leaves a new app as it moves (:func:`hand_over`)."""
    old = pilot.app
    old.send(Chat("table", text, table=table.table_id))
    await wait_for(pilot, lambda: f"Ada: {text}" in log_lines(old))
    return log_lines(old), hand_over(old)


@asynccontextmanager
async def moved_with_its_log(
    old: GambitApp, state: dict[str, Any], table_id: int, before: list[str]
) -> AsyncIterator[Pilot]:
    """The app going on from ``state`` once ``old`` has ended shows table ``table_id`` with
    its log ``before``, line for line; the block goes on with its pilot."""
    new = moved(old, state)
    async with new.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: getattr(new.screen, "table_id", None) == table_id)
        await wait_for(pilot, lambda: bool(new.screen.query(EventLog)) and log_lines(new))
        assert log_lines(new) == before
        yield pilot


async def play_until(pilot, table, done: Callable[[dict[str, Any]], bool]) -> None:
    """Make the player's first legal action at each decision until ``done(view)`` holds
    at a decision of theirs (the bots then wait for them: nothing changes meanwhile)."""
    app = pilot.app
    acted: Any = None
    deadline = time.monotonic() + 30  # (generous: a loaded machine; see wait_for)
    while time.monotonic() < deadline:
        view = table.view or {}
        if table.ask and done(view):
            return
        key = table._decision_key()
        if table.ask and key != acted:
            acted = key
            app.send(Act(table.table_id, action_from_wire(view["legal"][0])))
        await pilot.pause(0.02)
    raise AssertionError(f"never got there: {table.view}")


async def test_a_moved_prophet_table_keeps_the_log_of_its_earlier_rounds(hub):
    old = make_app(hub)
    async with old.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await open_prophet_table(pilot, players=3, schedule="up_down", cap=2)
        await pilot.press("s")
        # Round 2, its first trick won: the view no longer carries any of round 1.
        await play_until(
            pilot, table, lambda v: v.get("round") == 2 and sum(v.get("tricks") or []) == 1
        )
        before, state = await said_and_handed_over(pilot, table, "round two")
        assert any(line.startswith("Round 1 scored: ") for line in before), before

    async with moved_with_its_log(old, state, table.table_id, before) as pilot:
        # And the game goes on below it, on the same connection.
        new = pilot.app
        await play_until(pilot, new.screen, lambda v: v.get("round") == 3)
        assert log_lines(new)[: len(before)] == before


async def test_a_moved_prophets_gambit_table_keeps_its_log(hub):
    old = make_app(hub)
    async with old.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        before, state = await said_and_handed_over(pilot, table, "moving on")

    async with moved_with_its_log(old, state, table.table_id, before):
        pass


def test_a_log_line_crosses_as_data_and_is_the_same_line_again():
    from rich.style import Style
    from rich.text import Text

    from gambit_tui.event_lines import line_data, line_of

    line = Text("Ada plays ", style="italic")
    line.append("A♥", style=Style(color="red", bold=True))
    line.append(" [b]not markup[/b]")
    again = line_of(wl.unpack(wl.pack(line_data(line))))
    assert again is not None
    assert (again.plain, str(again.style), again.spans) == (line.plain, "italic", line.spans)
    assert line_of(line_data(again)) is again  # one object for equal lines
    # A control character (never a terminal command) goes, with the line's styles.
    sent = line_data(Text("Bo\x1b[2J wins", style="bold"))
    assert line_of(sent).plain == "Bo[2J wins"
    assert line_of(["not", "a line"]) is None
