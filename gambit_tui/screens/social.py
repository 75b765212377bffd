"""Friends and what waits for an answer: ask someone to be friends, end a friendship, accept
or decline a friend request or an invitation."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from protocol.requests import Friend, Invite

from .. import events
from ..i18n import N_, _
from ..names import game_title
from .base import GambitScreen, while_composed


class SocialScreen(GambitScreen):
    """Two lists side by side; Tab moves between them. Friends need an SSH key (guests are
    told so by the hub); friendship holds once the other player accepts. On the right, friend
    requests and invitations; an accepted invitation seats the player and opens the table."""

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
            # Names are player text: never markup.
            yield OptionList(id="friends", markup=False)
            yield OptionList(id="invites", markup=False)

    def on_mount(self) -> None:
        # (Textual calls GambitScreen.on_mount too: handlers run for every class.)
        self.gapp.send(Friend("list"))

    def setup(self) -> None:
        self.query_one("#friends").border_title = _("Friends")
        self.query_one("#invites").border_title = _("Requests and invitations")
        self.query_one("#friends").focus()

    def status_context(self) -> str:
        return _("Friends and invitations")

    @while_composed
    def refresh_view(self) -> None:
        model = self.gapp.model
        friends = self.query_one("#friends", OptionList)
        was = friends.highlighted or 0
        friends.clear_options()
        if model.friends is None:
            friends.add_option(Option(_("Loading…"), disabled=True))
        elif not model.friends and not model.sent:
            friends.add_option(Option(_("No friends yet: press a to add one."), disabled=True))
        for friend in model.friends or []:
            state = _("online") if friend["online"] else _("offline")
            friends.add_option(
                Option(Text(f"{friend['name']} · {state}"), id=f"f:{friend['name']}")
            )
        for asked in model.sent:
            text = _("{name} · asked, no answer yet").format(name=asked["name"])
            friends.add_option(Option(Text(text), id=f"f:{asked['name']}"))
        _keep_highlight(friends, was)
        invites = self.query_one("#invites", OptionList)
        was = invites.highlighted or 0
        invites.clear_options()
        if not model.invites and not model.requests:
            invites.add_option(Option(_("No invitations."), disabled=True))
        for request in model.requests:
            text = _("{name} asks to be your friend").format(name=request["name"])
            invites.add_option(Option(Text(text), id=f"r:{request['name']}"))
        for invite in model.invites:
            text = _("Table {table} ({game}) from {name}").format(
                table=invite["table"],
                game=game_title(invite.get("game") or ""),
                name=invite.get("from"),
            )
            invites.add_option(Option(Text(text), id=f"i:{invite['table']}"))
        _keep_highlight(invites, was)
        self.refresh_bindings()

    def on_social_changed(self, event: events.SocialChanged) -> None:
        self.refresh_view()

    def _selected(self, list_id: str) -> str | None:
        widget = self.query_one(f"#{list_id}", OptionList)
        if widget.highlighted is None:
            return None
        option = widget.get_option_at_index(widget.highlighted)
        return option.id if option.id else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.query("#friends"):
            return False
        if action == "remove_friend":
            return self._selected("friends") is not None
        if action in ("accept", "decline"):
            return bool(self.gapp.model.invites or self.gapp.model.requests)
        return True

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.refresh_bindings()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "invites":
            self.action_accept()

    def action_add_friend(self) -> None:
        from .pick_player import PickPlayerScreen

        def add(name: str | None) -> None:
            if name:
                self.gapp.send(Friend("add", name=name))

        known = {f["name"] for f in self.gapp.model.friends or []}
        # Guests are not offered: they cannot keep friends (the hub says so to a typed name).
        self.app.push_screen(PickPlayerScreen(_("Add a friend"), known, guests=False), add)

    def action_remove_friend(self) -> None:
        chosen = self._selected("friends")
        if chosen:
            self.gapp.send(Friend("remove", name=chosen.split(":", 1)[1]))

    def _answerable(self) -> str | None:
        """The highlighted request or invitation, else the first one."""
        chosen = self._selected("invites")
        if chosen is None:
            pending = self.gapp.model.pending()
            if not pending:
                return None
            kind, key = pending[0]
            chosen = f"r:{key}" if kind == "friend" else f"i:{key}"
        return chosen

    def _answer(self, accept: bool) -> None:
        chosen = self._answerable()
        if chosen is None:
            return
        kind, key = chosen.split(":", 1)
        op = "accept" if accept else "decline"
        if kind == "r":
            self.gapp.model.forget_request(key)
            self.gapp.withdraw_answered()
            self.gapp.send(Friend(op, name=key))
            self.refresh_view()
            return
        table = int(key)
        self.gapp.model.forget_invite(table)
        self.gapp.withdraw_answered()
        if accept:
            self.gapp.dismissed.discard(table)
        self.gapp.send(Invite(op, table))
        if accept:
            self.dismiss()
        else:
            self.refresh_view()

    def action_accept(self) -> None:
        self._answer(True)

    def action_decline(self) -> None:
        self._answer(False)

    def action_close(self) -> None:
        self.dismiss()


def _keep_highlight(options: OptionList, index: int) -> None:
    """Highlight the row the player was on (or the last), so its keys work at once."""
    count = options.option_count
    if count and not options.get_option_at_index(0).disabled:
        options.highlighted = min(index, count - 1)
