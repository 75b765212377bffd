"""Opening a data directory: the file, its settings, and schema migrations."""

from __future__ import annotations

import hashlib
import sqlite3
import stat
import sys
from pathlib import Path

import msgpack
import pytest

from server.store import CURRENT_VERSION, DB_NAME, Store, StoreError, default_data_dir, schema


def test_open_creates_private_folder_and_file_with_durable_settings(tmp_path: Path):
    folder = tmp_path / "nested" / "data"
    with Store.open(folder) as store:
        assert store.pragma("journal_mode") == "wal"
        assert store.pragma("synchronous") == 2  # FULL: each commit is fsynced
        assert store.pragma("foreign_keys") == 1
        assert store.schema_version == CURRENT_VERSION == 8
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / DB_NAME).stat().st_mode) == 0o600


def test_open_existing_folder_keeps_data(tmp_path: Path):
    with Store.open(tmp_path) as store:
        store.ensure_player("k1", starting_chips=50)
    with Store.open(tmp_path) as store:
        assert store.balance("player:k1") == 50
        assert store.get_player("k1")["id"] == "k1"


@pytest.mark.skipif(sys.platform != "linux", reason="XDG_DATA_HOME is the Linux convention")
def test_default_data_dir_is_the_per_user_data_folder(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir() == tmp_path / "xdg" / "gambit"
    with Store.open() as store:
        store.ensure_player("k1", starting_chips=1)
    assert (tmp_path / "xdg" / "gambit" / DB_NAME).is_file()


def test_memory_store_works_for_quick_use():
    with Store() as store:
        store.ensure_player("k1", starting_chips=5)
        assert store.balance("player:k1") == 5
        assert store.schema_version == CURRENT_VERSION


def _make_v1_file(path: Path) -> None:
    """A database exactly as the first released Gambit wrote it, with data in it."""
    conn = sqlite3.connect(path, isolation_level=None)
    for stmt in schema.statements(schema.V1_SCHEMA):
        conn.execute(stmt)
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO players (id, name, name_key, lang, created) VALUES (?,?,?,?,?)",
        ("k1", "Alice", "alice", "fr", 100.0),
    )
    conn.execute("INSERT INTO players (id, created) VALUES ('k2', 101.0)")
    conn.executemany(
        "INSERT INTO ledger (transfer, account, amount, reason, ref, at) VALUES (?,?,?,?,?,?)",
        [
            (1, "bank", -500, "starting chips", None, 100.0),
            (1, "player:k1", 500, "starting chips", None, 100.0),
        ],
    )
    conn.executemany("INSERT INTO balances VALUES (?, ?)", [("bank", -500), ("player:k1", 500)])
    conn.execute("INSERT INTO counters VALUES ('transfer', 1), ('table', 7)")
    conn.execute("INSERT INTO ratings VALUES ('k1', 'prophet', 27.5, 6.1, 100.0)")
    conn.execute(
        "INSERT INTO live_tables (id, info, params, updated) VALUES (7, ?, ?, 100.0)",
        (msgpack.packb({"stake": 10}), msgpack.packb({"game": "prophet", "seed": 3})),
    )
    conn.execute(
        "INSERT INTO live_actions VALUES (7, 0, 2, ?)", (msgpack.packb({"type": "bid", "n": 1}),)
    )
    conn.close()


