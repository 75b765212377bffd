"""The Prophet's Gambit table, driven by keys against bots through a real hub."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
from textual._context import active_app
from textual.pilot import Pilot
from textual.widgets import Select

from gambit_tui.names import tarokka_card_name
from gambit_tui.screens.create_table import CreateTableScreen
from gambit_tui.screens.lobby import LobbyScreen
from gambit_tui.screens.pg_table import PGTableScreen
from gambit_tui.screens.welcome import WelcomeScreen
from gambit_tui.widgets import pg_center, pg_seats
from gambit_tui.widgets.choice_row import ChoiceRow
from gambit_tui.widgets.event_log import EventLog
from gambit_tui.widgets.prompt_bar import PromptBar
from protocol.term import TermInfo
from server.hub import Hub

from .conftest import (
    check_kept_hand_and_hint,
    enter_lobby,
    make_app,
    open_pg_table_with_bots,
    result_shown,
    screen_text,
    start_pg_deal,
    tui_config,
    wait_for,
)

#: The key that answers each ask (with the card or player under the cursor).
ANSWER = {
    "bid": "enter",
    "fate": "r",
    "turn": "p",
    "bonus": "d",
    "discard": "enter",
    "beast": "enter",
    "donjon": "enter",
    "raven": "enter",
    "darklord": "enter",
    "darklord_pick": "enter",
    "ghost": "enter",
    "tempter": "enter",
    "tempter_target": "enter",
    "marionette": "enter",
    "marionette_order": "h",
    "forced": "enter",
    "execution": "k",
}


async def play_deal_by_keys(
    pilot,
    *,
    risk: bool = False,
    waited: list[float] | None = None,
    before_key: Callable[[], Awaitable[None]] | None = None,
) -> list[str]:
    """Answer every decision with its key until the result screen; returns the asks seen
    (and appends to ``waited`` how long the result took to come up after the deal ended).
    ``before_key`` is awaited at each decision, before its key (a look at the screen)."""
    app = pilot.app
    seen: list[str] = []
    for _ in range(200):
        screen = app.screen
        over = isinstance(screen, PGTableScreen) and (screen.view or {}).get("over")
        if result_shown(app) or over:
            # The result comes up a moment after the last move; nothing more is pressed (a
            # next deal may begin meanwhile).
            started = time.monotonic()
            await wait_for(pilot, lambda: result_shown(app))
            if waited is not None:
                waited.append(time.monotonic() - started)
            return seen
        ask = screen.ask if isinstance(screen, PGTableScreen) else None
        if ask and screen.keys_quiet():  # (the last result just closed: keys wait a moment)
            await pilot.pause(0.1)
            continue
        if ask and (not seen or seen[-1] != repr(ask) + str(len(screen.view["events"]))):
            seen.append(repr(ask) + str(len(screen.view["events"])))
            key = "x" if (risk and ask["kind"] == "turn" and screen.view["high_deck"]) else None
            if before_key is not None:
                await before_key()
            await pilot.press(key or ANSWER[ask["kind"]])
        await pilot.pause(0.03)
    raise AssertionError("the deal did not end:\n" + screen_text(app))


@asynccontextmanager
async def a_deal_risked(hub) -> AsyncIterator[tuple[Pilot, PGTableScreen]]:
    """A deal of three played by keys to its result, risking a card whenever a High card is
    there to turn (every kind of ask comes up); the app stays open inside the block."""
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        await play_deal_by_keys(pilot, risk=True)
        yield pilot, table


async def test_a_whole_deal_by_keys_reaches_the_result(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await open_pg_table_with_bots(pilot, bots=2)
        table = app.screen
        assert "Every seat is taken" in screen_text(app)
        await pilot.press("s")
        await wait_for(pilot, lambda: table.ask is not None)
        text = screen_text(app)
        assert "The Bid: choose a card to commit in secret." in text
        assert "⏎ Bid" in text  # the footer names the key
        assert app.alerts == 1  # bell and title when the decision became ours
        asks = await play_deal_by_keys(pilot)
        assert len(asks) >= 3  # bid and two turns at least
        result = screen_text(app)
        assert "The Reveal" in result and "wins the pot of 30 chips" in result
        assert "Ada (you)" in result
        # The dialog has its own status bar (the table below is hidden by its backdrop).
        status = result.splitlines()[0].strip()
        assert status.startswith("Ada · ") and "chips" in status and "Table 1" in status
        await pilot.press("enter")
        await wait_for(pilot, lambda: not result_shown(app))
        assert app.screen is table
        # The only player at the table has read the result: the next deal need not wait.
        await wait_for(pilot, lambda: table.info["games_played"] == 1 and table.ask is not None)
        assert table.ask["kind"] == "bid" and not table.view["over"]
        # Chips moved: the status bar shows the balance after the deal.
        assert app.model.you["chips"] != 1000


async def test_a_waiting_table_shows_the_stake_and_no_pot_before_the_deal(hub):
    """Nobody has put in a chip before the deal: the waiting table shows the stake to come,
    not a pot (a table of one waiting player said "Pot 40"); the deal's pot once dealt."""
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
        app.screen.query_one("#players", Select).value = 3
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        table = app.screen
        center = table.query_one(pg_center.PGCenter)
        stake = table.info["stake"]
        assert stake > 0
        text = screen_text(app)
        assert re.search(rf"Stake\s+{stake}\b", text), text
        assert "Pot" not in text
        await pilot.press("b", "b")
        await pilot.press("s")
        await wait_for(pilot, lambda: table.ask is not None)
        assert center.message["view"] is not None
        assert re.search(rf"Pot\s+{3 * stake}\b", screen_text(app))


