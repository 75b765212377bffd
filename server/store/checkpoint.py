"""WAL checkpoints on a thread of their own, so the hub's loop never waits for one.

SQLite checkpoints a WAL file by itself when a commit finds it past ``wal_autocheckpoint``
pages: that commit copies the pages into the database and fsyncs it, on the hub's event loop.
At 2,000 moves a second (bench/hub_load.py, 10,000 players) such a commit took 160–420 ms, a
stall of every table on the server. Here a thread with a connection of its own runs a passive
checkpoint (one that never blocks the writer) every ``every`` seconds, outside the GIL for its
copying and fsync; the hub's connection keeps SQLite's own as a backstop only, at
:data:`BACKSTOP_PAGES`, should this thread ever fall behind.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

#: The hub's connection checkpoints by itself only past this many WAL pages (SQLite's default
#: is 1,000, about 4 MB); the thread keeps the WAL far below it.
BACKSTOP_PAGES = 20_000


class Checkpointer:
    """Checkpoints the WAL of the database at ``path`` every ``every`` seconds until stopped,
    or until ``alive()`` says its store is gone (a store a test never closed)."""

    def __init__(
        self, path: str, every: float = 0.5, alive: Callable[[], bool] = lambda: True
    ) -> None:
        self.path = path
        self.every = every
        self.alive = alive
        #: Checkpoints that copied pages, and pages copied (tests, logs).
        self.runs = 0
        self.pages = 0
        self._last = (0, 0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="wal-checkpoint", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def checkpoint(self, conn: sqlite3.Connection) -> int:
        """One passive checkpoint; the WAL frames copied so far (SQLite counts from the WAL's
        last restart)."""
        _busy, frames, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if copied > 0 and (frames, copied) != self._last:
            self.runs += 1
            self.pages += copied - self._last[1] if copied > self._last[1] else copied
        self._last = (frames, copied)
        return int(copied)

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=1.0)
        except sqlite3.Error:
            log.exception("WAL checkpoints: cannot open %s; SQLite's own remain", self.path)
            return
        try:
            while not self._stop.wait(self.every) and self.alive():
                try:
                    self.checkpoint(conn)
                except sqlite3.Error as err:  # busy, say: the next one catches up
                    log.debug("WAL checkpoint skipped: %s", err)
        finally:
            conn.close()
