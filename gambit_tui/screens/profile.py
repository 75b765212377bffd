"""Players' public profiles: a list of names on the left, the highlighted one's profile on the
right (ratings per game, games played, best results, since when). Opened from the lobby (the
players online), the leaderboard, a table (its seats) and Your games (a game's players)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from protocol.requests import Player

from .. import events
from ..i18n import N_, _
from ..profile_text import profile_lines
from ..widgets.text_lines import TextPanel
from .base import GambitScreen, while_composed


class ProfileScreen(GambitScreen):
    """``names`` to choose from (the first shown, or ``selected``); ↑↓ choose another."""

    DEFAULT_CSS = """
    ProfileScreen #body {
        height: 1fr;
    }
    ProfileScreen #names {
        width: 28;
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $foreground;
    }
    ProfileScreen #names:focus {
        border: round $accent;
    }
    ProfileScreen #profile {
        width: 1fr;
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $foreground;
        padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", N_("Back")),
    ]

    def __init__(self, names: list[str], selected: str | None = None) -> None:
        super().__init__()
        seen: set[str] = set()
        self.names: list[str] = []
        for n in names:  # each name once, the first of those alike but for case
            if n.casefold() not in seen:
                seen.add(n.casefold())
                self.names.append(n)
        self.shown = selected if selected is not None else (self.names[0] if self.names else None)
        #: Names the hub said nobody has.
        self.unknown: set[str] = set()

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield OptionList(id="names", markup=False)  # names: plain text
            yield TextPanel(id="profile", wrap=True)

    def setup(self) -> None:
        names = self.query_one("#names", OptionList)
        names.border_title = _("Players")
        for name in self.names:
            names.add_option(Option(Text(name), id=name))  # a name is not markup
        if not self.names:
            names.add_option(Option(_("Nobody to show."), disabled=True))
        elif self.shown in self.names:
            names.highlighted = self.names.index(self.shown)
        names.focus()

    def on_mount(self) -> None:
        self._ask()

    def status_context(self) -> str:
        return _("Players")

    def _ask(self) -> None:
        if self.shown is not None and self.shown.casefold() not in self.gapp.model.profiles:
            self.gapp.send(Player(self.shown))
        self.refresh_view()

    @while_composed
    def refresh_view(self) -> None:
        panel = self.query_one("#profile", TextPanel)
        panel.border_title = _("Profile")
        if self.shown is None:
            panel.text = ""
            return
        profile = self.gapp.model.profiles.get(self.shown.casefold())
        if profile is not None:
            panel.text = "\n".join(profile_lines(profile))
        elif self.shown in self.unknown:
            panel.text = _("There is no player called {name}.").format(name=self.shown)
        else:
            panel.text = _("Loading…")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None and event.option.id != self.shown:
            self.shown = event.option.id
            self._ask()

    def on_profile_arrived(self, event: events.ProfileArrived) -> None:
        self.refresh_view()

    def on_refused(self, event: events.Refused) -> None:
        if event.ref == "player" and self.shown is not None:
            self.unknown.add(self.shown)
            self.refresh_view()

    def action_close(self) -> None:
        self.dismiss()
