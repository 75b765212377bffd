"""The footer: every key the player can press now, in their language."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from ..i18n import _


class GambitFooter(Footer):
    """Textual's footer, with binding descriptions translated as they are shown.

    Bindings are class attributes, written once in English (marked with ``N_``); translating
    here means one footer works for every player's language in the same process.
    """

    DEFAULT_CSS = """
    GambitFooter {
        background: $panel;
    }
    """

    def __init__(self) -> None:
        super().__init__(compact=True, show_command_palette=False)

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.description:
                widget.description = _(widget.description)
            yield widget
