"""The lobby: every table, who is online, lobby chat; create, join, watch, fill with bots."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.widgets import DataTable

from protocol.requests import AddBot, Chat, Join, LobbyWatch, Spectate, Start

from .. import events
from ..i18n import N_, _, ngettext
from ..names import (
    LEVEL_CYCLE,
    access_label,
    favoured_choice_label,
    game_title,
    option_label,
    seat_name,
    status_label,
)
from ..widgets.chat_panel import ChatPanel
from ..widgets.text_lines import TextPanel, retitle
from .base import GambitScreen, while_composed

#: The list's columns after the number, in the order of a row's cells.
_CELL_COLUMNS = ("game", "seats", "stake", "access", "status")


class OnlinePanel(TextPanel):
    """The players online, their number in the border's title. Players come and go all the
    time, and every lobby on the server shows the number: a new one draws the top row again,
    not the whole panel (``retitle``: Textual repaints a whole widget when its title is set)."""


class LobbyScreen(GambitScreen):
    """Tables on the left (the selected one described below them), players online on the
    right, lobby chat at the bottom. Keys act on the selected table."""

    ESCAPE_TO: ClassVar[str] = "lobby"
    DEFAULT_CSS = """
    LobbyScreen #main {
        height: 1fr;
    }
    LobbyScreen #tables {
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $foreground;
    }
    LobbyScreen #tables:focus {
        border: round $accent;
    }
    LobbyScreen #detail {
        height: 3;
        padding: 0 1;
        color: $text-muted;
    }
    LobbyScreen #online {
        width: 18;
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $foreground;
        padding: 0 1;
    }
    LobbyScreen ChatPanel {
        height: 7;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_table", N_("New")),
        # Join a table one does not sit at (or take back a seat a bot plays for one) ...
        Binding("j", "join", N_("Join")),
        # ... and at one's own table, o (or j) goes back to it: offered only there.
        Binding("o,j", "open", N_("Open"), key_display="o"),
        Binding("w", "watch", N_("Watch")),
        Binding("b", "add_bot", N_("Bot")),
        # Not in the footer: the README and each table's row (every bot with its level) say
        # what e does.
        Binding("e", "bot_level", N_("Bot level"), show=False),
        Binding("s", "start", N_("Start")),
        Binding("f", "social", N_("Friends")),
        Binding("h", "history", N_("History")),
        Binding("l", "leaderboard", N_("Leaderboards")),
        # Game nights: rounds the hub seats, standings.
        Binding("v", "nights", N_("Events")),
        # The profiles of the players online (also from the leaderboard, a table, Your games).
        Binding("p", "players", N_("Players")),
        Binding("c", "chat", N_("Chat")),
        Binding("comma", "settings", N_("Settings")),
        Binding("A", "admin", N_("Admin")),
        Binding("q", "app.quit", N_("Quit")),
        Binding("escape", "leave_chat", N_("Tables"), show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        #: The rows the tables' list shows (it is rebuilt only when they change).
        self._rows: list[tuple[Any, ...]] | None = None
        #: What the players panel, the description and the footer's keys were made from
        #: (the model's own objects: a lobby update replaces what it changes). Players coming
        #: and going change only the number online in every lobby: that must draw only it.
        self._online_of: tuple[Any, ...] | None = None
        self._described: tuple[Any, ...] | None = None
        #: Whether the hub sends us lobby updates (it does from hello on).
        self._watching = True

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical():
                yield DataTable(id="tables", cursor_type="row", zebra_stripes=False)
                yield TextPanel(id="detail", wrap=True)
            yield OnlinePanel(id="online", wrap=True)
        yield ChatPanel(id="chat", title=_("Lobby chat"), max_length=self._chat_max())

    def _chat_max(self) -> int:
        return int(self.gapp.model.server.get("chat_max", 500))

    def setup(self) -> None:
        # A freshly composed list shows nothing yet.
        self._rows = self._online_of = self._described = None
        table = self.query_one("#tables", DataTable)
        table.border_title = _("Tables")
        table.add_column(_("#"), key="id")
        table.add_column(_("Game"), key="game")
        table.add_column(_("Seats"), key="seats")
        table.add_column(_("Stake"), key="stake")
        table.add_column(_("Who may join"), key="access")
        table.add_column(_("Status"), key="status")
        self.query_one("#online").border_title = _("Online")
        self.query_one(ChatPanel).show_lines(self.gapp.model.chat_lines("lobby"))
        table.focus()

    def on_mount(self) -> None:
        # (Textual calls GambitScreen.on_mount too: handlers run for every class.)
        # Back after a dropped connection: the hub has already sent the tables we sit at.
        self.call_after_refresh(self._reopen_seated)

    def _reopen_seated(self) -> None:
        for table_id in self.gapp.model.seated_tables():
            if table_id not in self.gapp.dismissed:
                self.gapp.open_table(table_id)

    def status_context(self) -> str:
        return _("Lobby")

    # --- showing the model ---------------------------------------------------------------------

    @while_composed
    def refresh_view(self) -> None:
        self._fill_titles()
        self._fill_tables()
        self._fill_online()
        info = self.selected
        described = (info, self.gapp.model.my_seat(info["id"]) if info else None)
        if described != self._described or described[0] is not self._described[0]:
            # The selected table changed (or another is selected): its description and the
            # keys that act on it (the footer asks every key again) are made anew.
            self._described = described
            self._fill_detail()
            self.refresh_bindings()

    def _fill_titles(self) -> None:
        """The totals, where the hub lists only some: "Tables (50 of 812)", "Online (340)"."""
        model = self.gapp.model
        shown, total = len(model.tables), max(model.tables_total, len(model.tables))
        tables = self.query_one("#tables", DataTable)
        # (Only when they change: Textual draws a widget whole whenever its title is set.)
        if total > shown:
            retitle(tables, _("Tables ({shown} of {total})").format(shown=shown, total=total))
        else:
            retitle(tables, _("Tables"))
        online = max(model.online, len(model.players))
        retitle(self.query_one("#online", OnlinePanel), _("Online ({n})").format(n=online))

    def _fill_tables(self) -> None:
        rows = []
        for info in sorted(self.gapp.model.tables.values(), key=lambda t: t["id"]):
            taken = sum(1 for s in info["seats"] if s["name"] or s["bot"])
            mine = any(s["name"] == self.gapp.model.name for s in info["seats"])
            rows.append(
                (
                    info["id"],
                    mine,
                    game_title(info["game"]),
                    f"{taken}/{info['players']}",
                    str(info["stake"]),
                    access_label(info["access"]),
                    # Between two deals the game goes on: said so at the table, not here (the
                    # rows of the list changed at every table's every deal, and every player
                    # in the lobby had the list drawn again).
                    status_label("playing" if info["status"] == "between" else info["status"]),
                )
            )
        if rows == self._rows:
            return  # players came or went: the tables are as they were
        old, self._rows = self._rows, rows
        table = self.query_one("#tables", DataTable)
        if old is not None and table.rows and self._changed_in_place(table, old, rows):
            return
        keep = self.selected_id
        table.clear()
        for table_id, mine, *cells in rows:
            table.add_row(
                Text(str(table_id), style="bold" if mine else ""), *cells, key=str(table_id)
            )
        if keep is not None and str(keep) in table.rows:
            table.move_cursor(row=table.get_row_index(str(keep)))
        if not table.rows:
            self._show_detail(_("No tables yet. Press n to open one and fill it with bots."))

    def _changed_in_place(
        self, table: DataTable, old: list[tuple[Any, ...]], rows: list[tuple[Any, ...]]
    ) -> bool:
        """Change the list row by row, if the change allows: cells that changed (a deal began,
        a seat filled), tables gone, new tables after the others. False when the list must be
        made again (a table came in between others). Clearing and filling the list laid out
        and drew it whole for everyone in the lobby, at every table's every deal, and at every
        table opened or closed anywhere on the server."""
        before = {r[0]: r for r in old}
        after_ids = [r[0] for r in rows]
        kept = [i for i in after_ids if i in before]
        added = [r for r in rows if r[0] not in before]
        if added and kept and added[0][0] < kept[-1]:
            return False  # a row would have to go in between: add_row only appends
        keep = self.selected_id
        now = set(after_ids)
        for table_id in before:
            if table_id not in now:
                table.remove_row(str(table_id))
        for row in rows:
            if row[0] in before and before[row[0]] != row:
                self._update_row(table, before[row[0]], row)
        for table_id, mine, *cells in added:
            table.add_row(
                Text(str(table_id), style="bold" if mine else ""), *cells, key=str(table_id)
            )
        if keep is not None and str(keep) in table.rows:
            table.move_cursor(row=table.get_row_index(str(keep)))
        if not table.rows:
            self._show_detail(_("No tables yet. Press n to open one and fill it with bots."))
        return True

    @staticmethod
    def _update_row(table: DataTable, before: tuple[Any, ...], after: tuple[Any, ...]) -> None:
        table_id, mine, *cells = after
        key = str(table_id)
        if before[1] != mine:
            table.update_cell(key, "id", Text(key, style="bold" if mine else ""))
        for column, old, new in zip(_CELL_COLUMNS, before[2:], cells, strict=True):
            if old != new:
                table.update_cell(key, column, new, update_width=len(new) > len(old))

    def _fill_online(self) -> None:
        model = self.gapp.model
        waiting = len(model.pending())
        made_of = (model.players, waiting, model.name)
        if self._online_of is not None and all(
            a is b or a == b for a, b in zip(made_of, self._online_of, strict=True)
        ):
            return
        self._online_of = made_of
        out = Text()
        if waiting:
            out.append(
                ngettext(
                    "{n} invitation or request (^r)", "{n} invitations or requests (^r)", waiting
                ).format(n=waiting),
                style="bold",
            )
        for player in self.gapp.model.players:
            if out:
                out.append("\n")
            out.append(
                player["name"], style="bold" if player["name"] == self.gapp.model.name else ""
            )
            if player.get("guest"):
                out.append(" " + _("(guest)"), style="dim")
        self.query_one("#online", TextPanel).text = out

    def _fill_detail(self) -> None:
        info = self.selected
        if info is None:
            return
        seats = ", ".join(seat_name(s, level=True) for s in info["seats"])
        parts = [
            _("Table {id}, opened by {owner}.").format(id=info["id"], owner=info["owner"]),
            _("Seats: {seats}.").format(seats=seats),
        ]
        details = []
        specs = (self.gapp.model.game_info(info["game"]) or {}).get("options") or {}
        for name, value in sorted((info.get("options") or {}).items()):
            favours = (specs.get(name) or {}).get("favours")
            details.append(f"{option_label(name)}: {favoured_choice_label(value, favours)}")
        if info.get("timer"):
            details.append(_("timer {n}s").format(n=int(info["timer"])))
        if info.get("max_rating") is not None:
            details.append(_("rating ≤ {n}").format(n=info["max_rating"]))
        if info.get("duplicate"):
            # A new table of this name is dealt the same cards (the new-table form).
            details.append(
                _("duplicate set {name}, game {game}").format(
                    name=info["duplicate"], game=info.get("games_played", 0) + 1
                )
            )
        if info.get("spectators"):
            details.append(
                ngettext("{n} watching", "{n} watching", info["spectators"]).format(
                    n=info["spectators"]
                )
            )
        if details:
            parts.append(" · ".join(details))
        self._show_detail("\n".join(parts))

    #: The most lines the description of a table takes (the list above gives them up).
    DETAIL_LINES = (3, 6)

    def _show_detail(self, text: str) -> None:
        """Describe the selected table, the panel as tall as the text needs (a Fortunes table
        with a timer says more than three lines hold, in every language)."""
        panel = self.query_one("#detail", TextPanel)
        panel.text = Text(text)
        self._fit_detail()

    def _fit_detail(self) -> None:
        panel = self.query_one("#detail", TextPanel)
        width = panel.content_size.width
        if width <= 0:
            return
        least, most = self.DETAIL_LINES
        lines = len(panel.text.wrap(self.app.console, width))
        height = min(max(least, lines), most)
        if panel.styles.height is None or panel.styles.height.value != height:
            panel.styles.height = height

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_detail)

    # --- events ----------------------------------------------------------------------------

    def post_message(self, message: Message) -> bool:
        # A hidden lobby does nothing with these (refresh_if_shown) and catches up when it is
        # on top again (on_screen_resume): it is not even woken for them, under every table
        # at every move.
        if isinstance(message, events.TableUpdated | events.LobbyChanged) and not self.is_current:
            return True
        return super().post_message(message)

    def on_lobby_changed(self, event: events.LobbyChanged) -> None:
        self.refresh_if_shown()

    def on_table_updated(self, event: events.TableUpdated) -> None:
        self.refresh_if_shown()

    def refresh_if_shown(self) -> None:
        """Rebuild only while the lobby is on screen; under a table it catches up on resume.

        Under load, rebuilding hidden lobbies on every update was half the server's CPU.
        """
        if self.is_current:
            self.refresh_view()

    @while_composed
    def on_chat_arrived(self, event: events.ChatArrived) -> None:
        if event.key == "lobby":
            self.query_one(ChatPanel).add_line(event.line)

    @while_composed
    def on_social_changed(self, event: events.SocialChanged) -> None:
        if self.is_current:
            self._fill_online()

    def on_chat_panel_send(self, event: ChatPanel.Send) -> None:
        if event.text.startswith("/"):
            self.gapp.chat_command(event.text, "lobby")
            return
        self.gapp.send(Chat("lobby", event.text))

    @while_composed
    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._fill_detail()
        self.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if self.check_action("open", ()):
            self.action_open()
        elif self.check_action("join", ()):
            self.action_join()
        elif self.check_action("watch", ()):
            self.action_watch()

    def on_screen_resume(self) -> None:
        if not self._watching:  # back from a table: the hub sends the lobby afresh
            self._watching = self.gapp.send(LobbyWatch(True))
        self.refresh_status()
        self.refresh_view()

    def on_screen_suspend(self) -> None:
        # Under a table, a form or a dialog nobody sees the lobby: it needs no updates.
        if self._watching:
            self._watching = not self.gapp.send(LobbyWatch(False))

    # --- the selected table ----------------------------------------------------------------

    @property
    def selected_id(self) -> int | None:
        try:
            table = self.query_one("#tables", DataTable)
        except NoMatches:  # asked before the screen is composed
            return None
        if not table.rows:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:
            return None
        return int(key.value) if key.value is not None else None

    @property
    def selected(self) -> dict[str, Any] | None:
        table_id = self.selected_id
        return None if table_id is None else self.gapp.model.tables.get(table_id)

    def _seated(self, info: dict[str, Any]) -> bool:
        return self.gapp.model.my_seat(info["id"]) is not None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        info = self.selected
        if action in ("join", "open", "watch", "add_bot", "bot_level", "start"):
            if info is None:
                return False
            seated = self._seated(info)
            free = any(not (s["name"] or s["bot"]) for s in info["seats"])
            waiting = info["status"] == "waiting"
            if action == "join":
                # At one's own table j is o's (the footer offers o, "Open", there); a seat a
                # bot plays while one is away is taken back with j.
                mine = any(s.get("reserved") == self.gapp.model.name for s in info["seats"])
                return not seated and (mine or (waiting and free))
            if action == "open":
                return seated
            if action == "watch":
                return not seated
            if action == "add_bot":
                return seated and waiting and free
            if action == "bot_level":
                return seated and waiting and any(s["bot"] for s in info["seats"])
            if action == "start":
                return seated and waiting and not free
        if action == "admin":
            return bool(self.gapp.model.you.get("admin"))  # (hidden from everyone else)
        return True

    # --- actions -----------------------------------------------------------------------------

    def action_new_table(self) -> None:
        from .create_table import CreateTableScreen

        self.app.push_screen(CreateTableScreen())

    def action_join(self) -> None:
        info = self.selected
        if info is not None and self._seated(info):
            self.action_open()
        elif info is not None:
            self.gapp.dismissed.discard(info["id"])
            self.gapp.send(Join(info["id"]))

    def action_open(self) -> None:
        info = self.selected
        if info is not None:
            self.gapp.open_table(info["id"])

    def action_watch(self) -> None:
        info = self.selected
        if info is not None:
            self.gapp.watching.add(info["id"])
            self.gapp.send(Spectate(info["id"]))

    def action_add_bot(self) -> None:
        info = self.selected
        if info is None:
            return
        free = next((s["seat"] for s in info["seats"] if not (s["name"] or s["bot"])), None)
        if free is not None:
            self.gapp.send(AddBot(info["id"], free))

    def action_bot_level(self) -> None:
        """The selected table's last bot goes to its next level (regular, strong, beginner,
        round again); the table's row lists every bot with its level."""
        info = self.selected
        bots = [s for s in info["seats"] if s["bot"]] if info is not None else []
        if bots and info is not None:
            seat = bots[-1]
            kind = seat["bot"]
            nxt = (
                LEVEL_CYCLE[(LEVEL_CYCLE.index(kind) + 1) % 3]
                if kind in LEVEL_CYCLE
                else "heuristic"
            )
            self.gapp.send(AddBot(info["id"], seat["seat"], kind=nxt))

    def action_start(self) -> None:
        info = self.selected
        if info is not None:
            self.gapp.dismissed.discard(info["id"])
            self.gapp.send(Start(info["id"]))

    def action_social(self) -> None:
        from .social import SocialScreen

        self.app.push_screen(SocialScreen())

    def action_history(self) -> None:
        from .history import HistoryScreen

        self.app.push_screen(HistoryScreen())

    def action_leaderboard(self) -> None:
        from .leaderboard import LeaderboardScreen

        self.app.push_screen(LeaderboardScreen())

    def action_nights(self) -> None:
        from .nights import NightsScreen

        self.app.push_screen(NightsScreen())

    def action_players(self) -> None:
        from .profile import ProfileScreen

        model = self.gapp.model
        names = [model.name] + [p["name"] for p in model.players if p["name"] != model.name]
        self.app.push_screen(ProfileScreen(names))

    def action_admin(self) -> None:
        from .admin import AdminScreen

        self.app.push_screen(AdminScreen())

    def action_settings(self) -> None:
        from .settings import SettingsScreen

        self.app.push_screen(SettingsScreen())

    def action_chat(self) -> None:
        self.query_one(ChatPanel).focus_input()

    def action_leave_chat(self) -> None:
        self.query_one("#tables", DataTable).focus()
