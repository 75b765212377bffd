"""PostgreSQL killed under a hub whose lock check has not noticed yet (it checks every
second), and a timer fires in that second: the next game, a reveal wait's end, a bot's move,
a turn timer's stand-in. Its first call on the store finds the connection gone, often a
READ (the players' balances before a deal), which raises psycopg's error as it is. That is
the database away, not the code's failure: one warning line and no traceback, nothing
changed, and the timer set again once the database is back (``Timers.refused``), as for a
write refused while fenced (bench/chaos.py kills PostgreSQL like this)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import pytest

from server.hub import Hub
from server.store import Store, StoreError, pg_lock
from tests.cluster_support import postgres
from tests.hub.conftest import fast_config
from tests.hub.harness import connect, play_to_end, table_with_bots

from .test_database_restart import until

pytestmark = pytest.mark.cluster

T = TypeVar("T")


async def within(seconds: float, what: str, step: Awaitable[T]) -> T:
    """``step``'s result, or a failure naming it after ``seconds``: every wait of this file
    is bounded (a hub's stop once waited for ever here: tests/store/test_pg_lock_release.py).
    Waited for, not cancelled at the bound: a step that swallowed its cancel would pass."""
    task = asyncio.ensure_future(step)
    try:
        await asyncio.wait({task}, timeout=seconds)
    finally:
        if not task.done():
            task.cancel()
    if not task.done() or task.cancelled():
        raise AssertionError(f"not within {seconds} s: {what}")
    return task.result()


@contextlib.asynccontextmanager
async def locked_hub(db: str, **config: Any) -> AsyncIterator[tuple[Hub, Store, list[bool]]]:
    """A hub holding the database's lock, wired as server/hub/main.py wires it."""
    lock = await pg_lock.lock_database(db, "test hub", timeout=10)
    assert lock is not None
    store = Store(db)
    hub = Hub(store, fast_config(**config))
    lost: list[bool] = []
    lock.keep(lost=lambda: lost.append(True), away=hub.database_away, back=hub.database_back)
    store.on_lost = lock.check_now
    await within(10, "the hub's start", hub.start())
    try:
        yield hub, store, lost
    finally:
        try:
            await within(10, "the hub's stop", hub.stop())
        finally:
            await within(10, "the lock's release", lock.release())
            store.close()


def failures(records: list[logging.LogRecord]) -> list[str]:
    """Log lines that say the code failed: an error, or any line with a traceback."""
    return [r.getMessage() for r in records if r.levelno >= logging.ERROR or r.exc_info]


def snapshot(hub: Hub, table: int) -> Any:
    """What the kill must not change of a table: its record, state and clocks."""
    t = hub.tables[table]
    history = None if t.state is None else len(t.state.history)
    clocks = sorted((k, v) for k, v in hub.turns.deadlines.items() if k[0] == table)
    return t.status, t.record(), history, clocks


async def fire_at_kill(
    server: postgres.PostgresServer,
    hub: Hub,
    store: Store,
    table: int,
    fire: Callable[[], None],
    caplog: Any,
) -> list[BaseException]:
    """Kill PostgreSQL and ``fire`` a timer of ``table`` at once: refused quietly (one
    warning, no traceback), nothing of the table changed (its seats' clocks too), the
    store fenced. Returns the errors the timers were refused with."""
    timers = hub.runtime.timers
    refused: list[BaseException] = []
    away = timers.away

    def noting(err: BaseException) -> bool:
        refused.append(err)
        return away(err)

    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(timers, "away", noting)
    before = snapshot(hub, table)
    caplog.clear()
    caplog.set_level(logging.INFO)
    await asyncio.to_thread(server.kill)
    fire()
    await until(
        lambda: (
            any("waits for the database" in r.getMessage() for r in caplog.records)
            or bool(failures(caplog.records))
        ),
        10,
        "the timer refused",
        lambda: [r.getMessage() for r in caplog.records],
    )
    await asyncio.sleep(0.2)  # (nothing else comes of it)
    assert failures(caplog.records) == []
    waits = [r for r in caplog.records if "waits for the database" in r.getMessage()]
    assert len(waits) == 1 and waits[0].levelno == logging.WARNING, waits
    assert snapshot(hub, table) == before and store.fenced
    monkeypatch.undo()
    return refused


async def a_game_played(hub: Hub) -> int:
    """Ada's Prophet's Gambit table with bots, one game played to its end: the table is
    between games (the next game's timer set)."""
    ada = await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    table = await table_with_bots(ada, "prophets_gambit", timer=0)
    await ada.send("start", table=table)
    await play_to_end({0: ada}, table)
    await until(lambda: hub.tables[table].status == "between", 10, "between games")
    return table


async def test_a_next_game_whose_balance_read_finds_the_database_gone_waits_for_it(
    monkeypatch, caplog
):
    """The next game's timer fires after the kill: start_game's balance check is a read on
    the closed connection. Refused quietly, the table as it was; dealt once back."""
    if not postgres.available():
        pytest.skip("PostgreSQL is not installed (.ci/run installs it)")
    monkeypatch.setattr(pg_lock, "CHECK_EVERY", 60.0)  # (only the timer's read tells)
    with postgres.running_postgres(durable=True) as server:  # (of its own: it is killed)
        db = server.create_database("losttimer")
        async with locked_hub(db, bot_delay=0.0, between_games=60.0, entropy_wait=0.0) as (
            hub,
            store,
            lost,
        ):
            table = await a_game_played(hub)
            timers = hub.runtime.timers
            assert ("next", table) in timers.pending
            refused = await fire_at_kill(
                server,
                hub,
                store,
                table,
                lambda: timers.later(("next", table), 0.0, hub.play.next_game, table),
                caplog,
            )
            assert [type(err).__module__.split(".")[0] for err in refused] == [
                "psycopg"
            ]  # (the read's own)
            assert ("next", table) in timers.refused  # (set again once back)

            await asyncio.to_thread(server.restart)  # same port and data, WAL recovered
            await until(lambda: not store.fenced or bool(lost), 20, "the database back")
            assert not lost
            await until(lambda: hub.tables[table].status == "playing", 10, "the next game")
            assert failures(caplog.records) == []


async def test_a_reveal_waits_end_whose_balance_read_finds_the_database_gone_waits_for_it(
    monkeypatch, caplog
):
    """The same read from the end of a deal's wait for players' reveals (entropy.due)."""
    if not postgres.available():
        pytest.skip("PostgreSQL is not installed (.ci/run installs it)")
    monkeypatch.setattr(pg_lock, "CHECK_EVERY", 60.0)
    with postgres.running_postgres(durable=True) as server:
        db = server.create_database("lostreveal")
        async with locked_hub(db, bot_delay=0.0, between_games=60.0, entropy_wait=0.0) as (
            hub,
            store,
            lost,
        ):
            table = await a_game_played(hub)
            timers = hub.runtime.timers
            timers.cancel(("next", table))
            hub.entropy.waiting.add(table)  # (the deal waits for a reveal that does not come)
            refused = await fire_at_kill(
                server,
                hub,
                store,
                table,
                lambda: timers.later(("entropy", table), 0.0, hub.entropy.due, table),
                caplog,
            )
            assert [type(err).__module__.split(".")[0] for err in refused] == ["psycopg"]
            assert ("entropy", table) in timers.refused and table in hub.entropy.waiting

            await asyncio.to_thread(server.restart)
            await until(lambda: not store.fenced or bool(lost), 20, "the database back")
            assert not lost
            await until(lambda: hub.tables[table].status == "playing", 10, "the deal")
            assert failures(caplog.records) == []


@pytest.mark.parametrize("bot", ["heuristic", "strong"])
async def test_a_bots_move_at_the_kill_waits_for_the_database(monkeypatch, caplog, bot):
    """A bot's move (a quick bot in the timer, a strong one's answer from the pool) finds
    the connection gone: refused quietly; made once the database is back."""
    if not postgres.available():
        pytest.skip("PostgreSQL is not installed (.ci/run installs it)")
    monkeypatch.setattr(pg_lock, "CHECK_EVERY", 60.0)
    with postgres.running_postgres(durable=True) as server:
        db = server.create_database("lostbot")
        async with locked_hub(db, bot_delay=60.0, entropy_wait=0.0) as (hub, store, lost):
            ada = await connect(hub)
            await ada.hello("Ada", identity="SHA256:ada")
            await ada.send("create_table", game="prophets_gambit", players=3, timer=0)
            table = (await ada.expect("table"))["table"]
            for seat in (1, 2):
                await ada.send("add_bot", table=table, seat=seat, kind=bot)
            await until(lambda: hub.tables[table].full, 5, "the bots seated")
            await ada.send("start", table=table)
            await until(lambda: hub.tables[table].status == "playing", 10, "the deal")
            state = hub.tables[table].state
            assert state is not None
            for _ in range(20):  # (Ada moves until a bot's move is due)
                if state.pending().keys() - {0}:
                    break
                await ada.send("act", table=table, action=state.legal_actions(0)[0].to_wire())
                await until(lambda: bool(state.pending()), 5, "a move")
            assert state.pending().keys() - {0}
            moves = len(state.history)
            timers = hub.runtime.timers
            key = ("table", table)
            await fire_at_kill(
                server,
                hub,
                store,
                table,
                lambda: timers.later(key, 0.0, hub.turns.autoplay, table),
                caplog,
            )
            await asyncio.to_thread(server.restart)
            await until(lambda: not store.fenced or bool(lost), 20, "the database back")
            assert not lost
            timers.later(key, 0.0, hub.turns.autoplay, table)  # (bot_delay: not wait for it)
            await until(lambda: len(state.history) > moves, 10, "the bot's move")
            assert failures(caplog.records) == []


async def test_a_turn_timers_stand_in_at_the_kill_waits_for_the_database(monkeypatch, caplog):
    """Ada's turn timer runs out in that second: the stand-in's affordability check reads
    her balance on the closed connection. Refused quietly, her clock kept; the stand-in
    moves once the database is back."""
    if not postgres.available():
        pytest.skip("PostgreSQL is not installed (.ci/run installs it)")
    monkeypatch.setattr(pg_lock, "CHECK_EVERY", 60.0)
    with postgres.running_postgres(durable=True) as server:
        db = server.create_database("lostturn")
        async with locked_hub(db, bot_delay=0.05, entropy_wait=0.0) as (hub, store, lost):
            ada = await connect(hub)
            await ada.hello("Ada", identity="SHA256:ada")
            table = await table_with_bots(ada, "prophets_gambit", timer=60)
            await ada.send("start", table=table)
            state = None
            await until(
                lambda: (
                    hub.tables[table].state is not None
                    and hub.tables[table].state.pending().keys() == {0}
                    and (table, 0) in hub.turns.deadlines
                ),
                10,
                "Ada's turn",
            )
            state = hub.tables[table].state
            moves = len(state.history)
            loop = asyncio.get_running_loop()
            hub.turns.deadlines[(table, 0)] = loop.time() - 1.0  # (her time is up)
            timers = hub.runtime.timers
            key = ("table", table)
            await fire_at_kill(
                server,
                hub,
                store,
                table,
                lambda: timers.later(key, 0.0, hub.turns.autoplay, table),
                caplog,
            )
            await asyncio.to_thread(server.restart)
            await until(lambda: not store.fenced or bool(lost), 20, "the database back")
            assert not lost
            await until(lambda: len(state.history) > moves, 10, "the stand-in's move")
            assert failures(caplog.records) == []


async def test_a_held_batch_that_went_with_the_database_stops_the_hub_in_one_line(
    monkeypatch, caplog
):
    """PostgreSQL killed while a burst's writes are held uncommitted (``Store.hold_commits``):
    they went with it, so memory is ahead of the store and the hub stops (as before), but
    that is the database's kill, not the code's failure: one line, no traceback."""
    if not postgres.available():
        pytest.skip("PostgreSQL is not installed (.ci/run installs it)")
    monkeypatch.setattr(pg_lock, "CHECK_EVERY", 60.0)
    with postgres.running_postgres(durable=True) as server:
        db = server.create_database("lostbatch")
        async with locked_hub(db) as (hub, store, _lost):
            stopped: list[bool] = []
            hub.on_fatal = lambda: stopped.append(True)
            ada = await connect(hub)
            await ada.hello("Ada", identity="SHA256:ada")
            table = hub.tables[await table_with_bots(ada, "prophets_gambit", timer=0)]
            await asyncio.sleep(0.1)  # (committed)
            caplog.clear()
            caplog.set_level(logging.INFO)
            # In one turn of the loop, as a burst's handlers run: a write held, the kill,
            # a second write of the same batch refused. The batch's commit comes next.
            hub.runtime.save(table)
            server.kill()
            with pytest.raises(StoreError):
                hub.runtime.save(table)
            await until(lambda: bool(stopped), 5, "the hub stopping")
            assert store.fenced
            said = [r for r in caplog.records if "cannot commit" in r.getMessage()]
            assert len(said) == 1 and said[0].levelno == logging.CRITICAL, said
            assert "stopping" in said[0].getMessage()
            assert [r for r in caplog.records if r.exc_info] == []
