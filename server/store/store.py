"""The hub's SQLite store: one file, one connection, every call short and synchronous.

Why this shape:

* **Durability first.** The hub must never lose an accepted action, chip or rating, so the file
  runs in WAL mode with ``synchronous=FULL``: when a writing call returns, its commit is in the
  WAL and fsynced, and survives SIGKILL and power loss. A commit costs one fsync (well under a
  millisecond on the development machine, 25-100 ms now and then on a busy disk). The hub
  takes that fsync off its event loop (:meth:`Store.sync_off_loop`, server/hub/outbox.py):
  its commits survive SIGKILL at once and power loss once :meth:`Store.sync` has run, before
  anything they hold is shown.
* **Synchronous on purpose.** The hub calls the store from its event loop. Calls are small
  indexed reads and writes, so a thread hop would cost more than it saves, and running them in
  order on one thread keeps "stored before its effects are sent" trivially true. The one
  write made at every move, :meth:`Store.append_action`, waits in memory while commits are
  held, and a batch's actions are inserted together (bench/append_action.py).
* **Atomic groups.** :meth:`Store.transaction` groups calls (a deal's antes, a game's end:
  record, payouts, ratings). Every public writing method is itself a (nested) transaction, so
  a failing call inside a group leaves nothing half-done, even if the caller catches the error
  and carries on.
* **msgpack blobs** for what only the hub interprets (table info, game params, actions,
  outcomes, preferences): the same encoding the engine's snapshots use.
* **PostgreSQL too.** ``Store("postgresql://…")`` keeps the same state in a PostgreSQL database
  shared by hubs on several machines (``--db``); the queries are the same, written in SQL both
  databases understand, through the small adapter in :mod:`server.store.pg` (see there, and
  :mod:`server.store.pg_schema` for its migrations). psycopg is imported only then.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgpack
import platformdirs

from protocol.codec import packb

from . import schema
from .checkpoint import BACKSTOP_PAGES, Checkpointer
from .moderation import ModerationStore
from .names import name_key, skeleton  # name_key is still importable from here
from .nights import NightStore
from .urls import is_postgres_url, redact

DB_NAME = "gambit.sqlite3"
#: The account that creates chips (starting grants) and may therefore go negative.
BANK = "bank"
INVITE_STATUSES = ("accepted", "declined")
#: Every guest's id lies in this range (``guest:…``; ";" follows ":"), an index's range scan.
GUEST_IDS = ("guest:", "guest;")


class StoreError(Exception):
    """Anything the store refuses or cannot do; the hub catches this one base class."""


class NameTaken(StoreError):
    """Another player holds this name (compared ignoring case) or one that looks like it
    (same :func:`~server.store.names.skeleton`; ``like`` is then that player's name)."""

    def __init__(self, name: str, owner: str, like: str | None = None) -> None:
        if like is None:
            super().__init__(f"The name {name!r} is taken.")
        else:
            super().__init__(f"The name {name!r} looks like {like!r}, another player's name.")
        self.name = name
        self.owner = owner
        self.like = like


class InsufficientChips(StoreError):
    """A transfer would take an account below zero."""

    def __init__(self, account: str, balance: int, amount: int) -> None:
        super().__init__(f"{account} has {balance} chips, {amount} needed.")
        self.account = account
        self.balance = balance
        self.amount = amount


def default_data_dir() -> Path:
    """The per-user data folder (e.g. ``~/.local/share/gambit`` on Linux)."""
    return Path(platformdirs.user_data_dir("gambit", appauthor=False))


def player_account(player_id: str) -> str:
    """The ledger account of a player's chips."""
    return f"player:{player_id}"


def pot_account(table_id: int) -> str:
    """The ledger account of a table's pot."""
    return f"pot:{table_id}"


#: An action appended after its game's last one (the number found by SQLite), or at the
#: number its caller gives; either way only at a saved table whose game has started.
_APPEND_ACTION_INTO = (
    "INSERT INTO live_actions (table_id, seq, seat, action) SELECT t.id, {seq}, ?, ? "
    "FROM live_tables t WHERE t.id = ? AND t.params IS NOT NULL RETURNING seq"
)
_APPEND_ACTION = _APPEND_ACTION_INTO.format(
    seq="(SELECT COALESCE(MAX(a.seq) + 1, 0) FROM live_actions a WHERE a.table_id = t.id)"
)
_APPEND_ACTION_AT = _APPEND_ACTION_INTO.format(seq="?")
#: A held batch's actions are inserted at most this many to a statement (4 parameters each:
#: well under SQLite's oldest limit of 999), in statements made for 1, 2, 4 ... 64 rows (few
#: texts for the statement cache), the rest of the rows NULLs, which insert nothing.
ACTIONS_PER_INSERT = 64


@functools.cache
def _insert_actions_sql(rows: int) -> str:
    """One statement storing up to ``rows`` actions (rows of NULLs are left out); all or
    none: an action whose table has no game started makes it fail (its table_id NULL)."""
    values = ", ".join(["(?, ?, ?, ?)"] * rows)
    return (
        "INSERT INTO live_actions (table_id, seq, seat, action) "
        f"SELECT t.id, v.column2, v.column3, v.column4 FROM (VALUES {values}) v "
        "LEFT JOIN live_tables t ON t.id = v.column1 AND t.params IS NOT NULL "
        "WHERE v.column1 IS NOT NULL"
    )


def _unpack(data: bytes | None) -> Any:
    if data is None:
        return None
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def _check_id(what: str, value: Any) -> None:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{what} must be a non-empty string, not {value!r}")


def _fsync_dir(path: Path) -> None:
    """Make a newly created file's directory entry durable (POSIX; a no-op elsewhere)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class Store(NightStore, ModerationStore):
    """All persistent state of the hub.

    ``Store(path)`` opens (creating and migrating) one database file; ``Store()`` or
    ``Store(":memory:")`` is a private in-memory database for fast tests; ``Store(url)`` with
    a ``postgresql://`` URL uses that PostgreSQL database. The hub uses :meth:`Store.open`
    with a data directory (and ``db``). One store object belongs to one thread.
    """

    #: What counts as a database error on this store's backend (sqlite3's or psycopg's).
    _errors: tuple[type[Exception], ...] = (sqlite3.Error,)
    #: True when the database is PostgreSQL.
    postgres = False

    def __init__(
        self, path: str | os.PathLike[str] = ":memory:", *, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = os.fspath(path)
        self._clock = clock
        self._depth = 0
        #: The copy kept before this open migrated the file (None: no migration).
        self.migration_backup: Path | None = None
        # Held commits (see :meth:`hold_commits`): the open batch, and who hears it open.
        self._held = False
        self._lost = False
        #: Actions of the held batch not yet inserted: ``(table_id, seq, seat, action)``
        #: rows, inserted together before anything else writes and at the commit (see
        #: :meth:`append_action`).
        self._actions: list[tuple[int, int, int, bytes]] = []
        #: The held batch's transaction has begun (a batch of actions alone needs none: see
        #: :meth:`commit_held`).
        self._begun = False
        #: A held batch was lost (or its commit failed): memory is ahead of the database for
        #: good, so the connection is never opened anew (see :meth:`reconnect`).
        self._ahead = False
        #: Why every write is refused now (None: they are not): see :meth:`fence`.
        self._fenced: str | None = None
        #: :meth:`close` was called: no connection is opened anew (see :meth:`reconnect`).
        self._closed = False
        #: Commits made (each one waits for the disk): what a burst of writes cost; and the
        #: longest one took (ms), the longest the hub's event loop waited on the disk.
        self.commits = 0
        self.commit_ms_max = 0.0
        self.commit_ms_total = 0.0
        #: Commits wait for no fsync: :meth:`sync` does it (see :meth:`sync_off_loop`).
        self.syncs_off_loop = False
        #: Called with each commit's time in ms (metrics).
        self.on_commit: Callable[[float], None] | None = None
        self._on_hold: Callable[[], None] | None = None
        #: Told why, once, when a write finds the PostgreSQL connection gone (see
        #: :meth:`connection_lost`): the hub's lock keeper checks at once.
        self.on_lost: Callable[[str], None] | None = None
        self._ref: Callable[[Any], Any] = lambda value: value
        #: Checkpoints the WAL off the hub's loop (a file-backed SQLite store; see checkpoint.py).
        self.checkpointer: Checkpointer | None = None
        if is_postgres_url(self.path):
            self._open_postgres()
            return
        memory = self.path == ":memory:"
        created = False
        if not memory and not os.path.exists(self.path):
            # Create it ourselves so that it (and SQLite's -wal/-shm, which copy the mode) is
            # readable by the owner only: it holds who plays whom and every chip.
            try:
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                created = True
            except FileExistsError:
                pass
            except OSError as err:
                raise StoreError(f"Cannot create the database {self.path}: {err}") from err
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, timeout=5.0)
        except sqlite3.Error as err:
            raise StoreError(f"Cannot open the database {self.path}: {err}") from err
        try:
            self._setup(memory)
        except BaseException:
            self._conn.close()
            raise
        if created:
            _fsync_dir(Path(self.path).resolve().parent)
        if not memory:
            self._conn.execute(f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES}")
            store = weakref.ref(self)
            self.checkpointer = Checkpointer(self.path, alive=lambda: store() is not None)
            self.checkpointer.start()

    def _open_postgres(self) -> None:
        try:
            from . import pg, pg_schema
        except ImportError as err:
            raise StoreError(
                f"A PostgreSQL database needs psycopg ({err}): pip install 'gambit-tables[cluster]'"
            ) from err

        self.postgres = True
        self._errors = (pg.Error,)
        self._ref = pg.ref_param
        where = redact(self.path)
        try:
            conn = pg.connect(self.path)
        except pg.Error as err:
            raise StoreError(f"Cannot open the database {where}: {err}") from err
        self._conn = conn  # type: ignore[assignment]  # the adapter stands in for sqlite3's
        try:
            version = pg_schema.get_version(conn)
            if version > len(pg_schema.MIGRATIONS):
                raise StoreError(
                    f"{where} has schema version {version}, newer than this Gambit "
                    f"understands ({len(pg_schema.MIGRATIONS)}). Upgrade Gambit to open it; "
                    "the database was not changed."
                )
            pg_schema.migrate(conn)
            schema.refresh_skeletons(self._conn)
        except pg.Error as err:
            self._conn.close()
            raise StoreError(f"Cannot prepare the database {where}: {err}") from err
        except BaseException:
            self._conn.close()
            raise

    def _setup(self, memory: bool) -> None:
        conn = self._conn
        try:
            # Check the version before anything writes: a file from a newer Gambit is left
            # exactly as it was (even the journal mode, which is stored in the file).
            version = schema.get_version(conn)
        except sqlite3.DatabaseError as err:
            raise StoreError(f"{self.path} is not a Gambit database: {err}") from err
        if version > len(schema.MIGRATIONS):
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this Gambit "
                f"understands ({len(schema.MIGRATIONS)}). Upgrade Gambit to open it; "
                "the file was not changed."
            )
        try:
            if not memory:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if mode.lower() != "wal":
                    raise StoreError(f"Cannot switch {self.path} to WAL mode (got {mode}).")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            if not memory and 0 < version < len(schema.MIGRATIONS):
                # An older file is about to change for good: keep it as it was, beside it.
                from .backup import backup_before_migration

                self.migration_backup = backup_before_migration(self.path, version)
            schema.migrate(conn)
            schema.refresh_skeletons(conn)
        except sqlite3.Error as err:
            raise StoreError(f"Cannot prepare the database {self.path}: {err}") from err

    @classmethod
    def open(
        cls, data_dir: str | os.PathLike[str] | None = None, *, db: str | None = None, **kwargs: Any
    ) -> Store:
        """The store in ``data_dir`` (default: :func:`default_data_dir`), created if needed;
        with ``db`` a ``postgresql://`` URL (``--db``), that database instead.

        A new folder gets mode 0700: the database is private to the server's user.
        """
        if db:
            if not is_postgres_url(db):
                raise StoreError(f"--db takes a postgresql:// URL, not {redact(db)!r}.")
            return cls(db, **kwargs)
        folder = Path(data_dir) if data_dir is not None else default_data_dir()
        if not folder.is_dir():
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            folder.chmod(0o700)  # mkdir's mode is filtered by the umask
            _fsync_dir(folder.resolve().parent)
        return cls(folder / DB_NAME, **kwargs)

    @classmethod
    async def open_off_loop(
        cls, data_dir: str | os.PathLike[str] | None = None, *, db: str | None = None, **kwargs: Any
    ) -> Store:
        """:meth:`open` for a server's event loop: a PostgreSQL store is opened on a thread
        (its connect may wait up to its connect_timeout, and the NATS lease's renewal and
        the database lock run on the loop meanwhile: off_loop.py), then used on the loop.
        SQLite's is opened here: a sqlite3 connection belongs to the thread that made it."""
        if db and is_postgres_url(db):
            from .off_loop import made_off_loop

            return await made_off_loop(functools.partial(cls.open, data_dir, db=db, **kwargs))
        return cls.open(data_dir, db=db, **kwargs)

    def close(self) -> None:
        """Commit what is held, close the connection (this also tidies the WAL)."""
        if self.checkpointer is not None:
            self.checkpointer.stop()
        self._closed = True
        if self._held:
            self.commit_held()
        self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        if self.postgres:
            from . import pg_schema

            return pg_schema.get_version(self._conn)  # type: ignore[arg-type]  # pg's adapter
        return schema.get_version(self._conn)

    def pragma(self, name: str) -> Any:
        """One PRAGMA's current value (for checks such as journal mode and synchronous)."""
        if self.postgres:
            raise StoreError("PRAGMA is SQLite's; this store is PostgreSQL.")
        if not name.replace("_", "").isalpha():
            raise ValueError(f"not a pragma name: {name!r}")
        return self._conn.execute(f"PRAGMA {name}").fetchone()[0]

    # --- transactions --------------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Store]:
        """Group calls atomically: all are committed when the outermost block ends, or none.

        The outermost block takes the write lock at once (``BEGIN IMMEDIATE``); an inner one
        is a savepoint, so an exception leaving it undoes just its own work and, if it also
        leaves the outer block, everything. Database errors come out as :class:`StoreError`.
        """
        if self._fenced is not None:
            raise StoreError(f"The database takes no writes now: {self._fenced}")
        conn = self._conn
        if self._depth == 0 and self._on_hold is not None:
            self._open_batch()
        elif self._held and self._depth == 1:
            self._begin_held()
            if self._actions:  # (in their place among the batch's writes, in no savepoint)
                self._insert_actions()
        outer = self._depth == 0
        savepoint = f"sp{self._depth}"
        try:
            conn.execute("BEGIN IMMEDIATE" if outer else f"SAVEPOINT {savepoint}")
        except self._errors as err:
            raise self._failed("Cannot start a transaction", err) from err
        self._depth += 1
        try:
            yield self
        except BaseException as exc:
            self._depth -= 1
            if self._held and not conn.in_transaction:
                self._lost = True  # SQLite rolled the whole held batch back (disk full, I/O)
            if conn.in_transaction:  # SQLite may already have rolled back (disk full, I/O)
                if outer:
                    conn.execute("ROLLBACK")
                else:
                    conn.execute(f"ROLLBACK TO {savepoint}")
                    conn.execute(f"RELEASE {savepoint}")
            if isinstance(exc, self._errors):
                raise self._failed("Database error", exc) from exc
            raise
        self._depth -= 1
        started = time.perf_counter()
        try:
            conn.execute("COMMIT" if outer else f"RELEASE {savepoint}")
            if outer:
                self._committed(started)
        except self._errors as err:
            if outer and conn.in_transaction:
                conn.execute("ROLLBACK")
            raise self._failed("Cannot commit", err) from err

    @property
    def in_transaction(self) -> bool:
        return self._depth > (1 if self._held else 0)

    # --- a database that went away ---------------------------------------------------------

    def fence(self, why: str | None) -> None:
        """Refuse every write (each :meth:`transaction`, so every writing call) with a
        :class:`StoreError` saying ``why``, until called with None. A hub whose PostgreSQL
        lock went with its session (server/store/pg_lock.py) writes nothing until it has the
        lock again."""
        self._fenced = why

    @property
    def fenced(self) -> bool:
        """Writes are refused now (see :meth:`fence`)."""
        return self._fenced is not None

    @property
    def fence_reason(self) -> str:
        """Why writes are refused now ("" if they are not: see :meth:`fence`)."""
        return self._fenced or ""

    def connection_lost(self, err: BaseException) -> bool:
        """True if ``err`` is this backend's error and the PostgreSQL connection went with it
        (the database killed or restarting, the link cut), before the lock's check (which
        runs every second: server/store/pg_lock.py) has noticed. Then the store is as while
        the database is away: every write is refused (:meth:`fence`), and ``on_lost(why)``
        is told once, so that the hub takes its lock and connection again. What the
        connection had open went with it: the failed write kept nothing."""
        if not self.postgres or not isinstance(err, self._errors):
            return False
        if not getattr(self._conn, "gone", False):
            return False
        if self._fenced is None:
            first = (str(err).splitlines() or [type(err).__name__])[0]
            why = f"the connection to the database was lost ({first})"
            self.fence(why)
            if self.on_lost is not None:
                self.on_lost(why)
        return True

    def _failed(self, what: str, err: BaseException) -> StoreError:
        """The :class:`StoreError` a database error comes out as; a lost connection fences
        the store first (:meth:`connection_lost`)."""
        self.connection_lost(err)
        return StoreError(f"{what}: {err}")

    def need_writable(self) -> None:
        """Raise the :class:`StoreError` a write would raise now (see :meth:`fence`): for a
        change made in memory before it is written, asked before memory changes."""
        if self._fenced is not None:
            raise StoreError(f"The database takes no writes now: {self._fenced}")

    async def reconnect(self) -> bool:
        """A PostgreSQL store's connection opened anew (the server restarted under the old
        one, or may have). False, and nothing done, if writes are held or a transaction is
        open on the old connection, or a held batch was lost or failed to commit: they went
        with it, so memory is ahead of the database.
        StoreError if the database does not answer. SQLite: nothing to do.

        The connect is made on a thread (off_loop.py): it waits up to its connect_timeout
        (pg.py) for a database that does not answer, and the hub serves players meanwhile.
        The new connection is put in place here, on the loop, only once it is whole, and
        only if nothing was held or begun meanwhile (the store is fenced while its database
        is away, so nothing can be: asked again all the same), and not if the store was
        closed meanwhile (the server stopping: False, the new connection closed). Async for
        that alone: every other call stays synchronous (see the module's docstring)."""
        if not self.postgres:
            return True
        if not self._reconnectable:
            return False
        from . import pg
        from .off_loop import made_off_loop

        with contextlib.suppress(Exception):
            self._conn.close()
        try:
            conn = await made_off_loop(functools.partial(pg.connect, self.path))
        except pg.Error as err:
            raise StoreError(f"Cannot open the database {redact(self.path)}: {err}") from err
        if not self._reconnectable:
            conn.close()
            return False
        self._conn = conn  # type: ignore[assignment]  # as in _open_postgres
        return True

    @property
    def _reconnectable(self) -> bool:
        """No writes held, no transaction open, no held batch lost, not closed (see
        :meth:`reconnect`)."""
        return not (self._held or self._depth or self._lost or self._ahead or self._closed)

    # --- group commit --------------------------------------------------------------------

    def hold_commits(self, on_hold: Callable[[], None] | None) -> None:
        """Group commit: from now on the first write opens one transaction that every later
        write joins (each call, and each :meth:`transaction`, as a savepoint of its own), until
        :meth:`commit_held`. ``on_hold`` is called as the batch opens, to arrange that commit.

        Why: a commit waits for the disk (an fsync), and the hub's event loop must not wait for
        one per message when a burst of them arrives: a burst's writes cost one commit. Whoever
        holds commits must show nothing that depends on held writes before they are committed.
        ``None`` turns holding off (committing what is held first).
        """
        if on_hold is None and self._held:
            self.commit_held()
        self._on_hold = on_hold

    def sync_off_loop(self, on: bool = True) -> bool:
        """Commit without waiting for the disk: the caller has :meth:`sync` run (on a thread
        of its own) before it shows anything a commit holds. SQLite's WAL stays consistent
        whatever happens without its fsync at commit (``synchronous = NORMAL``); what is
        lost with the machine's power is only commits not yet synced, which nobody was
        shown (server/hub/outbox.py). False (and nothing changed) where there is no file
        of ours to sync: in memory, or PostgreSQL (which syncs its own). ``on`` False: each
        commit waits for the disk again."""
        if self.postgres or self.path == ":memory:":
            return False
        self._conn.execute(f"PRAGMA synchronous = {'NORMAL' if on else 'FULL'}")
        self.syncs_off_loop = on
        return on

    def sync(self) -> None:
        """fsync the WAL: every commit made before this call is on the disk when it returns.
        Any thread may call it (it touches the file, not the connection); OSError if the
        disk fails."""
        try:
            fd = os.open(self.path + "-wal", os.O_RDONLY)
        except FileNotFoundError:  # (no WAL: everything is in the database file, synced)
            return
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    @property
    def holding(self) -> bool:
        """Writes are held in an open batch, not yet committed."""
        return self._held

    def commit_held(self) -> None:
        """Commit the open batch (if any); StoreError if it cannot be, and then nothing of it
        is kept. Its actions waiting in memory are inserted first; a batch of nothing else
        (up to 64 of them) is one statement, its own commit: no BEGIN, no COMMIT."""
        if not self._held:
            return
        if self._depth != 1:
            raise StoreError("commit_held inside a transaction")
        lost = "The held writes were rolled back by the database."
        started = time.perf_counter()
        alone = not self._begun and not self._lost  # (actions alone, if any)
        if alone and len(self._actions) > ACTIONS_PER_INSERT:
            with contextlib.suppress(StoreError):  # (then the batch is lost: refused below)
                self._begin_held()
                alone = False
        if self._actions and not self._lost:
            try:
                self._insert_actions()  # (alone: one statement, which commits itself)
            except StoreError as err:  # (the batch is lost: refused below)
                lost = f"The held writes cannot all be stored: {err}"
        self._actions = []
        self._held = False
        self._depth = 0
        begun, self._begun = self._begun, False
        if alone and not self._lost:
            self._committed(started)
            return
        if self._lost:
            self._lost = False
            self._ahead = True
            if begun and self._conn.in_transaction:  # (what the batch kept is not committed)
                self._conn.execute("ROLLBACK")
            raise StoreError(lost)
        try:
            self._conn.execute("COMMIT")
            self._committed(started)
        except self._errors as err:
            self._ahead = True
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise self._failed("Cannot commit", err) from err

    def _committed(self, started: float) -> None:
        ms = (time.perf_counter() - started) * 1000
        self.commits += 1
        self.commit_ms_total += ms
        self.commit_ms_max = max(self.commit_ms_max, ms)
        if self.on_commit is not None:
            self.on_commit(ms)

    def _open_batch(self, begin: bool = True) -> None:
        """Hold the writes from now on; ``begin`` False: the transaction begins only before
        the batch's first write that is not an action (:meth:`append_action`)."""
        if begin:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except self._errors as err:
                raise self._failed("Cannot start a transaction", err) from err
        self._held = True
        self._begun = begin
        self._depth = 1
        assert self._on_hold is not None
        self._on_hold()

    def _begin_held(self) -> None:
        """The held batch's transaction, begun now if it has not yet."""
        if self._begun:
            return
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except self._errors as err:
            if self._actions:
                self._lost = True  # (they cannot be stored in this batch now)
            raise self._failed("Cannot start a transaction", err) from err
        self._begun = True

    def _bump(self, counter: str) -> int:
        """The next value of a persisted counter (1, 2, 3…); call inside a transaction."""
        return self._conn.execute(
            "INSERT INTO counters (name, value) VALUES (?, 1) "
            "ON CONFLICT (name) DO UPDATE SET value = counters.value + 1 RETURNING value",
            (counter,),
        ).fetchone()[0]

    # --- players -------------------------------------------------------------------------

    def ensure_player(self, player_id: str, *, starting_chips: int) -> dict[str, Any]:
        """The player's record, created on first sight with ``starting_chips`` from the bank.

        Creation and the grant are one transaction, so a player never exists without the
        chips (nor gets them twice). Later calls change nothing, whatever ``starting_chips``.
        """
        _check_id("player_id", player_id)
        if not isinstance(starting_chips, int) or starting_chips < 0:
            raise ValueError(f"starting_chips must be an int >= 0, not {starting_chips!r}")
        with self.transaction():
            player = self.get_player(player_id)
            if player is not None:
                return player
            self._conn.execute(
                "INSERT INTO players (id, created, prefs) VALUES (?, ?, ?)",
                (player_id, self._clock(), schema.EMPTY_MAP),
            )
            if starting_chips:
                self.transfer(BANK, player_account(player_id), starting_chips, "starting chips")
            player = self.get_player(player_id)
            assert player is not None
            return player

    def get_player(self, player_id: str) -> dict[str, Any] | None:
        """``{"id", "name", "lang", "prefs", "created"}``; name and lang are None until set."""
        row = self._conn.execute(
            "SELECT id, name, lang, prefs, created FROM players WHERE id = ?", (player_id,)
        ).fetchone()
        if row is None:
            return None
        return {
            "id": row[0],
            "name": row[1],
            "lang": row[2],
            "prefs": _unpack(row[3]) or {},
            "created": row[4],
        }

    def _update_player(self, player_id: str, sql: str, args: tuple[Any, ...]) -> None:
        cur = self._conn.execute(f"UPDATE players SET {sql} WHERE id = ?", (*args, player_id))
        if cur.rowcount == 0:
            raise StoreError(f"No player {player_id!r}.")

    def set_name(self, player_id: str, name: str | None) -> None:
        """Register ``name`` to the player (None releases it).

        Raises :class:`NameTaken` if another player holds it, ignoring case, or a name that
        looks like it (the same skeleton: ``Аlice`` with a Cyrillic А is ``Alice``); the player
        may change the case of their own name.
        """
        key = skel = None
        if name is not None:
            if not isinstance(name, str) or not name:
                raise ValueError(f"name must be a non-empty string or None, not {name!r}")
            key, skel = name_key(name), skeleton(name)
        with self.transaction():
            if name is not None:
                owner = self.name_owner(name)
                if owner is not None and owner != player_id:
                    raise NameTaken(name, owner)
                owner = self.skeleton_owner(name, other_than=player_id)
                if owner is not None:
                    raise NameTaken(name, owner, like=(self.get_player(owner) or {}).get("name"))
            self._update_player(
                player_id, "name = ?, name_key = ?, name_skeleton = ?", (name, key, skel)
            )

    def name_owner(self, name: str) -> str | None:
        """Which player holds ``name`` (ignoring case), if any."""
        row = self._conn.execute(
            "SELECT id FROM players WHERE name_key = ?", (name_key(name),)
        ).fetchone()
        return row[0] if row else None

    def skeleton_owner(self, name: str, other_than: str | None = None) -> str | None:
        """Which player holds a name that looks like ``name`` (same skeleton), if any; None
        too if that is ``other_than`` (the player asking, who may keep their own name).

        Only a file from before skeletons were kept can have several holders of one skeleton;
        then the one who came first keeps it and the others are refused it.
        """
        row = self._conn.execute(
            "SELECT id FROM players WHERE name_skeleton = ? ORDER BY created, id LIMIT 1",
            (skeleton(name),),
        ).fetchone()
        return row[0] if row and row[0] != other_than else None

    def set_lang(self, player_id: str, lang: str | None) -> None:
        with self.transaction():
            self._update_player(player_id, "lang = ?", (lang,))

    def set_prefs(self, player_id: str, prefs: Mapping[str, Any]) -> None:
        """Replace the player's preferences (a msgpack-able map the hub and app interpret)."""
        if not isinstance(prefs, Mapping):
            raise ValueError(f"prefs must be a map, not {type(prefs).__name__}")
        with self.transaction():
            self._update_player(player_id, "prefs = ?", (packb(dict(prefs)),))

    # --- chips ---------------------------------------------------------------------------

    def transfer(
        self, src: str, dst: str, amount: int, reason: str, ref: str | int | None = None
    ) -> int:
        """Move ``amount`` chips from ``src`` to ``dst``; return the transfer's number.

        Writes two ledger rows (-amount, +amount) and both balances in one transaction, so the
        ledger always sums to zero. Only :data:`BANK` may go below zero: any other account
        (players, and pots too, which would mean paying out chips never anted) raises
        :class:`InsufficientChips` and nothing changes.

        The source is debited by a conditional update (``… WHERE balance >= amount``, then
        the row count says whether it happened), never by reading the balance and writing it
        back: with several hubs or tools on one PostgreSQL database, two debits can never
        both spend the same chips.
        """
        _check_id("src", src)
        _check_id("dst", dst)
        if src == dst:
            raise ValueError(f"transfer from {src!r} to itself")
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise ValueError(f"amount must be a positive int, not {amount!r}")
        if not isinstance(reason, str):
            raise ValueError("reason must be a string")
        with self.transaction():
            if src == BANK:
                self._credit(src, -amount)
            else:
                cur = self._conn.execute(
                    "UPDATE balances SET balance = balance - ? WHERE account = ? AND balance >= ?",
                    (amount, src, amount),
                )
                if cur.rowcount != 1:
                    raise InsufficientChips(src, self.balance(src), amount)
            self._credit(dst, amount)
            number = self._bump("transfer")
            now = self._clock()
            ref = self._ref(ref)
            self._conn.executemany(
                "INSERT INTO ledger (transfer, account, amount, reason, ref, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (number, src, -amount, reason, ref, now),
                    (number, dst, amount, reason, ref, now),
                ],
            )
            return number

    def _credit(self, account: str, amount: int) -> None:
        """Add ``amount`` (signed) to the account's balance (a new account starts at 0)."""
        self._conn.execute(
            "INSERT INTO balances (account, balance) VALUES (?, ?) "
            "ON CONFLICT (account) DO UPDATE SET balance = balances.balance + excluded.balance",
            (account, amount),
        )

    def balance(self, account: str) -> int:
        """Chips in ``account`` (0 for one never used)."""
        row = self._conn.execute(
            "SELECT balance FROM balances WHERE account = ?", (account,)
        ).fetchone()
        return row[0] if row else 0

    def balances(self, prefix: str = "") -> dict[str, int]:
        """Every account whose name starts with ``prefix`` (e.g. ``"pot:"``) and its chips."""
        rows = self._conn.execute(
            "SELECT account, balance FROM balances WHERE substr(account, 1, ?) = ? "
            "ORDER BY account",
            (len(prefix), prefix),
        )
        return dict(rows.fetchall())

    def ledger_total(self) -> int:
        """The sum of every ledger row: 0 unless something is badly wrong."""
        return self._conn.execute(
            "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) FROM ledger"
        ).fetchone()[0]

    def ledger(self, account: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """The newest ledger rows (of one account, or all), newest first.

        Each is ``{"id", "transfer", "account", "counterparty", "amount", "reason", "ref",
        "at"}``; ``amount`` is signed from ``account``'s side.
        """
        where, args = ("WHERE l.account = ?", (account,)) if account is not None else ("", ())
        rows = self._conn.execute(
            "SELECT l.id, l.transfer, l.account, o.account, l.amount, l.reason, l.ref, l.at "
            "FROM ledger l JOIN ledger o ON o.transfer = l.transfer AND o.id != l.id "
            f"{where} ORDER BY l.id DESC LIMIT ?",
            (*args, limit),
        ).fetchall()
        keys = ("id", "transfer", "account", "counterparty", "amount", "reason", "ref", "at")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def gone_guests(self, quiet_for: float, after: str = "", limit: int = 100) -> list[str]:
        """Guests (``guest:…`` ids, in order, after ``after``) first seen, and whose chips
        last moved, more than ``quiet_for`` seconds ago: the candidates :meth:`forget_guest`
        may forget (the hub checks that they are gone)."""
        before = self._clock() - quiet_for
        rows = self._conn.execute(
            "SELECT p.id FROM players p WHERE p.id > ? AND p.id < ? AND p.created <= ? "
            "AND NOT EXISTS (SELECT 1 FROM ledger l WHERE l.account = ? || p.id AND l.at > ?) "
            "ORDER BY p.id LIMIT ?",
            (max(after, GUEST_IDS[0]), GUEST_IDS[1], before, player_account(""), before, limit),
        )
        return [row[0] for row in rows]

    def forget_guest(self, player_id: str) -> bool:
        """Forget a guest who has gone with nothing left (their balance 0): their player row,
        balance and ratings go, and their chips' history folds into the bank's. Every ledger
        row of theirs becomes the bank's (the account a bot's seat pays from and is paid
        into), and the transfers that then run from the bank to itself (their starting chips,
        their chips going home) go, both rows. What stays is the records of the games they
        played: the game's rows, and the pot's antes and payouts, now the bank's. The ledger
        still sums to zero and every balance still equals its rows (theirs summed to 0).

        Returns False (and changes nothing) if they still hold chips."""
        account = player_account(player_id)
        with self.transaction():
            if self.balance(account) != 0:
                return False
            transfers = [
                (t, t, BANK)
                for (t,) in self._conn.execute(
                    "SELECT DISTINCT transfer FROM ledger WHERE account = ?", (account,)
                )
            ]
            self._conn.execute("UPDATE ledger SET account = ? WHERE account = ?", (BANK, account))
            self._conn.executemany(
                "DELETE FROM ledger WHERE transfer = ? AND NOT EXISTS "
                "(SELECT 1 FROM ledger o WHERE o.transfer = ? AND o.account <> ?)",
                transfers,
            )
            self._conn.execute("DELETE FROM balances WHERE account = ?", (account,))
            self._conn.execute("DELETE FROM ratings WHERE player_id = ?", (player_id,))
            self._conn.execute("DELETE FROM players WHERE id = ?", (player_id,))
        return True

    def audit(self) -> list[str]:
        """Problems with the chips, as readable lines; empty when all is well.

        Checks what the hub relies on: the ledger sums to zero, each transfer's two rows
        cancel, every stored balance equals its ledger rows, and only the bank is negative.
        """
        problems = []
        total = self.ledger_total()
        if total != 0:
            problems.append(f"the ledger sums to {total}, not 0")
        for number, total in self._conn.execute(
            "SELECT transfer, CAST(SUM(amount) AS BIGINT) FROM ledger GROUP BY transfer "
            "HAVING SUM(amount) != 0 OR COUNT(*) != 2"
        ):
            problems.append(f"transfer {number} is unbalanced ({total})")
        for account, stored, summed in self._conn.execute(
            "SELECT account, stored, summed FROM (SELECT a.account, "
            "(SELECT balance FROM balances b WHERE b.account = a.account) AS stored, "
            "(SELECT CAST(SUM(amount) AS BIGINT) FROM ledger l WHERE l.account = a.account) "
            "AS summed FROM (SELECT account FROM balances UNION SELECT account FROM ledger) a) "
            "AS s WHERE COALESCE(stored, 0) != COALESCE(summed, 0)"
        ):
            problems.append(f"{account}: stored balance {stored}, ledger says {summed}")
        for account, bal in self._conn.execute(
            "SELECT account, balance FROM balances WHERE balance < 0 AND account != ?", (BANK,)
        ):
            problems.append(f"{account} is negative ({bal})")
        return problems

    # --- ratings -------------------------------------------------------------------------

    def rating(self, player_id: str, game: str) -> tuple[float, float] | None:
        """The player's (mu, sigma) at ``game``, or None if they never finished one."""
        row = self._conn.execute(
            "SELECT mu, sigma FROM ratings WHERE player_id = ? AND game = ?", (player_id, game)
        ).fetchone()
        return (row[0], row[1]) if row else None

    def set_ratings(self, game: str, ratings: Mapping[str, tuple[float, float]]) -> None:
        """Store several players' new ratings at once (one game's update is all or nothing)."""
        rows = []
        now = self._clock()
        for player_id, (mu, sigma) in ratings.items():
            _check_id("player_id", player_id)
            rows.append((player_id, game, float(mu), float(sigma), now))
        with self.transaction():
            self._conn.executemany(
                "INSERT INTO ratings (player_id, game, mu, sigma, updated) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (player_id, game) DO UPDATE SET "
                "mu = excluded.mu, sigma = excluded.sigma, updated = excluded.updated",
                rows,
            )

    def ratings_of(self, player_id: str) -> dict[str, tuple[float, float]]:
        """``{game: (mu, sigma)}`` for every game the player has a rating in."""
        rows = self._conn.execute(
            "SELECT game, mu, sigma FROM ratings WHERE player_id = ? ORDER BY game",
            (player_id,),
        )
        return {game: (mu, sigma) for game, mu, sigma in rows}

    # --- friends -------------------------------------------------------------------------

    def add_friend(self, a: str, b: str) -> None:
        """Put ``b`` on ``a``'s friend list (idempotent). The list is one-way."""
        _check_id("a", a)
        _check_id("b", b)
        if a == b:
            raise ValueError("a player cannot befriend themselves")
        with self.transaction():
            self._conn.execute(
                "INSERT INTO friends (owner, friend, created) VALUES (?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                (a, b, self._clock()),
            )

    def remove_friend(self, a: str, b: str) -> None:
        """Take ``b`` off ``a``'s list (idempotent)."""
        with self.transaction():
            self._conn.execute("DELETE FROM friends WHERE owner = ? AND friend = ?", (a, b))

    def friends(self, a: str) -> list[str]:
        """``a``'s friend list, in the order added."""
        rows = self._conn.execute(
            "SELECT friend FROM friends WHERE owner = ? ORDER BY created, rowid", (a,)
        )
        return [r[0] for r in rows]

    def unfriend(self, a: str, b: str) -> None:
        """End a friendship both ways, and any request between the two (idempotent)."""
        with self.transaction():
            self._conn.execute(
                "DELETE FROM friends "
                "WHERE (owner = ? AND friend = ?) OR (owner = ? AND friend = ?)",
                (a, b, b, a),
            )
            self._conn.execute(
                "DELETE FROM friend_requests WHERE (sender = ? AND receiver = ?) "
                "OR (sender = ? AND receiver = ?)",
                (a, b, b, a),
            )

    # --- friend requests -------------------------------------------------------------------

    def request_friend(self, sender: str, receiver: str) -> bool:
        """Ask ``receiver`` to be friends; True if the request is new (asking again waits on
        the first request)."""
        _check_id("sender", sender)
        _check_id("receiver", receiver)
        if sender == receiver:
            raise ValueError("a player cannot befriend themselves")
        with self.transaction():
            cur = self._conn.execute(
                "INSERT INTO friend_requests (sender, receiver, created) "
                "VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (sender, receiver, self._clock()),
            )
            return cur.rowcount == 1

    def friend_requests_to(self, receiver: str) -> list[str]:
        """Who asks ``receiver`` to be friends, oldest request first."""
        rows = self._conn.execute(
            "SELECT sender FROM friend_requests WHERE receiver = ? ORDER BY created, sender",
            (receiver,),
        )
        return [r[0] for r in rows]

    def friend_requests_from(self, sender: str) -> list[str]:
        """Whom ``sender`` has asked, still unanswered, oldest first."""
        rows = self._conn.execute(
            "SELECT receiver FROM friend_requests WHERE sender = ? ORDER BY created, receiver",
            (sender,),
        )
        return [r[0] for r in rows]

    def answer_friend_request(self, sender: str, receiver: str, accept: bool) -> None:
        """Answer ``sender``'s request: accepted, each is on the other's list; declined, it is
        gone. Raises :class:`StoreError` if there is no such request (a forged answer)."""
        with self.transaction():
            cur = self._conn.execute(
                "DELETE FROM friend_requests WHERE sender = ? AND receiver = ?",
                (sender, receiver),
            )
            if cur.rowcount == 0:
                raise StoreError(f"{sender!r} has not asked {receiver!r} to be friends.")
            if accept:
                now = self._clock()
                self._conn.executemany(
                    "INSERT INTO friends (owner, friend, created) VALUES (?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    [(sender, receiver, now), (receiver, sender, now)],
                )
                # A request the other way is answered by this too.
                self._conn.execute(
                    "DELETE FROM friend_requests WHERE sender = ? AND receiver = ?",
                    (receiver, sender),
                )

    # --- invites -------------------------------------------------------------------------

    def add_invite(self, table_id: int, sender: str, invitee: str) -> None:
        """Invite ``invitee`` to a table; inviting again re-opens the invite with the new
        sender (one invite per table and invitee)."""
        _check_id("sender", sender)
        _check_id("invitee", invitee)
        with self.transaction():
            self._conn.execute(
                "INSERT INTO invites (table_id, invitee, sender, status, created) "
                "VALUES (?, ?, ?, 'open', ?) ON CONFLICT (table_id, invitee) DO UPDATE SET "
                "sender = excluded.sender, status = 'open', created = excluded.created",
                (table_id, invitee, sender, self._clock()),
            )

    def invites_for(self, player: str) -> list[dict[str, Any]]:
        """The player's open invites, oldest first: ``{"table_id", "sender", "invitee",
        "status", "created"}``."""
        rows = self._conn.execute(
            "SELECT table_id, sender, invitee, status, created FROM invites "
            "WHERE invitee = ? AND status = 'open' ORDER BY created, table_id",
            (player,),
        )
        keys = ("table_id", "sender", "invitee", "status", "created")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def set_invite(self, table_id: int, invitee: str, status: str) -> None:
        """Answer an invite: ``"accepted"`` or ``"declined"``. Raises :class:`StoreError` if
        there is no such invite, so a forged answer is not silently accepted."""
        if status not in INVITE_STATUSES:
            raise ValueError(f"status must be one of {INVITE_STATUSES}, not {status!r}")
        with self.transaction():
            cur = self._conn.execute(
                "UPDATE invites SET status = ? WHERE table_id = ? AND invitee = ?",
                (status, table_id, invitee),
            )
            if cur.rowcount == 0:
                raise StoreError(f"{invitee!r} has no invite to table {table_id}.")

    def invited(self, table_id: int) -> set[str]:
        """Who is invited to the table (open or accepted invites; declined ones don't count)."""
        rows = self._conn.execute(
            "SELECT invitee FROM invites WHERE table_id = ? AND status != 'declined'",
            (table_id,),
        )
        return {r[0] for r in rows}

    # --- finished games ------------------------------------------------------------------

    def record_game(
        self,
        table_id: int,
        params: Mapping[str, Any],
        history: list[Any],
        outcome: Mapping[str, Any],
        players: list[str | None],
        *,
        deal: Mapping[str, Any] | None = None,
        results: Sequence[Mapping[str, Any]] | None = None,
        stake: int | None = None,
    ) -> int:
        """Keep a finished game for good; return its id.

        ``params`` + ``history`` replay it exactly (``game.replay``); ``players[seat]`` is who
        sat there (None for a bot). ``deal`` is the deal's commitment and revealed seed
        (``server.hub.deals.revealed``); ``results[seat]`` its ``place``, ``chips`` and
        ``rating_change``, kept for the players' histories; ``stake`` the table's stake (the
        pot and each seat's chips follow from it and the outcome, bots' too).
        """
        results = list(results or [])
        with self.transaction():
            cur = self._conn.execute(
                "INSERT INTO games "
                "(table_id, game, params, history, outcome, players, finished, deal, stake) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    table_id,
                    params.get("game"),
                    packb(dict(params)),
                    packb(list(history)),
                    packb(dict(outcome)),
                    packb(list(players)),
                    self._clock(),
                    packb(dict(deal)) if deal is not None else None,
                    stake,
                ),
            )
            game_id = cur.fetchone()[0]
            rows = []
            for seat, pid in enumerate(players):
                if pid is None:
                    continue
                result = results[seat] if seat < len(results) else {}
                rows.append(
                    (
                        game_id,
                        seat,
                        pid,
                        result.get("place"),
                        result.get("chips"),
                        result.get("rating_change"),
                    )
                )
            self._conn.executemany(
                "INSERT INTO game_players "
                "(game_id, seat, player_id, place, chips, rating_change) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )
            return game_id

    _GAME_COLS = (
        "g.id, g.table_id, g.game, g.params, g.history, g.outcome, g.players, g.finished, g.deal, "
        "g.stake"
    )

    @staticmethod
    def _game_dict(row: tuple[Any, ...]) -> dict[str, Any]:
        return {
            "id": row[0],
            "table_id": row[1],
            "game": row[2],
            "params": _unpack(row[3]),
            "history": _unpack(row[4]),
            "outcome": _unpack(row[5]),
            "players": _unpack(row[6]),
            "finished": row[7],
            "deal": _unpack(row[8]),
            "stake": row[9],
        }

    def game(self, game_id: int) -> dict[str, Any] | None:
        """A finished game: ``{"id", "table_id", "game", "params", "history", "outcome",
        "players", "finished", "deal", "stake"}`` plus ``"results"`` (seat → place, chips and rating
        change of each human seat), or None if there is no such game."""
        row = self._conn.execute(
            f"SELECT {self._GAME_COLS} FROM games g WHERE g.id = ?", (game_id,)
        ).fetchone()
        if not row:
            return None
        game = self._game_dict(row)
        game["results"] = {
            seat: {"place": place, "chips": chips, "rating_change": change}
            for seat, place, chips, change in self._conn.execute(
                "SELECT seat, place, chips, rating_change FROM game_players WHERE game_id = ?",
                (game_id,),
            )
        }
        return game

    def games_of(
        self, player_id: str, limit: int = 20, *, offset: int = 0, game: str | None = None
    ) -> list[dict[str, Any]]:
        """The player's finished games, newest first (``game``: of that game only), each as
        :meth:`game` plus ``"seat"``, ``"place"``, ``"chips"`` and ``"rating_change"``."""
        where = " AND g.game = ?" if game is not None else ""
        args: tuple[Any, ...] = (player_id, game) if game is not None else (player_id,)
        rows = self._conn.execute(
            f"SELECT {self._GAME_COLS}, p.seat, p.place, p.chips, p.rating_change "
            "FROM game_players p JOIN games g ON g.id = p.game_id "
            f"WHERE p.player_id = ?{where} "
            "ORDER BY p.game_id DESC, p.seat LIMIT ? OFFSET ?",
            (*args, limit, offset),
        )
        return [
            {
                **self._game_dict(row[:10]),
                "seat": row[10],
                "place": row[11],
                "chips": row[12],
                "rating_change": row[13],
            }
            for row in rows
        ]

    def count_games_of(self, player_id: str, game: str | None = None) -> int:
        """How many finished games the player sat in (of ``game`` only, if given)."""
        if game is None:
            sql = "SELECT COUNT(*) FROM game_players WHERE player_id = ?"
            args: tuple[str, ...] = (player_id,)
        else:
            sql = (
                "SELECT COUNT(*) FROM game_players p JOIN games g ON g.id = p.game_id "
                "WHERE p.player_id = ? AND g.game = ?"
            )
            args = (player_id, game)
        return self._conn.execute(sql, args).fetchone()[0]

    def rated_before(self, player_id: str, game: str, game_id: int) -> bool:
        """Whether the player had a rated game of ``game`` kept before game ``game_id``: if
        not, that game gave them their first rating (a replay says it as the live result
        did)."""
        row = self._conn.execute(
            "SELECT 1 FROM game_players p JOIN games g ON g.id = p.game_id "
            "WHERE p.player_id = ? AND p.game_id < ? AND g.game = ? "
            "AND p.rating_change IS NOT NULL LIMIT 1",
            (player_id, game_id, game),
        ).fetchone()
        return row is not None

    def game_counts(self, game: str) -> dict[str, int]:
        """Player id → how many finished games of ``game`` they sat in (leaderboards)."""
        return dict(
            self._conn.execute(
                "SELECT p.player_id, COUNT(*) FROM game_players p "
                "JOIN games g ON g.id = p.game_id WHERE g.game = ? GROUP BY p.player_id",
                (game,),
            ).fetchall()
        )

    def player_stats(self, player_id: str) -> dict[str, dict[str, int]]:
        """Per game the player finished: ``games``, ``wins`` (first places) and
        ``best_chips`` (the most won in one game; None before results were kept)."""
        rows = self._conn.execute(
            "SELECT g.game, COUNT(*), SUM(CASE WHEN p.place = 1 THEN 1 ELSE 0 END), "
            "MAX(p.chips) FROM game_players p JOIN games g ON g.id = p.game_id "
            "WHERE p.player_id = ? GROUP BY g.game",
            (player_id,),
        )
        return {
            game: {"games": n, "wins": int(wins or 0), "best_chips": best}
            for game, n, wins, best in rows
        }

    def ratings_for(self, game: str) -> dict[str, tuple[float, float]]:
        """Player id → (mu, sigma) of everyone rated at ``game``."""
        return {
            pid: (mu, sigma)
            for pid, mu, sigma in self._conn.execute(
                "SELECT player_id, mu, sigma FROM ratings WHERE game = ?", (game,)
            )
        }

    # --- live tables ---------------------------------------------------------------------

    def next_table_id(self) -> int:
        """A new table id: 1, 2, 3… never reused, even across restarts."""
        with self.transaction():
            return self._bump("table")

    def save_table(self, table_id: int, info: Mapping[str, Any]) -> None:
        """Create or replace the table's settings/seats/status (the hub's own map)."""
        with self.transaction():
            self._conn.execute(
                "INSERT INTO live_tables (id, info, updated) VALUES (?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET info = excluded.info, updated = excluded.updated",
                (table_id, packb(dict(info)), self._clock()),
            )

    def start_game(self, table_id: int, params: Mapping[str, Any]) -> None:
        """A new game at a saved table: keep its creation params, forget the last game's
        actions. (Record the finished game first, in the same transaction.)"""
        with self.transaction():
            cur = self._conn.execute(
                "UPDATE live_tables SET params = ?, updated = ? WHERE id = ?",
                (packb(dict(params)), self._clock(), table_id),
            )
            if cur.rowcount == 0:
                raise StoreError(f"No live table {table_id}; save_table it first.")
            self._conn.execute("DELETE FROM live_actions WHERE table_id = ?", (table_id,))

    def append_action(
        self, table_id: int, seat: int, action: Mapping[str, Any], seq: int | None = None
    ) -> int:
        """Store an accepted action of the table's current game; durable once this returns,
        or, while commits are held, once the batch is committed.

        Returns its sequence number: its index in the game's history (0 for the first).
        ``seq``: that index, if the caller knows it (the hub does: the length of the game's
        history), so the store need not look for the last one at every move; a number
        already taken is refused.

        While commits are held (the hub), an action with its ``seq`` outside any transaction
        of the caller's is not inserted here: the batch's actions are inserted together, by
        one statement per 1, 2, 4 ... 64 of them, before the batch's next other write (in
        their place among its writes) and at its commit. Then a number taken, or a table
        with no game, is found at the commit, which is refused (nothing of the batch kept).
        """
        data = packb(dict(action))
        if seq is not None and self._on_hold is not None and not self.postgres:
            if self._depth == 0:
                self.need_writable()
                self._open_batch(begin=False)
            if self._depth == 1 and self._held:  # (the batch, in no transaction of the caller's)
                # Kept until the batch's next write or commit, all inserted by one statement:
                # it runs at every move, on the hub's event loop. Shown only once committed
                # like every held write; one that cannot be stored then loses the batch.
                self._actions.append((table_id, seq, seat, data))
                return seq
        if self._held and self._depth == 1:
            self._begin_held()
            if self._actions:  # (before this one, and before its seq is looked for)
                self._insert_actions()
        # One statement: atomic by itself, so inside a transaction it needs no savepoint.
        sql = _APPEND_ACTION if seq is None else _APPEND_ACTION_AT
        args = (seat, data, table_id) if seq is None else (seq, seat, data, table_id)
        if self._depth == 0:
            with self.transaction():
                row = self._conn.execute(sql, args).fetchone()
        else:
            try:
                row = self._conn.execute(sql, args).fetchone()
            except self._errors as err:
                if self._held and not self._conn.in_transaction:
                    self._lost = True  # SQLite rolled the whole held batch back (disk full, I/O)
                raise self._failed("Database error", err) from err
        if row is None:
            found = self._conn.execute(
                "SELECT params IS NOT NULL FROM live_tables WHERE id = ?", (table_id,)
            ).fetchone()
            if found is None:
                raise StoreError(f"No live table {table_id}.")
            raise StoreError(f"Table {table_id} has no game started.")
        return row[0]

    def _insert_actions(self) -> None:
        """Insert the held batch's waiting actions, in order; StoreError if any cannot be
        stored, and then the whole batch is lost (:meth:`commit_held` refuses it): the hub
        applied them, and shows nothing of the batch."""
        rows, self._actions = self._actions, []
        try:
            for start in range(0, len(rows), ACTIONS_PER_INSERT):
                chunk = rows[start : start + ACTIONS_PER_INSERT]
                size = 1 << (len(chunk) - 1).bit_length()  # (1, 2, 4 ... 64)
                values: list[int | bytes | None] = [value for row in chunk for value in row]
                values += [None] * (4 * (size - len(chunk)))
                self._conn.execute(_insert_actions_sql(size), values)
        except BaseException as err:
            self._lost = True  # (this batch must not be committed without them)
            if isinstance(err, sqlite3.IntegrityError) and "NOT NULL" in str(err):
                tables = sorted({row[0] for row in rows})
                raise StoreError(
                    f"An action at one of tables {tables} whose game is not started."
                ) from err
            if isinstance(err, self._errors):
                raise self._failed("Database error", err) from err
            raise

    def live_tables(self) -> list[dict[str, Any]]:
        """Every saved table, by id: ``{"id", "info", "params", "actions"}``; ``params`` is None
        before the first game, ``actions`` is ``[[seat, action], ...]`` like ``state.history``
        so ``game.replay(params, actions)`` restores the game at its last accepted action."""
        if self._actions:
            self._begin_held()
            self._insert_actions()
        actions: dict[int, list[list[Any]]] = {}
        for table_id, seat, action in self._conn.execute(
            "SELECT table_id, seat, action FROM live_actions ORDER BY table_id, seq"
        ):
            actions.setdefault(table_id, []).append([seat, _unpack(action)])
        return [
            {
                "id": table_id,
                "info": _unpack(info),
                "params": _unpack(params),
                "actions": actions.get(table_id, []),
            }
            for table_id, info, params in self._conn.execute(
                "SELECT id, info, params FROM live_tables ORDER BY id"
            )
        ]

    def delete_table(self, table_id: int) -> None:
        """Forget a closed table: its live state, its current game's actions, its invites and
        its empty pot's balance (a table id is never used again; a missing balance is 0).
        (Its finished games stay, and the pot's ledger rows with them.)"""
        with self.transaction():
            self._conn.execute("DELETE FROM live_tables WHERE id = ?", (table_id,))
            self._conn.execute("DELETE FROM invites WHERE table_id = ?", (table_id,))
            self._conn.execute(
                "DELETE FROM balances WHERE account = ? AND balance = 0", (pot_account(table_id),)
            )
