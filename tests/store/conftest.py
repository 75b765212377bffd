"""Every store test that takes ``store`` runs twice: on a real SQLite file in its own temporary
data directory, and on PostgreSQL (marked ``cluster``), on one database of the session's
server emptied before each test (TRUNCATE is far cheaper than a database per test)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from server.store import Store
from tests.cluster_support.postgres import PostgresServer

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.cluster)]


@pytest.fixture(scope="session")
def store_database(postgres_server: PostgresServer) -> str:
    """The URL of the session's store database, migrated once."""
    url = postgres_server.create_database("store")
    Store(url).close()
    return url


def empty(url: str) -> None:
    """Every Gambit table emptied, ids restarted: a fresh database at the current version.

    DELETE rather than TRUNCATE: on tables this small it is several times faster (TRUNCATE
    makes new files for every table)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                "AND tablename != 'gambit_schema'"
            )
        ]
        sequences = [row[0] for row in conn.execute("SELECT sequencename FROM pg_sequences")]
        script = "".join(f"DELETE FROM {table};" for table in tables)
        script += "".join(f"SELECT setval('{seq}', 1, false);" for seq in sequences)
        conn.execute(script)


@pytest.fixture(params=BACKENDS)
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Store]:
    """Opens the test's database (the same one each time): what a (re)started hub does."""
    if request.param == "sqlite":
        return lambda: Store.open(tmp_path / "data")
    url = request.getfixturevalue("store_database")
    empty(url)
    return lambda: Store(url)


@pytest.fixture
def store(opener: Callable[[], Store]) -> Iterator[Store]:
    s = opener()
    yield s
    s.close()


@pytest.fixture
def reopen(opener: Callable[[], Store], store: Store):
    """Close the store and open the same database again: what a restarted hub sees."""

    def again() -> Store:
        store.close()
        return opener()

    return again
