"""A small dialog asking for one line: a player's name (to invite or befriend them), or an
admin's reason or message."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label

from ..i18n import N_, _
from ..widgets.line_input import LineInput
from .base import GambitModal


class AskNameScreen(GambitModal):
    """Returns the name typed (Enter) or None (Escape) through ``dismiss``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", N_("Cancel")),
    ]

    def __init__(self, title: str, label: str | None = None, max_length: int = 24) -> None:
        super().__init__()
        self._title = title
        self._label = label
        self._max_length = max_length

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="dialog", id="ask"):
            yield Label(self._label or _("Name"))
            yield LineInput(id="name", max_length=self._max_length, compact=True)

    def on_mount(self) -> None:
        self.query_one("#ask").border_title = self._title
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
