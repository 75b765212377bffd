"""Memos every app of a process shares, and the one call that empties them all.

Several parts of the app keep what they made for every app in the process (lines turned into
strips, a seat's row, an event's line, a chat line): the players at a table see mostly the same
lines, so each is made once (the server's app host registers its own memos of the apps'
drawing here too). Each memo is bounded, but a bound is reached only after hours of
other games' lines: in ``bench/soak.py`` an app worker's live objects rose all through each
half hour, the memos filling with lines nobody would see again. A process that hosts apps for
days calls :func:`forget_all` every few minutes instead (``server/apphost/memo_ages.py``):
what the players see now is made again once, at its next change, and shared again from then.

Only bounded memos are registered: they already let entries go at any moment, so no caller
relies on an entry staying.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any, TypeVar

Memo = TypeVar("Memo", bound=MutableMapping[Any, Any])

#: Every registered memo: its name and the memo.
_memos: list[tuple[str, MutableMapping[Any, Any]]] = []


def shared_memo(name: str, memo: Memo) -> Memo:
    """Register ``memo`` (kept for every app of the process, bounded) to be emptied by
    :func:`forget_all`; returns it."""
    _memos.append((name, memo))
    return memo


def forget_all(report: Callable[[str, int], None] | None = None) -> int:
    """Empty every registered memo; the entries let go (``report(name, entries)`` for each
    memo that had any)."""
    dropped = 0
    for name, memo in _memos:
        entries = len(memo)
        if entries:
            memo.clear()
            dropped += entries
            if report is not None:
                report(name, entries)
    return dropped
