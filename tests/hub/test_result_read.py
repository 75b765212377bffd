"""The pause between games: long enough to read the result, shorter once everyone has."""

from __future__ import annotations

import asyncio

from server.hub import Hub, HubConfig

from .conftest import fast_config
from .harness import connect, play_to_end

#: The app shows the result up to this many seconds after the last move (RESULT_DELAY).
RESULT_COMES = 1.0


async def two_players_finish_a_game(hub: Hub):
    ada, bob = await connect(hub), await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    await bob.hello("Bob", identity="SHA256:bob")
    await ada.send("create_table", game="prophets_gambit", players=3, stake=10)
    table = (await ada.expect("table"))["table"]
    await bob.send("join", table=table)
    await bob.expect("table", table=table)
    await ada.send("add_bot", table=table, seat=2)
    await ada.until(lambda m: m["t"] == "table" and m["info"]["seats"][2]["bot"])
    await ada.send("start", table=table)
    await play_to_end({0: ada, 1: bob}, table)
    return ada, bob, table


def next_deal_in(hub: Hub, table: int) -> float | None:
    timer = hub.timers.get(("next", table))
    return None if timer is None else timer.when() - asyncio.get_running_loop().time()


async def test_the_next_deal_waits_for_the_result_to_be_read(store):
    hub = Hub(store, fast_config(between_games=HubConfig().between_games))
    await hub.start()
    try:
        ada, bob, table = await two_players_finish_a_game(hub)
        # the result is up at most a second after the end, then readable for at least 8 s
        assert next_deal_in(hub, table) >= 8.0 + RESULT_COMES - 0.5
        await ada.send("result_read", table=table)
        await ada.send("ping", n=1)
        await ada.expect("pong")
        # Bob has not closed it: the deal still waits
        assert next_deal_in(hub, table) >= 8.0
        assert hub.tables[table].status == "between"
        await bob.send("result_read", table=table)
        await bob.send("ping", n=1)
        await bob.expect("pong")
        # everyone here has read it: the next deal starts after a glance at the table
        due = next_deal_in(hub, table)
        assert due is None or due <= hub.config.after_results_read
        started = await ada.until(
            lambda m: (
                m["t"] == "table"
                and m["info"]["games_played"] == 1
                and m["view"] is not None
                and not m["view"]["over"]
            ),
            timeout=3.0,
        )
        assert started["info"]["status"] == "playing"
        for c in (ada, bob):
            await c.close()
    finally:
        await hub.stop()


async def test_a_read_from_another_table_or_too_late_changes_nothing(store):
    hub = Hub(store, fast_config(between_games=600.0))
    await hub.start()
    try:
        ada, bob, table = await two_players_finish_a_game(hub)
        eve = await connect(hub)
        await eve.hello("Eve", identity="SHA256:eve")
        await eve.send("spectate", table=table)
        await eve.expect("table", table=table)
        await eve.send("result_read", table=table)  # a spectator is not waited for
        await ada.send("result_read", table=table)
        await ada.send("result_read", table=table)  # (twice is once)
        await ada.send("ping", n=1)
        await ada.expect("pong")
        await asyncio.sleep(0.1)
        assert hub.tables[table].status == "between"
        assert next_deal_in(hub, table) > 500
        for c in (ada, bob, eve):
            await c.close()
    finally:
        await hub.stop()
