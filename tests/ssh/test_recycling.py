"""Issue 43: when an app worker is recycled (server/apphost/recycling.py), and the report it
is decided on (a worker says what it keeps right after each sweep)."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from server.apphost import worker_link as wl
from server.apphost.app_worker import Worker
from server.apphost.recycling import MB, MIN_AGE, RecycleRule
from server.apphost.workers import MAX_STAYS, AppWorker, AppWorkers, RemoteApp
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


class Sink:
    """A session's output, unread (no process here)."""

    def output(self, data: bytes) -> None:
        pass

    def pending_output(self) -> int:
        return 0


def two_workers() -> tuple[AppWorkers, AppWorker, AppWorker]:
    """A pool of two workers, both ready, with no processes behind them (their links are
    unconnected: what they would send goes nowhere), recycled at 1 MB from the start."""
    pool = AppWorkers(2)
    pool.recycle_rule = RecycleRule(MB, min_age=0.0)
    one, two = AppWorker(pool, 1), AppWorker(pool, 2)
    for worker in (one, two):
        worker.ready.set_result(None)
    pool.workers = [one, two]
    return pool, one, two


async def test_an_app_given_up_on_holds_up_no_other_workers_recycling(monkeypatch, caplog):
    """Issue 43's polish: an app that cannot be handed over is asked again a few times, then
    given up on; its worker ends when that app does, and meanwhile others are recycled."""
    pool, old, other = two_workers()
    started: list[AppWorker] = []

    async def recycle(worker: AppWorker) -> None:  # (no fresh process here)
        started.append(worker)

    monkeypatch.setattr(pool, "_recycle", recycle)
    stuck = RemoteApp(old, 5, "ssh 127.0.0.1", Sink())  # type: ignore[arg-type]  # a stand-in sink
    old.sessions[stuck.id] = stuck
    old.retiring = True  # (recycled: its fresh worker started, its apps moving out)
    pool.swept(other, 2 * MB)
    assert not other.replacing  # one at a time, while old's app may still move
    stuck.stays = MAX_STAYS
    with caplog.at_level(logging.WARNING):
        pool.stayed(stuck)  # the last try failed too
    pool.swept(old, 2 * MB)
    assert not old.replacing  # (it is being recycled already)
    pool.swept(other, 2 * MB)
    assert other.replacing
    assert "cannot move; given up on" in caplog.text
    await asyncio.sleep(0)
    assert started == [other]
    # The old worker ends with its last app, and counts as recycled.
    old.on_frame(stuck.id, wl.EXITED, wl.pack({"failed": False}))
    assert old.stopping
    await asyncio.sleep(0)  # (its stop: nothing to wait for here)
    old.on_lost()  # (its link closes as it stops)
    assert (pool.recycled, pool.lost) == (1, 0)
    assert pool.workers == [other]


@pytest.mark.parametrize("moving", [True, False])
async def test_a_worker_that_dies_while_its_apps_move_out_counts_as_a_crash(moving):
    """``gambit_worker_recycles`` counts workers that ended once their apps had moved;
    one that dies with apps still on it is a crash (``gambit_worker_restarts``), its players
    are told, and no worker is started for it (the fresh one took its place)."""
    pool, old, other = two_workers()
    remote = RemoteApp(old, 5, "ssh 127.0.0.1", Sink())  # type: ignore[arg-type]  # a stand-in sink
    old.sessions[remote.id] = remote
    old.retiring = True
    if moving:
        remote.move_to(other)
    old.on_lost()  # killed, an app still on it
    assert (pool.recycled, pool.lost) == (0, 1)
    assert remote.ended_with.result().failed
    assert pool.workers == [other] and not pool._restarts
