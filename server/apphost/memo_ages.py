"""The memos shared by a process's apps, emptied every few minutes.

A process that hosts apps (an app worker; ``gambit serve`` itself with ``--workers 0``) keeps,
for all of them, what it made once and many apps draw: lines turned into strips and rows
(``gambit_tui/shared_memos.py``), a style's and a line's terminal codes
(``server/terminal/sgr.py``, ``colour_codes.py``), the screen diff's pieces
(``server/terminal/screen_diff.py``), the answers of the shared stylesheet
(``shared_styles.py``), and Rich's and Textual's own bounded ``lru_cache``s. Each is bounded,
but the bounds are reached only after hours of other games' lines: in ``bench/soak.py`` an app
worker's live blocks rose all through each half hour, the memos filling with lines of games long
over. Sharing needs only the recent: the players at a table draw the same new line within the
same second. So every :data:`FORGET_EVERY` they are all emptied: what is on the players'
screens is made again at its next change, once, and shared again from then; a worker's memory
levels off at a few minutes' worth of lines.

Only bounded memos are emptied: they let entries go at any moment already, so no caller relies
on one staying (an unbounded ``lru_cache`` may be a deliberate "make once", and is left alone).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from gambit_tui.shared_memos import forget_all

log = logging.getLogger(__name__)

#: Seconds between two emptyings.
FORGET_EVERY = 120.0
#: Modules whose bounded ``lru_cache``s are emptied (the functions and the methods of their
#: classes), by name prefix.
PACKAGES = ("gambit_tui.", "server.terminal.", "server.apphost.", "rich.", "textual.")
#: The memos named in the log line of each emptying, most entries first.
NAMED = 4

_LRU = type(functools.lru_cache(maxsize=1)(lambda: None))


def _bounded_lru_caches(modules: dict[str, ModuleType]) -> Iterator[Any]:
    """Every bounded ``lru_cache`` of the modules in :data:`PACKAGES`: module functions and
    methods (plain, static and class methods) of their classes."""
    seen: set[int] = set()
    for name, module in list(modules.items()):
        if module is None or not name.startswith(PACKAGES):
            continue
        for value in list(vars(module).values()):
            places = [value]
            if isinstance(value, type) and value.__module__ == name:
                places = list(vars(value).values())
            for place in places:
                function = getattr(place, "__func__", place)  # (static and class methods)
                if isinstance(function, _LRU) and id(function) not in seen:
                    seen.add(id(function))
                    if function.cache_parameters()["maxsize"] is not None:
                        yield function


#: The caches found, and how many modules were loaded then (a walk is about 10 ms: it is made
#: again only once more modules are loaded).
_found: tuple[int, list[Any]] = (0, [])


def _lru_caches() -> list[Any]:
    global _found
    if _found[0] != len(sys.modules):
        _found = (len(sys.modules), list(_bounded_lru_caches(sys.modules)))
    return _found[1]


def forget(report: Callable[[str, int], None] | None = None) -> int:
    """Empty every shared memo (see the module docstring); the entries let go."""
    dropped = forget_all(report)  # (the app's memos, and the app host's: they register too)
    for function in _lru_caches():
        entries = function.cache_info().currsize
        if entries:
            function.cache_clear()
            dropped += entries
            if report is not None:
                report(f"{function.__module__}.{function.__qualname__}", entries)
    return dropped


class MemoAges:
    """Empties the shared memos every :data:`FORGET_EVERY` seconds while started, and logs
    what that let go."""

    def __init__(self, every: float = FORGET_EVERY) -> None:
        self.every = every
        self.forgotten = 0
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self._handle = asyncio.get_running_loop().call_later(self.every, self._tick)

    def _tick(self) -> None:
        self._handle = asyncio.get_running_loop().call_later(self.every, self._tick)
        started = time.perf_counter()
        before = sys.getallocatedblocks()
        sizes: dict[str, int] = {}
        dropped = forget(sizes.__setitem__)
        self.forgotten += 1
        most = sorted(sizes.items(), key=lambda item: -item[1])[:NAMED]
        log.info(
            "forgot %d shared memo entries in %.0f ms: %d blocks let go (pid %d; most: %s)",
            dropped,
            (time.perf_counter() - started) * 1000,
            before - sys.getallocatedblocks(),
            os.getpid(),
            ", ".join(f"{name} {entries}" for name, entries in most),
        )

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
