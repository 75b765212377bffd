"""Friends and invitations: add or remove friends, accept or decline an invitation."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from .. import events
from ..i18n import N_, _
from ..names import game_title
from .base import GambitScreen, while_composed


class SocialScreen(GambitScreen):
    """Two lists side by side; Tab moves between them. Friends need an SSH key (guests are
    told so by the hub); an accepted invitation seats the player and opens the table."""

    DEFAULT_CSS = """
    SocialScreen #lists {
        height: 1fr;
    }
    SocialScreen OptionList {
        width: 1fr;
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $foreground;
    }
    SocialScreen OptionList:focus {
        border: round $accent;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add_friend", N_("Add friend")),
        Binding("d", "remove_friend", N_("Remove friend")),
        Binding("y", "accept", N_("Accept")),
        Binding("x", "decline", N_("Decline")),
        Binding("escape", "close", N_("Back")),
    ]

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="lists"):
            yield OptionList(id="friends")
            yield OptionList(id="invites")

    def on_mount(self) -> None:
        # (Textual calls GambitScreen.on_mount too: handlers run for every class.)
        self.gapp.send({"t": "friend", "op": "list"})

    def setup(self) -> None:
        self.query_one("#friends").border_title = _("Friends")
        self.query_one("#invites").border_title = _("Invitations")
        self.query_one("#friends").focus()

    def status_context(self) -> str:
        return _("Friends and invitations")

    @while_composed
    def refresh_view(self) -> None:
        model = self.gapp.model
        friends = self.query_one("#friends", OptionList)
        friends.clear_options()
        if model.friends is None:
            friends.add_option(Option(_("Loading…"), disabled=True))
        elif not model.friends:
            friends.add_option(Option(_("No friends yet: press a to add one."), disabled=True))
        for friend in model.friends or []:
            state = _("online") if friend["online"] else _("offline")
            friends.add_option(Option(f"{friend['name']} · {state}", id=f"f:{friend['name']}"))
        invites = self.query_one("#invites", OptionList)
        invites.clear_options()
        if not model.invites:
            invites.add_option(Option(_("No invitations."), disabled=True))
        for invite in model.invites:
            text = _("Table {table} ({game}) from {name}").format(
                table=invite["table"],
                game=game_title(invite.get("game") or ""),
                name=invite.get("from"),
            )
            invites.add_option(Option(text, id=f"i:{invite['table']}"))
        self.refresh_bindings()

    def on_social_changed(self, event: events.SocialChanged) -> None:
        self.refresh_view()

    def _selected(self, list_id: str) -> str | None:
        widget = self.query_one(f"#{list_id}", OptionList)
        if widget.highlighted is None:
            return None
        option = widget.get_option_at_index(widget.highlighted)
        return option.id.split(":", 1)[1] if option.id else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.query("#friends"):
            return False
        if action == "remove_friend":
            return self._selected("friends") is not None
        if action in ("accept", "decline"):
            return bool(self.gapp.model.invites)
        return True

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.refresh_bindings()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "invites":
            self.action_accept()

    def action_add_friend(self) -> None:
        from .ask_name import AskNameScreen

        def add(name: str | None) -> None:
            if name:
                self.gapp.send({"t": "friend", "op": "add", "name": name})

        self.app.push_screen(AskNameScreen(_("Add a friend")), add)

    def action_remove_friend(self) -> None:
        name = self._selected("friends")
        if name:
            self.gapp.send({"t": "friend", "op": "remove", "name": name})

    def _invite(self) -> int | None:
        table = self._selected("invites")
        if table is None and self.gapp.model.invites:
            return self.gapp.model.invites[0]["table"]
        return int(table) if table else None

    def action_accept(self) -> None:
        table = self._invite()
        if table is None:
            return
        self.gapp.model.forget_invite(table)
        self.gapp.dismissed.discard(table)
        self.gapp.send({"t": "invite", "op": "accept", "table": table})
        self.dismiss()

    def action_decline(self) -> None:
        table = self._invite()
        if table is None:
            return
        self.gapp.model.forget_invite(table)
        self.gapp.send({"t": "invite", "op": "decline", "table": table})
        self.refresh_view()

    def action_close(self) -> None:
        self.dismiss()
