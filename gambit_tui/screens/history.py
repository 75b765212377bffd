"""Your games: finished games newest first, a page at a time (Home and End: the newest and the
oldest page, for a history of hundreds), by game, with a leaderboard.

The hub lists only games that have ended, so nothing here can show a running game's cards.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from protocol.requests import History, Leaderboard

from .. import events
from ..i18n import N_, _, ngettext
from ..names import game_title
from ..widgets.text_lines import TextPanel
from .base import GambitScreen, while_composed

#: The filter cycles through every game, then all of them again (None).
FILTERS: tuple[str | None, ...] = (None, "prophets_gambit", "prophet", "fortunes")


def _signed(value: int | None) -> str:
    return "–" if value is None else f"{value:+d}"


class HistoryScreen(GambitScreen):
    """A list of games above; below it, for one game, its leaderboard."""

    DEFAULT_CSS = """
    HistoryScreen #games {
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $foreground;
    }
    HistoryScreen #board {
        height: 8;
        border: round $primary 50%;
        border-title-color: $foreground;
        padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "page(1)", N_("Older")),
        Binding("left", "page(-1)", N_("Newer")),
        # (the list of games has keys of its own for these: the pages' come first)
        Binding("pagedown", "page(1)", N_("Older"), show=False, priority=True),
        Binding("pageup", "page(-1)", N_("Newer"), show=False, priority=True),
        Binding("home", "page_to(0)", N_("Newest"), priority=True),
        Binding("end", "page_to(-1)", N_("Oldest"), priority=True),
        Binding("enter", "open", N_("Replay")),
        Binding("g", "filter", N_("Game")),
        Binding("p", "players", N_("Players")),
        Binding("escape", "close", N_("Back")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.page = 0
        self.filter: str | None = None

    def compose_body(self) -> ComposeResult:
        yield DataTable(id="games", cursor_type="row", zebra_stripes=False)
        yield TextPanel(id="board", wrap=True)

    def setup(self) -> None:
        table = self.query_one("#games", DataTable)
        for label in (_("Game"), _("Date"), _("Players"), _("Place"), _("Chips"), _("Rating")):
            table.add_column(label)
        table.focus()

    def on_mount(self) -> None:
        self._ask()

    def status_context(self) -> str:
        return _("Your games")

    def _ask(self) -> None:
        self.gapp.send(History(game=self.filter, page=self.page))
        if self.filter is not None:
            self.gapp.send(Leaderboard(self.filter))

    @while_composed
    def refresh_view(self) -> None:
        page = self.gapp.model.history
        table = self.query_one("#games", DataTable)
        table.clear()
        games = page.get("games", []) if page else []
        for game in games:
            table.add_row(*self._row(game))
        title = (
            _("Your games") + " · " + (game_title(self.filter) if self.filter else _("All games"))
        )
        if page is not None:
            title += " · " + _("page {page} of {pages}").format(
                page=page["page"] + 1, pages=page["pages"]
            )
        table.border_title = title
        board = self.query_one("#board", TextPanel)
        board.border_title = _("Leaderboard")
        board.text = "\n".join(self._board_lines(page, games))
        self.refresh_bindings()

    def _row(self, game: dict[str, Any]) -> tuple[str | Text, ...]:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(game["finished"]))
        names = [name or _("Bot") for name in game["players"]]
        place = "–" if game["place"] is None else f"{game['place']}/{len(names)}"
        return (
            game_title(game["game"]),
            when,
            Text(", ".join(names)),  # player text: a DataTable reads a str cell as markup
            place,
            _signed(game["chips"]),
            _signed(game["rating_change"]),
        )

    def _board_lines(self, page: dict[str, Any] | None, games: list[Any]) -> list[str]:
        lines = []
        if page is not None and not games:
            lines.append(_("No finished games yet."))
        if self.filter is None:
            lines.append(_("Press g to choose a game and see its leaderboard."))
            return lines
        board = self.gapp.model.leaderboards.get(self.filter)
        if board is None:
            return [*lines, _("Loading…")]
        lines.append(
            ngettext(
                "{game}: players with at least {n} game",
                "{game}: players with at least {n} games",
                board["min_games"],
            ).format(game=game_title(self.filter), n=board["min_games"])
        )
        if not board["rows"]:
            lines.append(_("No one has played enough games yet."))
        for place, row in enumerate(board["rows"], start=1):
            lines.append(
                ngettext(
                    "{place}. {name}: {rating} ({games} game)",
                    "{place}. {name}: {rating} ({games} games)",
                    row["games"],
                ).format(place=place, name=row["name"], rating=row["rating"], games=row["games"])
            )
        return lines

    def on_history_arrived(self, event: events.HistoryArrived) -> None:
        page = self.gapp.model.history
        if page is not None:
            self.page = page["page"]
        self.refresh_view()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        page = self.gapp.model.history
        if action in ("open", "players"):
            return bool(page and page.get("games"))
        if action == "page" and page is not None:
            by = parameters[0]  # (the binding's: a number of pages)
            target = self.page + (by if isinstance(by, int) else 0)
            return 0 <= target < page["pages"]
        if action == "page_to" and page is not None:
            return self._page_to(parameters[0], page["pages"]) != self.page
        return True

    @staticmethod
    def _page_to(which: object, pages: int) -> int:
        """The page a ``page_to`` binding names (0: the newest; -1: the oldest)."""
        return pages - 1 if which == -1 else 0

    def action_page(self, delta: int) -> None:
        self.page = max(0, self.page + delta)
        self._ask()

    def action_page_to(self, which: int) -> None:
        page = self.gapp.model.history
        self.page = self._page_to(which, page["pages"] if page else 1)
        self._ask()

    def action_filter(self) -> None:
        self.filter = FILTERS[(FILTERS.index(self.filter) + 1) % len(FILTERS)]
        self.page = 0
        self._ask()

    def action_open(self) -> None:
        """Step through the game under the cursor, from the player's own seat."""
        page = self.gapp.model.history
        games = page.get("games", []) if page else []
        row = self.query_one("#games", DataTable).cursor_row
        if 0 <= row < len(games):
            game = games[row]
            self.gapp.open_replay(game["game"], game["id"], game.get("seat"))

    def action_players(self) -> None:
        """The profiles of the selected game's players (bots have none)."""
        from .profile import ProfileScreen

        page = self.gapp.model.history
        games = page.get("games", []) if page else []
        row = self.query_one("#games", DataTable).cursor_row
        if 0 <= row < len(games):
            names = [name for name in games[row]["players"] if name]
            self.app.push_screen(ProfileScreen(names))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_close(self) -> None:
        self.dismiss()
