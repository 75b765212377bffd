"""Notices (toasts) at a table lie over a panel of secondary information, never over the hand,
a bid row, the question, the keys or the trick (gambit_tui/screens/notice_place.py): at 80x24
Textual's place, bottom right, hid the right half of the hand and of the question. A stack of
them stays within its panel, the newest whole, the oldest cut off first."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.errors import NoWidget
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import RichLog
from textual.widgets._toast import Toast

from gambit_tui.screens.table_base import TableScreen
from gambit_tui.widgets.chat_panel import ChatPanel
from gambit_tui.widgets.event_log import EventLog
from gambit_tui.widgets.footer import GambitFooter
from gambit_tui.widgets.fortunes_compass import FortunesCompass
from gambit_tui.widgets.fortunes_hand import FortunesHand
from gambit_tui.widgets.fortunes_status import FortunesStatus
from gambit_tui.widgets.fortunes_won import FortunesWon
from gambit_tui.widgets.panel_join import PanelJoin
from gambit_tui.widgets.pg_center import PGCenter
from gambit_tui.widgets.pg_seats import PGSeats
from gambit_tui.widgets.prompt_bar import PromptBar
from gambit_tui.widgets.prophet_seats import ProphetSeats
from gambit_tui.widgets.trick_view import TrickView
from protocol.term import TermInfo

from .conftest import enter_lobby, make_app, screen_text, start_pg_deal, wait_for
from .test_fit import LOCALES
from .test_fortunes_chat import play_to_our_first_card
from .test_fortunes_table import open_fortunes_table
from .test_prophet_table import open_prophet_table

SIZES = [(80, 24), (100, 30), (120, 40)]


def notices(app) -> list[tuple[str, str, str]]:
    """Five notices the app puts up (message, title, severity), in the player's language:
    reconnecting, back, an error, the message of the day (a title), a long one."""
    says = app.translations.gettext
    return [
        (says("Reconnecting to the tables…"), "", "information"),
        (says("Back at the tables."), "", "information"),
        (says("Not connected to the server."), "", "error"),
        ("Tonight: the Prophet's Gambit cup, from nine.", says("Message of the day"), ""),
        (says("Stars are free: anyone may play a Star at any time now.") * 2, "", "warning"),
    ]


def shown_toasts(table: TableScreen) -> dict[Toast, Region]:
    """Each toast on the screen and the part of it drawn (a toast cut off by its rack shows
    only a part; one wholly cut off, none)."""
    shown = {}
    for toast in table.query(Toast):
        try:
            region = table.find_widget(toast).visible_region
        except NoWidget:
            continue
        if region:
            shown[toast] = region
    return shown


def region_of(table: TableScreen, kind: type[Widget] | str) -> Region:
    return table.query_one(kind).region


def what_a_player_needs(table: TableScreen) -> dict[str, Region]:
    """The regions a player reads to act or to follow the trick, by name."""
    needs = {
        "question": region_of(table, PromptBar),
        "keys": region_of(table, GambitFooter),
    }
    name = type(table).__name__
    if name == "PGTableScreen":
        needs |= {
            "hand": region_of(table, "#choices"),
            "seats": region_of(table, PGSeats),
        }
        if not table.chat_open:
            needs["table"] = region_of(table, PGCenter)
    elif name == "ProphetTableScreen":
        needs |= {
            "hand": region_of(table, "#hand"),
            "bids": region_of(table, "#bids"),  # (empty when hidden)
            "trick": region_of(table, TrickView),
            "round": region_of(table, "#round"),
        }
        seats = table.query_one(ProphetSeats).region
        if table.chat_open:  # (notices over its right half: the totals)
            seats = Region(seats.x, seats.y, seats.width // 2, seats.height)
        needs["seats: bids and tricks won"] = seats
    else:
        won = table.query_one(FortunesWon)
        needs |= {
            "hand": region_of(table, FortunesHand),
            "line under the won tricks": region_of(table, PanelJoin),
            "compass": region_of(table, FortunesCompass),
        }
        if not table.chat_open:
            used = won.content_region
            rows = used.height - won.free_rows()
            needs["won tricks and lines said"] = Region(used.x, used.y, used.width, rows)
    if table.chat_open:
        needs["chat"] = table.query_one(ChatPanel).region
    return {key: region for key, region in needs.items() if region}


def rows_text(app, regions: list[Region]) -> list[str]:
    """The screen's text in these regions (row by row)."""
    lines = screen_text(app).splitlines()
    out = []
    for region in regions:
        for y in range(region.y, region.bottom):
            line = lines[y] if y < len(lines) else ""
            out.append(line[region.x : region.right])
    return out


