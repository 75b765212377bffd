"""What only PostgreSQL needs checking: its migrations and version, two connections debiting
one account at once, held commits seen by other connections, and URLs kept out of messages."""

from __future__ import annotations

import asyncio
import threading

import psycopg
import pytest

from server.store import CURRENT_VERSION, InsufficientChips, Store, StoreError, backup, pg_schema
from server.store.pg import PgConnection
from tests.cluster_support.postgres import PostgresServer

pytestmark = pytest.mark.cluster


@pytest.fixture
def url(postgres_server: PostgresServer) -> str:
    """A new, empty database of its own (these tests look at its schema)."""
    return postgres_server.create_database("pgtest")


def tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        return {r[0] for r in rows}


def test_a_new_database_is_migrated_to_the_same_version_as_sqlite(url: str):
    with Store(url) as store:
        assert store.postgres and store.schema_version == CURRENT_VERSION
        store.ensure_player("k1", starting_chips=50)
    assert {"players", "ledger", "friend_requests", "bans", "gambit_schema"} <= tables(url)
    with Store.open(db=url) as again:  # reopening changes nothing and keeps the data
        assert again.schema_version == CURRENT_VERSION
        assert again.balance("player:k1") == 50 and again.audit() == []


def test_an_older_database_is_upgraded_with_its_data_kept(url: str):
    conn = PgConnection(url)
    assert pg_schema.migrate(conn, target=4) == 4
    conn.raw.execute("INSERT INTO friends (owner, friend, created) VALUES ('a', 'b', 1.0)")
    conn.close()
    assert "friend_requests" not in tables(url)
    with Store(url) as store:
        assert store.schema_version == CURRENT_VERSION
        assert store.friends("a") == ["b"]
        store.request_friend("b", "a")
        assert store.friend_requests_to("a") == ["b"]


def test_a_database_from_a_newer_gambit_is_refused_untouched(url: str):
    Store(url).close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE gambit_schema SET version = %s", (CURRENT_VERSION + 1,))
    with pytest.raises(StoreError, match="newer than this Gambit"):
        Store(url)
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT version FROM gambit_schema").fetchone() == (
            CURRENT_VERSION + 1,
        )


def test_two_connections_cannot_both_spend_the_same_chips(url: str):
    """Two hubs (or a hub and a tool) debit one account at once: the second debit waits for
    the first, then finds too little. Read-then-write would have let both through."""
    first, second = Store(url), Store(url)
    try:
        first.transfer("bank", "player:a", 100, "grant")
        errors: list[BaseException] = []
        with first.transaction():
            first.transfer("player:a", "pot:1", 60, "ante")

            def other() -> None:
                try:
                    second.transfer("player:a", "pot:2", 60, "ante")
                except BaseException as err:
                    errors.append(err)

            thread = threading.Thread(target=other)
            thread.start()
            thread.join(0.5)
            assert thread.is_alive(), "the second debit waits for the first one's row lock"
        thread.join(10)
        assert len(errors) == 1 and isinstance(errors[0], InsufficientChips), errors
        assert first.balance("player:a") == 40 and first.balance("pot:2") == 0
        assert first.audit() == []
    finally:
        first.close()
        second.close()


def test_held_writes_are_invisible_to_others_until_committed(url: str):
    hub, reader = Store(url), Store(url)
    try:
        opened: list[bool] = []
        hub.hold_commits(lambda: opened.append(True))
        hub.ensure_player("k1", starting_chips=5)
        hub.ensure_player("k2", starting_chips=5)
        assert opened == [True] and hub.holding
        assert reader.get_player("k1") is None
        hub.commit_held()
        assert reader.balance("player:k1") == reader.balance("player:k2") == 5
        assert hub.commits == 1 and not hub.holding  # one commit for the burst
    finally:
        hub.close()
        reader.close()


