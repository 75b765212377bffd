"""A widget's refresh wakes its message loop only if the refresh is still pending a moment later.

Textual's ``Widget.refresh`` marks the widget and calls ``check_idle``, which posts a
``Prompt`` message to the widget: the widget's task wakes, dispatches the prompt (it has no
handler), runs its idle handlers (``Widget._on_idle`` → ``_check_refresh``, which tells the
screen) and flushes its ``call_next`` callbacks. A table screen drawn at once
(:mod:`.draw_now`) has already taken every refresh of its widgets in the same callback, so
each of those wakes (four or five per move, one per widget that changed, for every player
at the table) found nothing left to do: a task switch and a message for nothing.

Here the prompt of a plain widget is put off to the end of the current turn of the event
loop (one ``call_soon`` for every widget refreshed in it), then posted only to the widgets
that still want a refresh, or have ``call_next`` callbacks, exactly as Textual would have
posted it. Screens, the app, widgets with idle handlers of their own (``DataTable``,
``Tree``) and widgets with ``call_next`` callbacks waiting get Textual's prompt at once.
A plain Textual app, where nothing draws at once, gets the same prompts a moment later.

Private things of Textual touched: ``MessagePump.check_idle`` (replaced), ``_running``,
``_message_queue``, ``_next_callbacks``, and a widget's ``_repaint_required``,
``_layout_required``, ``_scroll_required`` and ``_refresh_styles_required``. Guarded by
``tests/tui/test_quiet_prompts.py``; Textual is pinned to the 8.2 series.
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref

from textual.app import App
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.widget import Widget

#: Textual's own ``check_idle``.
TEXTUALS = MessagePump.check_idle

#: Per event loop, the widgets whose prompt is put off to the end of the loop's turn.
_waiting: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Widget, None]] = (
    weakref.WeakKeyDictionary()
)
#: Per class, whether its prompts may be put off (no idle handler but Textual's ``Widget``'s).
_may_wait: dict[type, bool] = {}


def _class_may_wait(kind: type) -> bool:
    may = _may_wait.get(kind)
    if may is None:
        may = issubclass(kind, Widget) and not issubclass(kind, (Screen, App))
        if may:
            for cls in kind.__mro__:
                if cls is Widget:
                    break
                if "_on_idle" in cls.__dict__ or "on_idle" in cls.__dict__:
                    may = False
                    break
        _may_wait[kind] = may
    return may


def _still_wanted(widget: Widget) -> bool:
    return bool(
        widget._repaint_required
        or widget._layout_required
        or widget._scroll_required
        or widget._refresh_styles_required
        or widget._next_callbacks
    )


def _prompt_the_waiting(loop: asyncio.AbstractEventLoop) -> None:
    widgets = _waiting.pop(loop, None)
    if not widgets:
        return
    for widget in widgets:
        if _still_wanted(widget):
            TEXTUALS(widget)


def check_idle(self: MessagePump) -> None:
    """``MessagePump.check_idle``, the prompt of a plain widget put off (see above)."""
    if not _class_may_wait(type(self)) or self._next_callbacks:
        TEXTUALS(self)
        return
    if not (self._running and self._message_queue.empty()):
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        TEXTUALS(self)
        return
    waiting = _waiting.get(loop)
    if waiting is None:
        waiting = _waiting[loop] = {}
        # In a context of its own: the prompts it posts name no message pump as their sender.
        # In the context of the widget that asked first, every other app's widget got a
        # prompt naming that app, and an idle widget keeps its last message until the next:
        # an app that had ended (moved to another worker) stayed alive through it.
        loop.call_soon(_prompt_the_waiting, loop, context=contextvars.Context())
    waiting[self] = None