async def test_the_result_comes_up_a_moment_after_the_last_move(hub):
    from gambit_tui.screens.table_base import RESULT_DELAY

    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        waited: list[float] = []
        await play_deal_by_keys(pilot, waited=waited)
        # The deal's end was on screen (the last move, the log) before the result covered it.
        assert RESULT_DELAY[0] - 0.1 <= waited[0] <= RESULT_DELAY[1] + 0.5
        assert table.result_open and "The Reveal" in screen_text(app)


async def test_the_result_closes_by_itself_when_the_next_deal_begins(store):
    """The result stays while the deal is over (only Close works meanwhile), and closes by
    itself, with a notice, when the next deal begins: it never covers a deal in play."""
    hub = Hub(store, tui_config(between_games=2.0))
    await hub.start()
    try:
        app = make_app(hub)
        async with app.run_test(size=(80, 24)) as pilot:
            await enter_lobby(pilot)
            await open_pg_table_with_bots(pilot, bots=2)
            table = app.screen
            await pilot.press("s")
            await play_deal_by_keys(pilot)
            result = screen_text(app)
            pot_line = next(line for line in result.splitlines() if "wins the pot" in line)
            assert result.splitlines()[-1].startswith("⏎ Close")
            # The next deal begins and asks Ada for her Bid: the result has gone, said so.
            await wait_for(pilot, lambda: table.ask is not None and table.ask["kind"] == "bid")
            await wait_for(pilot, lambda: not table.result_open)
            assert table.notices[-1] == "The next deal has started."
            text = screen_text(app)
            assert pot_line not in text
            assert "The Bid: choose a card to commit in secret." in text
            assert "⏎ Bid" in text
    finally:
        await hub.stop()


async def test_an_enter_meant_for_the_result_does_not_play_in_the_next_deal(store):
    """The result closes by itself as the next deal begins: an Enter pressed then was meant
    to close it, and must not commit the player's first card to the new Bid (a tester's
    Master went that way). A moment later Enter bids again."""
    from gambit_tui.screens.table_base import KEYS_QUIET

    hub = Hub(store, tui_config(between_games=2.0))
    await hub.start()
    try:
        app = make_app(hub)
        async with app.run_test(size=(80, 24)) as pilot:
            await enter_lobby(pilot)
            table = await start_pg_deal(pilot)
            await play_deal_by_keys(pilot)
            assert table.result_open
            await wait_for(pilot, lambda: table.ask is not None and table.ask["kind"] == "bid")
            assert not table.result_open  # (closed by itself)
            await pilot.press("enter")
            await pilot.pause(0.3)
            state = hub.tables[table.table_id].state
            assert not state.is_over and 0 in state.pending()  # Ada has not bid
            assert table.ask is not None and table.ask["kind"] == "bid"
            await pilot.pause(KEYS_QUIET)
            await pilot.press("enter")
            await wait_for(pilot, lambda: table.ask is None or table.ask["kind"] != "bid")
    finally:
        await hub.stop()


