"""Nothing the hub keeps in memory grows with the players who came and went (issue 43): after
guests have opened tables, chatted, watched, played and left, every map and set of the hub
and its parts is back to its size before (a public server runs for weeks)."""

from __future__ import annotations

import asyncio
from typing import Any

from server.hub import Hub
from server.store import Store

from .conftest import fast_config
from .harness import connect, play_to_end, table_with_bots

GAMES = (("prophet", 3), ("prophets_gambit", 3), ("fortunes", 4))


def sizes(obj: Any, path: str, seen: set[int], out: dict[str, int], depth: int = 0) -> None:
    """The length of every dict, set and list held by the hub's parts, by path."""
    if depth > 3 or id(obj) in seen or not hasattr(obj, "__dict__"):
        return
    seen.add(id(obj))
    for key, value in vars(obj).items():
        if isinstance(value, dict | set | list):
            out[f"{path}.{key}"] = len(value)
        elif type(value).__module__.startswith("server."):
            sizes(value, f"{path}.{key}", seen, out, depth + 1)


def measure(hub: Hub) -> dict[str, int]:
    out: dict[str, int] = {}
    sizes(hub, "hub", set(), out)
    return out


async def visit(hub: Hub, n: int) -> None:
    """A guest opens a table, chats there and in the lobby, another guest watches, the game
    is played out, and both leave."""
    game, players = GAMES[n % len(GAMES)]
    host = await connect(hub, trusted=False)
    await host.hello(f"Host{n}")
    watcher = await connect(hub, trusted=False)
    await watcher.hello(f"Watcher{n}")
    table = await table_with_bots(host, game, players=players, stake=5, timer=0)
    await host.send("chat", channel="table", table=table, text="hello table")
    await host.send("chat", channel="lobby", text="hello lobby")
    await watcher.send("spectate", table=table)
    await host.send("start", table=table)
    await play_to_end({0: host}, table, timeout=60)
    await host.send("result_read", table=table)
    await watcher.close()
    await host.close()


async def test_players_who_came_and_went_leave_nothing_in_memory():
    hub = Hub(Store(), fast_config(guest_retention=0.0))
    await hub.start()
    try:
        ada = await connect(hub)
        await ada.hello("Ada", identity="SHA256:ada")  # someone stays throughout
        await visit(hub, 0)  # every part has met a table, a game and a guest once
        await asyncio.sleep(1.5)  # the first visit's table closes; a sweep runs
        before = measure(hub)
        for n in range(1, 4):
            await visit(hub, n)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while (grown := {k: v for k, v in measure(hub).items() if v > before.get(k, 0)}) and (
            loop.time() < deadline
        ):
            await asyncio.sleep(0.1)
        assert grown == {}, {k: (before.get(k), v) for k, v in grown.items()}
    finally:
        await hub.stop()
