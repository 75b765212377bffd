"""One active server per PostgreSQL database (server/store/pg_lock.py): the advisory lock
that guards a shared store beside the NATS lease."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from server.store.pg_lock import KEY, DatabaseBusy, DatabaseLock, lock_database

from .harness import NatsServer, start_hub

pytestmark = pytest.mark.cluster


async def test_one_holder_at_a_time_and_a_lost_connection_is_noticed(postgres_server):
    url = postgres_server.create_database("lock")
    first = await lock_database(url, "gambit hub one")
    assert first is not None and first.held
    second = DatabaseLock(url, "gambit hub two")
    try:
        assert not await second.try_take()
        assert (await second.holder()).startswith("gambit hub one")
        told: list[str] = []
        with pytest.raises(DatabaseBusy, match="in use by gambit hub one"):
            await second.acquire(told.append, timeout=0.6)
        assert told and told[0].startswith("gambit hub one")
        # The holder's session ends under it (a database restart, a cut link): the holder
        # is told at once, and another may take the lock.
        lost = asyncio.Event()
        first.keep(lost=lost.set)
        with postgres_server.admin() as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name LIKE 'gambit hub one%%'"
            )
        await asyncio.wait_for(lost.wait(), 5)
        assert not first.held
        assert await second.try_take()
    finally:
        await first.release()
        await second.release()
    assert await lock_database(None, "sqlite") is None  # SQLite: the data folder's lock


def test_two_hubs_on_one_database_only_one_serves_until_it_dies(
    nats, postgres_server, tmp_path_factory
):
    """Two hubs that do not share a NATS server (so no lease keeps them apart), one
    database: the second waits as a standby until the first is killed."""
    folder = tmp_path_factory.mktemp("dblock")
    other_bus = NatsServer(tmp_path_factory.mktemp("nats2"))
    db = postgres_server.create_database("dblock")
    active = start_hub(folder, nats.url, "--db", db, name="one")
    standby = None
    try:
        standby = start_hub(folder, other_bus.url, "--db", db, name="two", standby=True)
        # It names the holder: the other hub, its bus, machine and process.
        assert "the database is in use" in standby.out
        assert f"gambit hub on the bus {nats.url}" in standby.out
        assert f"pid {active.proc.pid})" in standby.out
        time.sleep(1.5)
        assert "gambit hub ready" not in standby.out
        active.kill()  # kill -9: PostgreSQL ends its session, and the lock with it
        standby.wait_line("gambit hub ready", timeout=20)
        assert standby.proc.poll() is None
    finally:
        for process in (active, standby):
            if process is not None:
                process.stop()
        other_bus.stop()
    assert "Traceback" not in standby.log(), standby.log()


def test_a_second_server_on_one_database_refuses_naming_the_first(
    postgres_server, tmp_path, monkeypatch, capsys
):
    import psycopg

    from server import cli
    from server.ssh import serve
    from server.store.pg_lock import KEY

    url = postgres_server.create_database("serve")
    monkeypatch.setattr(serve, "DB_LOCK_WAIT", 0.5)
    loggers = [logging.getLogger(name) for name in ("", "server", "asyncssh")]
    saved = [(logger.handlers[:], logger.level) for logger in loggers]
    try:
        with psycopg.connect(
            url, autocommit=True, application_name="gambit hub elsewhere"
        ) as other:
            other.execute("SELECT pg_advisory_lock(%s, %s)", KEY)
            code = cli.main(["serve", "--data-dir", str(tmp_path), "--db", url, "--port", "0"])
    finally:  # (serve set up logging for this process: put pytest's back)
        for logger, (handlers, level) in zip(loggers, saved, strict=True):
            logger.handlers[:] = handlers
            logger.setLevel(level)
    assert code == 1
    err = capsys.readouterr().err
    assert "is in use by gambit hub elsewhere" in err and "one server per database" in err
    assert not (tmp_path / "ssh_host_ed25519_key").exists()  # it started nothing


@pytest.mark.parametrize("meanwhile", ["nobody", "held", "holds"])
def test_a_hub_whose_lock_session_ends_takes_it_again_unless_another_had_it(
    postgres_server, tmp_path, meanwhile
):
    """Its lock's session ended under it (a database restart, a link cut). If nobody took the
    lock since, it takes it again and goes on serving (and writing). If another server took
    it meanwhile, whether it let it go again (as a hub would: it counted the lock's epoch on)
    or holds it still, the hub stops writing and exits 75, so that a service manager starts
    it again, to wait."""
    import psycopg

    from tests.hub.harness import connect_unix

    from .harness import GambitProcess

    db = postgres_server.create_database("lost")
    sock = tmp_path / "s"
    args = ["hub", "--data-dir", str(tmp_path / "d"), "--unix", str(sock), "--db", db]
    hub = GambitProcess("solo", tmp_path, args, "gambit hub ready")
    try:
        with psycopg.connect(db, autocommit=True, application_name="gambit hub elsewhere") as other:
            with postgres_server.admin() as admin:
                ended = admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name LIKE 'gambit hub on %%'"
                ).fetchall()
            assert ended == [(True,)]
            if meanwhile != "nobody":  # (before the hub's next check, a second away)
                other.execute("SELECT pg_advisory_lock(%s, %s)", KEY)  # once that session ends
            if meanwhile == "held":
                other.execute("UPDATE gambit_lock SET epoch = epoch + 1")
                other.execute("SELECT pg_advisory_unlock(%s, %s)", KEY)
            if meanwhile != "nobody":
                hub.proc.wait(timeout=15)
                assert hub.proc.returncode == 75
                log = hub.log()
                assert "database lock: lost" in log
                said = {"held": "another server held it meanwhile", "holds": "elsewhere"}
                assert said[meanwhile] in log, log
                return
        deadline = time.monotonic() + 15
        while "taken again" not in hub.log() and hub.proc.poll() is None:
            assert time.monotonic() < deadline, hub.log()
            time.sleep(0.1)
        assert hub.proc.poll() is None, hub.log()

        async def a_new_player() -> str:  # a write: the store goes on, under the lock
            client = await connect_unix(str(sock))
            welcome = await client.hello("Bea", identity="SHA256:bea")
            await client.close()
            return welcome["you"]["name"]

        assert asyncio.run(a_new_player()) == "Bea"
        with postgres_server.admin() as admin:
            holders = admin.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND classid = %s AND objid = %s",
                KEY,
            ).fetchone()
        assert holders == (1,)
        assert hub.proc.poll() is None
    finally:
        hub.stop()
