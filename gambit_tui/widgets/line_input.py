"""A one-line text box whose typed text is drawn as soon as the key is handled."""

from __future__ import annotations

from textual.widgets import Input


class LineInput(Input):
    """Textual's Input, whose typed text is drawn as soon as the key is handled (the screen's
    ``draw_now``), not at Textual's next frame: a key echoes without waiting behind other
    apps' work. (A server running many apps also keeps each key from laying the screen out:
    server/apphost/quiet_layout.py.)
    """

    def watch_value(self, value: str) -> None:
        self.call_next(self._draw_now)

    def _draw_now(self) -> None:
        draw = getattr(self.screen, "draw_now", None) if self.is_attached else None
        if draw is not None:
            draw()
