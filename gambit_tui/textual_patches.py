"""Small corrections to Textual that matter when a hundred apps share one process.

``Strip.divide`` caches its answer on the strip. Cut only at its end, the answer is the strip
itself, so the strip keeps a list holding itself: a reference cycle that reference counting
never frees. Textual's compositor divides every line it draws that way, so every frame left
its lines (with their segments and seven small caches each) for the garbage collector: under
load about 120 objects per app update, which made the collector run more often and its full
collections, which stall every player at once, longer. Here that one case returns a new list
and caches nothing; every other cut is Textual's own code.

Textual counts a callback's parameters before it calls it, and remembers the count on the
function, except for a ``functools.partial`` (which ``call_next`` and ``call_later`` wrap
every callback in): that was counted anew, with ``inspect.signature``, several times per app
update. Here a partial's count is remembered on the function it wraps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from inspect import signature
from typing import Any

import textual._callback
from textual.strip import Strip

_divide = Strip.divide


def _divide_without_cycle(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    cuts = list(cuts)
    length = self.cell_length
    if [cut for cut in cuts if cut <= length] == [length]:
        return [self]
    return _divide(self, cuts)


_count_parameters = textual._callback.count_parameters


def _count_parameters_of_partials_too(func: Callable[..., Any]) -> int:
    if not isinstance(func, partial):
        return _count_parameters(func)
    inner = func.func
    function = getattr(inner, "__func__", inner)  # a bound method's function
    count = getattr(function, "_gambit_param_count", None)
    if count is None:
        try:
            count = len(signature(function).parameters)
            function._gambit_param_count = count
        except (TypeError, ValueError, AttributeError):
            return _count_parameters(func)  # a builtin, say: Textual's own way
    bound = 1 if function is not inner else 0
    return count - bound - len(func.args) - len(func.keywords)


def apply() -> None:
    """Install the corrections (idempotent)."""
    Strip.divide = _divide_without_cycle  # type: ignore[method-assign]
    textual._callback.count_parameters = _count_parameters_of_partials_too
