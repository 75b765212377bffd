"""The hub's lease (server/hub/lease.py) is given up by ``release()`` whenever the release
lands: here just as a renewal's answer comes. Python 3.11's ``asyncio.wait_for`` returned
that answer and dropped the cancel: the renewing went on, the delete (at the revision known
before the answer) was refused, and a lease its hub had given up was renewed every second
(a standby never took over while the stopped hub's process lived). The same race as the
PostgreSQL lock's keeper (tests/store/test_pg_lock_release.py)."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError

from server.hub import lease as lease_module
from server.hub.lease import HubLease


class Bucket:
    """NATS' key-value bucket, stood in for (one key): the renewal asked while
    :attr:`holding` waits until the test answers it (:meth:`answer`), and is written then,
    as the server writes it before its answer reaches the hub."""

    def __init__(self, holder: bytes) -> None:
        self.value: bytes | None = holder
        self.revision = 1
        self.holding = True
        self.pending: asyncio.Future[None] | None = None
        self.updates = 0  # renewals written

    async def update(self, key: str, value: bytes, last: int) -> int:
        if self.value is None or last != self.revision:
            raise KeyWrongLastSequenceError()
        if self.holding:
            self.holding = False
            self.pending = asyncio.get_running_loop().create_future()
            await self.pending
            return self.revision
        self._write(value)
        return self.revision

    def answer(self) -> None:
        """The held renewal is written, and its answer comes."""
        assert self.pending is not None and self.value is not None
        self._write(self.value)
        self.pending.set_result(None)

    def _write(self, value: bytes) -> None:
        self.value = value
        self.revision += 1
        self.updates += 1

    async def delete(self, key: str, last: int | None = None) -> None:
        if last is not None and last != self.revision:
            raise KeyWrongLastSequenceError()
        self.value = None
        self.revision += 1

    async def get(self, key: str) -> Any:
        if self.value is None:
            raise KeyNotFoundError()
        return SimpleNamespace(value=self.value, revision=self.revision)

    async def create(self, key: str, value: bytes) -> int:
        if self.value is not None:
            raise KeyWrongLastSequenceError()
        self._write(value)
        return self.revision


async def test_a_release_as_a_renewal_answers_gives_the_lease_up(monkeypatch) -> None:
    monkeypatch.setattr(lease_module, "RENEW_EVERY", 0.0)  # (renewing at once, and on)
    monkeypatch.setattr(lease_module, "ANSWER_WITHIN", 60.0)
    lease = HubLease(nc=None, instance="hub one")
    bucket = Bucket(b"hub one")
    lease.kv, lease.revision, lease.renewed = bucket, 1, time.monotonic()
    lost: list[bool] = []
    lease.keep(lost=lambda: lost.append(True))
    renewing = lease._task
    assert renewing is not None
    for _ in range(10):  # (the first renewal asked: it waits for its answer)
        if bucket.pending is not None:
            break
        await asyncio.sleep(0)
    assert bucket.pending is not None and not renewing.done()
    try:
        # The answer comes, and the release lands before the renewing task has resumed
        # with it (awaited as it is, release() runs up to its first wait at once).
        bucket.answer()
        async with asyncio.timeout(5):
            await lease.release()
        for _ in range(10):  # (a renewing that goes on renews within these turns)
            await asyncio.sleep(0)
        assert renewing.done(), "the lease is renewed on after its release"
        assert bucket.value is None, "the lease given up is still there"
        assert bucket.updates == 1 and lost == []
    finally:
        renewing.cancel()


async def test_a_lease_released_between_renewals_is_deleted(monkeypatch) -> None:
    """(The plain case, as before: the delete at the revision the hub knows.)"""
    monkeypatch.setattr(lease_module, "RENEW_EVERY", 60.0)
    lease = HubLease(nc=None, instance="hub one")
    bucket = Bucket(b"hub one")
    lease.kv, lease.revision = bucket, 1
    lease.keep(lost=lambda: None)
    await asyncio.sleep(0)
    async with asyncio.timeout(5):
        await lease.release()
    assert bucket.value is None and bucket.updates == 0


async def test_a_lease_another_hub_holds_is_not_deleted(monkeypatch) -> None:
    """A release whose revision is out of date deletes only an entry naming this hub."""
    lease = HubLease(nc=None, instance="hub one")
    bucket = Bucket(b"hub two")
    bucket.revision = 7
    lease.kv, lease.revision = bucket, 3
    async with asyncio.timeout(5):
        await lease.release()
    assert bucket.value == b"hub two" and bucket.revision == 7
