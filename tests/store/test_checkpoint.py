"""WAL checkpoints run on the store's own thread, not in the hub's commits."""

from __future__ import annotations

import gc
import os
import time

from server.store import Store
from server.store.checkpoint import BACKSTOP_PAGES


def wal_size(store: Store) -> int:
    return os.path.getsize(store.path + "-wal")


def test_the_hubs_commits_leave_checkpoints_to_the_thread(tmp_path):
    store = Store.open(tmp_path)
    try:
        assert store.pragma("wal_autocheckpoint") == BACKSTOP_PAGES
        assert store.checkpointer is not None
        store.ensure_player("p", starting_chips=10)
        for i in range(300):  # each commit adds frames to the WAL
            store.set_lang("p", "en" if i % 2 else "de")
        deadline = time.monotonic() + 10
        while store.checkpointer.runs == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert store.checkpointer.runs > 0 and store.checkpointer.pages > 0
        # The checkpointed WAL is written again from its start: it stops growing.
        size = wal_size(store)
        for _ in range(3):
            for i in range(300):
                store.set_lang("p", "en" if i % 2 else "de")
            time.sleep(store.checkpointer.every * 2)
        assert wal_size(store) <= 2 * size
    finally:
        store.close()
    assert not store.checkpointer._thread.is_alive()


def test_a_store_never_closed_does_not_keep_its_thread(tmp_path):
    store = Store.open(tmp_path)
    thread = store.checkpointer._thread
    del store
    gc.collect()
    thread.join(timeout=5)
    assert not thread.is_alive()


def test_a_store_in_memory_has_no_thread():
    assert Store().checkpointer is None
