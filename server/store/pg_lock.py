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

**Taking it again.** A database that restarts (or a link cut for a moment) ends the lock's
session, though no other server took the lock. A holder that can stop writing meanwhile
(``away``) and go on afterwards (``back``: the hub, whose store opens its connection again)
asks for the lock again for up to :data:`REGAIN_FOR` seconds instead of stopping. It goes on
only if nobody held the lock in between: every server that takes the lock counts it up in
the database (the ``gambit_lock`` row's ``epoch``, durable before it writes anything else),
so the holder finds the count it left exactly when nobody else has had the database since.
Anyone else holding the lock now, or a count moved on, and it stops as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable
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
#: How long a holder whose lock's session ended asks for the lock again (every
#: :data:`REGAIN_POLL` seconds) before it gives up and stops.
REGAIN_FOR = 15.0
REGAIN_POLL = 0.1
#: A server waiting for the lock whose database went away waits this long before it asks
#: again: the holder, asking every :data:`REGAIN_POLL` s, takes its lock again first when
#: the database is back (a holder that died meanwhile is taken over a little later).
WAIT_AFTER_DATABASE_AWAY = 3.0
#: How long :meth:`DatabaseLock.release` waits for the keeper to end (it ends at its next
#: turn; a check in flight is bounded by :data:`LOST_AFTER`).
RELEASE_WITHIN = 5.0

#: Every taking of the lock counts up the epoch, before the taker writes anything else.
_EPOCH_TABLE = (
    "CREATE TABLE IF NOT EXISTS gambit_lock (id integer PRIMARY KEY, epoch bigint NOT NULL)"
)
_NEXT_EPOCH = (
    "INSERT INTO gambit_lock (id, epoch) VALUES (1, 1) "
    "ON CONFLICT (id) DO UPDATE SET epoch = gambit_lock.epoch + 1 RETURNING epoch"
)
_EPOCH = "SELECT epoch FROM gambit_lock WHERE id = 1"

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
        #: The epoch this server counted when it took the lock (None: not taken).
        self.epoch: int | None = None
        self._task: asyncio.Task[None] | None = None
        #: Wakes the holder's check before its second is up (see :meth:`check_now`).
        self._wake = asyncio.Event()
        #: Why the store's connection went (None: it did not), said by :meth:`check_now`.
        self._store_lost: str | None = None
        #: Set by :meth:`release`: the keeper ends at its next turn, cancelled or not.
        self._released = False

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
        """Take the lock if it is free (and count a new epoch); False if another server
        holds it."""
        if not await self._take():
            return False
        try:
            await self.conn.execute(_EPOCH_TABLE)
            cursor = await self.conn.execute(_NEXT_EPOCH)
            row = await cursor.fetchone()
        except Exception as err:  # (psycopg's: said as the store says a database error)
            raise StoreError(f"Cannot count the lock's epoch in {redact(self.url)}: {err}") from err
        self.epoch = int(row[0])
        return True

    async def _take(self) -> bool:
        """``pg_try_advisory_lock`` on this server's connection (opened if need be)."""
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
                await asyncio.sleep(WAIT_AFTER_DATABASE_AWAY)  # (the holder first)

    async def check(self) -> bool:
        """True if the lock is still ours (the connection answers, and holds it)."""
        cursor = await self.conn.execute(_HELD, KEY)
        row = await cursor.fetchone()
        return bool(row and row[0])

    def check_now(self, why: str) -> None:
        """The store's connection went (a write found it gone: ``Store.on_lost``): check the
        lock at once rather than within the second. Gone too (the database died): away,
        taken again, back, as ever. Still ours (only the store's connection went): nobody
        can have written meanwhile, so ``back()`` at once (its store connects anew)."""
        self._store_lost = why
        self._wake.set()

    def keep(
        self,
        lost: Callable[[], None],
        away: Callable[[str], None] | None = None,
        back: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        """Check the lock every second until released; call ``lost`` if it is not ours.
        With ``away`` and ``back``: a lock that went with its session is asked for again
        first (see the module's docstring): ``away(why)`` as it goes (write nothing from
        now on), ``await back()`` once it is ours again with nobody having held it meanwhile
        (False: the holder cannot go on, and ``lost`` follows). ``back`` is awaited: the
        hub's store connects anew on a thread (``Store.reconnect``), and its loop serves
        players meanwhile; the lock is not checked until it has answered."""
        self._task = asyncio.get_running_loop().create_task(self._watch(lost, away, back))

    async def _watch(
        self,
        lost: Callable[[], None],
        away: Callable[[str], None] | None,
        back: Callable[[], Awaitable[bool]] | None,
    ) -> None:
        while True:
            why = await self._until_lost()
            if self._released:
                return
            if why is None:  # (the lock is still ours, the store's connection went: check_now)
                if back is not None and await back():
                    log.warning("database lock: still ours; the store connected again")
                    continue
                await self._close()
                log.critical("database lock: the store cannot go on; stopping")
                break
            self.held = False
            if away is None or back is None:
                log.critical("database lock: %s; stopping", why)
                break
            log.warning("database lock: %s; taking it again", why)
            away(why)
            refused = await self.regain()
            if self._released:
                return
            if refused is None and await back():
                log.warning("database lock: taken again (nobody held it meanwhile); going on")
                continue
            await self._close()  # (a lock taken again on the way is let go)
            log.critical("database lock: %s; stopping", refused or "the store cannot go on")
            break
        lost()

    async def _until_lost(self) -> str | None:
        """Check the lock every second (or at once: :meth:`check_now`) while it is ours; why
        it is not any more, or None if it is but the store's connection went."""
        answered = time.monotonic()
        while not self._released:
            self._wake.clear()
            store_lost, self._store_lost = self._store_lost, None
            try:
                # (asyncio.timeout, not wait_for: on Python 3.11, wait_for returns the
                # check's answer when the cancel of release() lands as it comes, and the
                # keeper checked on for ever: a hub's stop that never returned)
                async with asyncio.timeout(LOST_AFTER):
                    held = await self.check()
                if not held:
                    return "no longer held"
                answered = time.monotonic()
                if store_lost is not None:
                    log.warning("database lock: still ours, but %s", store_lost)
                    return None
            except Exception as err:
                gone = self.conn.closed or self.conn.broken
                if gone or time.monotonic() - answered >= LOST_AFTER:
                    return f"lost ({err or type(err).__name__})"
                log.warning("database lock: could not check yet: %s", err)
                self._store_lost = self._store_lost or store_lost  # (asked again next time)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CHECK_EVERY):
                    await self._wake.wait()
        return None

    async def regain(self, within: float = REGAIN_FOR) -> str | None:
        """Take the lock again on a new session, if nobody has held it since this server
        took it (its epoch is still ours); None if so, else why not (and the caller lets go
        of what it took: :meth:`_close`). Asks every :data:`REGAIN_POLL` s while the
        database does not answer, for ``within`` seconds."""
        deadline = time.monotonic() + within
        while not self._released:
            await self._close()
            try:
                if not await self._take():
                    return f"taken by {await self.holder()} meanwhile"
                cursor = await self.conn.execute(_EPOCH)
                row = await cursor.fetchone()
                if row is None or int(row[0]) != self.epoch:
                    self.held = False
                    return "another server held it meanwhile"
                return None
            except Exception as err:  # the database is not back yet
                self.held = False
                if time.monotonic() >= deadline:
                    return f"not taken again within {within:.0f} s ({err or type(err).__name__})"
            await asyncio.sleep(REGAIN_POLL)
        return "released"

    async def _close(self) -> None:
        """Close the lock's connection (the lock goes with it), if there is one."""
        conn, self.conn = self.conn, None
        self.held = False
        if conn is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2):
                    await conn.close()

    async def release(self) -> None:
        """Let go (closing the connection ends the lock): another server may take over.
        The keeper is told to end (``_released``) as well as cancelled, and waited for at
        most :data:`RELEASE_WITHIN` s: a cancel lost on the way must not leave it checking
        on for ever with its caller waiting (and a cancel of the caller is not swallowed)."""
        self._released = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            self._wake.set()
            await asyncio.wait({task}, timeout=RELEASE_WITHIN)
            if not task.done():
                log.warning("database lock: its keeper did not end within %.0f s", RELEASE_WITHIN)
            elif not task.cancelled():
                task.exception()  # (taken: it ended, however, and the lock goes now)
        if self.conn is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2):
                    await self.conn.close()
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
