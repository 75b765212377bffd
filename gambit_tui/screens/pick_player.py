"""Choose a player: from one's friends and the players online, or by typing a name (to invite
someone to a table, or to ask them to be friends)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from protocol.requests import Friend, LobbyWatch

from .. import events
from ..i18n import N_, _
from ..widgets.line_input import LineInput
from .base import GambitModal


class PickPlayerScreen(GambitModal):
    """Returns the name chosen (Enter on the list, or Enter on a typed name) or None
    (Escape) through ``dismiss``. Typing narrows the list; ↓ goes down into it.

    The list is the app's model: friends (asked for afresh) and the players online, whom the
    hub sends only to a client that shows the lobby, so this dialog watches the lobby while it
    is open."""

    DEFAULT_CSS = """
    PickPlayerScreen #people {
        height: auto;
        max-height: 12;
        border: none;
        padding: 0;
    }
    PickPlayerScreen #people:focus > .option-list--option-highlighted {
        text-style: bold reverse;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", N_("Cancel")),
        Binding("down", "to_list", N_("Pick from the list"), key_display="↓"),
    ]

    def __init__(
        self, title: str, leave_out: set[str] | None = None, *, guests: bool = True
    ) -> None:
        super().__init__()
        self._title = title
        self._leave_out = {n.casefold() for n in leave_out or set()}
        #: Whether guests online are offered (not as friends: a guest cannot keep any).
        self._guests = guests

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="dialog", id="pick"):
            yield Label(_("Type a name, or pick a friend or a player online"))
            yield LineInput(id="name", max_length=24, compact=True)
            yield OptionList(id="people", markup=False)  # names: plain text

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#pick").border_title = self._title
        self.query_one("#name", Input).focus()
        self.refresh_bindings()
        self.gapp.send(Friend("list"))
        self._watching = self.gapp.send(LobbyWatch(True))
        self.fill()

    def on_unmount(self) -> None:
        if self._watching:
            self.gapp.send(LobbyWatch(False))

    def candidates(self) -> list[tuple[str, str]]:
        """``(name, what they are)``: friends online, other players online, friends away."""
        model = self.gapp.model
        me = model.name.casefold()
        friends = model.friends or []
        friend_names = {f["name"].casefold() for f in friends}
        out = [(f["name"], _("friend, online")) for f in friends if f["online"]]
        out += [
            (p["name"], _("online"))
            for p in model.players
            if p["name"].casefold() not in friend_names and (self._guests or not p.get("guest"))
        ]
        out += [(f["name"], _("friend, away")) for f in friends if not f["online"]]
        return [(n, what) for n, what in out if n.casefold() not in self._leave_out | {me}]

    def fill(self) -> None:
        typed = self.query_one("#name", Input).value.strip().casefold()
        people = self.query_one("#people", OptionList)
        people.clear_options()
        shown = [(n, what) for n, what in self.candidates() if typed in n.casefold()]
        for name, what in shown:
            people.add_option(Option(Text(f"{name} · {what}"), id=name))  # names: not markup
        if not shown:
            people.add_option(Option(_("Nobody to pick: type a name."), disabled=True))

    def on_input_changed(self, event: Input.Changed) -> None:
        self.fill()

    def on_lobby_changed(self, event: events.LobbyChanged) -> None:
        self.fill()

    def on_social_changed(self, event: events.SocialChanged) -> None:
        self.fill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_to_list(self) -> None:
        people = self.query_one("#people", OptionList)
        if people.option_count and not people.get_option_at_index(0).disabled:
            people.focus()
            people.highlighted = 0

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "to_list":
            return isinstance(self.focused, Input)
        return True

    def action_cancel(self) -> None:
        self.dismiss(None)
