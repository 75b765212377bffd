"""Answer an invitation or a friend request from its notice (Ctrl+R), wherever the player is:
no need to go to the Friends screen, nor to leave a table."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from protocol.requests import Friend, Invite

from .. import events
from ..i18n import N_, _, ngettext
from ..names import game_title
from .base import GambitModal


class AnswerScreen(GambitModal):
    """The oldest thing waiting for an answer; after an answer, the next one (the dialog
    closes when none is left). Escape leaves them all for later."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", N_("Accept")),
        Binding("x", "answer(False)", N_("Decline")),
        Binding("escape", "later", N_("Later")),
    ]

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="dialog", id="answer"):
            yield Static(id="question", markup=False)  # it names a player: plain text
            yield Static(id="more", markup=False)

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#answer").border_title = _("Answer")
        self.show_first()

    def on_social_changed(self, event: events.SocialChanged) -> None:
        self.show_first()

    def first(self) -> tuple[str, Any] | None:
        pending = self.gapp.model.pending()
        return pending[0] if pending else None

    def show_first(self) -> None:
        if self.app.screen is not self:
            return  # already answered and closing
        item = self.first()
        if item is None:
            self.dismiss()
            return
        kind, key = item
        if kind == "friend":
            text = _("{name} asks to be your friend.").format(name=key)
        else:
            invite = next(i for i in self.gapp.model.invites if i["table"] == key)
            text = _("{name} invites you to table {table} ({game}).").format(
                name=invite.get("from"), table=key, game=game_title(invite.get("game") or "")
            )
        self.query_one("#question", Static).update(Text(text))  # names are not markup
        more = len(self.gapp.model.pending()) - 1
        self.query_one("#more", Static).update(
            ngettext("{n} more after this one.", "{n} more after this one.", more).format(n=more)
            if more
            else ""
        )

    def action_answer(self, accept: bool) -> None:
        item = self.first()
        if item is None:
            self.dismiss()
            return
        kind, key = item
        model = self.gapp.model
        if kind == "friend":
            model.forget_request(key)
            op = "accept" if accept else "decline"
            self.gapp.send(Friend(op, name=key))
        else:
            model.forget_invite(key)
            if accept:
                self.gapp.dismissed.discard(key)
            op = "accept" if accept else "decline"
            self.gapp.send(Invite(op, key))
        self.gapp.withdraw_answered()  # its notice is done with
        if kind == "invite" and accept:  # the table opens over all, once the hub seats us
            self.dismiss()
            return
        self.show_first()

    def action_later(self) -> None:
        self.dismiss()
