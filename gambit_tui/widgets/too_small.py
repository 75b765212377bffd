"""The message shown instead of a screen when the terminal is below 80×24."""

from __future__ import annotations

from textual.widgets import Static

from ..i18n import _


class TooSmall(Static):
    """Hidden unless the screen carries a ``-narrow`` or ``-short`` breakpoint class (the
    app's CSS shows it and hides everything else): a cut-off card table misleads players."""

    DEFAULT_CSS = """
    TooSmall {
        display: none;
        width: 100%;
        height: 100%;
        content-align: center middle;
        text-align: center;
        background: $background;
        color: $warning;
    }
    """

    def on_mount(self) -> None:
        self.update(
            _("The terminal is too small.\nGambit needs at least 80 × 24; please enlarge it.")
        )
