"""Drawing a screen in the callback that changed it, instead of at Textual's next frame.

Textual draws a change in steps, each its own turn of the event loop: the widget tells its
screen in a message, the screen wakes when idle, starts its frame timer, and draws when the
timer fires. An app worker runs some fifty apps on one loop, so under load every step of a
move waited behind every other app's pending work: all the moves in flight advanced one
step per turn and reached the players' screens together, late (the load benchmark's slowest
moves waited 200 ms and more with the worker's core far from full). A table message is now
handled and drawn in the one callback that received it: the moves on a worker reach the
screens in the order they came, each as soon as its own work is done.

What Textual's idle steps would have done (a widget's ``_check_refresh``, the screen's
``_on_update``, ``_on_layout`` and ``_on_update_scroll``) is done here in their place, then
the screen's frame timer callback is called: a change that needs a new layout (the footer
taking another row) is laid out and drawn at once too. Only a change of styles pending is
left to Textual.

The message itself is handled in that callback too (:func:`run_as_screen`), as the screen's
own handling: Textual's ``MessagePump._context`` makes the screen the active message pump, so
what the handler starts (a screen pushed with a result callback, a message posted) belongs
to the screen as it would in the screen's own turn.

This reads private attributes of Textual's ``Screen`` and ``Widget`` (``_compositor``,
``_batch_count``, ``_recompose_required``, ``_repaint_required``, ``_layout_required``,
``_scroll_required``, ``_refresh_styles_required``, ``_dirty_widgets``, ``_layout_widgets``,
``_on_timer_update``, ``_context`` ...). Guarded by
``tests/tui/test_draw_now.py::test_the_textual_internals_draw_now_reads_are_there`` and the
table tests that draw through it; Textual is pinned to the 8.2 series.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen
from textual.widget import Widget


def run_as_screen(screen: Screen, call: Callable[[], object]) -> None:
    """Call ``call`` with ``screen`` as the active message pump, as its own handler would run."""
    with screen._context():
        call()


def draw_now(screen: Screen) -> bool:
    """Draw what changed on ``screen`` now. False if Textual's own frame must do it."""
    if screen.app._batch_count or not screen.is_current or screen._recompose_required:
        return False
    if screen not in screen._compositor:
        return False  # not laid out yet
    widgets = [w for w in screen.walk_children(Widget, with_self=False) if _wants_refresh(w)]
    if any(widget._refresh_styles_required for widget in widgets):
        return False
    for widget in widgets:
        _take_refresh(screen, widget)
    if (
        screen._layout_required
        or screen._scroll_required
        or screen._repaint_required
        or screen._dirty_widgets
    ):
        screen._on_timer_update()
    return True


def _wants_refresh(widget: Widget) -> bool:
    return (
        widget._repaint_required
        or widget._layout_required
        or widget._scroll_required
        or widget._refresh_styles_required
    )


def _take_refresh(screen: Screen, widget: Widget) -> None:
    """Textual's ``Widget._check_refresh`` and the screen's handling of the messages it
    posts, at once."""
    if widget._scroll_required:
        widget._scroll_required = False
        if not widget._layout_required:
            if widget.styles.keyline[0] != "none":
                widget._set_dirty()
            screen._scroll_required = True
    if widget._repaint_required:
        widget._repaint_required = False
        if widget.display:
            screen._dirty_widgets.add(widget)
    if widget._layout_required:
        widget._layout_required = False
        node: Widget = widget
        for ancestor in widget.ancestors:
            if not isinstance(ancestor, Widget):
                break
            ancestor._clear_arrangement_cache()
            ancestor._layout_updates += 1
            laid_out = screen._layout_widgets.setdefault(ancestor, set())
            if node not in screen._layout_widgets:
                laid_out.add(node)
            if not ancestor.styles.auto_dimensions:
                break
            node = ancestor
        screen._layout_required = True
