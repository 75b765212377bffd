"""Screens under an opaque screen are not drawn, nor woken by the screen on top's changes.

Textual's ``App._background_screens`` always counts the screen just below the current one,
even under an opaque screen (it stops only *at* the first opaque screen below). A hidden
lobby that repainted anything then made the table on top of it repaint the whole terminal,
over and over: most of the bytes and CPU under load. Here the screens that show through are
only those below a see-through screen (a dialog's translucent backdrop shows the table under
it): what is drawn is the same, since an opaque screen covers every cell.

Private Textual name replaced: ``App._background_screens`` (a property; it reads
``App._screen_stack``). Guarded by
``tests/tui/test_units.py::test_only_screens_under_a_see_through_screen_show_through``.
"""

from __future__ import annotations

from textual.app import App
from textual.screen import Screen

#: Textual's own property (benchmarks compare the two: bench/table_updates.py --without).
TEXTUALS = App.__dict__["_background_screens"]


def background_screens(app: App[object]) -> list[Screen]:
    """The screens that show through the current one, lowest first: below each see-through
    screen, the next one down."""
    stack = app._screen_stack
    shown: list[Screen] = []
    for upper, lower in zip(reversed(stack), reversed(stack[:-1]), strict=False):
        if upper.styles.background.a >= 1:
            break
        shown.append(lower)
    return shown[::-1]
