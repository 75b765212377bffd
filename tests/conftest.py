"""Fixtures shared across the suite."""

import gc
import os

import pytest

from server.gc_freeze import YOUNG_THRESHOLD
from server.store import Store
from tests.cluster_support.postgres import postgres_server  # noqa: F401  (one per session)


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: half as many workers again as cores (3 on 2). Much of the suite waits on
    servers, ssh clients and timers rather than computing: on this project's 2-core machine
    the whole suite took 670 s with 2 workers and 472-481 s with 3."""
    cores = os.cpu_count() or 1
    return max(2, cores + cores // 2)


@pytest.fixture
def store(tmp_path):
    """A real SQLite store in a fresh data folder."""
    s = Store.open(tmp_path / "data")
    yield s
    s.close()


@pytest.fixture(autouse=True)
def _young_collections_as_the_server_makes_them():
    """Each test starts with CPython's youngest generation collected after as many new objects
    as the server's processes wait for (``server.gc_freeze``), not the 700 a plain process
    has: the apps, hubs and engines under test make and drop objects by the thousand, and at
    700 the young collections moved many still alive into the older generations, whose full
    collections then walked them again (about a tenth of a TUI file's CPU). Set again before
    every test, since a test that runs the server's policy leaves 700 behind (its ``close``)."""
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)


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
