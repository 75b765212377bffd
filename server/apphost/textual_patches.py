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

A ``Strip`` made seven empty caches (fourteen objects) as it was made, and the compositor,
the driver's filters and our widgets make some forty strips per app update, most of which
are drawn once and never asked anything a cache would answer. Here a strip makes each cache
the first time it is used; the strip behaves the same, with a seventh of the objects for the
collector to count.

The compositor repaints a change by asking every widget that overlaps the changed rows for
*all* of its visible lines, then keeps the changed rows of the front-most widget at each
cell. A move changes a few rows here and there; the screen, its containers and every panel
in between drew all their lines each time. Here each widget is asked only for the changed
rows in it that no widget in front of it has already covered, and once every changed cell is
covered no widget further back is looked at: the same cells result (a test compares the two
on real screens).

Every app parses its CSS (the app's, and each widget class's ``DEFAULT_CSS`` as the class is
first mounted) into rule sets, which nothing changes afterwards; the cache of parsed CSS is
the app's own. Starting a player's app parsed the same few dozen sources again: a sixth of
its start. Here the parsed rule sets are kept for the process, by source and by the theme's
variables (which the parse substitutes), and every app with the same theme shares them.

Textual names the task of every widget's message loop after the widget, ``repr`` and all
(a scroll bar's repr looks up its styles): some 40 reprs per app start for a name nobody
reads on a server. Here the task is named for its class.

Every widget draws through a ``StylesCache`` of its own, which keeps the widget's last drawn
lines. Its ``get_inner_outer`` (two styles made from two colours) is an ``lru_cache`` of 1,024
entries on the *method*, so the widget's ``StylesCache`` is part of each key: the cache kept
the last 1,024 widgets drawn, with their lines, long after their apps had ended: after one
wave of eight players had come and gone, 184 of them were alive
(``tests/ssh/test_worker_no_growth.py``); ``bench/worker_churn.py`` (docs/benchmarks.md,
"Soak") measured 60-70k fewer live blocks and about 4 MB less after 20 waves without them.
Here the answer is kept by the two colours alone (the same styles: the method never reads its
instance).

Textual's ``LRUCache`` keeps its entries in a ring: each entry a list ``[previous, next, key,
value]``. ``clear()`` lets go of the ring whole, and a ring is a reference cycle: every entry,
with the value it held (a ``DataTable``'s rendered cells, rows and lines: lists of segments and
strips), is left to the cyclic collector. A ``DataTable`` clears its five caches whenever a
row is added or removed or a column resized: the lobby's tables list, at every lobby update.
In an app worker that garbage, alive at a young collection, is frozen, and waits for a sweep
that stalls every player of the worker: 300-400 objects per lobby per round of a table opened,
joined and closed and a chat line (``bench/app_garbage.py --scenario lobby``), most of all the
garbage its sweeps found. Here ``clear()`` and ``discard()`` empty each entry they let go of
first (the cache keeps no entry elsewhere, and hands out only values), so reference counting
frees them at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache, partial
from inspect import signature
from typing import Any

from textual.cache import FIFOCache, LRUCache
from textual.color import Color
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.geometry import Region
from textual.strip import Strip
from textual.style import Style

from .textual_private import Compositor, StylesCache, callback_module

_divide = Strip.divide


