"""A one-line text box whose typed text is drawn as soon as the key is handled."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Self

from textual import events
from textual.binding import Binding
from textual.geometry import Region
from textual.widgets import Input


class LineInput(Input):
    """Textual's Input, whose typed text is drawn as soon as the key is handled (the screen's
    ``draw_now``), not at Textual's next frame: a key echoes without waiting behind other
    apps' work.

    Where the app's host sets :attr:`quiet_layout`, a typed key also lays nothing out.
    Textual's ``Input`` records the width of its text as its virtual size on every change,
    and virtual size is a layout reactive: every key laid the whole screen out again (in a
    busy lobby the most expensive thing typing did). With the flag, the box keeps its size
    and its text scrolls inside it: the refresh a new text's virtual size asks for repaints
    the box, without a layout.
    """

    #: Keep each typed key from laying the screen out (a server running many apps sets it:
    #: server/apphost/textual_layer.py); False lays out as Textual does.
    quiet_layout: ClassVar[bool] = False
    #: A new value is being set (and Textual's watcher sets the virtual size for it) ...
    _value_changing = False
    #: ... and it set a new virtual size: the refresh that follows at once is a repaint.
    _new_virtual_size = False

    async def on_key(self, event: events.Key) -> None:
        """An editing key (backspace, delete, the arrows ...) is applied here, in turn with the
        typed characters, not once its event has bubbled up to the app.

        Textual inserts a typed character when its key reaches the box, but finds the box's
        own bindings only when the key has gone up through every container to the app, a turn
        of each one's message loop later. Keys that arrive together (an SSH packet, a fast
        typist, a paste of control keys) were applied out of order: two Backspaces and "ann"
        gave "ann", then deleted it. The box's bindings come first in Textual's chain anyway
        (after the priority ones, which the app runs before the key gets here): only the time
        changes.
        """
        if event.is_printable:
            return  # Input's own handler inserts it
        action = _own_actions(type(self)).get(event.key)
        if action is not None and await self.app.run_action(action, self):
            event.stop()  # done (an action that skips, as scrolling a box that cannot,
            event.prevent_default()  # leaves the key to the bindings above, as before)

    def after_typed(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once every key already sent to this box is applied to its value.

        A priority binding (Enter on a form) runs when the app receives its key, before the
        keys typed just ahead of it are handled by the box: reading the value at once could
        miss them (over SSH a line and its Enter often arrive in one packet)."""
        self.call_later(callback)

    def validate_value(self, value: str) -> str:
        self._value_changing = LineInput.quiet_layout and value != self.value
        return value

    def watch_virtual_size(self) -> None:
        self._new_virtual_size, self._value_changing = self._value_changing, False

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        if self._new_virtual_size:
            self._new_virtual_size = False
            layout = layout and bool(regions or recompose)
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def watch_value(self, value: str) -> None:
        self._value_changing = False
        self.call_next(self._draw_now)

    def _draw_now(self) -> None:
        draw = getattr(self.screen, "draw_now", None) if self.is_attached else None
        if draw is not None:
            draw()


_ACTIONS: dict[type[Input], dict[str, str]] = {}


def _own_actions(cls: type[Input]) -> dict[str, str]:
    """The actions of the box's own bindings, by key (the nearest class's binding wins)."""
    actions = _ACTIONS.get(cls)
    if actions is None:
        actions = {}
        for base in reversed(cls.__mro__):
            for binding in Binding.make_bindings(base.__dict__.get("BINDINGS", ())):
                actions[binding.key] = binding.action
        _ACTIONS[cls] = actions
    return actions
