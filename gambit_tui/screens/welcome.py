"""Welcome: choose the name others see and your language, then enter the lobby."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Button, Input, Label, Select, Static

from protocol.requests import Profile

from ..i18n import LANGUAGES, N_, _
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
    WelcomeScreen #motd {
        color: $accent;
        text-style: bold;
        margin-bottom: 1;
    }
    WelcomeScreen Label {
        margin-top: 1;
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
            motd = str(self.gapp.model.server.get("motd") or "").strip()
            if motd:  # the server's admins' message of the day, as they wrote it
                yield Static(Text(motd), id="motd")
            yield Label(_("Your name"))
            yield LineInput(self.gapp.model.name, id="name", max_length=24, compact=True)
            yield Label(_("Language"))
            yield Select(
                [(title, code) for code, title in LANGUAGES.items()],
                value=self.gapp.lang if self.gapp.lang in LANGUAGES else "en",
                allow_blank=False,
                id="lang",
                compact=True,
            )
            yield Button(_("Enter the lobby"), id="go", compact=True, variant="primary")

    def setup(self) -> None:
        self.query_one("#welcome").border_title = _("Gambit")
        self.query_one("#name", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "enter_lobby":
            # Let an open language list take Enter for itself.
            selects = self.query("#lang").results(Select)
            return not any(select.expanded for select in selects)
        return True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_enter_lobby()

    def action_enter_lobby(self) -> None:
        """Send any changed name or language, then show the lobby."""
        from .lobby import LobbyScreen

        if not self.query("#name"):
            # Enter typed ahead of the screen (a busy server): done once the form is there.
            if self.is_attached:
                self.call_after_refresh(self.action_enter_lobby)
            return
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
        self.app.switch_screen(LobbyScreen())
