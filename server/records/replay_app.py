"""``gambit replay`` in a terminal: step through a finished game's frames with keys."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import Footer, Static


class ReplayApp(App[None]):
    """Next/previous move, start, end and autoplay over precomputed frames."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n,space", "step(1)", "Next"),
        Binding("left,p", "step(-1)", "Previous"),
        Binding("home", "jump(0)", "Start"),
        Binding("end", "jump(-1)", "End"),
        Binding("a", "autoplay", "Play/pause"),
        Binding("q,escape", "quit", "Quit"),
    ]

    def __init__(self, record: dict[str, Any], frames: list[str], speed: float = 1.0) -> None:
        super().__init__()
        self.record = record
        self.frames = frames
        self.index = 0
        self.speed = speed
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(self.frames[0], id="frame")
        yield Footer()

    def _show(self) -> None:
        self.query_one("#frame", Static).update(self.frames[self.index])

    def action_step(self, delta: int) -> None:
        self.index = max(0, min(len(self.frames) - 1, self.index + delta))
        self._show()

    def action_jump(self, where: int) -> None:
        self.index = where if where >= 0 else len(self.frames) - 1
        self._show()

    def action_autoplay(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
            return
        self._timer = self.set_interval(self.speed, lambda: self.action_step(1))
