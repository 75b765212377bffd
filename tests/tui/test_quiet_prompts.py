"""A widget's refresh wakes it only if the refresh is still pending (``quiet_prompts``)."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.message_pump import MessagePump
from textual.messages import Prompt
from textual.widget import Widget

from server.apphost import quiet_prompts

from .conftest import enter_lobby, make_app, start_pg_deal
from .test_pg_table import play_deal_by_keys


def test_the_textual_internals_quiet_prompts_reads_are_there():
    """An upgrade of Textual that renames what the module reads fails here."""
    assert MessagePump.check_idle is quiet_prompts.check_idle  # installed (tests/tui/conftest)
    widget = Widget()
    for name in (
        "_running",
        "_message_queue",
        "_next_callbacks",
        "_repaint_required",
        "_layout_required",
        "_scroll_required",
        "_refresh_styles_required",
    ):
        assert hasattr(widget, name), name


class Counted(Widget):
    """A widget that counts the prompts posted to it."""

    DEFAULT_CSS = "Counted { height: 1; }"

    def __init__(self) -> None:
        super().__init__()
        self.text = "before"
        self.prompts = 0
        self.later: list[str] = []
        self.senders: list[object] = []

    def render(self) -> str:
        return self.text

    def post_message(self, message) -> bool:
        if isinstance(message, Prompt):
            self.prompts += 1
            self.senders.append(message._sender)
        return super().post_message(message)


class One(App[None]):
    def compose(self) -> ComposeResult:
        yield Counted()


async def test_a_pending_refresh_is_still_drawn_and_a_taken_one_wakes_nothing():
    app = One()
    async with app.run_test() as pilot:
        widget = app.query_one(Counted)
        await pilot.pause()
        widget.prompts = 0
        widget.text = "after"
        widget.refresh()  # left to Textual: prompted, and drawn
        assert widget.prompts == 0  # not yet: at the end of this turn of the loop
        await asyncio.sleep(0)
        await pilot.pause()
        assert widget.prompts == 1
        drawn = app.screen._compositor.render_full_update().render_segments(app.console)
        assert "after" in drawn
        widget.prompts = 0
        widget.refresh()
        widget._repaint_required = False  # taken in the same callback, as draw_now does
        await asyncio.sleep(0)
        await pilot.pause()
        assert widget.prompts == 0
        widget.call_next(widget.later.append, "ran")  # call_next still wakes it at once
        assert widget.prompts == 1
        await pilot.pause()
        assert widget.later == ["ran"]


async def test_a_put_off_prompt_names_no_other_apps_pump():
    """The prompts put off in one turn of the loop are posted together, whichever app asked
    first: none may name that app as its sender. A widget keeps the last message it handled
    until the next one (an idle widget: for good), so a prompt naming another app kept that
    app alive after it had ended (an app moved out of its worker: issue 39)."""
    first, second = One(), One()
    async with first.run_test() as pilot, second.run_test():
        mine, theirs = first.query_one(Counted), second.query_one(Counted)
        await pilot.pause()
        with first._context():  # (the first app's own task asks first)
            mine.refresh()
            theirs.refresh()
        await asyncio.sleep(0)
        assert theirs.senders and all(sender is None for sender in theirs.senders)


async def test_a_table_move_drawn_at_once_wakes_no_widget(hub):
    """A move drawn at once wakes neither the table's screen nor its widgets (each move woke
    the screen and four or five widgets, every one for nothing). A move Textual must draw
    itself (a style change pending, say) still wakes the widgets it changed."""
    app = make_app(hub)
    woken: set[str] = set()
    check_idle = quiet_prompts.TEXTUALS
    moving = False

    def counting(pump):
        if moving and isinstance(pump, Widget):
            woken.add(type(pump).__name__)
        check_idle(pump)

    quiet_prompts.TEXTUALS = counting
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await enter_lobby(pilot)
            table = await start_pg_deal(pilot)
            received = app.receive
            moves: list[set[str]] = []

            def receive(message):
                nonlocal moving
                moving = message.get("t") == "table" and app.screen is table
                received(message)
                if moving:
                    waiting = quiet_prompts._waiting.get(asyncio.get_running_loop(), {})
                    woken.update(
                        type(w).__name__ for w in waiting if quiet_prompts._still_wanted(w)
                    )
                    moves.append(set(woken))
                    woken.clear()
                moving = False

            app.receive = receive
            await play_deal_by_keys(pilot)
    finally:
        quiet_prompts.TEXTUALS = check_idle
    assert len(moves) >= 10
    assert sum(1 for w in moves if w) <= len(moves) // 8, moves
