"""The hub's play makes no reference cycles, so a `gambit hub` needs no collector while it
plays (``server/hub/main.py`` ``HUB_YOUNG_GENERATION``).

Every object a move makes is freed by reference counting; the collector would only walk
what is alive (a tenth of the hub's CPU at 10,000 players, ``bench/hub_load.py``'s
``gc_ms_per_action``) and find nothing. This plays tables through the bus path a `gambit hub`
serves (gateway frames in, published frames out), bad moves and chat among the good ones,
with the collector off, then asks it what became garbage: a change that makes a cycle at
every move (a closure that holds its own frame, a view pointing back at its table) fails
here, with the cyclic objects' types. Bots of every level play too, and sessions end."""

from __future__ import annotations

import asyncio
import collections
import gc
import random
import time
from typing import Any

from bench.hub_actions import settle
from protocol.codec import encode
from protocol.messages import PROTOCOL_VERSION
from server.bus import wire
from server.hub import Hub
from server.hub.bus import HubBus
from server.hub.main import hub_memory

from .conftest import fast_config

TOKEN = "no-cycles"
GATEWAY = "gw"
SEATS = 5
TABLES = 6


class _Nats:
    def __init__(self) -> None:
        self.messages = 0

    async def publish(self, subject: str, payload: bytes) -> None:
        self.messages += 1


class _Msg:
    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


async def _settle(hub: Hub, bus: HubBus) -> None:
    await settle(hub, bus, limit=10_000)


def _cyclic_garbage() -> collections.Counter[str]:
    """Collect, keeping what was found, and name its types."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return collections.Counter(type(o).__qualname__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


async def test_playing_through_the_bus_makes_no_cyclic_garbage(store):
    hub = Hub(store, fast_config(bot_delay=0.0, lobby_interval=0.05))
    await hub.start()
    bus = HubBus(hub, "nats://test.invalid", TOKEN)
    nats = _Nats()
    bus.nc = nats
    bus._sender = wire.Sender(nats.publish)

    async def send(events: list[list[Any]]) -> None:
        await bus._on_message(_Msg(wire.pack([GATEWAY, events])))
        await _settle(hub, bus)

    try:
        players = TABLES * SEATS
        info = wire.pack({"peer": "test", "address": None, "token": TOKEN})
        events: list[list[Any]] = []
        for sid in range(1, players + 3):  # two more only watch the lobby
            hello = {"t": "hello", "v": PROTOCOL_VERSION, "identity": f"t:{sid}", "name": f"P{sid}"}
            events += [[wire.OPEN, sid, info], [wire.FRAMES, sid, encode(hello)]]
        await send(events)
        hosts = list(range(1, players + 1, SEATS))
        create = {"t": "create_table", "game": "prophets_gambit", "players": SEATS}
        await send([[wire.FRAMES, h, encode(create)] for h in hosts])
        table_of = {t.owner: t for t in hub.tables.values()}
        tables = [table_of[f"t:{h}"] for h in hosts]
        joins = [
            [wire.FRAMES, h + k, encode({"t": "join", "table": table_of[f"t:{h}"].id})]
            for h in hosts
            for k in range(1, SEATS)
        ]
        await send(joins)
        await send(
            [
                [wire.FRAMES, h, encode({"t": "start", "table": t.id})]
                for h, t in zip(hosts, tables, strict=True)
            ]
        )
        assert all(t.status == "playing" for t in tables)

        def sid(table_index: int, seat: int) -> int:
            return hosts[table_index] + seat

        rng = random.Random(7)

        async def play(moves: int) -> int:
            done = 0
            deadline = time.monotonic() + 60  # (bounded; a few hundred moves take a second)
            while done < moves and time.monotonic() < deadline:
                i = rng.randrange(TABLES)
                table = tables[i]
                state = table.state
                if table.status != "playing" or state is None or not state.pending():
                    await asyncio.sleep(0.001)  # (between games: the next one is dealt soon)
                    await send([])
                    continue
                seat = sorted(state.pending())[0]
                action = rng.choice(state.legal_actions(seat)).to_wire()
                frames = [
                    [
                        wire.FRAMES,
                        sid(i, seat),
                        encode({"t": "act", "table": table.id, "action": action}),
                    ]
                ]
                roll = rng.random()
                if roll < 0.1:  # out of turn
                    other = (seat + 1) % SEATS
                    frames.append(
                        [
                            wire.FRAMES,
                            sid(i, other),
                            encode({"t": "act", "table": table.id, "action": action}),
                        ]
                    )
                elif roll < 0.15:  # not an action at all
                    frames.append(
                        [
                            wire.FRAMES,
                            sid(i, seat),
                            encode({"t": "act", "table": table.id, "action": {"type": "fly"}}),
                        ]
                    )
                elif roll < 0.25:
                    frames.append(
                        [
                            wire.FRAMES,
                            sid(i, seat),
                            encode({"t": "chat", "table": table.id, "text": "gl"}),
                        ]
                    )
                await send(frames)
                done += 1
            return done

        async def play_with_bots() -> int:
            """A table of one player and four bots of every level, played for a while."""
            host = players + 1  # (a lobby watcher until now)
            await send([[wire.FRAMES, host, encode(create)]])
            (table,) = (t for t in hub.tables.values() if t.owner == f"t:{host}")
            kinds = ["heuristic", "strong", "random", "heuristic"]
            bots = [
                {"t": "add_bot", "table": table.id, "seat": k + 1, "kind": kinds[k]}
                for k in range(4)
            ]
            await send([[wire.FRAMES, host, encode(b)] for b in bots])
            await send([[wire.FRAMES, host, encode({"t": "start", "table": table.id})]])
            for _ in range(1_000):
                state = table.state
                if table.games_played >= 3:
                    break
                if state is not None and 0 in state.pending():
                    action = state.legal_actions(0)[0].to_wire()
                    await send(
                        [
                            [
                                wire.FRAMES,
                                host,
                                encode({"t": "act", "table": table.id, "action": action}),
                            ]
                        ]
                    )
                else:
                    await asyncio.sleep(0.005)
            return table.games_played

        await play(50)  # caches, catalogs and first deals made before counting
        memory = hub_memory(hub)  # as `gambit hub` does: no collections while it plays
        try:
            assert gc.get_threshold()[0] == 0
            moves = await play(400)
            games = sum(t.games_played for t in tables)
            bot_games = await play_with_bots()
            before = len(hub.sessions)
            await send([[wire.END, n, b""] for n in range(1, 11)])  # ten leave
            ended = before - len(hub.sessions)
            gc.unfreeze()  # (the policy freezes what is alive: garbage frozen too is found)
            garbage = _cyclic_garbage()
        finally:
            memory.close()
            gc.unfreeze()
        assert moves == 400 and games >= 3  # (games ended: players were rated)
        assert bot_games >= 3 and ended == 10
        assert sum(garbage.values()) == 0, (
            f"cyclic garbage from {moves} moves: {garbage.most_common(12)}"
        )
        assert nats.messages > moves / 10  # (the moves were answered)
    finally:
        await hub.stop()
