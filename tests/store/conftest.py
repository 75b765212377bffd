"""Every store test runs on a real SQLite file in its own temporary data directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store.open(tmp_path / "data")
    yield s
    s.close()


@pytest.fixture
def reopen(tmp_path: Path, store: Store):
    """Close the store and open the same file again: what a restarted hub sees."""

    def again() -> Store:
        store.close()
        return Store.open(tmp_path / "data")

    return again
