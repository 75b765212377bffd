"""Issue 39: a table's chat line is shown in the table's log, among the moves, not in a notice
(a toast cost every other player at the table about three moves' worth of drawing:
docs/benchmarks.md, "What a table's chat costs"); the chat panel keeps every line.
The rules of where a line goes: gambit_tui/chat_in_log.py."""

from __future__ import annotations

from rich.text import Text
from textual.widgets._toast import Toast

from gambit_tui import chat_in_log
from gambit_tui.chat_in_log import ChatInLog, chat_line, gone_before
from gambit_tui.widgets.event_log import EventLog
from protocol.connection import queue_pair
from protocol.requests import Chat
from server.apphost import worker_link as wl

from .conftest import enter_lobby, make_app, screen_text, start_pg_deal, wait_for
from .test_prophet_table import open_prophet_table
from .test_shared_lines import log_shown, move, two_seated

#: Markup Textual would draw reversed and struck through (and without its brackets).
MARK = "see [reverse]REV[/reverse] and [strike]gone[/strike]"


def lines(*words: str) -> list[Text]:
    return [Text(word) for word in words]


def plain(shown: list[Text]) -> list[str]:
    return [line.plain for line in shown]


def log_lines(app) -> list[str]:
    """Every line of the table's log (not only the tail shown)."""
    return plain(app.screen.query_one(EventLog).lines)


# --- where a line goes (no app) -------------------------------------------------------------


def test_a_line_said_stays_after_the_moves_before_it_and_the_next_moves_come_below():
    chat = ChatInLog()
    log = lines("deal", "Ada bids")
    assert chat.lines(log) is log  # nothing said: the log itself
    chat.said("Bob", "hi")
    chat.said("Ada", "hello")
    log = [*log, *lines("Bob bids", "Ada plays")]
    assert plain(chat.lines(log)) == [
        *("deal", "Ada bids", "Bob: hi", "Ada: hello", "Bob bids", "Ada plays")
    ]
    # Said in the waiting room (no log yet): at the top once the game's lines come.
    waiting = ChatInLog()
    waiting.said("Cy", "ready?")
    assert plain(waiting.lines([])) == ["Cy: ready?"]
    assert plain(waiting.lines(lines("deal"))) == ["Cy: ready?", "deal"]


def test_a_log_that_lets_old_lines_go_or_starts_afresh_keeps_the_lines_in_place():
    chat = ChatInLog()
    old = lines("r1", "a", "b", "c")
    chat.lines(old)
    chat.said("Bob", "gg")
    # Old rounds let go of (the Prophet table keeps 200 lines): the line keeps its place.
    later = [*old[2:], *lines("r2", "d")]
    assert gone_before(old, later) == 2
    assert plain(chat.lines(later)) == ["b", "c", "Bob: gg", "r2", "d"]
    # A new game's log: what was said before it is at the top.
    new_game = lines("deal 2")
    assert gone_before(later, new_game) == len(later)
    assert plain(chat.lines(new_game)) == ["Bob: gg", "deal 2"]
    # The same lines made anew (another language): nothing moves.
    assert gone_before(new_game, lines("Verteilung 2")) == 0


def test_a_line_is_the_players_text_as_said_without_control_characters_and_cut_if_long():
    line = chat_line("Ada", MARK + "\x1b[2J\x07")
    assert line.plain == "Ada: " + MARK + "[2J"  # never markup; no ESC, no bell
    assert line.spans[0].style == "bold" and line.spans[-1].style == "italic"
    assert chat_line("Ada", MARK + "\x1b[2J\x07") is line  # one object for every app
    long = chat_line("Bo", "word " * 100)
    assert len(long.plain) <= chat_in_log.SHOWN_CHARS
    assert long.plain.endswith("word" + chat_in_log.CUT)  # (after a whole word)
    assert chat_in_log.cut("x" * 200, 10) == "x" * 9 + chat_in_log.CUT


def test_the_lines_said_go_to_a_new_app_with_the_moves_after_them():
    old = ChatInLog()
    old.lines(lines("deal", "a"))
    old.said("Bob", "hi")
    old.lines(lines("deal", "a", "b"))
    new = ChatInLog()
    new.take_over(wl.unpack(wl.pack(old.hand_over())))
    assert plain(new.lines(lines("deal", "a", "b"))) == ["deal", "a", "Bob: hi", "b"]


# --- at a table -----------------------------------------------------------------------------


async def test_a_chat_line_shows_in_the_log_of_a_player_whose_chat_is_closed_and_no_toast(hub):
    async with two_seated(hub, "en_US.UTF-8", (80, 24), notifications=True) as seated:
        ada, bob, ada_pilot, bob_pilot = seated
        table_id = ada.screen.table_id
        notices = len(list(bob._notifications))
        ada.send(Chat("table", MARK, table=table_id))
        said = "Ada: " + MARK
        await wait_for(bob_pilot, lambda: said in log_shown(bob))
        await wait_for(ada_pilot, lambda: said in log_shown(ada))  # her own line too
        # On the screen as typed (markup shown as it is), at 80x24, and no notice.
        assert said in screen_text(bob)
        assert len(list(bob._notifications)) == notices
        assert not any(MARK in str(toast.render()) for toast in bob.screen.query(Toast))
        # A move after it comes below it.
        before = log_lines(bob)
        move(hub, table_id)
        await wait_for(bob_pilot, lambda: log_lines(bob) != before)
        after = log_lines(bob)
        assert after.index(said) == before.index(said) < len(after) - 1
        # The chat panel has the line as before (the log gives the panel its place).
        await bob_pilot.press("c")
        await wait_for(bob_pilot, lambda: bob.screen.chat_open)
        await wait_for(bob_pilot, lambda: said in screen_text(bob))
        assert not bob.screen.query_one(EventLog).display
        assert len(list(bob._notifications)) == notices


async def test_the_players_at_a_table_share_the_log_with_its_chat_line(hub):
    seated = two_seated(hub, "en_US.UTF-8", (120, 30), ada_size=(120, 30))
    async with seated as (ada, bob, ada_pilot, bob_pilot):
        ada.send(Chat("table", "well played", table=ada.screen.table_id))
        for app, pilot in ((ada, ada_pilot), (bob, bob_pilot)):
            await wait_for(pilot, lambda app=app: "Ada: well played" in log_shown(app))
        ada_log, bob_log = ada.screen.query_one(EventLog), bob.screen.query_one(EventLog)
        assert ada_log._shown_shared is not None
        assert ada_log._shown_shared is bob_log._shown_shared


async def test_the_chat_lines_in_the_log_stay_when_the_app_moves(hub):
    old = make_app(hub)
    async with old.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        old.send(Chat("table", "moving on", table=table.table_id))
        await wait_for(pilot, lambda: "Ada: moving on" in log_shown(old))
        shown = log_shown(old)
        state = wl.unpack(wl.pack(old.resume_state()))

    from gambit_tui.app import GambitApp
    from gambit_tui.screens.pg_table import PGTableScreen

    client_end, _hub_end = queue_pair(trusted=True)
    new = GambitApp(client_end, identity="SHA256:ada", name="Ada", resume=state)
    async with new.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(new.screen, PGTableScreen))
        await wait_for(pilot, lambda: log_shown(new) == shown)


async def test_a_prophet_table_shows_its_chat_in_its_log_too(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await enter_lobby(pilot)
        table = await open_prophet_table(pilot, players=3)
        app.send(Chat("table", MARK, table=table.table_id))
        await wait_for(pilot, lambda: "Ada: " + MARK in screen_text(app))
        assert not any(MARK in str(n.message) for n in app._notifications)
