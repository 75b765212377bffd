"""Messages that wait for what they show to be stored: committed, and on the disk.

The store holds a burst's writes in one transaction (see ``Store.hold_commits``), so a message
that shows one of them must not leave before that commit: "stored before shown". While writes
are held, every message to a client waits here, in order, and goes out once they are
committed; when nothing is held, a message goes out at once.

A SQLite file's commit also waits for the disk (an fsync), 14 % of the server's event loop in
``bench/soak.py`` on a loaded machine, each fsync holding every player up, some for 25-100 ms.
So a file-backed store commits without it (``Store.sync_off_loop``) and this outbox has the
WAL fsynced on a thread of its own (:meth:`Store.sync`), and lets the batch's messages go only
after that: nothing is shown before it is on the disk, as before, but the loop goes on with
other players meanwhile. Batches committed while an fsync runs wait for the next one, which
covers them all (one fsync for many commits); a message sent while any committed batch still
waits for the disk waits behind it, so that every client's messages keep their order.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeAlias

from .table_change import TableChange

if TYPE_CHECKING:  # for type hints only
    from server.store import Store

    from .session import Outgoing, Session

log = logging.getLogger(__name__)

Item: TypeAlias = "tuple[Session, Outgoing] | TableChange | Callable[[], None]"


class Outbox:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._waiting: list[Item] = []
        #: Committed batches' messages waiting for the disk, oldest first (see the docstring).
        self._unsynced: list[list[Item]] = []
        #: The fsync on its way, and the batches it covers (the first so many of _unsynced).
        self._syncing: asyncio.Future[None] | None = None
        self._covers = 0
        self._executor: ThreadPoolExecutor | None = None
        self._closed = False
        #: Called if an fsync fails (the server must stop: what it shows may not be stored).
        self.on_sync_failed: Callable[[], None] | None = None
        #: Set while committed messages go out after their fsync (tests check no other
        #: message goes out while writes are held).
        self.releasing = False

    @property
    def on_disk(self) -> bool:
        """No committed batch waits for the disk: what is committed now is stored."""
        return not self._unsynced

    def _queue(self) -> list[Item] | None:
        """Where a message sent now waits (None: it goes out at once)."""
        if self.store.holding:
            return self._waiting
        if self._unsynced:
            return self._unsynced[-1]
        return None

    def send(self, session: Session, message: Outgoing) -> None:
        queue = self._queue()
        if queue is None:
            session.deliver(message)
        else:
            queue.append((session, message))

    def send_change(self, change: TableChange) -> None:
        """A table's message to each of its readers (see table_change.py), as one item."""
        queue = self._queue()
        if queue is None:
            change.deliver()
        else:
            queue.append(change)

    def then(self, action: Callable[[], None]) -> None:
        """Run ``action`` once everything sent before it has gone out (hanging up after a
        goodbye)."""
        queue = self._queue()
        if queue is None:
            action()
        else:
            queue.append(action)

    async def sent(self) -> None:
        """Return once everything sent so far has gone out (at once if it has)."""
        if self._queue() is None:
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def gone() -> None:
            if not done.done():
                done.set_result(None)

        self.then(gone)
        await done

    def flush(self) -> None:
        """The held writes are committed: send what waited for them, in order, once they are
        on the disk (see the module docstring)."""
        waiting, self._waiting = self._waiting, []
        if not self.store.syncs_off_loop:
            self._deliver(waiting)
            return
        self._unsynced.append(waiting)
        self._sync()

    def flush_now(self) -> None:
        """Everything committed goes out now, its fsync made here, on the loop (stopping)."""
        self._waiting, waiting = [], self._waiting
        groups, self._unsynced = self._unsynced, []
        self._covers = 0
        if self.store.syncs_off_loop:
            try:
                self.store.sync()
            except OSError:
                log.critical("the database's fsync failed; what waited for it is not sent")
                self._drop([*(item for group in groups for item in group), *waiting])
                return
        for group in groups:
            self._deliver(group)
        self._deliver(waiting)

    def _sync(self) -> None:
        if self._syncing is not None:
            return  # (the next fsync starts when this one ends, for every batch since)
        if self._closed:
            self.flush_now()
            return
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="wal-fsync")
        self._covers = len(self._unsynced)
        self._syncing = asyncio.get_running_loop().run_in_executor(self._executor, self.store.sync)
        self._syncing.add_done_callback(self._synced)

    def _synced(self, future: asyncio.Future[None]) -> None:
        self._syncing = None
        covered, self._covers = self._covers, 0
        failed = future.exception() if not future.cancelled() else None
        if failed is not None or future.cancelled():
            log.critical("the database's fsync failed; stopping", exc_info=failed)
            groups, self._unsynced = self._unsynced, []
            self._drop([item for group in groups for item in group])
            if self.on_sync_failed is not None:
                self.on_sync_failed()
            return
        done, self._unsynced = self._unsynced[:covered], self._unsynced[covered:]
        self.releasing = True
        try:
            for group in done:
                self._deliver(group)
        finally:
            self.releasing = False
        if self._unsynced:
            self._sync()

    @staticmethod
    def _deliver(items: list[Item]) -> None:
        for item in items:
            if isinstance(item, tuple):
                session, message = item
                session.deliver(message)
            elif isinstance(item, TableChange):
                item.deliver()
            else:
                item()

    def drop(self) -> None:
        """The held writes are lost: what would have shown them is never sent (but every
        hang-up still happens)."""
        waiting, self._waiting = self._waiting, []
        self._drop(waiting)

    @staticmethod
    def _drop(items: list[Item]) -> None:
        for item in items:
            if not isinstance(item, tuple) and not isinstance(item, TableChange):
                item()

    def close(self) -> None:
        """Stop the fsync thread (after :meth:`flush_now`); later batches are synced on the
        loop."""
        self._closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None

    def __len__(self) -> int:
        return len(self._waiting) + sum(len(group) for group in self._unsynced)
