"""Issue 39: a Fortunes table's chat line is shown on the table, under the won tricks, as the
other tables show theirs in their log (gambit_tui/chat_in_log.py), not in a notice; the chat
panel keeps every line, and a moved app keeps the lines shown."""

from __future__ import annotations

import pytest
from textual.widgets._toast import Toast

from gambit_tui import chat_in_log
from gambit_tui.screens.fortunes_table import FortunesTableScreen
from gambit_tui.widgets.fortunes_hand import FortunesHand
from gambit_tui.widgets.fortunes_status import FortunesStatus
from gambit_tui.widgets.fortunes_won import FortunesWon
from gambit_tui.widgets.panel_join import PanelJoin
from protocol.messages import PROTOCOL_VERSION
from protocol.requests import Chat
from protocol.term import TermInfo

from .conftest import enter_lobby, make_app, screen_text, wait_for
from .test_chat_in_log import MARK
from .test_fit import LOCALES
from .test_fortunes_table import open_fortunes_table
from .test_moved_table_log import hand_over, moved


def won_rows(app) -> list[str]:
    """The won tricks' box as shown, row by row."""
    won = app.screen.query_one(FortunesWon)
    return [line.plain for line in won.build()]


async def test_a_fortunes_chat_line_shows_under_the_won_tricks_and_no_toast(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot)
        notices = len(list(app._notifications))
        app.send(Chat("table", MARK, table=table.table_id))
        said = "Ada: " + MARK
        await wait_for(pilot, lambda: said in screen_text(app))
        # Under the four players' rows, as typed (markup shown as it is), and no notice.
        assert won_rows(app)[4] == said
        assert len(list(app._notifications)) == notices
        assert not any(MARK in str(toast.render()) for toast in app.screen.query(Toast))
        # At 80x24 the box has one row for it: the newest line shows, a long one cut after
        # a word (the same rule as the log's: gambit_tui/chat_in_log.py), whole in the panel.
        long = "a long line " * 12
        app.send(Chat("table", long, table=table.table_id))
        await wait_for(pilot, lambda: said not in screen_text(app))
        row = won_rows(app)[4]
        whole = "Ada: " + long.strip()
        assert row.endswith(chat_in_log.CUT) and whole.startswith(row[:-1])
        assert whole[len(row) - 1] == " "  # (after a whole word)
        assert len(won_rows(app)) == 5 and len(row) <= table.query_one(FortunesWon).size.width
        await pilot.press("c")
        await wait_for(pilot, lambda: table.chat_open)
        await wait_for(pilot, lambda: screen_text(app).count("long line") == 12)  # whole
        assert len(list(app._notifications)) == notices


async def test_a_moved_fortunes_table_keeps_its_chat_lines(hub):
    old = make_app(hub)
    async with old.run_test(size=(100, 32)) as pilot:
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot)
        old.send(Chat("table", "first", table=table.table_id))
        old.send(Chat("table", "second", table=table.table_id))
        await wait_for(pilot, lambda: "Ada: second" in won_rows(old))
        before = won_rows(old)
        assert before[4:] == ["Ada: first", "Ada: second"]
        state = hand_over(old)

    new = moved(old, state)
    async with new.run_test(size=(100, 32)) as pilot:
        await wait_for(pilot, lambda: isinstance(new.screen, FortunesTableScreen))
        await wait_for(pilot, lambda: "Ada: second" in won_rows(new))
        assert won_rows(new) == before


async def test_at_80x24_a_line_said_while_a_card_is_to_be_played_shows_under_the_won_tricks(hub):
    """While a card is to be played the footer takes a second row and the won tricks' box
    keeps only the players' four: the newest line said goes on the line under the box (the
    hand's title at its left), cut after a word; still no notice. A line said before shows
    there too, and with more room (100x30) it is in the box, not twice."""
    app = make_app(hub)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot, betting="ante")
        while table.view["trick"]["n"] < 2:  # our first card: a last trick, two footer rows
            count = len(table.view["events"])
            await pilot.press("enter")
            await wait_for(pilot, lambda t=table, n=count: len(t.view["events"]) > n)
        await wait_for(pilot, lambda: table.ask_kind == "play")
        assert won_rows(app)[4:] == []  # (no row left in the box)
        notices = len(list(app._notifications))
        app.send(Chat("table", "good [b]luck[/b]", table=table.table_id))
        said = "Ada: good [b]luck[/b]"  # (as typed: never markup)
        await wait_for(pilot, lambda: said in screen_text(app))
        join = table.query_one(PanelJoin)
        row = screen_text(app).splitlines()[join.region.y]
        assert row.startswith("├─ " + table.query_one(FortunesHand).heading + " ─"), row
        assert row.endswith(" " + said + " ─┤"), row
        assert len(list(app._notifications)) == notices
        # A long line: its start, cut after a word, the border closed as before.
        long = "a long line " * 12
        app.send(Chat("table", long, table=table.table_id))
        await wait_for(pilot, lambda: said not in screen_text(app))
        row = screen_text(app).splitlines()[join.region.y]
        assert row.endswith(chat_in_log.CUT + " ─┤") and len(row) == 80, row
        shown = row[row.index("Ada: ") : -len(" ─┤")]
        whole = "Ada: " + long.strip()
        assert whole.startswith(shown[:-1]) and whole[len(shown) - 1] == " ", row
        assert len(list(app._notifications)) == notices
        # With the chat open the panel has the lines, in the box's place (the join too).
        await pilot.press("c")
        await wait_for(pilot, lambda: table.chat_open)
        assert not any(row.startswith("├") for row in screen_text(app).splitlines())
        await pilot.press("escape")
        await wait_for(pilot, lambda: not table.chat_open)
        await wait_for(pilot, lambda: "Ada: a long line" in screen_text(app))
        # More room: the box has rows for the lines, and the join carries none.
        await pilot.resize_terminal(100, 30)
        await wait_for(pilot, lambda: join.said is None)
        await wait_for(pilot, lambda: said in won_rows(app))
        row = screen_text(app).splitlines()[join.region.y]
        assert "Ada:" not in row and row.endswith("─┤"), row


