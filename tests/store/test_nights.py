"""Game nights kept in the store: saved, replaced, read back after reopening; ids never reused."""

from __future__ import annotations

from collections.abc import Callable

from server.store import Store


def test_a_night_is_kept_across_a_reopening(opener: Callable[[], Store]):
    with opener() as store:
        first, second = store.next_night_id(), store.next_night_id()
        assert (first, second) == (1, 2)
        store.save_night(first, {"id": first, "status": "registering", "scores": [[1.5, 0.0]]})
        store.save_night(first, {"id": first, "status": "playing", "scores": [[1.5, 0.0]]})
        store.save_night(second, {"id": second, "status": "finished"})
    with opener() as store:
        assert store.nights() == [
            {"id": 1, "status": "playing", "scores": [[1.5, 0.0]]},
            {"id": 2, "status": "finished"},
        ]
        assert store.next_night_id() == 3
