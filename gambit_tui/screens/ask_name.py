"""A small dialog asking for a player's name (to invite or befriend them)."""

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

    def __init__(self, title: str) -> None:
        super().__init__()
        self._title = title

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="dialog", id="ask"):
            yield Label(_("Name"))
            yield LineInput(id="name", max_length=24, compact=True)

    def on_mount(self) -> None:
        self.query_one("#ask").border_title = self._title
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
