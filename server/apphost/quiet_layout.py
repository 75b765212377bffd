"""No layout of the whole screen where a repaint of one widget is enough.

Two of the app's widgets change size in ways only they are affected by, and Textual lays
the whole screen out each time, because a widget's virtual size is a layout reactive:

- ``LineInput`` (the chat and name boxes): Textual's ``Input`` records the width of its
  text as its virtual size on every change, so every typed key laid the screen out again
  (in a busy lobby the most expensive thing typing did). The box keeps its size and its
  text scrolls inside it: the virtual size is set quietly first, so Input's own watcher
  finds it equal, and a repaint of the box is enough.
- ``TextLines`` (the line-drawn panels): no children and no scrolling of their own, so a
  new size needs a repaint (their caches are keyed by size), not the second layout of the
  whole screen Textual asks for (a panel shown at the end of a deal laid every player's
  screen out twice).

A plain Textual app (``gambit play``) lays out as Textual does; a server running many apps
in one process installs these. Private Textual names overridden: ``Input._watch_value`` and
``Widget._size_updated`` (its ``layout`` argument). Guarded by
``test_typing_in_the_chat_lays_nothing_out_and_shows_the_end_of_long_text`` in
``tests/tui/test_line_input.py`` and ``test_a_new_size_is_one_layout_and_every_row_at_the_new_size``
in ``tests/tui/test_text_lines.py``.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Input

from gambit_tui.widgets.line_input import LineInput
from gambit_tui.widgets.text_lines import TextLines


def _watch_value_quietly(self: LineInput, value: str) -> None:
    self.set_reactive(Widget.virtual_size, Size(self.content_width, 1))
    self.refresh()
    Input._watch_value(self, value)  # the virtual size is equal now: no layout


def _size_updated_without_layout(
    self: TextLines, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
) -> bool:
    return Widget._size_updated(self, size, virtual_size, container_size, layout=False)


def apply() -> None:
    """Install both on the app's widgets (idempotent)."""
    LineInput._watch_value = _watch_value_quietly  # type: ignore[method-assign, assignment]  # this subclass's own
    TextLines._size_updated = _size_updated_without_layout  # type: ignore[method-assign, assignment]  # this subclass's own
