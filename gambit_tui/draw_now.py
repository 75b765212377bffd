"""Drawing a screen in the callback that changed it, instead of at Textual's next frame.

Textual draws a change in steps, each its own turn of the event loop: the widget tells its
screen in a message, the screen wakes when idle, starts its frame timer, and draws when the
timer fires. An app worker runs some fifty apps on one loop, so under load every step of a
move waited behind every other app's pending work: all the moves in flight advanced one
step per turn and reached the players' screens together, late (the load benchmark's slowest
moves waited 200 ms and more with the worker's core far from full). A table message is now
handled and drawn in the one callback that received it: the moves on a worker reach the
screens in the order they came, each as soon as its own work is done.

Only repaints are drawn this way, through the same compositor calls Textual's frame timer
makes; a change that needs a new layout, new styles or a scroll is left to Textual.

This reads private attributes of Textual's ``Screen`` and ``Widget`` (checked by a test, and
Textual is pinned below its next major version).
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widget import Widget


def draw_now(screen: Screen) -> bool:
    """Draw what changed on ``screen`` now. False if Textual's own frame must do it."""
    if screen.app._batch_count or not screen.is_current:
        return False
    if screen._layout_required or screen._scroll_required or screen._recompose_required:
        return False
    changed: list[Widget] = []
    for widget in screen.walk_children(Widget, with_self=False):
        if widget._layout_required or widget._refresh_styles_required or widget._scroll_required:
            return False
        if widget._repaint_required:
            changed.append(widget)
    if not changed and not screen._repaint_required:
        return True
    for widget in changed:
        # What the widget's next idle would have done (it then finds nothing to post).
        widget._repaint_required = False
        if widget.display:
            screen._dirty_widgets.add(widget)
    screen._on_timer_update()
    return True