def test_v1_file_is_upgraded_with_its_data_preserved(tmp_path: Path):
    _make_v1_file(tmp_path / DB_NAME)
    with Store.open(tmp_path) as store:
        assert store.schema_version == CURRENT_VERSION
        alice = store.get_player("k1")
        assert alice == {"id": "k1", "name": "Alice", "lang": "fr", "prefs": {}, "created": 100.0}
        assert store.get_player("k2")["prefs"] == {}  # v2 backfilled every old row
        assert store.name_owner("ALICE") == "k1"
        assert store.skeleton_owner("Аlice") == "k1"  # v3 gave the old name its skeleton
        assert store.balance("player:k1") == 500
        assert store.ledger_total() == 0 and store.audit() == []
        assert store.rating("k1", "prophet") == (27.5, 6.1)
        assert store.live_tables() == [
            {
                "id": 7,
                "info": {"stake": 10},
                "params": {"game": "prophet", "seed": 3},
                "actions": [[2, {"type": "bid", "n": 1}]],
            }
        ]
        # The counters carried on where v1 left them: nothing is reused.
        assert store.next_table_id() == 8
        assert store.transfer("player:k1", "pot:8", 10, "ante") == 2
        # And v2's feature works on the upgraded file.
        store.set_prefs("k1", {"theme": "dark"})
    with Store.open(tmp_path) as store:
        assert store.get_player("k1")["prefs"] == {"theme": "dark"}


def test_newer_file_is_refused_and_left_untouched(tmp_path: Path):
    path = tmp_path / DB_NAME
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE future (x)")
    conn.execute(f"PRAGMA user_version = {CURRENT_VERSION + 1}")
    conn.close()
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(StoreError, match="newer"):
        Store.open(tmp_path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # not switched to WAL
    assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION + 1
    conn.close()


def test_not_a_database_is_a_clear_error(tmp_path: Path):
    (tmp_path / DB_NAME).write_bytes(b"this is not sqlite at all, just some text" * 50)
    with pytest.raises(StoreError, match="not a Gambit database"):
        Store.open(tmp_path)


def test_failed_migration_leaves_the_previous_version(tmp_path: Path, monkeypatch):
    with Store.open(tmp_path) as store:
        store.ensure_player("k1", starting_chips=10)

    def broken_next(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("migration bug")

    monkeypatch.setattr(schema, "MIGRATIONS", [*schema.MIGRATIONS, broken_next])
    with pytest.raises(RuntimeError, match="migration bug"):
        Store.open(tmp_path)
    monkeypatch.undo()
    with Store.open(tmp_path) as store:
        assert store.schema_version == CURRENT_VERSION
        assert store.balance("player:k1") == 10
        tables = {r[0] for r in store._conn.execute("SELECT name FROM sqlite_master")}
        assert "half_done" not in tables


def test_migrations_from_empty_reach_the_same_schema_as_upgrading_v1(tmp_path: Path):
    _make_v1_file(tmp_path / "old.sqlite3")
    Store(tmp_path / "old.sqlite3").close()
    Store(tmp_path / "new.sqlite3").close()

    def shape(path: Path) -> list:
        conn = sqlite3.connect(path)
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        out = [(t, [r[1:3] for r in conn.execute(f"PRAGMA table_info({t})")]) for t in tables]
        conn.close()
        return out

    assert shape(tmp_path / "old.sqlite3") == shape(tmp_path / "new.sqlite3")


def test_statements_splits_scripts_and_rejects_a_truncated_one():
    assert schema.statements("CREATE TABLE a (x);\nCREATE TABLE b (y);\n") == [
        "CREATE TABLE a (x);",
        "CREATE TABLE b (y);",
    ]
    with pytest.raises(ValueError):
        schema.statements("CREATE TABLE a (x")


def test_unwritable_location_is_a_store_error(tmp_path: Path):
    with pytest.raises(StoreError, match="Cannot create"):
        Store(tmp_path / "missing-folder" / DB_NAME)


def test_sqlite_never_imports_psycopg(tmp_path: Path):
    """The default needs nothing installed: psycopg is imported only for a postgresql:// URL."""
    import subprocess

    code = (
        "import sys\n"
        "from server.hub.main import run_hub\n"
        "from server.store import Store\n"
        "from server.store.backup import backup\n"
        f"Store.open({str(tmp_path)!r}).close()\n"
        "assert 'psycopg' not in sys.modules, 'psycopg was imported'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
