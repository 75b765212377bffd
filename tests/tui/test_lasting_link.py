"""``gambit connect``'s app on a link that drops (issue 41): the screen says it reconnects,
the app stays on its table, and the seat is the player's again on the new link."""

from __future__ import annotations

import asyncio

import pytest

from gambit_connect.lasting import LastingConnection
from gambit_tui.app import GambitApp
from protocol.connection import Connection, QueueConnection, queue_pair
from protocol.term import TermInfo
from server.hub import Hub

from .conftest import enter_lobby, start_pg_deal, tui_config, wait_for


@pytest.fixture
async def hub(store):
    """A seat waits for a dropped player longer than the first attempt to dial again."""
    h = Hub(store, tui_config(grace=30.0))
    await h.start()
    yield h
    await h.stop()


async def test_a_dropped_link_comes_back_to_the_table_and_the_screen_says_so(hub, monkeypatch):
    hub_ends: list[QueueConnection] = []

    async def dial() -> Connection:
        client_end, hub_end = queue_pair(trusted=True)
        asyncio.get_running_loop().create_task(hub.serve(hub_end))
        hub_ends.append(hub_end)
        return client_end

    conn = LastingConnection(await dial(), dial)
    app = GambitApp(conn, term=TermInfo(), identity="SHA256:ada", name="Ada")
    async with app.run_test(size=(100, 32)) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        stack = list(app.screen_stack)
        said: list[str] = []
        notify = app.notify

        def noting(message, *args, **kwargs):
            said.append(str(message))
            return notify(message, *args, **kwargs)

        # (every notice put up, also one taken down since; undone at the test's end, so
        # that no cycle keeps the app alive for a later test's count of what is left)
        monkeypatch.setattr(app, "notify", noting)
        await hub_ends[0].close()  # the link drops without a goodbye

        def told() -> list[str]:
            return [n.message for n in app._notifications]

        await wait_for(pilot, lambda: "Back at the tables." in told())
        ours = [m for m in said if m in ("Reconnecting to the tables…", "Back at the tables.")]
        assert ours == ["Reconnecting to the tables…", "Back at the tables."]
        # Once back, the notice that it was reconnecting is taken down (it would stand on the
        # one saying it is back for the rest of its 10 s).
        await wait_for(pilot, lambda: "Reconnecting to the tables…" not in told())
        assert conn.reconnects == 1 and len(hub_ends) == 2
        assert list(app.screen_stack) == stack and app.screen is table
        # The seat is the player's, on the new link (a stand-in played it meanwhile).
        assert app.model.views[table.table_id]["seat"] == 0
        sessions = hub.players["SHA256:ada"].sessions
        assert [s.conn for s in sessions] == [hub_ends[1]]
        assert hub.tables[table.table_id].seat_of("SHA256:ada") == 0
        await conn.close()
