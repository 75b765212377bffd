"""The leaderboards, from the lobby: per game, the best rated players among those who finished
enough games of it. Enter opens a player's profile."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from protocol.requests import Leaderboard

from .. import events
from ..i18n import N_, _, ngettext
from ..names import game_title
from ..widgets.text_lines import TextPanel
from .base import GambitScreen, while_composed

GAMES = ("prophets_gambit", "prophet", "fortunes")


class LeaderboardScreen(GambitScreen):
    """One game's board at a time; ←→ (or g) go to the next game's."""

    DEFAULT_CSS = """
    LeaderboardScreen #board {
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $foreground;
    }
    LeaderboardScreen #note {
        height: 2;
        padding: 0 1;
        color: $text-muted;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,g", "game(1)", N_("Game"), key_display="←→"),
        Binding("left", "game(-1)", N_("Game"), show=False),
        Binding("enter", "profile", N_("Profile")),
        Binding("escape", "close", N_("Back")),
    ]

    def __init__(self, game: str = GAMES[0]) -> None:
        super().__init__()
        self.game_shown = game if game in GAMES else GAMES[0]

    def compose_body(self) -> ComposeResult:
        yield DataTable(id="board", cursor_type="row", zebra_stripes=False)
        yield TextPanel(id="note", wrap=True)

    def setup(self) -> None:
        table = self.query_one("#board", DataTable)
        for label in (_("#"), _("Name"), _("Rating"), _("Games")):
            table.add_column(label)
        table.focus()

    def on_mount(self) -> None:
        # Only the request: Textual runs this before GambitScreen.on_mount, whose setup()
        # adds the columns and then shows a board the model may already hold (from Your
        # games' g); rows added before the columns exist raise.
        self.gapp.send(Leaderboard(self.game_shown))

    def status_context(self) -> str:
        return _("Leaderboard")

    def _ask(self) -> None:
        self.gapp.send(Leaderboard(self.game_shown))
        self.refresh_view()

    @property
    def board(self) -> dict[str, Any] | None:
        return self.gapp.model.leaderboards.get(self.game_shown)

    @while_composed
    def refresh_view(self) -> None:
        table = self.query_one("#board", DataTable)
        table.clear()
        table.border_title = _("Leaderboard") + " · " + game_title(self.game_shown)
        note = self.query_one("#note", TextPanel)
        board = self.board
        if board is None:
            note.text = _("Loading…")
            return
        for place, row in enumerate(board["rows"], start=1):
            # (A DataTable reads a str cell as markup; a name is player text.)
            table.add_row(str(place), Text(row["name"]), str(row["rating"]), str(row["games"]))
        text = ngettext(
            "Players with at least {n} finished game, best rating first.",
            "Players with at least {n} finished games, best rating first.",
            board["min_games"],
        ).format(n=board["min_games"])
        if not board["rows"]:
            text += " " + _("No one has played enough games yet.")
        note.text = text
        self.refresh_bindings()

    def on_history_arrived(self, event: events.HistoryArrived) -> None:
        self.refresh_view()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "profile":
            return bool(self.board and self.board["rows"])
        return True

    def action_game(self, step: int) -> None:
        self.game_shown = GAMES[(GAMES.index(self.game_shown) + step) % len(GAMES)]
        self._ask()

    def action_profile(self) -> None:
        from .profile import ProfileScreen

        board = self.board
        if not board or not board["rows"]:
            return
        names = [row["name"] for row in board["rows"]]
        row = self.query_one("#board", DataTable).cursor_row
        self.app.push_screen(ProfileScreen(names, names[row] if 0 <= row < len(names) else None))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_profile()

    def action_close(self) -> None:
        self.dismiss()