@pytest.mark.parametrize(
    ("lang", "line", "told"),
    [
        ("en", "Time ran out for Ada: a bot makes this move.", "A bot moved for you at table"),
        (
            "de",
            "Die Zeit von Ada ist abgelaufen: Diesen Zug macht ein Bot.",
            "Ein Bot hat an Tisch",
        ),
        ("uk", "Час гравця Ada вичерпано: цей хід робить бот.", "бот ходив за вас за столом"),
    ],
)
async def test_a_bots_move_when_time_ran_out_is_said_to_be_the_bots(store, lang, line, told):
    """Ada's time runs out on her Bid: the log says a bot made the move (it read as her own:
    "Ada commits a card"), and once she acts again she is told a bot moved for her."""
    hub = Hub(store, tui_config(turn_timer=1.0))
    await hub.start()
    try:
        locale = {"en": "en_GB.UTF-8", "de": "de_DE.UTF-8", "uk": "uk_UA.UTF-8"}[lang]
        app = make_app(hub, term=TermInfo(lang=locale))
        async with app.run_test(size=(80, 24)) as pilot:
            await enter_lobby(pilot)
            table = await start_pg_deal(pilot)
            log = table.query_one("#log", EventLog)
            await wait_for(pilot, lambda: any(row.plain == line for row in log.lines))
            await wait_for(pilot, lambda: table.ask is not None)
            await pilot.press(ANSWER[table.ask["kind"]])
            await wait_for(pilot, lambda: any(told in text for text in app.stand_in_notices))
    finally:
        await hub.stop()


async def test_a_spectators_result_closes_when_the_next_deal_begins(store):
    """A spectator has nothing to press: each deal's result comes up and goes again by
    itself, so two deals later they see the second deal's result, not the first's."""
    hub = Hub(store, tui_config(between_games=2.0))
    await hub.start()
    try:
        ada = make_app(hub)
        bob = make_app(hub, name="Bob", identity="SHA256:bob")
        async with (
            ada.run_test(size=(80, 24)) as ada_pilot,
            bob.run_test(size=(80, 24)) as bob_pilot,
        ):
            await enter_lobby(ada_pilot)
            await enter_lobby(bob_pilot)
            await open_pg_table_with_bots(ada_pilot, bots=2)
            await ada_pilot.press("s")
            await wait_for(
                bob_pilot, lambda: bob.model.tables.get(1, {}).get("status") == "playing"
            )
            await bob_pilot.press("w")
            await wait_for(bob_pilot, lambda: isinstance(bob.screen, PGTableScreen))
            watching = bob.screen
            for deal in (1, 2):
                # (Two apps in one test: a screen finds its app through Textual's context.)
                token = active_app.set(ada)
                try:
                    await play_deal_by_keys(ada_pilot)
                finally:
                    active_app.reset(token)
                await wait_for(bob_pilot, lambda: watching.result_open, timeout=5)
                shown = watching._open_result
                assert shown is not None and shown["info"]["games_played"] == deal
                # The next deal begins: the spectator's result closes, with a notice.
                await wait_for(bob_pilot, lambda: not watching.result_open, timeout=5)
                await wait_for(bob_pilot, lambda: bool(watching.notices))
                assert watching.notices[-1] == "The next deal has started."
                assert not (watching.view or {}).get("over")
                assert "The Reveal" not in screen_text(bob)
    finally:
        await hub.stop()


