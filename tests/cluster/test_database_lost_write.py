"""PostgreSQL killed under a hub whose lock check has not noticed yet (it checks every
second): the next write finds the store's connection gone. That move is refused as one sent
while the database is away (``not_saved``, nothing changed), not "something went wrong", and
the hub's away/back handling starts at once (server/store/pg_lock.py): once the database is
back the same move is taken and stored (bench/chaos.py kills PostgreSQL like this)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from server.hub import Hub
from server.store import Store, pg_lock
from tests.cluster_support import postgres
from tests.hub.conftest import fast_config
from tests.hub.harness import connect, table_with_bots

from .test_database_restart import my_turn, stored_moves, until

pytestmark = pytest.mark.cluster


@dataclass
class AdasTurn:
    """A hub holding the database's lock, Ada at a Prophet's Gambit table with bots, her turn."""

    hub: Hub
    store: Store
    lock: Any
    #: Whether the lock said it was lost (the hub would stop).
    lost: list[bool]
    ada: Any
    table: int
    view: dict[str, Any]
    #: The moves stored, and the game's history in memory, when it became her turn.
    before: int
    state: Any
    history: int


@contextlib.asynccontextmanager
async def adas_turn(server: Any, db: str) -> AsyncIterator[AdasTurn]:
    lock = await pg_lock.lock_database(db, "test hub")
    assert lock is not None
    store = Store(db)
    hub = Hub(store, fast_config(bot_delay=0.05))
    lost: list[bool] = []
    lock.keep(lost=lambda: lost.append(True), away=hub.database_away, back=hub.database_back)
    store.on_lost = lock.check_now  # (as server/hub/main.py wires it)
    await hub.start()
    try:
        ada = await connect(hub)
        await ada.hello("Ada", identity="SHA256:ada")
        table = await table_with_bots(ada, "prophets_gambit", timer=0)
        await ada.send("start", table=table)
        view = (await my_turn(ada, table))["view"]
        await asyncio.sleep(0.3)  # (what the bots did is committed)
        before = stored_moves(server, db, table)
        state = hub.tables[table].state
        assert state is not None
        yield AdasTurn(hub, store, lock, lost, ada, table, view, before, state, len(state.history))
    finally:
        await hub.stop()
        await lock.release()
        store.close()


async def test_a_move_whose_write_finds_the_database_gone_is_not_saved_and_taken_after(
    monkeypatch,
):
    if not postgres.available():
        pytest.skip("PostgreSQL is not installed (.ci/run installs it)")
    # The lock's own check comes much later than the move: only the failed write tells.
    monkeypatch.setattr(pg_lock, "CHECK_EVERY", 60.0)
    with postgres.running_postgres(durable=True) as server:  # (of its own: it is killed)
        db = server.create_database("lostwrite")
        async with adas_turn(server, db) as turn:
            hub, store, lost, ada = turn.hub, turn.store, turn.lost, turn.ada
            table, view, before, state, history = (
                turn.table,
                turn.view,
                turn.before,
                turn.state,
                turn.history,
            )
            server.kill()  # kill -9, every process of it; the hub's loop has not run since
            await ada.send("act", table=table, action=view["legal"][0])
            refused = await ada.expect("error")
            assert (refused["code"], refused["ref"]) == ("not_saved", "act"), refused
            assert len(state.history) == history  # not in memory either
            assert hub.refusals["not_saved"] == 1 and store.fenced

            await asyncio.to_thread(server.restart)  # same port and data, WAL recovered
            assert stored_moves(server, db, table) == before
            await until(lambda: not store.fenced or bool(lost), 20, "the database back")
            assert not lost and not store.fenced
            await ada.send("act", table=table, action=view["legal"][0])
            await until(
                lambda: stored_moves(server, db, table) > before,
                10,
                "the move stored",
                lambda: [(m["t"], m.get("code")) for m in ada.log[-6:]],
            )
            assert len(state.history) > history
            assert [m["code"] for m in ada.log if m["t"] == "error"] == ["not_saved"]


async def test_a_store_connection_cut_alone_is_connected_again_with_the_lock_still_held(
    monkeypatch,
):
    """Only the store's session ends (``pg_terminate_backend``; the lock's lives on): the
    move is refused the same way, and since the lock is still ours nobody can have written
    meanwhile, so the store connects again at once and the same move is taken."""
    if not postgres.available():
        pytest.skip("PostgreSQL is not installed (.ci/run installs it)")
    monkeypatch.setattr(pg_lock, "CHECK_EVERY", 60.0)
    with postgres.running_postgres() as server:
        db = server.create_database("cutstore")
        async with adas_turn(server, db) as turn:
            store, lock, lost, ada = turn.store, turn.lock, turn.lost, turn.ada
            table, view, before, state, history = (
                turn.table,
                turn.view,
                turn.before,
                turn.state,
                turn.history,
            )
            epoch = lock.epoch

            with server.admin() as admin:
                pid = store._conn.raw.info.backend_pid  # (the store's session, not the lock's)
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            await ada.send("act", table=table, action=view["legal"][0])
            refused = await ada.expect("error")
            assert (refused["code"], refused["ref"]) == ("not_saved", "act"), refused
            assert len(state.history) == history
            await until(lambda: not store.fenced or bool(lost), 10, "the store connected again")
            assert not lost and lock.held and lock.epoch == epoch  # (never let go)
            await ada.send("act", table=table, action=view["legal"][0])
            await until(lambda: stored_moves(server, db, table) > before, 10, "the move stored")
            assert len(state.history) > history
            assert [m["code"] for m in ada.log if m["t"] == "error"] == ["not_saved"]
