"""Backups (issue 21): taken while the hub plays, they restore to a server whose tables resume;
a migration keeps the file as it was beside it."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from server.store import Store
from server.store.backup import backup
from tests.hub.hub_process import HubProcess
from tests.hub.test_guest_chips import autoplay, games_at, start, table_with_bots

ROOT = Path(__file__).resolve().parents[2]


async def test_a_backup_taken_during_play_restores_to_a_server_whose_tables_resume(tmp_path):
    hub = HubProcess(tmp_path / "live", **{"bot-delay": 0.02})
    await hub.start()
    try:
        ada = await hub.registered("SHA256:ada", "Ada")
        table = await table_with_bots(ada)
        await start(ada, table)
        playing = autoplay(ada, table)
        await asyncio.sleep(0.5)  # moves are being stored while the copy is made
        done = await asyncio.to_thread(
            subprocess.run,
            [
                sys.executable,
                "-m",
                "server.cli",
                "backup",
                str(tmp_path / "copy.sqlite3"),
                "--data-dir",
                str(hub.data_dir),
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        playing.cancel()
        assert done.returncode == 0, done.stderr
        assert "wrote" in done.stdout
    finally:
        await hub.stop(signal.SIGKILL)
    copy = sqlite3.connect(tmp_path / "copy.sqlite3")
    assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    copy.close()
    # Restore: the copy becomes a new server's database; the table comes back and plays on.
    restored = tmp_path / "restored"
    restored.mkdir(mode=0o700)
    (tmp_path / "copy.sqlite3").rename(restored / "gambit.sqlite3")
    again = HubProcess(restored, **{"bot-delay": 0.02})
    await again.start()
    try:
        assert again.live_tables() == 1
        ada = await again.registered("SHA256:ada", "Ada")
        back = await ada.until(lambda m: m["t"] == "table" and m["table"] == table)
        assert back["seat"] == 0 and back["info"]["status"] in ("playing", "between")
        before = games_at(again, table)
        playing = autoplay(ada, table)
        for _ in range(600):
            if games_at(again, table) > before:
                break
            await asyncio.sleep(0.05)
        playing.cancel()
        assert games_at(again, table) > before, "the restored game was played to its end"
        assert again.ledger_total() == 0
    finally:
        await again.close()


def test_backup_is_one_consistent_file(tmp_path):
    store = Store.open(tmp_path / "data")
    store.ensure_player("a", starting_chips=10)
    written = backup(tmp_path / "data", tmp_path)
    store.close()
    assert written.parent == tmp_path and written.name.startswith("gambit-")
    assert not list(tmp_path.glob("*.partial"))
    copy = Store(written)
    assert copy.balance("player:a") == 10 and copy.audit() == []
    copy.close()


def test_a_migration_keeps_the_file_as_it_was(tmp_path):
    from server.store import schema

    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    schema.migrate(conn, target=1)
    conn.commit()
    conn.close()
    store = Store(path)
    assert store.schema_version == schema.CURRENT_VERSION
    kept = store.migration_backup
    store.close()
    assert kept is not None and kept.exists() and ".v1-" in kept.name
    old = sqlite3.connect(kept)
    assert schema.get_version(old) == 1
    old.close()