async def check_notices_clear(pilot, table: TableScreen, where: Callable[[], Region]) -> None:
    """Put five notices up: the newest is whole on the screen, every one drawn lies within
    the region ``where`` names, and none over what a player needs, whose text stays as it
    was; then take them down."""
    app = pilot.app
    app.clear_notifications()
    await wait_for(pilot, lambda: not shown_toasts(table))
    await pilot.pause()
    needs = what_a_player_needs(table)
    before = rows_text(app, list(needs.values()))
    for message, title, severity in notices(app):
        app.notify(message, title=title, severity=severity or "information", timeout=30)
    newest = notices(app)[-1][0]
    await wait_for(pilot, lambda: len(table.query(Toast)) == 5)
    await wait_for(
        pilot, lambda: any(newest in str(t.render()) for t in shown_toasts(table)), timeout=5
    )
    await pilot.pause()
    shown = shown_toasts(table)
    area = where()
    context = f"{table.size}, {needs}, {area}\n{screen_text(app)}"
    for toast, region in shown.items():
        assert area.contains_region(region), (region, context)
        for name, needed in needs.items():
            assert not region.overlaps(needed), (name, region, context)
        if newest in str(toast.render()):  # first, whole if the area has room for it
            assert region.y == min(r.y for r in shown.values()), ("not first", context)
            if toast.region.height < area.height:
                assert region == toast.region, ("the newest is cut", context)
    assert what_a_player_needs(table) == needs, context  # (the layout did not move)
    assert rows_text(app, list(needs.values())) == before, context
    app.clear_notifications()


def log_half(table: TableScreen) -> Region:
    log = table.query_one(EventLog).region
    return Region(log.x + log.width // 2, log.y, log.width - log.width // 2, log.height)


async def resize(pilot, table: TableScreen, size: tuple[int, int]) -> None:
    await pilot.resize_terminal(*size)
    await wait_for(pilot, lambda: tuple(table.size) == size)
    await pilot.pause()


async def at_every_size(pilot, table: TableScreen, where: Callable[[], Region]) -> None:
    """The check at 80x24, 100x30 and 120x40; then 80x24 again."""
    for size in SIZES:
        await resize(pilot, table, size)
        await check_notices_clear(pilot, table, where)
    await resize(pilot, table, SIZES[0])


async def with_the_chat_open(pilot, table: TableScreen, where: Callable[[], Region]) -> None:
    """At 80x24 with the chat open: not over its lines, the line typed, nor the hand."""
    await pilot.press("c")
    await wait_for(pilot, lambda: table.chat_open and bool(table.query_one(RichLog).region))
    await check_notices_clear(pilot, table, where)
    await pilot.press("escape")
    await wait_for(pilot, lambda: not table.chat_open)


@pytest.mark.parametrize("lang", ["en", "uk", "de"])
async def test_notices_at_the_prophets_gambit_table_lie_over_the_log(hub, lang):
    app = make_app(hub, term=TermInfo(lang=LOCALES[lang]))
    async with app.run_test(size=SIZES[0], notifications=True) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)  # (the Bid: every card of the hand may be chosen)
        await at_every_size(pilot, table, lambda: log_half(table))
        await with_the_chat_open(pilot, table, lambda: table.query_one(PGCenter).region)


