"""The database away under a running hub (its PostgreSQL lock went with a restart:
server/store/pg_lock.py): nothing is written meanwhile, and once the hub has the lock again
play goes on, what failed meanwhile set again (tests/cluster/test_database_restart.py runs it
against a real PostgreSQL restart)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from server.hub import Hub
from server.store import StoreError

from .conftest import fast_config
from .harness import Client, connect, table_with_bots

#: What a player reads when what they sent could not be written (in English).
NOT_SAVED = "The server could not save that just now; try again in a moment."


def stored(hub: Hub, table: int) -> int:
    """The actions of the table's game in play, as stored."""
    return next(len(row["actions"]) for row in hub.store.live_tables() if row["id"] == table)


@asynccontextmanager
async def ada_and_two_bots(store, bot_delay: float) -> AsyncIterator[tuple[Hub, Client, int]]:
    """A started hub; Ada at a Prophet table of three with two bots (moving after
    ``bot_delay``, no turn timer), the game started: the hub, Ada and the table."""
    hub = Hub(store, fast_config(bot_delay=bot_delay))
    await hub.start()
    try:
        ada = await connect(hub)
        await ada.hello("Ada", identity="SHA256:ada")
        table = await table_with_bots(ada, "prophet", players=3, timer=0)
        await ada.send("start", table=table)
        yield hub, ada, table
    finally:
        await hub.stop()


async def stored_beyond(hub: Hub, table: int, moves: int) -> None:
    """Until the store holds more than ``moves`` actions of the table's game (5 s at most)."""
    for _ in range(50):
        if stored(hub, table) > moves:
            break
        await asyncio.sleep(0.1)
    assert stored(hub, table) > moves


async def test_nothing_is_written_while_the_database_is_away_and_play_goes_on_after(store, caplog):
    """The bots' timed moves are refused meanwhile, each in one line (expected: no
    traceback), and made once the database is back."""
    caplog.set_level(logging.WARNING)
    async with ada_and_two_bots(store, bot_delay=0.2) as (hub, ada, table):
        # Ada plays until it is a bot's turn; the database goes away before it moves.
        for _ in range(100):
            message = await ada.expect("table", table=table)
            view = message["view"]
            if view is not None and view["waiting"] and 0 not in view["waiting"]:
                break
            if view is not None and view["legal"]:
                await ada.send("act", table=table, action=view["legal"][0])
        moves = stored(hub, table)
        hub.database_away("the test's database restarts")
        with pytest.raises(StoreError, match="the test's database restarts"):
            store.set_lang("SHA256:ada", "de")
        await asyncio.sleep(0.6)  # (the bots' timers fire: their moves are refused)
        assert stored(hub, table) == moves
        state = hub.tables[table].state
        assert state is not None and len(state.history) == moves  # memory as the store
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
        assert any("waits for the database" in r.getMessage() for r in caplog.records)

        seen = len(ada.log)
        assert await hub.database_back()
        # The table is sent again, and the bots move again: the game goes on, stored.
        await ada.until(lambda m: m["t"] == "table" and m["table"] == table, timeout=2)
        assert len(ada.log) > seen
        await stored_beyond(hub, table, moves)
        assert store.ledger_total() == 0 and store.audit() == []


async def test_a_move_sent_while_the_database_is_away_is_refused_in_words_and_taken_after(store):
    """The player reads why (it could not be saved; try again in a moment), not "something
    went wrong", and nothing changed: the same move, made again once the database is back,
    is taken."""
    async with ada_and_two_bots(store, bot_delay=0.05) as (hub, ada, table):
        view = (await ada.until(lambda m: m["t"] == "table" and (m["view"] or {}).get("ask")))[
            "view"
        ]
        moves = stored(hub, table)
        hub.database_away("the test's database restarts")
        await ada.send("act", table=table, action=view["legal"][0])
        refused = await ada.expect("error")
        assert refused["code"] == "not_saved" and refused["ref"] == "act"
        assert refused["text"] == NOT_SAVED
        assert refused["message"] == NOT_SAVED
        assert hub.refusals["not_saved"] == 1
        assert stored(hub, table) == moves

        assert await hub.database_back()
        await ada.send("act", table=table, action=view["legal"][0])
        await stored_beyond(hub, table, moves)
        assert not [m for m in ada.log if m["t"] == "error" and m is not refused]


