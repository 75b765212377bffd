"""The lobby: every client sees tables and players come and go, with bursts coalesced."""

from __future__ import annotations

import asyncio

from server.hub import Hub

from .conftest import fast_config
from .harness import connect


async def test_lobby_lists_tables_and_players_and_follows_changes(hub):
    watcher = await connect(hub)
    await watcher.hello("Watcher")
    lobby = await watcher.expect("lobby")
    assert [p["name"] for p in lobby["players"]] == ["Watcher"] and lobby["tables"] == []
    ada = await connect(hub)
    await ada.hello("Ada")
    await ada.send("create_table", game="prophet", players=4, stake=5, access="friends")
    update = await watcher.until(lambda m: m["t"] == "lobby_update" and m["tables"])
    table = update["tables"][0]
    assert table["game"] == "prophet" and table["stake"] == 5 and table["access"] == "friends"
    assert table["seats"][0]["name"] == "Ada" and table["status"] == "waiting"
    players = await watcher.until(
        lambda m: m["t"] == "lobby_update" and m["players"] and len(m["players"]) == 2
    )
    assert {p["name"] for p in players["players"]} == {"Ada", "Watcher"}
    await ada.send("stand", table=table["id"])
    removed = await watcher.until(lambda m: m["t"] == "lobby_update" and m["removed"])
    assert removed["removed"] == [table["id"]]


async def test_a_burst_of_changes_costs_each_client_a_few_messages_per_second(store):
    hub = Hub(store, fast_config(lobby_interval=0.25))
    await hub.start()
    try:
        watcher = await connect(hub)
        await watcher.hello("Watcher")
        await watcher.expect("lobby")
        makers = [await connect(hub) for _ in range(5)]
        for i, m in enumerate(makers):
            await m.hello(f"Maker{i}")
        start = len(watcher.log)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        for m in makers:  # about 60 table changes in a burst
            for _ in range(3):
                await m.send("create_table", game="prophets_gambit", players=5)
        for m in makers:
            await m.until(lambda msg, m=m: msg["t"] == "table" and len(m.tables) == 3)
        for m in makers:
            for table_id in m.tables:
                for seat in range(1, 5):
                    await m.send("add_bot", table=table_id, seat=seat)
        await asyncio.sleep(1.0)
        elapsed = loop.time() - t0
        updates = [msg for msg in watcher.log[start:] if msg["t"] == "lobby_update"]
        assert len(hub.tables) == 15
        assert len(updates) <= elapsed / 0.25 + 2, f"{len(updates)} updates in {elapsed:.2f}s"
        seen = {t["id"]: t for u in updates for t in u["tables"]}
        assert all(all(s["bot"] for s in seen[t]["seats"][1:]) for t in hub.tables)
    finally:
        await hub.stop()


async def test_a_table_whose_lobby_row_did_not_change_costs_no_update(hub):
    watcher, ada = await connect(hub), await connect(hub)
    await watcher.hello("Watcher")
    await ada.hello("Ada")
    await ada.send("create_table", game="prophet", players=3)
    table_id = (await ada.expect("table"))["table"]
    await watcher.until(lambda m: m["t"] == "lobby_update" and m["tables"])
    hub.lobby.flush()
    before = len(watcher.log)
    hub.lobby.table_changed(hub.tables[table_id])  # a move that leaves the row as it was
    hub.lobby.flush()
    await asyncio.sleep(0.05)
    assert [m for m in watcher.log[before:] if m["t"] == "lobby_update"] == []
    await ada.send("add_bot", table=table_id, seat=1)  # the row changes: one update
    update = await watcher.until(
        lambda m: m["t"] == "lobby_update" and m["tables"] and m["tables"][0]["seats"][1]["bot"]
    )
    assert update["tables"][0]["id"] == table_id


async def test_a_client_away_from_the_lobby_gets_no_updates_and_a_fresh_lobby_back(hub):
    away, ada = await connect(hub), await connect(hub)
    await away.hello("Away")
    await ada.hello("Ada")
    await away.send("lobby_watch", on=False)
    await away.send("ping", n=1)
    await away.expect("pong", n=1)
    mark = len(away.log)
    await ada.send("create_table", game="prophet", players=3)
    table_id = (await ada.expect("table"))["table"]
    await watcher_sees(ada, table_id)
    assert [m for m in away.log[mark:] if m["t"] in ("lobby", "lobby_update")] == []
    await away.send("lobby_watch", on=True)
    lobby = await away.expect("lobby")
    assert [t["id"] for t in lobby["tables"]] == [table_id] and lobby["tables_total"] == 1
    await ada.send("add_bot", table=table_id, seat=1)
    update = await away.until(lambda m: m["t"] == "lobby_update" and m["tables"])
    assert update["tables"][0]["seats"][1]["bot"]


async def watcher_sees(client, table_id: int) -> None:
    """Wait until ``client`` (who watches the lobby) has had the table in an update."""
    await client.until(
        lambda m: m["t"] == "lobby_update" and any(t["id"] == table_id for t in m["tables"])
    )


async def test_players_arriving_reach_each_lobby_about_once_a_second_not_every_flush(store):
    """Every lobby shows the number online: while players arrive, each lobby is sent their
    comings at most once a second (lobby_players_every flushes), not at every flush, and
    still sees the last arrival within about a second."""
    hub = Hub(store, fast_config(lobby_interval=0.25))  # players: at most every 4 × 0.25 s
    await hub.start()
    try:
        watcher = await connect(hub)
        await watcher.hello("Watcher")
        await watcher.expect("lobby")
        start = len(watcher.log)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        for i in range(16):  # eight arrivals a second, for two seconds
            arriving = await connect(hub)
            await arriving.hello(f"Arrival{i:02d}")
            await asyncio.sleep(0.125)
        last = loop.time()
        await watcher.until(lambda m: m["t"] == "lobby_update" and m["online"] == 17)
        assert loop.time() - last <= 1.25
        elapsed = loop.time() - t0
        updates = [m for m in watcher.log[start:] if m["t"] == "lobby_update"]
        # (At every flush, as before: some nine updates in these two seconds.)
        assert len(updates) <= elapsed + 1, f"{len(updates)} updates in {elapsed:.2f}s"
        counts = [m["online"] for m in updates]
        assert counts == sorted(counts) and counts[-1] == 17
        listed = next(m["players"] for m in reversed(updates) if m["players"])
        assert len(listed) == 17 and listed[0]["name"] == "Watcher"
    finally:
        await hub.stop()
