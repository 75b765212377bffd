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
