"""The hub's store connects again off its event loop (``Store.reconnect``, server/store/
off_loop.py): a PostgreSQL that takes the connection and never answers held the loop, and
every player, for the connect's whole timeout, each try (issue 43).

Real parts: the hub's store reaches PostgreSQL through a relay on 127.0.0.1; the lock keeps
its own connection, straight to the server, wired as server/hub/main.py wires it. The relay
cuts the store's link (a write finds it gone: the lock is checked at once, still ours, and
``Hub.database_back`` connects anew) and from then on either forwards again or accepts every
connection and says nothing (a database host that hangs)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.hub import Hub
from server.store import Store, StoreError, pg_lock
from tests.cluster_support import postgres
from tests.hub.conftest import fast_config

from .test_database_restart import until

pytestmark = pytest.mark.cluster

#: The store's connect_timeout (libpq's least is 2): the reconnect waits it in full.
TIMEOUT = 3
#: How late a 10 ms ticker on the hub's loop may be, at worst, while it waits.
LATE_AT_MOST = 1.0


class Relay:
    """127.0.0.1 forwarding to PostgreSQL; :meth:`cut` ends every link, and with
    ``silent`` every connection made from then on is accepted and never answered."""

    def __init__(self, port: int) -> None:
        self.target = ("127.0.0.1", port)
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.silent = False
        self.links: list[socket.socket] = []
        #: Connections accepted and never answered.
        self.hushed: list[socket.socket] = []
        self.forwarded = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.silent:
                self.hushed.append(conn)
                continue
            upstream = socket.create_connection(self.target)
            self.links += [conn, upstream]
            self.forwarded += 1
            for a, b in ((conn, upstream), (upstream, conn)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        for end in (src, dst):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def cut(self, *, silent: bool) -> None:
        self.silent = silent
        for link in self.links:
            with contextlib.suppress(OSError):
                link.shutdown(socket.SHUT_RDWR)
        self.links = []

    def close(self) -> None:
        self.sock.close()
        self.cut(silent=True)
        for conn in self.hushed:
            conn.close()


class Ticker:
    """Ticks every 10 ms on the running loop; the most any tick came late (s)."""

    def __init__(self) -> None:
        self.late = 0.0
        self._task = asyncio.ensure_future(self._tick())

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(0.01)
            self.late = max(self.late, loop.time() - before - 0.01)

    async def stop(self) -> float:
        await asyncio.sleep(0.05)  # (a tick held up just now comes in)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        return self.late


@pytest.fixture
async def relayed(postgres_server: postgres.PostgresServer) -> AsyncIterator[Any]:
    """A hub whose store goes through a :class:`Relay`, holding the database's lock."""
    db = postgres_server.create_database("offloop")
    relay = Relay(postgres_server.port)
    through = db.replace(f":{postgres_server.port}/", f":{relay.port}/")
    lock = await pg_lock.lock_database(db, "test hub", timeout=10)
    assert lock is not None
    store = Store(f"{through}?connect_timeout={TIMEOUT}")
    store.ensure_player("k1", starting_chips=50)
    hub = Hub(store, fast_config())
    lost: list[bool] = []
    lock.keep(lost=lambda: lost.append(True), away=hub.database_away, back=hub.database_back)
    store.on_lost = lock.check_now
    await hub.start()
    try:
        yield store, relay, lost
    finally:
        await hub.stop()
        await lock.release()
        store.close()
        relay.close()


async def link_cut(store: Store, relay: Relay, *, silent: bool) -> Ticker:
    """The relay cuts the store's link; the next write finds it gone (the lock's keeper is
    told and the hub connects anew). A ticker runs on the loop from just before."""
    ticker = Ticker()
    relay.cut(silent=silent)
    with pytest.raises(StoreError):
        store.set_lang("k1", "de")
    assert store.fenced
    return ticker


async def test_the_loop_goes_on_while_a_database_that_never_answers_is_connected_to(
    relayed, caplog
) -> None:
    store, relay, lost = relayed
    caplog.set_level(logging.WARNING)
    ticker = await link_cut(store, relay, silent=True)
    await until(lambda: bool(lost), 4 * TIMEOUT + 10, "the hub gave up the database")
    late = await ticker.stop()
    assert relay.hushed, "the reconnect did not reach the silent database"
    assert any("does not answer on a new connection" in r.getMessage() for r in caplog.records)
    # It waited TIMEOUT s for an answer; the loop was never held for it.
    assert late < LATE_AT_MOST, f"the hub's loop was held {late:.2f} s by the reconnect"
    assert store.fenced  # (nothing written meanwhile, nor after: the hub stops)


async def test_a_database_that_answers_again_is_written_to_on_the_new_connection(
    relayed,
) -> None:
    store, relay, lost = relayed
    ticker = await link_cut(store, relay, silent=False)
    await until(lambda: not store.fenced or bool(lost), 10, "the store connected again")
    await ticker.stop()
    assert lost == [] and relay.forwarded == 2  # (the first link, and the new one)
    store.set_lang("k1", "uk")
    assert store.get_player("k1")["lang"] == "uk"