def _divide_without_cycle(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    cuts = list(cuts)
    length = self.cell_length
    if [cut for cut in cuts if cut <= length] == [length]:
        return [self]
    return _divide(self, cuts)


#: Each cache of a ``Strip`` and its size, as ``Strip.__init__`` makes them.
_STRIP_CACHES = {
    "_divide_cache": 4,
    "_crop_cache": 16,
    "_style_cache": 16,
    "_filter_cache": 4,
    "_line_length_cache": 4,
    "_crop_extend_cache": 4,
    "_offsets_cache": 4,
}


def _init_strip_without_caches(
    self: Strip, segments: Iterable[Any], cell_length: int | None = None
) -> None:
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def _make_strip_cache(self: Strip, name: str) -> Any:
    size = _STRIP_CACHES.get(name)
    if size is None:
        raise AttributeError(name)
    cache: FIFOCache[Any, Any] = FIFOCache(size)
    setattr(self, name, cache)
    return cache


_count_parameters = callback_module.count_parameters


def _count_parameters_of_partials_too(func: Callable[..., Any]) -> int:
    if not isinstance(func, partial):
        return _count_parameters(func)
    inner = func.func
    function: Any = getattr(inner, "__func__", inner)  # a bound method's function
    count = getattr(function, "_gambit_param_count", None)
    if count is None:
        try:
            count = len(signature(function).parameters)
            function._gambit_param_count = count
        except (TypeError, ValueError, AttributeError):
            return _count_parameters(func)  # a builtin, say: Textual's own way
    bound = 1 if function is not inner else 0
    return count - bound - len(func.args) - len(func.keywords)


_render_chops = Compositor._render_chops


def _render_chops_of_changed_rows(
    self: Compositor, crop: Region, is_rendered_line: Callable[[int], bool]
) -> list[dict[int, Strip | None]]:
    cuts = self.cuts
    chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
    rows = [y for y in range(crop.y, crop.bottom) if is_rendered_line(y)]
    if not rows:
        return chops
    crop_overlaps = crop.overlaps
    intersection = Region.intersection
    # Cells of the changed rows no widget has drawn yet: none left, the rest are behind.
    uncovered = sum(len(chops[y]) for y in rows)
    for widget, (region, clip) in self.visible_widgets.items():  # front to back
        if not uncovered:
            break
        if not crop_overlaps(clip):
            continue
        render_region = intersection(region, clip)
        x, top, width, height = render_region
        if not (width and height):
            continue
        first_cut, last_cut = render_region.column_span
        bottom = top + height
        # The changed rows of this widget where some cell is still uncovered, in runs.
        runs: list[list[tuple[int, list[int]]]] = []
        previous = -2
        for y in rows:
            if y < top:
                continue
            if y >= bottom:
                break
            line_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
            chops_line = chops[y]
            if all(chops_line.get(cut) is not None for cut in line_cuts[:-1]):
                continue  # covered by widgets in front
            if y != previous + 1:
                runs.append([])
            runs[-1].append((y, line_cuts))
            previous = y
        for run in runs:
            start = run[0][0]
            strips = widget.render_lines(Region(x - region.x, start - region.y, width, len(run)))
            for (y, line_cuts), strip in zip(run, strips, strict=False):
                chops_line = chops[y]
                get = chops_line.get
                for cut, piece in zip(
                    line_cuts, strip.divide([cut - x for cut in line_cuts[1:]]), strict=False
                ):
                    if get(cut) is None:
                        chops_line[cut] = piece
                        uncovered -= 1
    return chops


_parse_rules = Stylesheet._parse_rules
#: Parsed CSS for every app of the process, by source and theme variables (see above).
_parsed: dict[tuple[object, ...], list[RuleSet]] = {}
#: ... at most this many (a theme is some 20 sources; a few themes are in use at once).
PARSED = 512


def _parse_rules_once_per_process(
    self: Stylesheet,
    css: str,
    read_from: Any,
    is_default_rules: bool = False,
    tie_breaker: int = 0,
    scope: str = "",
) -> list[RuleSet]:
    key = (css, read_from, is_default_rules, tie_breaker, scope, *self._variables.items())
    rules = _parsed.get(key)
    if rules is None:
        rules = _parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        if len(_parsed) >= PARSED:
            del _parsed[next(iter(_parsed))]
        _parsed[key] = rules
    return rules


def _start_messages_named_by_class(self: Any) -> None:
    """``MessagePump._start_messages``, the task named without the widget's ``repr``."""
    self._thread_init()
    if self.app._running:
        self._task = asyncio.create_task(
            self._process_messages(), name=f"message pump {type(self).__name__}"
        )
    else:
        self._closing = True
        self._closed = True


@lru_cache(1024)
def _inner_and_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    """Textual's ``StylesCache.get_inner_outer``, kept by the colours alone (see above)."""
    return (
        Style(background=base_background + background),
        Style(background=base_background),
    )


def _inner_outer_by_colours(
    self: StylesCache, base_background: Color, background: Color
) -> tuple[Style, Style]:
    return _inner_and_outer(base_background, background)


_lru_clear = LRUCache.clear
_lru_discard = LRUCache.discard


def _clear_without_cycles(self: LRUCache[Any, Any]) -> None:
    """``LRUCache.clear``, each entry of its ring emptied first (see above)."""
    for link in self._cache.values():
        link.clear()
    _lru_clear(self)


def _discard_without_cycle(self: LRUCache[Any, Any], key: Any) -> None:
    """``LRUCache.discard``, the entry let go of emptied (a lone entry's ring is itself)."""
    link = self._cache.get(key)
    _lru_discard(self, key)
    if link is not None:
        link.clear()
