"""Memory Python has freed is given back to the system at a sweep, not kept by glibc."""

from __future__ import annotations

import gc

import pytest

from server import malloc_trim
from server.gc_freeze import FrozenSessions, resident_bytes

MB = 1 << 20
#: Blocks over 512 bytes are glibc's; under its mmap threshold (128 KB) they come from its heap.
BLOCK = 60 * 1024
HOLES = 32 * MB // BLOCK

pytestmark = pytest.mark.skipif(not malloc_trim.available(), reason="glibc's malloc_trim only")


def holes_in_the_heap() -> list[bytes]:
    """Free ``HOLES`` blocks of ``BLOCK`` bytes, each between two that stay (the pins,
    returned), so that none lies at the top of the heap, where glibc gives memory back by
    itself, and no two make one larger free block."""
    made = [b"\x01" * BLOCK for _ in range(2 * HOLES)]  # (written: resident)
    pins = made[1::2]
    del made
    return pins


def test_a_sweep_gives_freed_memory_back_to_the_system():
    policy = FrozenSessions()
    try:
        malloc_trim.trim()  # (what the test process held before: not this test's)
        before = resident_bytes()
        pins = holes_in_the_heap()
        held = resident_bytes()
        assert before is not None and held is not None
        assert held - before > 24 * MB  # glibc kept the freed blocks resident
        policy.sweep()
        after = resident_bytes()
        assert after is not None and held - after > 24 * MB
        assert len(pins) == HOLES
    finally:
        policy.close()
        gc.unfreeze()


def test_trim_says_whether_it_gave_anything_back():
    pins = holes_in_the_heap()
    assert malloc_trim.trim() is True
    assert len(pins) == HOLES
