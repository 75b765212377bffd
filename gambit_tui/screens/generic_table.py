"""A plain table for the games whose own screens come later (Prophet, Fortunes): seats, your
hand, the pending question and its legal answers as a list."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from protocol.actions import action_from_wire
from protocol.requests import Act

from ..i18n import N_, _
from ..names import seat_name
from ..widgets.chat_panel import ChatPanel
from .base import while_composed
from .table_base import TABLE_KEYS, TableScreen


def action_label(action: dict[str, Any]) -> str:
    """An action in plain words: its type and its fields ("play AS", "bid 2")."""
    rest = " ".join(str(v) for k, v in action.items() if k != "type")
    return f"{action['type']} {rest}".strip()


class GenericTableScreen(TableScreen, inherit_bindings=False):
    """Enough to play any game the hub serves, by choosing among its legal actions."""

    DEFAULT_CSS = """
    GenericTableScreen.-chat #legal {
        display: none;
    }
    GenericTableScreen #summary {
        height: auto;
        max-height: 9;
        padding: 0 1;
        border: round $primary 50%;
    }
    GenericTableScreen #legal {
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $foreground;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "send_selected", N_("Act")),
        *TABLE_KEYS,
    ]

    def compose_body(self) -> ComposeResult:
        yield Static(id="summary")
        yield OptionList(id="legal", markup=False)
        yield ChatPanel(id="chat", title=_("Table chat"), max_length=self.chat_max)

    @while_composed
    def refresh_view(self) -> None:
        info = self.info
        view = self.view or {}
        lines = Text()
        for seat in info["seats"]:
            marker = "▶ " if seat["seat"] in view.get("waiting", []) else "  "
            lines.append(marker + seat_name(seat))
            if seat["seat"] == self.seat:
                lines.append(" " + _("(you)"), style="dim")
            lines.append("\n")
        if view.get("hand") is not None:
            lines.append(_("Your hand: {cards}").format(cards=" ".join(view["hand"])) + "\n")
        ask = view.get("ask")
        if ask:
            lines.append(_("You must decide: {kind}").format(kind=ask.get("kind")), style="bold")
        elif view.get("over"):
            lines.append(_("The game is over."), style="bold")
        self.query_one("#summary", Static).update(lines)
        legal = self.query_one("#legal", OptionList)
        legal.border_title = _("Your choices")
        legal.clear_options()
        for i, action in enumerate(view.get("legal", [])):
            legal.add_option(Option(action_label(action), id=str(i)))
        if view.get("legal"):
            legal.highlighted = 0
            if not self.chat_open:
                legal.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_send_selected()

    def action_send_selected(self) -> None:
        view = self.view or {}
        legal = self.query_one("#legal", OptionList)
        if legal.highlighted is None or not view.get("legal"):
            return
        action = view["legal"][legal.highlighted]
        self.gapp.send(Act(self.table_id, action_from_wire(action)))