def test_failed_call_inside_a_held_batch_undoes_only_itself(url: str):
    with Store(url) as store:
        store.hold_commits(lambda: None)
        store.ensure_player("k1", starting_chips=5)
        with pytest.raises(InsufficientChips):
            store.transfer("player:k1", "pot:1", 6, "ante")
        store.transfer("player:k1", "pot:1", 5, "ante")
        store.commit_held()
        assert store.balance("pot:1") == 5 and store.audit() == []


def test_the_password_stays_out_of_errors(postgres_server: PostgresServer):
    bad = f"postgresql://postgres:s3cret@127.0.0.1:{postgres_server.port}/no_such_db"
    with pytest.raises(StoreError) as info:
        Store(bad)
    assert "s3cret" not in str(info.value) and "***" in str(info.value)
    with pytest.raises(StoreError, match="postgresql://"):
        Store.open(db="/some/file.sqlite3")


def test_backup_without_pg_dump_says_to_use_it(url: str, tmp_path, monkeypatch):
    monkeypatch.setattr(backup, "pg_dump_path", lambda: None)
    with pytest.raises(StoreError, match="pg_dump"):
        backup.backup(url, tmp_path)
    assert not list(tmp_path.iterdir())


def test_a_lost_connection_loses_the_held_batch_as_a_store_error(url: str):
    """What the hub sees when the database goes away mid-batch: StoreError (it stops and is
    restarted, restoring from what was committed), never a psycopg exception."""
    with Store(url) as store:
        store.ensure_player("kept", starting_chips=5)
        store.hold_commits(lambda: None)
        store.ensure_player("held", starting_chips=5)
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid != pg_backend_pid()"
            )
        with pytest.raises(StoreError):
            store.ensure_player("more", starting_chips=5)
        with pytest.raises(StoreError):
            store.commit_held()
        store.hold_commits(None)
    with Store(url) as again:
        assert again.get_player("kept") is not None and again.get_player("held") is None
        assert again.audit() == []


def test_a_held_batch_lost_with_its_connection_is_never_reconnected_over(
    url: str, postgres_server: PostgresServer
):
    """The held batch went with the store's session (its commit fails): what it held is in
    the hub's memory, not the database, so the store never opens its connection again (the
    hub stops and starts from the database) though the failed write fenced it."""
    lost: list[str] = []
    with Store(url) as store:
        store.ensure_player("k1", starting_chips=50)
        store.on_lost = lost.append
        store.hold_commits(lambda: None)
        store.set_lang("k1", "de")  # (held: not committed yet)
        with postgres_server.admin() as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (store._conn.raw.info.backend_pid,))
        with pytest.raises(StoreError):
            store.set_lang("k1", "uk")
        assert store.fenced and len(lost) == 1  # (told once, as the write found it gone)
        with pytest.raises(StoreError):
            store.commit_held()
        assert asyncio.run(store.reconnect()) is False
        store.hold_commits(None)
    with Store(url) as again:
        assert again.get_player("k1")["lang"] is None


def test_a_store_closed_while_it_connects_again_stays_closed(url: str, monkeypatch) -> None:
    """The server stopping while its store connects again on a thread (Store.reconnect): the
    connection made afterwards is closed and not put in place; nothing writes on it."""
    from server.store import pg

    go = threading.Event()
    made: list[PgConnection] = []
    connect = pg.connect

    def held_up(where: str) -> PgConnection:
        go.wait(10)
        made.append(connect(where))
        return made[-1]

    async def stop_while_connecting(store: Store) -> bool:
        monkeypatch.setattr(pg, "connect", held_up)
        again = asyncio.ensure_future(store.reconnect())
        await asyncio.sleep(0.05)  # (the connect waits on its thread)
        store.close()
        go.set()
        return await asyncio.wait_for(again, 10)

    store = Store(url)
    store.fence("the test's database restarts")
    assert asyncio.run(stop_while_connecting(store)) is False
    assert len(made) == 1 and made[0].raw.closed and store._conn is not made[0]
