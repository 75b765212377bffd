"""A yes-or-no question before a step a player might regret (leaving a game in play)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from ..i18n import N_
from .base import GambitModal


class ConfirmScreen(GambitModal):
    """Says what the step will do; ``dismiss`` returns True (y or Enter) or False (n or Esc).
    Enter confirms because the player already pressed the key that asked for the step."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer(True)", N_("Yes"), key_display="y"),
        Binding("n,escape", "answer(False)", N_("No"), key_display="n"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self._title = title
        self._text = text

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="dialog", id="confirm"):
            yield Static(self._text, markup=False)

    def on_mount(self) -> None:
        self.query_one("#confirm").border_title = self._title

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class QuitQuestion(ConfirmScreen):
    """Whether to quit during a game (Ctrl+Q; Ctrl+Q again on it quits)."""
