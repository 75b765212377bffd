"""``gambit hub --db postgresql://…``: the hub keeps everything in PostgreSQL, survives kill -9
(tables restored at their last stored action, guests' chips sent home), and a ``gambit
backup`` taken during play (pg_dump) restores to a hub whose table plays on."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from server.store.backup import pg_dump_path
from tests.cluster_support.postgres import PostgresServer, find_bin

from . import test_guest_chips
from .hub_process import HubProcess
from .test_guest_chips import autoplay, games_at, start, table_with_bots

pytestmark = pytest.mark.cluster
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def hub(tmp_path, postgres_server: PostgresServer):
    process = HubProcess(tmp_path / "data", db=postgres_server.create_database("hub"))
    yield process
    await process.close()


# The SQLite crash test, run again on PostgreSQL (with the fixture above).
test_a_restart_after_sigkill_sends_guests_chips_home_and_says_so = (
    test_guest_chips.test_a_restart_after_sigkill_sends_guests_chips_home_and_says_so
)


@pytest.mark.skipif(pg_dump_path() is None, reason="pg_dump is not installed")
async def test_a_pg_dump_backup_taken_during_play_restores_to_a_hub_whose_table_resumes(
    tmp_path,
    postgres_server: PostgresServer,
    hub: HubProcess,
):
    hub.options["bot-delay"] = 0.02
    await hub.start()
    ada = await hub.registered("SHA256:ada", "Ada")
    table = await table_with_bots(ada)
    await start(ada, table)
    playing = autoplay(ada, table)
    await asyncio.sleep(0.5)  # moves are being stored while the copy is made
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "server.cli", "backup", str(tmp_path), f"--db={hub.db_url}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    playing.cancel()
    await hub.stop(signal.SIGKILL)
    assert done.returncode == 0, done.stderr
    (dump,) = tmp_path.glob("gambit-*.pgdump")
    assert dump.read_bytes()[:5] == b"PGDMP" and oct(dump.stat().st_mode)[-3:] == "600"
    target = postgres_server.create_database("restored")
    restore = find_bin("pg_restore")
    assert restore is not None
    subprocess.run([restore, "--no-owner", f"--dbname={target}", str(dump)], check=True, timeout=60)
    again = HubProcess(tmp_path / "restored", db=target, **{"bot-delay": 0.02})
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
