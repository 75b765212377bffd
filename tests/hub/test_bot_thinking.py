"""Strong bots think off the hub's loop: a person's ping stays quick while they play.

Seven tables, each with one person (who answers at once) and three strong bots searching
100 ms a move in one worker process: twenty-one strong bots. A second person pings the hub
all the while. In the loop, each search would hold every ping for up to 100 ms (and a queue
of them for seconds); off the loop a pong takes a few milliseconds.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from server.hub import Hub

from .conftest import fast_config
from .harness import connect

TABLES = 7


async def test_pings_stay_quick_while_strong_bots_think(store):
    # (100 ms: the strong Prophet bot thinks to its whole budget; enough moves in 5 s)
    hub = Hub(store, fast_config(bot_workers=1, bot_think_ms=100.0))
    await hub.start()
    try:
        players = []
        for i in range(TABLES):
            client = await connect(hub)
            await client.hello(f"P{i}", identity=f"key-{i}")
            await client.send("create_table", game="prophet", players=4, options={"cap": 3})
            table = (await client.expect("table"))["table"]
            for seat in (1, 2, 3):
                await client.send("add_bot", table=table, seat=seat, kind="strong")
            await client.until(
                lambda m: m["t"] == "table" and all(s["bot"] for s in m["info"]["seats"][1:])
            )
            await client.send("start", table=table)
            players.append((client, table))
        answering = [asyncio.create_task(answer(c, t)) for c, t in players]

        pinger = await connect(hub)
        await pinger.hello("Pat", identity="key-pat")
        moves_before = bot_moves(hub)
        rtts = []
        end = time.perf_counter() + 5.0
        n = 0
        while time.perf_counter() < end:
            n += 1
            sent = time.perf_counter()
            await pinger.send("ping", n=n)
            await pinger.expect("pong", n=n)
            rtts.append((time.perf_counter() - sent) * 1000)
            await asyncio.sleep(0.02)
        for task in answering:
            task.cancel()
        moved = bot_moves(hub) - moves_before
        assert moved >= 5, f"the strong bots hardly moved ({moved} moves)"
        rtts.sort()
        p50, p99 = statistics.median(rtts), rtts[int(0.99 * (len(rtts) - 1))]
        assert p50 < 20 and p99 < 100, (p50, p99, moved)
    finally:
        await hub.stop()


def bot_moves(hub: Hub) -> int:
    return sum(len(t.state.history) for t in hub.tables.values() if t.state is not None)


async def answer(client, table: int) -> None:
    """The person at a table plays their first legal action as soon as they are asked."""
    answered = None
    while True:
        msg = client.tables.get(table)
        view = msg and msg["view"]
        if view and view["legal"] and not view["over"] and msg is not answered:
            answered = msg
            await client.send("act", table=table, action=view["legal"][0])
        await asyncio.sleep(0.01)
