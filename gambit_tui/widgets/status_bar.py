"""The line at the top of every screen: who you are, your chips and rating, and where you are."""

from __future__ import annotations

from typing import Any

from babel.numbers import format_decimal
from rich.text import Text

from ..i18n import _
from ..names import game_short
from .text_lines import TextLines, shown


class StatusBar(TextLines):
    """Always visible, so a player never has to look for their own chips or rating."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        dock: top;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    """

    you: shown[dict[str, Any]] = shown(dict)
    """The ``you`` record from the server (an equal record repaints nothing: the bar is set
    after every move at a table)."""
    game: shown[str | None] = shown(None)
    """The game whose rating to show (None: all of them)."""
    context: shown[str] = shown("")
    """Where the player is, shown on the right."""
    lang: shown[str] = shown("en")
    """Locale for numbers."""
    turn: shown[str] = shown("")
    """The player's turn clock while something covers their table ("" when nothing does);
    shown in place of where they are, which matters less than the seconds left."""

    def build(self) -> Text:
        width = self.size.width - 2
        right = (
            Text(self.turn, style="bold reverse") if self.turn else Text(self.context, style="dim")
        )
        # The ratings give way to where the player is (German and Ukrainian places are long):
        # first their label, then the ratings; a place that still does not fit is cut.
        for detail in ("full", "short", "none"):
            left = self._left(detail)
            if left.cell_len + right.cell_len + 1 <= width:
                break
        space = max(1, width - left.cell_len - right.cell_len)
        if left.cell_len + right.cell_len + 1 > width:
            right.truncate(max(0, width - left.cell_len - 1), overflow="ellipsis")
        return left + Text(" " * space) + right

    def _left(self, ratings_shown: str) -> Text:
        """Name, chips and ratings ("full": with their label, "short": without, "none")."""
        you = self.you or {}
        left = Text()
        left.append(you.get("name", "…"), style="bold")
        chips = you.get("chips")
        if chips is not None:
            left.append(" · ")
            left.append(_("{chips} chips").format(chips=self._num(chips)))
        ratings = you.get("ratings") or {}
        # Each rating named by its game in a word ("Gambit 1,012"): at a table its own, in
        # the lobby every one the player has (a game not yet rated shows none).
        games = ([self.game] if self.game in ratings else []) if self.game else sorted(ratings)
        if games and ratings_shown != "none":
            shown = " ".join(f"{game_short(g)} {self._num(ratings[g])}" for g in games)
            left.append(" · ")
            left.append(
                _("rating {rating}").format(rating=shown) if ratings_shown == "full" else shown
            )
        return left

    def _num(self, value: int) -> str:
        try:
            return format_decimal(value, locale=self.lang)
        except Exception:
            return str(value)
