"""Strong bots think in worker processes, so the hub's event loop never waits on a search.

A strong bot searches for its whole time budget (``--bot-think-ms``, 200 ms by default); twenty
of them thinking in the hub's own loop would hold every player's keys for seconds. The hub
sends the seat's view (the same dict the player in that seat would get) to a pool of
``--bot-workers`` processes and applies the answer when it comes, if the table is still where
it was. The quick bots (random, heuristic) answer in well under a millisecond and stay in the
loop. With no workers (``--bot-workers 0``) a strong bot thinks in a thread instead: off the
loop's turn, but sharing its core.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import threading
import time
from typing import Any

from protocol.actions import Action
from server.bots import make_bot
from server.bots.memos import Ages

log = logging.getLogger(__name__)

#: Bots whose thinking goes to the pool; the others are answered in the loop.
SLOW_KINDS = ("strong",)


def _worker_start(parent: int) -> None:
    """In each worker: let go of the hub's stdout (whoever reads it must see it close when the
    hub exits), and exit when the hub is gone (a killed hub cannot shut its pool down)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="hub-watch", daemon=True).start()


#: The bots' memos in this process, emptied now and then (``server/bots/memos.py``).
_memos = Ages()


def think(game: str, kind: str, seed: str, think_ms: float, view: dict[str, Any]) -> Action:
    """One decision, in a worker: a fresh bot (bots keep no memory between moves)."""
    _memos.tick()
    return make_bot(game, kind, seed=seed, think_ms=think_ms).choose(view)


class BotPool:
    """The processes strong bots think in; started on first use, stopped with the hub."""

    def __init__(self, workers: int, think_ms: float) -> None:
        self.workers = workers
        self.think_ms = think_ms
        self._executor: concurrent.futures.Executor | None = None

    def _pool(self) -> concurrent.futures.Executor:
        if self._executor is None:
            if self.workers > 0:
                # "spawn": the hub process holds a running loop, sockets and SQLite, none of
                # which a forked child should inherit.
                context = multiprocessing.get_context("spawn")
                self._executor = concurrent.futures.ProcessPoolExecutor(
                    self.workers,
                    mp_context=context,
                    initializer=_worker_start,
                    initargs=(os.getpid(),),
                )
            else:
                self._executor = concurrent.futures.ThreadPoolExecutor(1, "bot")
        return self._executor

    async def choose(self, game: str, kind: str, seed: str, view: dict[str, Any]) -> Action:
        """The bot's action for ``view``, computed off the loop."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._pool(), think, game, kind, seed, self.think_ms, view
        )

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
