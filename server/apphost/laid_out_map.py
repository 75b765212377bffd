"""A layout draws every region that changed since the last layout, even when the screen's map
of widgets was rebuilt in between.

Textual's compositor keeps a map of where each widget is (``Compositor._full_map``), and a
layout (``Compositor.reflow``) marks for drawing the regions of the widgets added, removed,
moved or resized since that map. When a widget the map does not show asks for a repaint (the
table's chat box, inside its hidden panel, does), the map is marked stale, and the next
question about any widget's place (every ``Widget.refresh`` asks its own) builds it again
from the widgets as they are *now*: after a change, before the layout that change asked for.
That layout then finds nothing changed and draws nothing: a toast that had just gone stayed
on the player's terminal over the seats (issue 18), a row just shown or a panel just moved
is not drawn until something else repaints those cells (a resize).

Here the map a stale rebuild replaces is kept until the next layout, and the layout compares
with it: what Textual does when nothing asks in between. (A rebuild can only add regions to
draw, never lose one; the screen diff drops cells the terminal already shows.)

Private Textual names wrapped: ``Compositor.full_map`` (a property), ``Compositor.reflow``,
``Compositor.clear``; read: ``_full_map``, ``_full_map_invalidated``, ``root``. Guarded by
``tests/tui/test_laid_out_map.py``.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget

from .textual_private import Compositor, CompositorMap, ReflowResult

#: Textual's own (tests compare the two).
TEXTUALS = {
    "full_map": Compositor.__dict__["full_map"],
    "reflow": Compositor.reflow,
    "clear": Compositor.clear,
}
_full_map = TEXTUALS["full_map"].fget
_reflow = TEXTUALS["reflow"]
_clear = TEXTUALS["clear"]


def _full_map_keeping_the_laid_out(self: Compositor) -> CompositorMap:
    """``Compositor.full_map``; a stale rebuild first keeps the map the last layout made."""
    if (
        self._full_map_invalidated
        and self.root is not None
        and self.__dict__.get("_laid_out") is None
    ):
        self.__dict__["_laid_out"] = self._full_map
    return _full_map(self)


def _reflow_from_the_laid_out(self: Compositor, parent: Widget, size: Size) -> ReflowResult:
    """``Compositor.reflow``, comparing with the map the last layout made."""
    laid_out = self.__dict__.pop("_laid_out", None)
    if laid_out is not None:
        self._full_map = laid_out
    return _reflow(self, parent, size)


def _clear_all(self: Compositor) -> None:
    self.__dict__.pop("_laid_out", None)
    _clear(self)