async def test_arrows_and_digits_pick_cards_and_the_hint_names_them(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        row = table.query_one(ChoiceRow)
        hand = table.view["hand"]
        prompt = table.query_one(PromptBar)
        await pilot.press("right")
        assert row.selected == hand[1]
        await pilot.press("3")
        assert row.selected == hand[2]
        await pilot.pause()
        assert tarokka_card_name(hand[2]) in prompt.hint.plain  # the hint names it
        await pilot.press("left", "left", "left")
        assert row.selected == hand[-1]  # wraps around
        await pilot.pause()
        assert "←→ or 1–6 pick" in screen_text(app)
        assert tarokka_card_name(hand[-1]) in prompt.hint.plain
        start, _end = row._cells[3]
        await pilot.click(ChoiceRow, offset=(start + 2, 1))  # mouse is optional, and works
        assert row.selected == hand[3]
        await pilot.pause()
        assert tarokka_card_name(hand[3]) in prompt.hint.plain
        await pilot.press("2", "enter")
        await wait_for(pilot, lambda: table.view["phase"] != "bid")
        bids = next(e for e in table.view["events"] if e["e"] == "bids")
        assert bids["cards"][0] == hand[1]  # the second card was committed


async def test_escape_keeps_the_seat_and_leaving_hands_it_to_a_bot(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await open_pg_table_with_bots(pilot, bots=2)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert "Prophet's Gambit" in screen_text(app)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        await pilot.press("s")
        table = app.screen
        await wait_for(pilot, lambda: table.ask is not None)
        # Leaving mid-game (confirmed) hands the seat to a bot, kept for us; j takes it back.
        await pilot.press("q")
        await wait_for(pilot, lambda: app.screen is not table)
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await wait_for(pilot, lambda: app.model.tables[1]["seats"][0]["reserved"] == "Ada")
        await pilot.press("j")
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        assert app.screen.seat == 0


async def test_a_spectator_sees_the_table_and_its_chat_but_no_hand(hub):
    ada = make_app(hub)
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    async with ada.run_test(size=(80, 24)) as ada_pilot, bob.run_test(size=(80, 24)) as bob_pilot:
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        await open_pg_table_with_bots(ada_pilot, bots=2)
        await ada_pilot.press("s")
        await wait_for(bob_pilot, lambda: bob.model.tables.get(1, {}).get("status") == "playing")
        await bob_pilot.press("w")
        await wait_for(bob_pilot, lambda: isinstance(bob.screen, PGTableScreen))
        text = screen_text(bob)
        assert "You are watching this table" in text and "watching" in text
        await ada_pilot.press("c")
        await ada_pilot.press(*"hello", "enter")
        await wait_for(bob_pilot, lambda: bob.model.chat_lines(1))
        assert bob.model.chat_lines(1)[-1].text == "hello"
        await bob_pilot.press("c")
        await bob_pilot.pause()
        assert "Ada: hello" in screen_text(bob)


async def test_too_small_a_terminal_says_so(hub):
    app = make_app(hub)
    async with app.run_test(size=(79, 24)) as pilot:
        await wait_for(pilot, lambda: "too small" in screen_text(app))  # (a loaded machine)
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.1)
        assert "too small" not in screen_text(app)
        await pilot.resize_terminal(100, 23)
        await pilot.pause(0.1)
        assert "too small" in screen_text(app)


async def test_the_turn_timer_counts_down_beside_the_deciding_seat(hub):
    from textual.widgets import Input, Select

    from gambit_tui.screens.create_table import CreateTableScreen

    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
        app.screen.query_one("#players", Select).value = 3
        app.screen.query_one("#timer", Input).value = "30"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        await pilot.press("b", "b")
        table = app.screen
        await wait_for(pilot, lambda: "s Start" in screen_text(app))
        await pilot.press("s")
        await wait_for(pilot, lambda: table.ask is not None)
        seat_line = next(line for line in screen_text(app).splitlines() if "Ada (you)" in line)
        seats_panel = seat_line.split("││")[0]
        assert re.search(r"\b(30|29)s\b", seats_panel), seat_line


async def test_a_player_who_reconnects_is_back_at_their_table(hub):
    """Straight back in (issue 18, item 9): a known key passes no welcome screen; the table
    opens on the lobby at once, with a one-line greeting."""
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        hand = list(table.view["hand"])
    again = make_app(hub)
    seen: list[type] = []
    async with again.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_for(
            pilot, lambda: seen.append(type(again.screen)) or len(again.screen_stack) > 1
        )
        await wait_for(
            pilot,
            lambda: seen.append(type(again.screen)) or isinstance(again.screen, PGTableScreen),
        )
        assert WelcomeScreen not in seen
        assert again.screen.view["hand"] == hand
        assert "The Bid: choose a card" in screen_text(again)
        assert "Welcome back, Ada." in screen_text(again)


def textual_footer_items(footer, screen) -> tuple:
    """The footer's items as read from Textual's own ``Screen.active_bindings``."""
    from gambit_tui.i18n import _
    from gambit_tui.widgets.footer import FooterItem

    by_action = {}
    keys_of = getattr(screen, "footer_keys", lambda _action, shown: shown)
    for _node, binding, enabled, _tooltip in screen.active_bindings.values():
        if not binding.show or binding.action in by_action:
            continue
        by_action[binding.action] = FooterItem(
            binding.key,
            keys_of(binding.action, footer.app.get_key_display(binding)),
            _(binding.description) if binding.description else "",
            enabled,
        )
    return tuple(by_action.values())


async def test_through_a_deal_with_every_kind_of_ask_what_is_kept_equals_what_is_made_anew(
    hub, monkeypatch, footer_checked
):
    """One deal of three by keys, risking a card whenever a High card is there to turn: every
    kind of ask comes up (each has a key) and a Risk turns a High card. Through it, what the
    screen keeps from earlier moves is checked against what it would make anew (one deal for
    the four checks, each of which played a deal of its own):

    - the footer asks the screen about fewer bindings than Textual does, with the same answer
      at every change of keys (and with the chat open after the deal); some moves change no
      key: the screen's ``bindings_state`` kept the footer's (and the conftest's
      ``footer_checked`` found them equal to the keys collected anew every time);
    - the seats panel makes again only the rows a move changed, the middle of the table only
      what changed at all: what they show equals what they would show made from scratch;
    - the hand's choices are the same list while the hand stays, and the card hint is
      remembered for it: both equal ones made from scratch;
    - at 80 columns the Fate's keys need a second footer row; when they go, the footer keeps
      the row (blank, on top) instead of laying the whole screen out again, and the game's
      keys stay on the bottom row.
    """
    from gambit_tui.widgets.footer import GambitFooter
    from gambit_tui.widgets.pg_center import PGCenter
    from gambit_tui.widgets.pg_seats import PGSeats

    # The footer's keys, each time collected, against Textual's active bindings.
    checked: list[tuple] = []
    collect = GambitFooter.collect

    def compare(self, screen):
        items = collect(self, screen)
        assert items == textual_footer_items(self, screen)
        checked.append(items)
        return items

    monkeypatch.setattr(GambitFooter, "collect", compare)

    # The footer's rows at each change of keys at the table.
    seen: list[tuple[int, int, list[str], str]] = []
    changed = GambitFooter.bindings_changed

    def watched(self, screen):
        changed(self, screen)
        if self.is_attached and isinstance(screen, PGTableScreen) and self.items:
            width = self.size.width
            height = self._height(width)
            rows = [self.render_line(y).text for y in range(height)]
            seen.append((len(self._rows(width)), height, rows, self.items[0].shown))

    monkeypatch.setattr(GambitFooter, "bindings_changed", watched)

    # The seats' rows and the middle of the table, each build against one from scratch.
    seats_build, center_build = PGSeats.build, PGCenter.build
    compared = []

    def seats_checked(self):
        lines = seats_build(self)
        kept = self._cells_made, self._lines_made
        shared = dict(pg_seats._made_rows)  # (rows the apps of the process share)
        pg_seats._made_rows.clear()
        self._cells_made, self._lines_made = {}, {}
        assert lines == seats_build(self)
        self._cells_made, self._lines_made = kept
        pg_seats._made_rows.update(shared)
        compared.append(len(lines))
        return lines

    def center_checked(self):
        lines = center_build(self)
        kept = self._made, self._lines_made
        shared = dict(pg_center._made_centers)  # (what the apps of the process share)
        pg_center._made_centers.clear()
        self._made, self._lines_made = None, {}
        assert lines == center_build(self)
        self._made, self._lines_made = kept
        pg_center._made_centers.update(shared)
        compared.append(len(lines))
        return lines

    monkeypatch.setattr(PGSeats, "build", seats_checked)
    monkeypatch.setattr(PGCenter, "build", center_checked)

    # The hand's choices and the hint, after every refresh, against ones made anew.
    def again(table):
        table._hand_choices = table._hint_memo = None
        table._set_choices(table.view)
        table._set_prompt(table.view)

    kept = check_kept_hand_and_hint(
        monkeypatch, PGTableScreen, lambda t: t.query_one(ChoiceRow), again
    )

    async with a_deal_risked(hub) as (pilot, table):
        events = [e["e"] for e in table.view["events"]]
        assert "high" in events  # a Risk turned a High card
        in_the_deal = list(seen)
        await pilot.press("c")  # chat open: other keys
        await pilot.pause()
    assert len(set(checked)) >= 8, set(checked)
    assert footer_checked.skipped > 0
    assert len(compared) > 40
    assert not kept.stale, kept.stale[:2]
    assert kept.checked > 20
    needed = [n for n, *_ in in_the_deal]
    assert 2 in needed and 1 in needed[needed.index(2) :], needed
    for n, height, rows, first in in_the_deal[needed.index(2) :]:
        assert height == 2 >= n  # never shrinks back at the same width
        assert rows[-1].startswith(first)  # the game's first key on the bottom row
        if n == 1:
            assert rows[0].strip() == ""  # the kept row, blank


async def test_seat_rows_shared_by_the_apps_of_a_process_show_each_player_their_own(hub):
    """The apps of a worker share the seats' rows (pg_seats._made_rows) and the middle of
    the table but the Fate (pg_center._made_centers): the table as another player sees it
    (their seat marked, their Fate), drawn after ours from what is shared, equals it drawn
    with nothing shared; and ours stays ours."""
    from gambit_tui.widgets.pg_center import PGCenter
    from gambit_tui.widgets.pg_seats import PGSeats

    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)  # mid-deal: rows are shared (not at the Reveal)
        seats, center = table.query_one(PGSeats), table.query_one(PGCenter)
        mine = seats.message
        assert mine["view"] and not mine["view"].get("reveal")
        ours, our_center = seats.build(), center.build()
        others = [s for s in range(len(mine["info"]["seats"])) if s != mine["seat"]]
        for other, fate in [(s, f) for s in others for f in (mine["view"].get("fate"), "T7")]:
            seats.message = dict(mine, seat=other, view=dict(mine["view"], fate=fate))
            theirs = seats.build()
            kept = dict(pg_seats._made_rows)
            pg_seats._made_rows.clear()
            seats._cells_made, seats._lines_made = {}, {}
            assert theirs == seats.build()
            pg_seats._made_rows.update(kept)
            assert theirs != ours
            center.message = seats.message
            their_center = center.build()
            kept = dict(pg_center._made_centers)
            pg_center._made_centers.clear()
            center._made, center._lines_made = None, {}
            assert their_center == center.build()
            pg_center._made_centers.update(kept)
            assert (their_center == our_center) == (fate == mine["view"].get("fate"))
        seats.message = center.message = mine
        assert seats.build() == ours and center.build() == our_center


