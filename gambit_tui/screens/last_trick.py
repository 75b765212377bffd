"""The last trick taken, over the table: a small overlay the player opens with ``l``."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from .. import events
from ..i18n import N_, _
from .base import GambitModal


class LastTrickScreen(GambitModal):
    """The last trick taken, over the table, whenever the player asks (``l``). ``content``
    builds what to show from the latest table message, so the overlay follows the game."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("l", "close", N_("Close")),
        Binding("escape", "close", N_("Close"), show=False),
    ]

    def __init__(self, table_id: int, content: Callable[[], RenderableType]) -> None:
        super().__init__()
        self.table_id = table_id
        self._content = content

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="dialog", id="last-trick"):
            yield Static(self._content(), id="body")

    def on_mount(self) -> None:
        self.query_one("#last-trick").border_title = _("Last trick")

    def on_table_updated(self, event: events.TableUpdated) -> None:
        if event.table_id == self.table_id and self.is_mounted:
            self.query_one("#body", Static).update(self._content())

    def action_close(self) -> None:
        self.dismiss()
