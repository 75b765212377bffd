"""A table's turn timers count down between messages, and its ticker sleeps without them."""

from __future__ import annotations

from server.hub import Hub

from .conftest import enter_lobby, make_app, start_pg_deal, tui_config, wait_for


async def test_turn_timers_count_down_and_the_ticker_sleeps_without_them(store):
    hub = Hub(store, tui_config(turn_timer=30.0))
    await hub.start()
    try:
        app = make_app(hub)
        async with app.run_test(size=(80, 24)) as pilot:
            await enter_lobby(pilot)
            table = await start_pg_deal(pilot)
            seats = table.timers_widget()
            seat = table.seat
            await wait_for(pilot, lambda: seat in seats.timers)
            first = seats.timers[seat]
            # No message meanwhile (the bots wait for us): the ticker counts down alone.
            await wait_for(pilot, lambda: seats.timers.get(seat, first) <= first - 1, 4.0)
            assert table._ticker._active.is_set()
            # A table without turn timers: the ticker pauses (nothing to count).
            message = dict(app.model.views[table.table_id])
            message["info"] = {**message["info"], "deadlines": {}}
            app.model.views[table.table_id] = message
            table.refresh_view()
            assert seats.timers == {}
            assert not table._ticker._active.is_set()
    finally:
        await hub.stop()


async def test_the_apps_turn_clock_sleeps_until_a_table_brings_a_turn_timer(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await wait_for(pilot, lambda: not app._clock._active.is_set(), 3.0)  # nothing to count
        table = await start_pg_deal(pilot)  # a table without turn timers: still asleep
        assert table.ask is not None
        assert not app._clock._active.is_set()
        message = dict(app.model.views[table.table_id])
        message["info"] = {**message["info"], "deadlines": {str(table.seat): 30.0}}
        app.receive(message)
        assert app._clock._active.is_set()