async def test_a_recomposed_table_finds_its_new_widgets_and_draws_on(hub):
    """A table screen remembers its widgets (``query_one`` by class); composed again (a new
    language or theme) it finds the new ones, and the next move shows in them."""
    from gambit_tui import events
    from gambit_tui.widgets.prompt_bar import PromptBar

    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        old = table.query_one(PromptBar)
        assert table.query_one(PromptBar) is old
        app.broadcast(events.LookChanged)  # as a new language or theme does
        await wait_for(pilot, lambda: not old.is_attached)
        await pilot.pause()
        new = table.query_one(PromptBar)
        assert new is not old and new.is_attached
        assert list(table.query(PromptBar)) == [new]  # Textual's own query agrees
        await wait_for(pilot, lambda: "The Bid" in new.question.plain)
        asked = new.question.plain
        await pilot.press("enter")  # commit a card to the Bid: the next moves show in it
        await wait_for(pilot, lambda: new.question.plain != asked)
        assert new.question.plain in screen_text(app)


@pytest.mark.parametrize("game", ["prophets_gambit", "prophet"])
async def test_a_seats_panel_titled_before_it_is_mounted_keeps_the_title(game):
    """A table screen drawn before its panels are mounted (its message there already) titles
    the seats panel first: mounting must not put the panel's own default title back, which
    ``retitle`` would then never correct (it skips a title it set already)."""
    from textual.app import App, ComposeResult

    from gambit_tui.names import game_title
    from gambit_tui.widgets.pg_seats import PGSeats
    from gambit_tui.widgets.prophet_seats import ProphetSeats
    from gambit_tui.widgets.text_lines import retitle

    panel = PGSeats if game == "prophets_gambit" else ProphetSeats
    title = game_title(game)

    class Seats(App[None]):
        def compose(self) -> ComposeResult:
            yield from ()

    app = Seats()
    async with app.run_test(size=(60, 10)) as pilot:
        early, late = panel(), panel()
        retitle(early, title)  # drawn before mounted
        await app.mount(early)
        await app.mount(late)
        retitle(late, title)  # mounted, then drawn
        await pilot.pause()
        retitle(early, title)  # the next move
        await pilot.pause()
        assert str(early.border_title) == str(late.border_title) == title