async def test_after_a_move_to_another_hub_a_line_said_shows_under_the_won_tricks(hub):
    """A session moved to another hub (a standby took over: issue 43's chaos run) is told
    "Reconnecting to the tables…" (for 10 s) and, once there, "Back at the tables.". The
    first is taken down by the second: the two notices stacked covered the line under the
    won tricks at 80x24, and a line said at the table after the move showed only when the
    second's 5 s were over (the chaos run's Fortunes terminal, back 3-7 s after the others)."""
    app = make_app(hub)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot, betting="ante")
        while table.view["trick"]["n"] < 2:  # our first card: a last trick, two footer rows
            count = len(table.view["events"])
            await pilot.press("enter")
            await wait_for(pilot, lambda t=table, n=count: len(t.view["events"]) > n)
        await wait_for(pilot, lambda: table.ask_kind == "play")
        app.withdraw_notices({notice[0] for notice in app.live_notices()})
        app.receive({"t": "notice", "code": "reconnecting", "message": "Reconnecting…"})
        welcome = {
            "t": "welcome",
            "v": PROTOCOL_VERSION,
            "you": dict(app.model.you),
            "server": dict(app.model.server),
            "returning": True,
        }
        app.receive(welcome)
        app.send(Chat("table", "still here", table=table.table_id))
        join = table.query_one(PanelJoin)
        await wait_for(pilot, lambda: join.said is not None and "still here" in join.said.plain)
        await pilot.pause()
        row = screen_text(app).splitlines()[join.region.y]
        assert row.endswith(" Ada: still here ─┤"), screen_text(app)
        assert [n[0] for n in app.live_notices()] == ["Back at the tables."]


async def play_to_our_first_card(pilot, table: FortunesTableScreen) -> None:
    """Bid (the table bids) until our first card is to be played, a trick taken: at 80x24
    the footer then has two rows, and the line said goes on the line under the won tricks."""
    while table.view["trick"]["n"] < 2:
        count = len(table.view["events"])
        await pilot.press("enter")
        await wait_for(pilot, lambda t=table, n=count: len(t.view["events"]) > n)
    await wait_for(pilot, lambda: table.ask_kind == "play")


@pytest.mark.parametrize("lang", ["en", "uk", "de"])
async def test_a_line_said_shows_while_notices_are_up(hub, lang):
    """Issue 43's chaos runs: the Fortunes terminal saw a line said 2.6-4.6 s after the
    other games' terminals. Textual puts notices at the bottom right, where at 80x24 the
    line under the won tricks carries the newest line said: a flip and "Stars are free"
    covered it for their time. While the line said is there they go over the Deal panel
    (top right), in every language; with more room they stay bottom right, over the won
    tricks' spare rows; at every size the line said is on the screen while they are up."""
    app = make_app(hub, term=TermInfo(lang=LOCALES[lang]))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot, betting="ante")
        await play_to_our_first_card(pilot, table)
        says = app.translations.gettext
        flip = says("{name} plays {card}: trick {n} flips to {direction}.")
        table.notice(flip.format(name="Bot 2", card="*12", n=2, direction=says("LOW wins")), 30)
        table.notice(says("Stars are free: anyone may play a Star at any time now."), 30)
        app.send(Chat("table", "still here", table=table.table_id))
        join = table.query_one(PanelJoin)
        await wait_for(pilot, lambda: join.said is not None and "still here" in join.said.plain)
        await wait_for(pilot, lambda: len([t for t in table.query(Toast) if t.region]) == 2)
        row = screen_text(app).splitlines()[join.region.y]
        assert row.endswith(" Ada: still here ─┤"), screen_text(app)
        # The notices lie over the Deal panel alone: the compass, the won tricks, the hand
        # and the question stay in sight.
        deal = table.query_one(FortunesStatus).region
        for toast in table.query(Toast):
            assert toast.region.x >= deal.x and toast.region.bottom <= deal.bottom, toast.region
        # More room: the lines said are in the won tricks' box, in sight too, a long one
        # whole.
        long = "and who is going to take this trick, I wonder, and who is not " * 2
        app.send(Chat("table", long, table=table.table_id))
        for size in [(100, 30), (120, 40)]:
            await pilot.resize_terminal(*size)
            await wait_for(pilot, lambda: join.said is None and "Ada: and who" in won_rows(app)[5])
            await pilot.pause()
            for row in won_rows(app)[4:]:
                assert "│ " + row in screen_text(app), screen_text(app)
            deal = table.query_one(FortunesStatus).region
            assert all(toast.region.y >= deal.bottom for toast in table.query(Toast))
            assert len(list(app._notifications)) == 2
