"""Welcome: choose the name others see, your language and (with a key) the plain mode for
screen readers, then enter the lobby."""

from __future__ import annotations

import unicodedata
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Button, Input, Label, Select, Static

from protocol.requests import Profile

from .. import events
from ..i18n import LANGUAGES, N_, _
from ..refusals import server_text
from ..widgets.line_input import LineInput
from .base import GambitScreen


class WelcomeScreen(GambitScreen):
    """Shown once per connection. Returning players find their remembered name filled in."""

    DEFAULT_CSS = """
    WelcomeScreen {
        align: center middle;
    }
    WelcomeScreen #welcome {
        width: 60;
        height: auto;
        border: round $accent;
        padding: 1 2;
    }
    WelcomeScreen #intro {
        margin-bottom: 1;
    }
    WelcomeScreen #native {
        color: $text-muted;
        margin-bottom: 1;
    }
    WelcomeScreen #motd {
        color: $accent;
        text-style: bold;
        margin-bottom: 1;
    }
    WelcomeScreen Label {
        margin-top: 1;
    }
    WelcomeScreen #name-error {
        color: $error;
        display: none;
    }
    WelcomeScreen #name-error.-shown {
        display: block;
    }
    WelcomeScreen Button {
        margin-top: 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "enter_lobby", N_("Enter the lobby"), priority=True),
        Binding("ctrl+q", "app.quit", N_("Quit")),
    ]

    def compose_body(self) -> ComposeResult:
        with Vertical(id="welcome"):
            yield Static(
                _(
                    "Welcome to Gambit: card games for friends. Choose the name other "
                    "players see and your language."
                ),
                id="intro",
            )
            yield Static(
                _(
                    "Tip: with Gambit installed on your own computer (pipx install "
                    "gambit-tables), 'gambit connect' plays from there."
                ),
                id="native",
            )
            motd = str(self.gapp.model.server.get("motd") or "").strip()
            if motd:  # the server's admins' message of the day, as they wrote it
                yield Static(Text(motd), id="motd")
            yield Label(_("Your name"))
            yield LineInput(self.gapp.model.name, id="name", max_length=24, compact=True)
            yield Static(id="name-error")
            yield Label(_("Language"))
            yield Select(
                [(title, code) for code, title in LANGUAGES.items()],
                value=self.gapp.lang if self.gapp.lang in LANGUAGES else "en",
                allow_blank=False,
                id="lang",
                compact=True,
            )
            if not self.gapp.model.you.get("guest"):  # (a guest's settings end with them)
                yield Label(_("Plain mode for screen readers"))
                yield Select(
                    [(_("no"), False), (_("yes"), True)],
                    value=self.gapp.prefs.plain,
                    allow_blank=False,
                    id="plain",
                    compact=True,
                )
            yield Button(_("Enter the lobby"), id="go", compact=True, variant="primary")

    #: The name sent and not yet answered: the form stays until the hub takes it (a name
    #: can be refused: taken by someone online or registered to another key).
    awaiting_name: str | None = None

    def setup(self) -> None:
        self.query_one("#welcome").border_title = _("Gambit")
        self.query_one("#name", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "enter_lobby":
            # Let an open list take Enter for itself.
            selects = self.query("#lang, #plain").results(Select)
            return not any(select.expanded for select in selects)
        return True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_enter_lobby()

    def action_enter_lobby(self) -> None:
        """Send any changed name or language, then show the lobby."""
        if not self.query("#name"):
            # Enter typed ahead of the screen (a busy server): done once the form is there.
            if self.is_attached:
                self.call_after_refresh(self.action_enter_lobby)
            return
        if self.awaiting_name is not None:
            return  # the name sent is not answered yet
        # Enter is a priority key: it comes here before the name field has handled the keys
        # typed just ahead of it. Read the name once it has.
        self.query_one("#name", LineInput).after_typed(self._send_profile)

    def _send_profile(self) -> None:
        """Send the name and language as the form has them, or go to the lobby."""
        from .lobby import LobbyScreen

        if self.awaiting_name is not None or not self.is_current:
            return  # sent already (two Enters in a row), or the lobby is up
        self.query_one("#name-error", Static).remove_class("-shown")
        name = self.query_one("#name", Input).value.strip()
        lang = self.query_one("#lang", Select).value
        message = Profile(
            name=name if name and name != self.gapp.model.name else None,
            lang=lang
            if isinstance(lang, str) and lang != self.gapp.model.you.get("lang")
            else None,
        )
        if message != Profile():
            self.gapp.send(message)
        self._keep_plain()
        if message.name is not None:
            self.awaiting_name = _folded(message.name)
            return  # to the lobby once the hub takes the name (on_you_changed)
        self.app.switch_screen(LobbyScreen())

    def _keep_plain(self) -> None:
        """The plain mode chosen here is kept with the key, as Settings keeps it (issue 44):
        the SSH host starts it from the player's next connection."""
        chosen = [s.value for s in self.query("#plain").results(Select)]
        if not chosen or chosen[0] == self.gapp.prefs.plain:
            return
        prefs = self.gapp.prefs.with_(plain=bool(chosen[0]))
        # (the prefs alone: the language chosen in the form was sent just before)
        self.gapp.send(Profile(prefs=prefs.to_wire()))
        if prefs.plain:
            self.gapp.notify(
                _("Settings saved. The plain mode starts when you next connect with this key.")
            )

    def on_you_changed(self, event: events.YouChanged) -> None:
        super().on_you_changed(event)
        if self.awaiting_name is not None and _folded(self.gapp.model.name) == self.awaiting_name:
            from .lobby import LobbyScreen

            self.awaiting_name = None
            self.app.switch_screen(LobbyScreen())

    def take_refusal(self, message: dict[str, Any]) -> bool:
        """The hub refused the name (or the language sent with it): say why under the name,
        and keep the form open to choose another."""
        if self.awaiting_name is None or message.get("ref") != "profile":
            return False
        self.awaiting_name = None
        line = self.query_one("#name-error", Static)
        line.update(Text("✗ " + server_text(message, _("The server refused."))))
        line.add_class("-shown")
        self.query_one("#name", Input).focus()
        return True


def _folded(name: str) -> str:
    """A name as the hub compares it (``clean_name``): NFC, spaces collapsed, any case."""
    return " ".join(unicodedata.normalize("NFC", name).split()).casefold()
