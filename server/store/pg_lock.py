"""One active server per PostgreSQL database: a PostgreSQL advisory lock, held for the
server's life.

A SQLite store is guarded by the data folder's lock (lock.py); a PostgreSQL database is
shared by machines, so the guard must live in the database itself. Before a hub (or ``gambit
serve``) opens a ``--db postgresql://…`` store, it takes the session-level advisory lock
:data:`KEY` on a connection of its own, and keeps that connection (and so the lock) until it
stops. PostgreSQL ends the lock with the session, however it ends: a hub killed with
SIGKILL loses it as soon as the server sees the connection close.

It is a second guard beside the NATS lease (server/hub/lease.py): two hubs that do not share
one NATS server (a mistake in the settings), or a hub started without ``--bus``, still never
both write one database. A hub that cannot take the lock waits as a standby; ``gambit serve``
waits a little (a restarted server's last session may still be closing), then refuses.

The holder checks its lock every second (:meth:`DatabaseLock.keep`): if the connection is
gone, or the lock with it, it calls ``lost`` at once (the hub stops: another may take over);
if the database only answers late, after :data:`LOST_AFTER` seconds. Keepalives on both ends
of the connection (a few seconds, not the kernel's two hours) let PostgreSQL see a holder's
machine vanish and free the lock for the standby.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import Callable
from typing import Any

from .store import StoreError
from .urls import redact

log = logging.getLogger(__name__)

#: The lock's two keys (``pg_try_advisory_lock(int, int)``): "GAMB", then 1 for "the
#: active server". Advisory locks are per database, so one database is one lock.
KEY = (0x47414D42, 1)
#: How often a waiting server asks again, and how often the holder checks its lock.
POLL = 0.5
CHECK_EVERY = 1.0
#: A holder whose database has not answered the check for this long gives up.
LOST_AFTER = 3.0
#: TCP keepalives of the lock's connection, for both ends (seconds, and probes).
KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, KEEPALIVE_COUNT = 5, 2, 3

_HELD = (
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() "
    "AND classid = %s AND objid = %s AND objsubid = 2 AND granted"
)
_HOLDER = (
    "SELECT a.application_name FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
    "WHERE l.locktype = 'advisory' AND l.classid = %s AND l.objid = %s AND l.objsubid = 2 "
    "AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = "
    "current_database())"
)


class DatabaseBusy(StoreError):
    """Another Gambit server holds the database."""


class DatabaseLock:
    """The advisory lock of one database, on a connection of its own."""

    def __init__(self, url: str, what: str) -> None:
        self.url = url
        #: Who holds it, as other servers are told (PostgreSQL's ``application_name``).
        self.what = f"{what} ({socket.gethostname()} pid {os.getpid()})"[:63]
        self.conn: Any = None
        self.held = False
        self._task: asyncio.Task[None] | None = None

    async def _connect(self) -> None:
        try:
            import psycopg
        except ImportError as err:
            raise StoreError(
                f"A PostgreSQL database needs psycopg ({err}): pip install 'gambit-tables[cluster]'"
            ) from err
        try:
            self.conn = await psycopg.AsyncConnection.connect(
                self.url,
                autocommit=True,
                application_name=self.what,
                connect_timeout=10,
                keepalives=1,
                keepalives_idle=KEEPALIVE_IDLE,
                keepalives_interval=KEEPALIVE_INTERVAL,
                keepalives_count=KEEPALIVE_COUNT,
            )
        except psycopg.Error as err:
            raise StoreError(f"Cannot open the database {redact(self.url)}: {err}") from err
        # The server's end too, so that it frees the lock of a holder whose machine is gone.
        for name, value in (
            ("tcp_keepalives_idle", KEEPALIVE_IDLE),
            ("tcp_keepalives_interval", KEEPALIVE_INTERVAL),
            ("tcp_keepalives_count", KEEPALIVE_COUNT),
        ):
            with contextlib.suppress(psycopg.Error):
                await self.conn.execute(f"SET {name} = {int(value)}")

    async def try_take(self) -> bool:
        """Take the lock if it is free; False if another server holds it."""
        if self.conn is None or self.conn.closed:
            await self._connect()
        cursor = await self.conn.execute("SELECT pg_try_advisory_lock(%s, %s)", KEY)
        row = await cursor.fetchone()
        self.held = bool(row and row[0])
        return self.held

    async def holder(self) -> str:
        """Who holds the lock, as far as this role may see (else "another Gambit server")."""
        with contextlib.suppress(Exception):
            cursor = await self.conn.execute(_HOLDER, KEY)
            row = await cursor.fetchone()
            if row and row[0]:
                return str(row[0])
        return "another Gambit server"

    async def acquire(
        self, waiting: Callable[[str], None] | None = None, timeout: float | None = None
    ) -> None:
        """Wait until this server holds the lock (``waiting(holder)`` is called once if it
        must); :class:`DatabaseBusy` after ``timeout`` seconds, if one is given."""
        deadline = None if timeout is None else time.monotonic() + timeout
        told = False
        taken = await self.try_take()  # (a database that cannot be reached: StoreError)
        while not taken:
            holder = await self.holder()
            if deadline is not None and time.monotonic() >= deadline:
                await self.release()
                raise DatabaseBusy(
                    f"the database {redact(self.url)} is in use by {holder}: one server "
                    "per database (stop it first, or use another database)"
                )
            if not told and waiting is not None:
                waiting(holder)
                told = True
            await asyncio.sleep(POLL)
            try:
                taken = await self.try_take()
            except Exception as err:  # the database restarting under a standby: ask again
                log.warning("database lock: %s; asking again", err or type(err).__name__)
                with contextlib.suppress(Exception):
                    await self.conn.close()
                self.conn = None

    async def check(self) -> bool:
        """True if the lock is still ours (the connection answers, and holds it)."""
        cursor = await self.conn.execute(_HELD, KEY)
        row = await cursor.fetchone()
        return bool(row and row[0])

    def keep(self, lost: Callable[[], None]) -> None:
        """Check the lock every second until released; call ``lost`` if it is not ours."""
        self._task = asyncio.get_running_loop().create_task(self._watch(lost))

    async def _watch(self, lost: Callable[[], None]) -> None:
        answered = time.monotonic()
        while True:
            try:
                if not await asyncio.wait_for(self.check(), LOST_AFTER):
                    log.critical("database lock: no longer held; stopping")
                    break
                answered = time.monotonic()
            except Exception as err:
                gone = self.conn.closed or self.conn.broken
                if gone or time.monotonic() - answered >= LOST_AFTER:
                    log.critical("database lock: lost (%s); stopping", err or type(err).__name__)
                    break
                log.warning("database lock: could not check yet: %s", err)
            await asyncio.sleep(CHECK_EVERY)
        self.held = False
        lost()

    async def release(self) -> None:
        """Let go (closing the connection ends the lock): another server may take over."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
            self._task = None
        if self.conn is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.conn.close(), 2)
        self.held = False


async def lock_database(
    db: str | None,
    what: str,
    waiting: Callable[[str], None] | None = None,
    timeout: float | None = None,
) -> DatabaseLock | None:
    """The database's lock when ``db`` is a PostgreSQL URL (None for SQLite, whose guard is
    the data folder's lock): see :meth:`DatabaseLock.acquire`."""
    from .urls import is_postgres_url

    if not is_postgres_url(db):
        return None
    assert db is not None
    lock = DatabaseLock(db, what)
    try:
        await lock.acquire(waiting, timeout)
    except BaseException:
        await lock.release()
        raise
    return lock
