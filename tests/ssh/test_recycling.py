"""Issue 43: when an app worker is recycled (server/apphost/recycling.py), and the report it
is decided on (a worker says what it keeps right after each sweep)."""

from __future__ import annotations

import gc

from server.apphost import worker_link as wl
from server.apphost.app_worker import Worker
from server.apphost.recycling import MB, MIN_AGE, RecycleRule
from server.gc_freeze import resident_bytes

RULE = RecycleRule(500 * MB)


def test_a_worker_is_recycled_once_it_keeps_more_than_the_limit_after_a_sweep():
    assert RULE.due(501 * MB, age=MIN_AGE, another_recycling=False)
    assert not RULE.due(500 * MB, age=MIN_AGE, another_recycling=False)
    assert not RULE.due(None, age=MIN_AGE, another_recycling=False)  # (no /proc to say)


def test_not_a_young_worker_nor_two_at_once_nor_with_no_limit():
    assert not RULE.due(900 * MB, age=MIN_AGE - 1, another_recycling=False)
    assert not RULE.due(900 * MB, age=MIN_AGE, another_recycling=True)
    assert not RecycleRule(0).due(10_000 * MB, age=10 * MIN_AGE, another_recycling=False)


async def test_a_worker_reports_what_it_keeps_after_each_sweep():
    worker = Worker()
    sent: list[tuple[int, int, bytes]] = []
    worker.link.send = lambda session, kind, payload=b"": sent.append((session, kind, payload))  # type: ignore[method-assign]  # captured
    worker.memory.sweep()
    try:
        ((session, _, payload),) = [frame for frame in sent if frame[1] == wl.SWEPT]
        report = wl.unpack(payload)
        assert session == 0
        assert report["apps"] == 0
        assert 0 < report["rss"] == worker.memory.resident_after_sweep
        assert abs(report["rss"] - (resident_bytes() or 0)) < 50 * MB
    finally:
        worker.memory.close()
        gc.unfreeze()
