"""PostgreSQL restarting under the active hub (server/store/pg_lock.py, "Taking it again"): the
lock's session ends with the server, though nobody else takes the lock. The hub writes
nothing meanwhile, takes the lock again when the database is back, and plays on; its standby
keeps waiting. (A lock another server held meanwhile, or holds now, stops it as before:
tests/cluster/test_database_lock.py.)"""

from __future__ import annotations

import asyncio

import pytest

from tests.cluster_support import postgres
from tests.hub.harness import Client, connect_unix, table_with_bots
from tests.hub.test_guest_chips import autoplay

from .harness import start_hub

pytestmark = pytest.mark.cluster
OPTIONS = ("--bot-delay", "0.05", "--between-games", "0.2")


async def until(probe, timeout: float, what: str, detail=lambda: ""):
    """Wait (bounded) until ``probe()`` is true (``detail()``: said if not)."""
    for _ in range(int(timeout / 0.1)):
        if probe():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what} {detail()}")


async def my_turn(client: Client, table: int) -> dict:
    """Wait until the table waits for this client's seat alone (no bot is about to move)."""
    return await client.until(
        lambda m: (
            m["t"] == "table"
            and m["table"] == table
            and m["view"] is not None
            and m["view"]["legal"]
            and m["view"].get("waiting") == [m["seat"]]
        ),
        timeout=20,
    )


def stored_moves(server: postgres.PostgresServer, db: str, table: int) -> int:
    import psycopg

    with psycopg.connect(db, connect_timeout=5) as conn:
        live = conn.execute("SELECT COUNT(*) FROM live_actions WHERE table_id = %s", (table,))
        games = conn.execute("SELECT COUNT(*) FROM games WHERE table_id = %s", (table,))
        return int(live.fetchone()[0]) + 1000 * int(games.fetchone()[0])


async def test_the_active_hub_takes_its_lock_again_after_a_database_restart_and_plays_on(
    nats, tmp_path
):
    if not postgres.available():
        pytest.skip("PostgreSQL is not installed (.ci/run installs it)")
    with postgres.running_postgres(durable=True) as server:  # (of its own: it is killed)
        db = server.create_database("restart")
        options = (*OPTIONS, "--db", db)
        active = await asyncio.to_thread(start_hub, tmp_path, nats.url, *options, name="one")
        standby = await asyncio.to_thread(
            start_hub, tmp_path, nats.url, *options, name="two", standby=True
        )
        ada = None
        try:
            ada = await connect_unix(str(tmp_path / "one.sock"))
            await ada.hello("Ada", identity="SHA256:ada")
            table = await table_with_bots(ada, "prophets_gambit", timer=0)
            await ada.send("start", table=table)
            await my_turn(ada, table)
            await asyncio.sleep(0.3)  # (what the bots did is committed)
            before = stored_moves(server, db, table)

            await asyncio.to_thread(server.kill)  # kill -9, every process of it
            await asyncio.sleep(0.5)
            await asyncio.to_thread(server.restart)  # same port and data, WAL recovered

            await until(
                lambda: "taken again" in active.log() or active.proc.poll() is not None,
                20,
                "the hub took its lock again",
            )
            assert active.proc.poll() is None, active.log()
            assert "gambit hub ready" not in standby.out  # it waits, as before
            # The same session goes on: its moves are taken and stored, and the game with it.
            playing = autoplay(ada, table)
            try:
                await until(
                    lambda: stored_moves(server, db, table) > before + 2,
                    30,
                    "moves stored again",
                    lambda: [(m["t"], m.get("code")) for m in ada.log[-8:]],
                )
            finally:
                playing.cancel()
            bea = await connect_unix(str(tmp_path / "one.sock"))  # a new player is written
            assert (await bea.hello("Bea", identity="SHA256:bea"))["you"]["name"] == "Bea"
            await bea.close()
            assert active.proc.poll() is None and standby.proc.poll() is None
        finally:
            if ada is not None:
                await ada.close()
            for hub in (active, standby):
                await asyncio.to_thread(hub.stop)
    assert "Traceback" not in standby.log(), standby.log()


@pytest.mark.parametrize("meanwhile", ["nobody", "another"])
async def test_a_lease_that_lapsed_is_taken_again_unless_another_hub_holds_it(
    nats, tmp_path, meanwhile
):
    """The lease's key went (it lapsed: the hub's loop held up past the TTL by a long start
    on a loaded machine, or NATS restarting): the hub takes it again if nobody holds it, and
    serves on; if another hub holds it now, it stops (exit 75), as before."""
    import nats as nats_client

    from server.hub.lease import BUCKET, KEY

    hub = await asyncio.to_thread(start_hub, tmp_path, nats.url, name="solo")
    nc = await nats_client.connect(nats.url)
    try:
        kv = await nc.jetstream().key_value(BUCKET)
        await kv.delete(KEY)
        if meanwhile == "another":
            await kv.create(KEY, b"another hub")
            await until(lambda: hub.proc.poll() is not None, 15, "the hub stopped")
            assert hub.proc.returncode == 75
            assert "lease: lost" in hub.log()
            return
        await until(lambda: "taken again" in hub.log(), 15, "the lease taken again", hub.log)
        await asyncio.sleep(1.5)  # (renewed since)
        assert hub.proc.poll() is None, hub.log()
        assert (await kv.get(KEY)).value != b"another hub"
    finally:
        await nc.close()
        await asyncio.to_thread(hub.stop)
