"""Fixtures shared across the suite."""

import pytest

from server.store import Store


@pytest.fixture
def store(tmp_path):
    """A real SQLite store in a fresh data folder."""
    s = Store.open(tmp_path / "data")
    yield s
    s.close()
