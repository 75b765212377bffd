"""Apps of one process at the same table share what they have in common
(gambit_tui/shared_lines.py): each still sees its own language, width and hand."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from rich.text import Text
from textual._context import active_app
from textual.widgets import Select

from gambit_tui import shared_lines
from gambit_tui.app import GambitApp
from gambit_tui.cards import card_text
from gambit_tui.screens.create_table import CreateTableScreen
from gambit_tui.screens.pg_table import SEAT_KINDS, PGTableScreen
from gambit_tui.shared_lines import SharedCache
from gambit_tui.widgets.choice_row import ChoiceRow
from gambit_tui.widgets.event_log import EventLog
from gambit_tui.widgets.pg_seats import PGSeats
from protocol.requests import Join
from protocol.term import TermInfo
from server.bots import make_bot
from server.hub import Hub

from .conftest import enter_lobby, make_app, screen_text, wait_for


@asynccontextmanager
async def two_seated(
    hub: Hub,
    bob_lang: str,
    bob_size: tuple[int, int],
    ada_size: tuple[int, int] = (80, 24),
    notifications: bool = False,
) -> AsyncIterator[tuple[GambitApp, GambitApp, Any, Any]]:
    """Ada (English, ``ada_size``) and Bob (``bob_lang``, ``bob_size``) seated at one Prophet's
    Gambit table of three (a bot the third), dealt: the apps and their pilots (``notifications``:
    notices are drawn, as toasts)."""
    ada = make_app(hub)
    bob = make_app(hub, "Bob", "SHA256:bob", term=TermInfo(lang=bob_lang, width=bob_size[0]))
    async with (
        ada.run_test(size=ada_size, notifications=notifications) as ada_pilot,
        bob.run_test(size=bob_size, notifications=notifications) as bob_pilot,
    ):
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        token = active_app.set(ada)  # (two apps: a screen finds its app through the context)
        try:
            await ada_pilot.press("n")
            await wait_for(ada_pilot, lambda: isinstance(ada.screen, CreateTableScreen))
            ada.screen.query_one("#players", Select).value = 3
            await ada_pilot.press("ctrl+s")
            await wait_for(ada_pilot, lambda: isinstance(ada.screen, PGTableScreen))
            await ada_pilot.press("b")
        finally:
            active_app.reset(token)
        table_id = ada.screen.table_id
        bob.send(Join(table_id))
        await wait_for(bob_pilot, lambda: isinstance(bob.screen, PGTableScreen))
        await ada_pilot.press("s")
        for app, pilot in ((ada, ada_pilot), (bob, bob_pilot)):
            await wait_for(pilot, lambda app=app: app.screen.view is not None)
        yield ada, bob, ada_pilot, bob_pilot


def log_shown(app: GambitApp) -> list[str]:
    return [line.plain for line in app.screen.query_one(EventLog)._shown_lines]


def move(hub: Hub, table_id: int) -> None:
    """The pending seat's move, a heuristic bot's choice (as bench/table_updates.py)."""
    table = hub.tables[table_id]
    state = table.state
    seat = min(state.pending())
    bot = make_bot(table.game, "heuristic", seed=f"test:{len(state.history)}")
    hub.play.apply_action(table, seat, bot.choose(state.view(seat)))


async def test_apps_at_one_table_in_two_languages_and_widths_each_see_their_own(hub):
    """English at 80 columns and German at 100: each log in its own language and width, a
    move shows in both, and each hand is the app's own (nothing private comes through what
    the apps share)."""
    async with two_seated(hub, "de_DE.UTF-8", (100, 30)) as (ada, bob, ada_pilot, bob_pilot):
        table_id = ada.screen.table_id
        ada_log, bob_log = ada.screen.query_one(EventLog), bob.screen.query_one(EventLog)
        assert ada_log.content_size.width != bob_log.content_size.width
        for _ in range(3):
            before = (log_shown(ada), log_shown(bob))
            move(hub, table_id)
            await wait_for(ada_pilot, lambda before=before: log_shown(ada) != before[0])
            await wait_for(bob_pilot, lambda before=before: log_shown(bob) != before[1])
        # Each log as the app's own lines make it, in its own language and width.
        for log in (ada_log, bob_log):
            assert log._shown_lines == log._tail(log.content_size.width, log.content_size.height)
        assert "Log" in screen_text(ada) and "Protokoll" in screen_text(bob)
        assert log_shown(ada) != log_shown(bob)
        # Each hand is the app's own: the cards the hub dealt that seat.
        state = hub.tables[table_id].state
        for app in (ada, bob):
            token = active_app.set(app)  # (the screen's properties read their app from it)
            try:
                check_own_hand(app, state)
            finally:
                active_app.reset(token)
        ada_hand = ada.model.views[table_id]["view"]["hand"]
        bob_hand = bob.model.views[table_id]["view"]["hand"]
        assert ada_hand and bob_hand and ada_hand != bob_hand


def check_own_hand(app: GambitApp, state: Any) -> None:
    """The app's hand is the cards the hub dealt its seat, and its seat's row its Fate."""
    seat = app.screen.seat
    row = app.screen.query_one(ChoiceRow)
    hand = list(state.view(seat)["hand"])
    assert app.screen.view["hand"] == hand
    if (app.screen.ask or {}).get("kind") not in ("darklord_pick", "ghost", *SEAT_KINDS):
        assert [c.value for c in row.choices] == hand  # (else: another's cards)
    # ... and so is the Fate in its own seat's row (another player sees it face down).
    fate = card_text(state.view(seat)["fate"], app.card_style).plain
    rows = [line.plain for line in app.screen.query_one(PGSeats)._shown_lines]
    other = 1 - seat if seat in (0, 1) else 0
    assert fate in rows[seat] and fate not in rows[other].split()[-1:]


async def test_the_second_app_takes_the_log_the_first_one_made(hub):
    """Two apps alike (language, size) at one table: after a move the log's tail and its
    change (rows, strips) are made once, and the other app takes them (cache hits)."""
    # (Wide enough that every footer takes one row: the logs are the same size.)
    seated = two_seated(hub, "en_US.UTF-8", (120, 30), ada_size=(120, 30))
    async with seated as (ada, bob, ada_pilot, bob_pilot):
        table_id = ada.screen.table_id
        for _ in range(2):  # (the first move may find a log that was made whole)
            before = (log_shown(ada), log_shown(bob))
            tails = shared_lines.LOG_TAILS.misses, shared_lines.LOG_TAILS.hits
            changes = shared_lines.TRANSITIONS.misses, shared_lines.TRANSITIONS.hits
            move(hub, table_id)
            await wait_for(ada_pilot, lambda before=before: log_shown(ada) != before[0])
            await wait_for(bob_pilot, lambda before=before: log_shown(bob) != before[1])
        assert log_shown(ada) == log_shown(bob)
        # The tail shown is one object for both apps, made by one and taken by the other,
        # and so is its change from the last one (its rows and strips, worked out once).
        ada_log, bob_log = ada.screen.query_one(EventLog), bob.screen.query_one(EventLog)
        assert ada_log.content_size == bob_log.content_size
        assert ada_log._shown_shared is not None
        assert ada_log._shown_shared is bob_log._shown_shared
        assert shared_lines.LOG_TAILS.hits > tails[1]
        assert shared_lines.TRANSITIONS.hits > changes[1]
        assert (
            ada.screen.query_one(EventLog)._shown_strips
            == bob.screen.query_one(EventLog)._shown_strips
        )


def test_a_shared_cache_stays_bounded_over_many_changes() -> None:
    """However many changes, the oldest entries go: the newest stay, at most the limit."""
    cache: SharedCache[str] = SharedCache(8)
    for n in range(1000):
        assert cache.made(("table", n), lambda n=n: f"v{n}") == f"v{n}"
        assert len(cache) <= 8
    assert cache.get(("table", 999)) == "v999" and cache.get(("table", 0)) is None
    assert cache.misses == 1000
    assert shared_lines.LOG_TAILS.limit <= 1024 and shared_lines.TRANSITIONS.limit <= 4096


async def test_the_process_caches_stay_bounded_over_many_moves(hub, monkeypatch):
    """Over a deal's moves at a table the process's caches keep at most their limits."""
    monkeypatch.setattr(shared_lines.LOG_TAILS, "limit", 3)
    monkeypatch.setattr(shared_lines.TRANSITIONS, "limit", 3)
    async with two_seated(hub, "uk_UA.UTF-8", (90, 26)) as (ada, bob, ada_pilot, _):
        table_id = ada.screen.table_id
        for _ in range(8):
            state = hub.tables[table_id].state
            if state.is_over or not state.pending():
                break
            before = log_shown(ada)
            move(hub, table_id)
            await wait_for(ada_pilot, lambda before=before: log_shown(ada) != before)
            assert len(shared_lines.LOG_TAILS) <= 3 and len(shared_lines.TRANSITIONS) <= 3
        # What is shown is still right after the oldest entries went.
        log = ada.screen.query_one(EventLog)
        assert log._shown_lines == log._tail(log.content_size.width, log.content_size.height)
        assert all(isinstance(line, Text) for line in log_shown_text(bob))


def log_shown_text(app: GambitApp) -> list[Text]:
    return list(app.screen.query_one(EventLog)._shown_lines)