def tables_now(hub: Hub) -> tuple[dict[int, dict], dict[int, dict]]:
    """Every open table as memory has it, and as the store has it."""
    memory = {table.id: table.record() for table in hub.tables.values()}
    return memory, {row["id"]: row["info"] for row in hub.store.live_tables()}


@asynccontextmanager
async def ada_and_bo(store) -> AsyncIterator[tuple[Hub, Client, Client, int]]:
    """A started hub, Ada and Bo in its lobby, a waiting Prophet table of three Ada opened:
    the hub, Ada, Bo and the table."""
    hub = Hub(store, fast_config())
    await hub.start()
    try:
        ada = await connect(hub)
        await ada.hello("Ada", identity="SHA256:ada")
        bo = await connect(hub)
        await bo.hello("Bo", identity="SHA256:bo")
        await ada.send("create_table", game="prophet", players=3)
        yield hub, ada, bo, (await ada.expect("table"))["table"]
    finally:
        await hub.stop()


async def test_seat_changes_while_the_database_is_away_are_refused_and_change_nothing(store):
    """A seat changes in memory before the table is saved: while the database is away,
    joining, standing up (the last player: the table would close), adding or removing a
    bot, starting a game and opening a table are each refused with ``not_saved``, and
    nothing changes, in memory or in the store; once it is back the same request is taken."""
    async with ada_and_bo(store) as (hub, ada, bo, table):
        await ada.send("add_bot", table=table, seat=2)
        await ada.until(lambda m: m["t"] == "table" and m["info"]["seats"][2]["bot"])
        full = await table_with_bots(bo, "prophet", players=3)
        before = tables_now(hub)
        assert set(before[0]) == set(before[1]) == {table, full}

        hub.database_away("the test's database restarts")
        requests = [
            (bo, "join", {"table": table}),
            (ada, "add_bot", {"table": table, "seat": 1}),
            (ada, "remove_bot", {"table": table, "seat": 2}),
            (ada, "stand", {"table": table}),
            (ada, "leave", {"table": table}),
            (bo, "start", {"table": full}),
            (ada, "create_table", {"game": "prophet", "players": 3}),
        ]
        for client, kind, fields in requests:
            await client.send(kind, **fields)
            refused = await client.expect("error")
            assert (refused["code"], refused["ref"]) == ("not_saved", kind), refused
            assert refused["text"] == NOT_SAVED
            assert tables_now(hub) == before, kind
        assert hub.refusals["not_saved"] == len(requests)

        assert await hub.database_back()
        await bo.send("join", table=table)
        await bo.until(lambda m: m["t"] == "table" and m["table"] == table and m["seat"] == 1)
        seats = tables_now(hub)[1][table]["seats"]
        assert [s["player"] for s in seats] == ["SHA256:ada", "SHA256:bo", None]
        assert not [m for m in ada.log + bo.log if m["t"] == "error" and m["code"] != "not_saved"]


async def test_a_seat_left_without_a_request_while_the_database_is_away_is_saved_once_back(store):
    """A player who drops from a waiting table leaves their seat: no request to refuse, so
    memory changes (the others see it at once), and the store is told once the database is
    back."""
    async with ada_and_bo(store) as (hub, ada, bo, table):
        await bo.send("join", table=table)
        await ada.until(lambda m: m["t"] == "table" and m["info"]["seats"][1]["name"] == "Bo")
        hub.database_away("the test's database restarts")
        await bo.close()
        for _ in range(50):
            if hub.tables[table].seat_of("SHA256:bo") is None:
                break
            await asyncio.sleep(0.02)
        assert hub.tables[table].seat_of("SHA256:bo") is None
        await ada.until(lambda m: m["t"] == "table" and m["info"]["seats"][1]["name"] is None)
        assert tables_now(hub)[1][table]["seats"][1]["player"] == "SHA256:bo"  # (not yet)

        assert await hub.database_back()
        memory, stored = tables_now(hub)
        assert stored[table]["seats"] == memory[table]["seats"]
        assert stored[table]["seats"][1]["player"] is None