@pytest.mark.parametrize("lang", ["en", "uk", "de"])
async def test_notices_at_the_prophet_table_leave_the_bid_row_and_the_hand(hub, lang):
    app = make_app(hub, term=TermInfo(lang=LOCALES[lang]))
    async with app.run_test(size=SIZES[0], notifications=True) as pilot:
        await enter_lobby(pilot)
        table = await open_prophet_table(pilot, schedule="down_up")  # (round 1: many cards)
        await pilot.press("s")
        await wait_for(pilot, lambda: table.ask_kind == "bid")
        # While bidding, the bid row takes three rows: at 80x24 the log keeps two.
        await at_every_size(pilot, table, lambda: log_half(table))
        await with_the_chat_open(pilot, table, lambda: table.query_one(ProphetSeats).region)
        await pilot.press("enter")
        await wait_for(pilot, lambda: table.ask_kind == "play")
        await at_every_size(pilot, table, lambda: log_half(table))


@pytest.mark.parametrize("lang", ["en", "uk", "de"])
async def test_notices_at_the_fortunes_table_lie_over_empty_rows_or_the_deal(hub, lang):
    app = make_app(hub, term=TermInfo(lang=LOCALES[lang]))
    async with app.run_test(size=SIZES[0], notifications=True) as pilot:
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot, betting="ante")
        await wait_for(pilot, lambda: table.ask_kind == "play")
        deal = lambda: table.query_one(FortunesStatus).region  # noqa: E731

        def won_or_deal() -> Region:
            """The won tricks' box below the players' rows with room, else the Deal panel."""
            won = table.query_one(FortunesWon)
            return won.region if won.free_rows() >= 3 else deal()

        # The first trick: at 80x24 the box has one row under the players' (Textual's toasts
        # covered the hand there); then, a trick taken, a two-row footer and none.
        await at_every_size(pilot, table, won_or_deal)
        await play_to_our_first_card(pilot, table)
        await at_every_size(pilot, table, won_or_deal)
        await with_the_chat_open(pilot, table, deal)


async def test_a_recomposed_table_lays_its_notices_over_its_new_log(hub):
    """A new language or theme composes the table again: its notices lie over the new log
    (the panels are found again), and Textual's place comes back with a screen too small."""
    from gambit_tui import events

    app = make_app(hub)
    async with app.run_test(size=SIZES[0], notifications=True) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        old = table.query_one(EventLog)
        app.broadcast(events.LookChanged)  # as a new language or theme does
        await wait_for(pilot, lambda: not old.is_attached and bool(table.query(EventLog)))
        await wait_for(pilot, lambda: bool(table.query_one(EventLog).region))
        await check_notices_clear(pilot, table, lambda: log_half(table))
        # Too small for the table (only the message saying so shows): Textual's place.
        await pilot.resize_terminal(60, 20)
        app.notify("Back at the tables.", timeout=30)
        await wait_for(pilot, lambda: bool(shown_toasts(table)))
        await pilot.pause()
        assert "-notices-placed" not in table.classes
        (region,) = shown_toasts(table).values()
        assert region.right >= 60 - 2 and region.bottom == 20 - 1, region  # (bottom right)


async def test_notices_leave_the_result_of_a_deal_in_sight(hub):
    """While the result of a deal is open over the table (only its keys act), notices lie
    under it, over the hand's row: not over the result, which the player reads."""
    from gambit_tui.widgets.result_panel import ResultPanel

    from .conftest import result_shown
    from .test_pg_table import play_deal_by_keys

    app = make_app(hub)
    async with app.run_test(size=SIZES[0], notifications=True) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        await play_deal_by_keys(pilot)
        await wait_for(pilot, lambda: result_shown(app))
        result = table.query_one(ResultPanel).region
        for message, title, severity in notices(app)[:2]:
            app.notify(message, title=title, severity=severity or "information", timeout=30)
        await wait_for(pilot, lambda: len(shown_toasts(table)) == 2)
        await pilot.pause()
        keys = table.query_one(GambitFooter).region
        for region in shown_toasts(table).values():
            assert region.y >= result.bottom and region.bottom <= keys.y, screen_text(app)
