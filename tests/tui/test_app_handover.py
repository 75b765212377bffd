"""Issue 39: an app handed over to a fresh one (an app moved to another worker) shows the same
table, hand, language and settings, without a hello, from the old app's state as it crosses
the worker link (plain msgpack data)."""

from __future__ import annotations

from protocol.connection import queue_pair
from protocol.requests import Profile
from protocol.term import TermInfo
from server.apphost import worker_link as wl

from .conftest import enter_lobby, make_app, screen_text, start_pg_deal, wait_for


async def test_a_new_app_goes_on_from_the_old_ones_state(hub):
    german = TermInfo(lang="de_DE.UTF-8")
    old = make_app(hub, term=german)
    async with old.run_test(size=(100, 32)) as pilot:
        await enter_lobby(pilot)
        old.send(Profile(prefs={"four_colour": True, "sort": "rank"}))
        await wait_for(pilot, lambda: old.prefs.four_colour)
        table = await start_pg_deal(pilot)
        shown = screen_text(old)
        state = wl.unpack(wl.pack(old.resume_state()))  # as it crosses the link

    from gambit_tui.app import GambitApp
    from gambit_tui.screens.lobby import LobbyScreen
    from gambit_tui.screens.pg_table import PGTableScreen

    client_end, hub_end = queue_pair(trusted=True)
    new = GambitApp(client_end, term=german, identity="SHA256:ada", name="Ada", resume=state)
    async with new.run_test(size=(100, 32)) as pilot:
        await wait_for(pilot, lambda: isinstance(new.screen, PGTableScreen))
        assert [type(s) for s in new.screen_stack[1:]] == [LobbyScreen, PGTableScreen]
        assert new.screen.table_id == table.table_id
        assert new.lang == "de" and new.prefs.four_colour and new.prefs.sort == "rank"
        assert new.shown_table == table.table_id
        again = screen_text(new)
        # The same table, seats and hand (the turn timer has counted on meanwhile).
        hand = next(i for i, line in enumerate(shown.splitlines()) if "Hand" in line)
        assert again.splitlines()[hand : hand + 2] == shown.splitlines()[hand : hand + 2]
        assert again.splitlines()[0] == shown.splitlines()[0]
    # No hello (the hub knows this player already): at most the lobby's own
    # "no lobby updates while a table covers me", which the old app had said too.
    sent = list(hub_end._inbox._queue)  # type: ignore[attr-defined]  # (the queue's items)
    assert not any(b"hello" in frame for frame in sent if frame), sent


async def test_a_round_table_opened_over_the_events_goes_back_to_them_after_a_move(hub):
    """(A round's table opens over the Events screen; its Esc goes back there, in a moved
    app too, with the event and its standings as they were.)"""
    from gambit_tui.app import GambitApp
    from gambit_tui.screens.lobby import LobbyScreen
    from gambit_tui.screens.nights import NightsScreen
    from gambit_tui.screens.pg_table import PGTableScreen

    from .test_nights import _make_event, _registered

    old = make_app(hub, name="Ada")
    async with old.run_test(size=(80, 24), notifications=True) as pilot:
        await enter_lobby(pilot)
        await _make_event(pilot)
        await pilot.press("r")
        await wait_for(pilot, lambda: "you are registered" in screen_text(old))
        await _registered(hub, 2, 1)
        await wait_for(pilot, lambda: "Pat1" in screen_text(old))
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(old.screen, PGTableScreen))
        state = wl.unpack(wl.pack(old.resume_state()))

    client_end, _hub_end = queue_pair(trusted=True)
    new = GambitApp(client_end, identity="SHA256:ada", name="Ada", resume=state)
    async with new.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(new.screen, PGTableScreen))
        # The round's notice, put up just before the move, is still up after it.
        assert any("Round 1 of Friday" in n[0] for n in new.live_notices())
        kinds = [type(s) for s in new.screen_stack[1:]]
        assert kinds == [LobbyScreen, NightsScreen, PGTableScreen]
        assert "esc Events" in screen_text(new)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(new.screen, NightsScreen))
        await wait_for(pilot, lambda: "Friday" in screen_text(new))
        assert "Pat1" in screen_text(new)  # the standings, as they were
