"""A PostgreSQL connection that looks like the sqlite3 one :class:`~server.store.Store` uses.

Why an adapter rather than a second store: the store's queries are plain SQL that both
databases understand (``ON CONFLICT``, ``RETURNING``, ``IS DISTINCT FROM``), so one class with
one set of queries serves both, and a change to the store cannot drift between backends. What
differs is small and handled here: placeholders (``?`` becomes ``%s``), ``BEGIN IMMEDIATE``
(PostgreSQL's ``BEGIN``; its row locks and conditional updates do what SQLite's write lock
did), and how "in a transaction" is asked.

Like sqlite3 in the store, the connection is in autocommit mode and the store issues
``BEGIN``/``SAVEPOINT``/``COMMIT`` itself, so commit batching (``hold_commits``) means the
same on both. psycopg is imported here only: ``gambit serve`` with SQLite never needs it.

The connect is bounded (:data:`CONNECT_TIMEOUT`): it is synchronous, so a host that takes the
connection and never answers waited psycopg's default (130 s). A server makes it on a thread
(off_loop.py: ``Store.open_off_loop`` at start, ``Store.reconnect`` when the database comes
back), so its event loop goes on meanwhile; the bound is how long the store waits.
libpq's own ways to set it win: a ``connect_timeout`` in the URL
(``postgresql://…?connect_timeout=10``) or ``PGCONNECT_TIMEOUT``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Sequence
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus
from psycopg.types.json import Jsonb

#: What the store catches as "a database error" on this backend.
Error = psycopg.Error
_OPEN = (TransactionStatus.INTRANS, TransactionStatus.INERROR, TransactionStatus.ACTIVE)
#: Seconds a connect may take, unless the URL or ``PGCONNECT_TIMEOUT`` says (libpq: 2 at least).
CONNECT_TIMEOUT = 5


@functools.lru_cache(maxsize=1024)
def translate(sql: str, params: bool = True) -> str:
    """sqlite3's SQL as psycopg wants it: ``?`` placeholders become ``%s`` (a literal ``%``
    doubled when there are parameters), ``BEGIN IMMEDIATE`` plain ``BEGIN``. The store's
    queries hold no ``?`` inside string literals, so a plain replacement is exact."""
    if sql.startswith("BEGIN IMMEDIATE"):
        return "BEGIN"
    if not params:
        return sql
    return sql.replace("%", "%%").replace("?", "%s")


class PgConnection:
    """The part of ``sqlite3.Connection`` the store uses, over one psycopg connection."""

    def __init__(self, url: str) -> None:
        self.url = url
        timeout = connect_timeout(url)
        try:
            # prepare_threshold: the store's few queries are prepared after their second use.
            self.raw = psycopg.connect(
                url, autocommit=True, prepare_threshold=2, connect_timeout=timeout
            )
        except psycopg.errors.ConnectionTimeout as err:
            raise psycopg.errors.ConnectionTimeout(
                f"no answer within {timeout} s ({err}; connect_timeout in the URL sets it)"
            ) from err

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> psycopg.Cursor:
        if not params:
            return self.raw.execute(translate(sql, False))
        return self.raw.execute(translate(sql), params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> psycopg.Cursor:
        cur = self.raw.cursor()
        rows = list(rows)
        if rows:
            cur.executemany(translate(sql), rows)
        return cur

    @property
    def in_transaction(self) -> bool:
        """As sqlite3's: a transaction is open (an aborted one too, until rolled back). A lost
        connection has none: the server rolled it back, as SQLite does on an I/O error."""
        return self.raw.info.transaction_status in _OPEN

    @property
    def gone(self) -> bool:
        """The connection is lost (the server died or closed it, or the link was cut): every
        call on it fails from now on, and what it had open went with it."""
        return bool(self.raw.closed or self.raw.broken)

    def close(self) -> None:
        self.raw.close()


def connect(url: str) -> PgConnection:
    return PgConnection(url)


def connect_timeout(url: str) -> str:
    """The connect's bound: the URL's ``connect_timeout``, else ``PGCONNECT_TIMEOUT``'s, else
    :data:`CONNECT_TIMEOUT` (given to psycopg, whose argument would override the others)."""
    from psycopg.conninfo import conninfo_to_dict

    given = conninfo_to_dict(url).get("connect_timeout") or os.environ.get("PGCONNECT_TIMEOUT")
    return str(given or CONNECT_TIMEOUT)


def ref_param(value: Any) -> Any:
    """The ledger's ``ref`` keeps its type (an int stays an int, a str a str): SQLite's
    untyped column does that by itself, here it is a ``jsonb``."""
    return None if value is None else Jsonb(value)
