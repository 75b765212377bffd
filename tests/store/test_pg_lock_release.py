"""The PostgreSQL lock's keeper (server/store/pg_lock.py) ends when the lock is released,
whenever the release lands: here just as a check's answer comes, where Python 3.11's
``asyncio.wait_for`` returned the answer and dropped the cancel, and the keeper checked on
for ever while ``release()`` (a hub's stop) waited for it
(tests/cluster/test_database_lost_timers.py hung so)."""

from __future__ import annotations

import asyncio
from typing import Any

from server.store import pg_lock
from server.store.pg_lock import DatabaseLock


class HeldConnection:
    """The lock's connection, stood in for: every check says "held"; the first answer
    comes when the test says so (:attr:`answer`)."""

    def __init__(self) -> None:
        self.answer: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.answered = False
        self.closed = False
        self.broken = False

    async def execute(self, query: str, params: Any = None) -> HeldConnection:
        await self.answer
        return self

    async def fetchone(self) -> tuple[int]:
        self.answered = True
        return (1,)

    async def close(self) -> None:
        self.closed = True


async def test_a_release_as_a_check_answers_ends_the_keeper(monkeypatch) -> None:
    monkeypatch.setattr(pg_lock, "CHECK_EVERY", 60.0)  # (as the cluster tests set it)
    lock = DatabaseLock("postgresql://nobody@127.0.0.1:1/none", "test hub")
    conn = HeldConnection()
    lock.conn, lock.held = conn, True
    lost: list[bool] = []

    async def back() -> bool:
        return True

    lock.keep(lost=lambda: lost.append(True), away=lambda why: None, back=back)
    keeper = lock._task
    assert keeper is not None
    await asyncio.sleep(0)  # (the keeper's first check waits for its answer)
    conn.answer.set_result(None)
    for _ in range(10):  # (the answer read; the keeper not yet resumed with it)
        if conn.answered:
            break
        await asyncio.sleep(0)
    assert conn.answered and not keeper.done()
    release = asyncio.ensure_future(lock.release())
    try:
        # (waited for, not cancelled: a cancel of release() cancelled the keeper again)
        await asyncio.wait({release}, timeout=3)
        assert release.done(), "release() waits for a keeper that checks on"
        assert keeper.done() and conn.closed and not lock.held and lost == []
    finally:
        keeper.cancel()
        release.cancel()
