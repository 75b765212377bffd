"""A one-line text box whose typed text is drawn as soon as the key is handled."""

from __future__ import annotations

from typing import ClassVar, Self

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
