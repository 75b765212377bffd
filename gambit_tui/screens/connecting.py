"""The first screen, shown until the hub welcomes us."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from ..i18n import _
from ..widgets.too_small import TooSmall


class ConnectingScreen(Screen):
    """A plain waiting message: nothing is known yet, not even the player's name."""

    DEFAULT_CSS = """
    ConnectingScreen Static#connecting {
        width: 100%;
        height: 100%;
        content-align: center middle;
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(_("Connecting to the Gambit server…"), id="connecting")
        yield TooSmall()
