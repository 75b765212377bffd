"""``gambit hub`` in a child process on a temporary data folder, for tests that need the real
thing: its own SQLite file, a unix socket (trusted: registered players) and a TCP listener
(guests), stopped with SIGTERM or killed with SIGKILL. With ``db`` (a ``postgresql://`` URL)
the hub keeps its store there instead (``--db``), and :meth:`read` reads it there."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sqlite3
import sys
from pathlib import Path

from protocol.connection import open_tcp, open_unix
from server.store.store import DB_NAME

from .harness import Client

ROOT = Path(__file__).resolve().parents[2]


class HubProcess:
    def __init__(self, data_dir: Path, db: str | None = None, **options: float) -> None:
        self.data_dir = data_dir
        self.db_url = db
        self.sock = data_dir / "hub.sock"
        self.db = data_dir / DB_NAME
        self.options = {
            "bot-delay": 0.01,
            "between-games": 0.2,
            "grace": 0.5,
            "turn-timer": 0,
            **options,
        }
        self.proc: asyncio.subprocess.Process | None = None
        self.tcp_port = 0
        self.runs = 0
        self.log = data_dir.parent / "hub.log"
        #: The module run as ``gambit`` (a test's may inject a fault first).
        self.module = "server.cli"

    async def start(self) -> None:
        self.runs += 1
        self.log = self.data_dir.parent / f"hub-{self.runs}.log"
        args = [f"--{k}={v}" for k, v in self.options.items()]
        if self.db_url:
            args.append(f"--db={self.db_url}")
        with open(self.log, "wb") as err:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                self.module,
                "hub",
                "--data-dir",
                str(self.data_dir),
                "--tcp",
                "127.0.0.1:0",
                *args,
                cwd=ROOT,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
            )
        assert self.proc.stdout is not None
        line = (await asyncio.wait_for(self.proc.stdout.readline(), 20)).decode()
        assert "gambit hub ready" in line, (line, self.log.read_text())
        self.tcp_port = int(line.rsplit(":", 1)[1])

    async def guest(self, name: str | None = None, source: str | None = None) -> Client:
        """A guest over TCP, from ``source`` (a loopback address: the listener's limits are
        per address)."""
        client = Client(await open_tcp("127.0.0.1", self.tcp_port, source))
        client.welcome = await client.hello(name)  # type: ignore[attr-defined]  # noted on the test's client
        return client

    async def registered(self, identity: str, name: str) -> Client:
        client = Client(await open_unix(str(self.sock)))
        client.welcome = await client.hello(name, identity=identity)  # type: ignore[attr-defined]  # noted on the test's client
        return client

    async def stop(self, sig: int = signal.SIGTERM) -> int:
        assert self.proc is not None
        self.proc.send_signal(sig)
        code = await asyncio.wait_for(self.proc.wait(), 15)
        self.proc = None
        return code

    async def close(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()
            self.proc = None

    def read(self, sql: str, *args: object) -> list[tuple]:
        """A read-only look at the store, while the hub runs or after (WAL allows both)."""
        if self.db_url:
            import psycopg

            from server.store.pg import translate

            with psycopg.connect(self.db_url) as pg:
                return pg.execute(translate(sql), args).fetchall()
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()

    def balance(self, account: str) -> int:
        rows = self.read("SELECT balance FROM balances WHERE account = ?", account)
        return rows[0][0] if rows else 0

    def ledger_total(self) -> int:
        return self.read("SELECT COALESCE(SUM(amount), 0) FROM ledger")[0][0]

    def guest_left_rows(self, player_id: str) -> list[int]:
        return [
            amount
            for (amount,) in self.read(
                "SELECT amount FROM ledger WHERE account = ? AND reason = 'guest_left'",
                f"player:{player_id}",
            )
        ]

    def guest_chips(self) -> int:
        """Chips still held by guests' accounts (all of them)."""
        return self.read(
            "SELECT COALESCE(SUM(balance), 0) FROM balances WHERE account LIKE 'player:guest:%'"
        )[0][0]

    def live_tables(self) -> int:
        return self.read("SELECT COUNT(*) FROM live_tables")[0][0]
