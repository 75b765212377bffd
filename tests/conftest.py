"""Fixtures shared across the suite."""

import pytest

from server.store import Store
from tests.cluster_support.postgres import postgres_server  # noqa: F401  (one per session)


@pytest.fixture
def store(tmp_path):
    """A real SQLite store in a fresh data folder."""
    s = Store.open(tmp_path / "data")
    yield s
    s.close()


@pytest.fixture(autouse=True)
def _tables_index_checked(monkeypatch):
    """Every test that runs a hub checks, at each table change it tells its readers of, that
    the hub's index of who holds which seats (``server.hub.tables``) is what the seats say."""
    from server.hub.play import Play

    told = Play.table_changed

    def table_changed(self, table, **kwargs):
        told(self, table, **kwargs)
        self.tables.check()

    monkeypatch.setattr(Play, "table_changed", table_changed)
