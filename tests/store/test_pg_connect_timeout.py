"""A PostgreSQL store's connect is bounded (server/store/pg.py): a host that takes the
connection and never answers (a hung server, a black-holing proxy) fails it within
``CONNECT_TIMEOUT`` with a clear error. It had no bound of its own: psycopg waited 130 s,
synchronously, on the hub's event loop (at start, and when the database comes back)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import socket
import threading

import pytest

from server.store import StoreError
from server.store import pg as pg_module
from server.store.store import Store


class SilentServer:
    """A real listening socket on 127.0.0.1 that accepts every connection and says nothing."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.accepted:
            conn.close()


@pytest.fixture
def silent():
    server = SilentServer()
    yield server
    server.close()


def test_a_database_that_never_answers_fails_the_connect_within_the_bound(
    silent, monkeypatch
) -> None:
    monkeypatch.delenv("PGCONNECT_TIMEOUT", raising=False)
    monkeypatch.setattr(pg_module, "CONNECT_TIMEOUT", 2)  # (libpq's least)
    url = f"postgresql://gambit@127.0.0.1:{silent.port}/gambit?sslmode=disable"
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        opening = pool.submit(Store.open, db=url)
        try:
            # (the bound is 2 s: 30 s is room for a loaded machine, and a quarter of
            # psycopg's own 130 s, which the connect waited before)
            err = opening.exception(timeout=30)
        except concurrent.futures.TimeoutError:
            silent.close()  # (the connect fails at once now: the pool can end)
            pytest.fail("the connect to a database that never answers is not bounded")
    assert silent.accepted, "the connect did not reach the silent server"
    assert isinstance(err, StoreError)
    assert f"127.0.0.1:{silent.port}" in str(err) and "no answer within 2 s" in str(err)


def test_the_url_and_pgconnect_timeout_set_the_bound(monkeypatch) -> None:
    monkeypatch.delenv("PGCONNECT_TIMEOUT", raising=False)
    plain = "postgresql://gambit@db.example/gambit"
    assert pg_module.connect_timeout(plain) == str(pg_module.CONNECT_TIMEOUT)
    assert pg_module.connect_timeout(plain + "?connect_timeout=12") == "12"
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "7")
    assert pg_module.connect_timeout(plain) == "7"
    assert pg_module.connect_timeout(plain + "?connect_timeout=12") == "12"


async def test_a_server_opening_its_store_serves_on_while_the_database_says_nothing(
    silent, monkeypatch
) -> None:
    """At start (``Store.open_off_loop``: server/hub/main.py, server/ssh/serve.py) the NATS
    lease's renewal and the database lock run on the loop: the connect waits on a thread."""
    monkeypatch.delenv("PGCONNECT_TIMEOUT", raising=False)
    monkeypatch.setattr(pg_module, "CONNECT_TIMEOUT", 2)
    url = f"postgresql://gambit@127.0.0.1:{silent.port}/gambit?sslmode=disable"
    loop = asyncio.get_running_loop()
    late = 0.0

    async def tick() -> None:
        nonlocal late
        while True:
            before = loop.time()
            await asyncio.sleep(0.01)
            late = max(late, loop.time() - before - 0.01)

    ticker = asyncio.ensure_future(tick())
    await asyncio.sleep(0.05)  # (ticking before the open begins)
    try:
        with pytest.raises(StoreError, match="no answer within 2 s"):
            await asyncio.wait_for(Store.open_off_loop(db=url), 30)
        await asyncio.sleep(0.05)  # (a tick held up by the open comes in)
    finally:
        ticker.cancel()
    assert silent.accepted
    assert late < 1.0, f"the loop was held {late:.2f} s by the store's open"
