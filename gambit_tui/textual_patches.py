"""Small corrections to Textual that matter when a hundred apps share one process.

``Strip.divide`` caches its answer on the strip. Cut only at its end, the answer is the strip
itself, so the strip keeps a list holding itself: a reference cycle that reference counting
never frees. Textual's compositor divides every line it draws that way, so every frame left
its lines (with their segments and seven small caches each) for the garbage collector: under
load about 120 objects per app update, which made the collector run more often and its full
collections, which stall every player at once, longer. Here that one case returns a new list
and caches nothing; every other cut is Textual's own code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual.strip import Strip

_divide = Strip.divide


def _divide_without_cycle(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    cuts = list(cuts)
    length = self.cell_length
    if [cut for cut in cuts if cut <= length] == [length]:
        return [self]
    return _divide(self, cuts)


def apply() -> None:
    """Install the corrections (idempotent)."""
    Strip.divide = _divide_without_cycle  # type: ignore[method-assign]
