"""What the lobby and the Prophet's Gambit table look like at 80×24.

Deterministic: fixed names, a fixed deal seed, no turn timers (so no clock on screen).
Update after an intended change with ``pytest tests/tui/test_snapshots.py --snapshot-update``
and look at the SVGs in ``__snapshots__``.
"""

from __future__ import annotations

import asyncio

from gambit_tui.app import GambitApp
from gambit_tui.screens.pg_table import PGTableScreen
from protocol.connection import queue_pair
from protocol.term import TermInfo
from server.hub import Hub
from server.store import Store
from tests.hub.harness import Client

from .conftest import enter_lobby, open_pg_table_with_bots, tui_config, wait_for


def snapshot_app(tmp_path):
    """An app and a ``run_before`` that starts its hub inside the app's own event loop."""
    store = Store.open(tmp_path / "data")
    hub = Hub(store, tui_config())
    client_end, hub_end = queue_pair(trusted=True)
    app = GambitApp(client_end, term=TermInfo(), identity="SHA256:ada", name="Ada")

    async def start_hub() -> None:
        await hub.start()
        asyncio.get_running_loop().create_task(hub.serve(hub_end))

    return app, hub, store, start_hub


def test_lobby_snapshot(snap_compare, tmp_path):
    app, hub, store, start_hub = snapshot_app(tmp_path)

    async def run_before(pilot) -> None:
        await start_hub()
        # Another player opens two tables first, so the lobby has something to list.
        other_end, other_hub_end = queue_pair(trusted=True)
        asyncio.get_running_loop().create_task(hub.serve(other_hub_end))
        cleo = Client(other_end)
        await cleo.hello("Cleo", identity="SHA256:cleo")
        await cleo.send("create_table", game="prophets_gambit", players=4, stake=20)
        await cleo.expect("table")
        await cleo.send("add_bot", table=1, seat=1)
        await cleo.send(
            "create_table",
            game="fortunes",
            players=4,
            options={"betting": "raise"},
            access="friends",
        )
        await cleo.expect("table", table=2)
        await enter_lobby(pilot)
        await wait_for(pilot, lambda: len(app.model.tables) == 2 and len(app.model.players) == 2)
        await wait_for(pilot, lambda: "2/4" in app.screen.query_one("#tables").render_line(1).text)

    try:
        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
    finally:
        store.close()


def test_pg_table_snapshot(snap_compare, tmp_path):
    app, _hub, store, start_hub = snapshot_app(tmp_path)

    async def run_before(pilot) -> None:
        await start_hub()
        await enter_lobby(pilot)
        await open_pg_table_with_bots(pilot, bots=3)
        await pilot.press("s")
        screen = app.screen
        assert isinstance(screen, PGTableScreen)
        # Commit the second card to the Bid, then stop at our first turn of round 1.
        await wait_for(pilot, lambda: screen.ask is not None)
        await pilot.press("2", "enter")
        await wait_for(pilot, lambda: (screen.ask or {}).get("kind") in ("turn", "fate"))
        await pilot.press("right")

    try:
        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
    finally:
        store.close()


def test_prophet_table_snapshot(snap_compare, tmp_path):
    from gambit_tui.screens.prophet_table import ProphetTableScreen

    from .test_prophet_table import open_prophet_table

    app, _hub, store, start_hub = snapshot_app(tmp_path)

    async def run_before(pilot) -> None:
        await start_hub()
        await enter_lobby(pilot)
        table = await open_prophet_table(pilot, players=4, schedule="up_down", cap=3)
        await pilot.press("s")
        assert isinstance(table, ProphetTableScreen)
        # Bid the first legal number each round; stop at our first play of round 3.
        for _ in range(400):
            view, ask = table.view or {}, table.ask or {}
            if view.get("round") == 3 and ask.get("kind") == "play":
                break
            if ask:
                key = table._decision_key()
                await pilot.press("enter")
                await wait_for(pilot, lambda k=key: table._decision_key() != k)
            else:
                await pilot.pause(0.02)
        await pilot.press("right")

    try:
        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
    finally:
        store.close()


def test_fortunes_table_snapshot(snap_compare, tmp_path):
    from gambit_tui.screens.fortunes_table import FortunesTableScreen

    from .test_fortunes_table import open_fortunes_table

    app, _hub, store, start_hub = snapshot_app(tmp_path)

    async def run_before(pilot) -> None:
        await start_hub()
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot)
        assert isinstance(table, FortunesTableScreen)
        # Play the card under the cursor until our turn in trick 5 (Stars are free by then).
        for _ in range(400):
            view, ask = table.view or {}, table.ask or {}
            if view.get("trick", {}).get("n", 0) >= 5 and ask.get("kind") == "play":
                break
            if ask:
                key = table._decision_key()
                await pilot.press("enter")
                await wait_for(pilot, lambda k=key: table._decision_key() != k)
            else:
                await pilot.pause(0.02)
        await pilot.press("right")
        app.clear_notifications()  # the toasts of flips fade on a clock: not in the picture
        await pilot.pause()

    try:
        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
    finally:
        store.close()
