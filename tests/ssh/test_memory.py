"""The freeze-and-sweep policy: frozen garbage waits for a sweep, and sweeps come by themselves."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from server.apphost import memory
from server.apphost.memory import FrozenSessions


class Node:
    """A reference cycle: only the garbage collector can free it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def policy():
    made = FrozenSessions()
    yield made
    made.close()
    gc.unfreeze()  # leave the test process as it was


def test_frozen_garbage_waits_for_a_sweep(policy):
    node = Node()
    ref = weakref.ref(node)
    policy._freeze()
    del node
    gc.collect()
    assert ref() is not None  # out of the collector's sight
    policy.sweep()
    assert ref() is None
    assert gc.get_freeze_count() > 0  # what is alive is frozen again


async def test_what_a_young_collection_leaves_alive_is_frozen_and_its_garbage_freed(policy):
    policy.started()
    before = gc.get_freeze_count()
    alive = [Node() for _ in range(50)]
    garbage = Node()
    ref = weakref.ref(garbage)
    del garbage
    gc.collect(0)
    assert ref() is None  # a young collection still frees young garbage
    assert gc.get_freeze_count() >= before + len(alive)  # the survivors are frozen
    assert gc.get_objects(1) == []  # nothing waits in the middle generation to be walked again


async def test_sweeps_follow_ended_sessions(policy, monkeypatch):
    monkeypatch.setattr(memory, "SWEEP_AFTER_ENDED", 3)
    monkeypatch.setattr(memory, "MIN_SWEEP_INTERVAL", 0.0)
    for _ in range(2):
        policy.session_ended(still_open=0)
    await asyncio.sleep(0.05)
    assert policy.sweeps == 0
    policy.session_ended(still_open=0)
    await asyncio.sleep(0.05)
    assert policy.sweeps == 1 and policy.ended == 0
    # With many players still here, a sweep (its stall grows with them) waits for turnover.
    for _ in range(5):
        policy.session_ended(still_open=10)
    await asyncio.sleep(0.05)
    assert policy.sweeps == 1
