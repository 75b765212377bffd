"""Game nights, from the lobby (v): the server's events, and the selected one's standings.

Register or withdraw with one key; when a round is seated the hub opens the player's table by
itself, and o goes back to it. The host starts the first round (s), invites players by name
(i: an event for invited players only is for them) or takes an invitation back (u), and makes
a new event (n): a name, then its rules (:class:`NightSetupScreen`)."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.css.query import NoMatches
from textual.markup import escape
from textual.widgets import DataTable

from protocol.fields import ACCESS, NIGHT_FILLS, NIGHT_FORMATS
from protocol.requests import Night

from .. import events
from ..i18n import N_, _
from ..names import access_label, game_title
from ..night_text import about, fill_label, format_label, points, state_label
from ..widgets.text_lines import TextPanel
from .base import GambitModal, GambitScreen, while_composed

#: A cell as shown: plain words, or (player text, its style): player text is never markup.
Cell = str | tuple[str, str]
Row = tuple[Cell, ...]


def _cell(spec: Cell) -> str | Text:
    return Text(spec[0], style=spec[1]) if isinstance(spec, tuple) else spec


def show_rows(table: DataTable, shown: list[Row], rows: list[Row]) -> list[Row]:
    """Show ``rows`` in ``table``, which shows ``shown``, changing only what differs: the
    cells that changed, in place; rows added after the others or taken off the end. Clearing
    the table and filling it again, at every standings message and every second of a
    countdown, put its cursor back on the first row, scrolled it to the top and drew every
    row again. Returns ``rows`` (what it shows now)."""
    for index in range(len(shown) - 1, len(rows) - 1, -1):
        table.remove_row(str(index))
    for index, (old, new) in enumerate(zip(shown, rows, strict=False)):
        for column, (was, now) in enumerate(zip(old, new, strict=True)):
            if was != now:
                table.update_cell_at(Coordinate(index, column), _cell(now), update_width=True)
    for index in range(len(shown), len(rows)):
        table.add_row(*map(_cell, rows[index]), key=str(index))
    return rows


class NightsScreen(GambitScreen):
    """The events on top, the selected event's rules and standings below."""

    ESCAPE_TO: ClassVar[str] = "events"
    DEFAULT_CSS = """
    NightsScreen #nights {
        height: 8;
        border: round $primary 50%;
        border-title-color: $foreground;
    }
    NightsScreen #about {
        height: 2;
        padding: 0 1;
        color: $text-muted;
    }
    NightsScreen #standings {
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $foreground;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "register", N_("Register")),
        Binding("w", "withdraw", N_("Withdraw")),
        Binding("o", "table", N_("Your table")),
        Binding("s", "start", N_("Start round")),
        Binding("n", "new", N_("New event")),
        # The host's keys (an admin's too): shown only to them.
        Binding("p", "pause", N_("Pause")),
        Binding("p", "resume", N_("Resume")),
        Binding("x", "extend", N_("Extend")),
        Binding("i", "invite", N_("Invite")),
        Binding("u", "uninvite", N_("Uninvite")),
        Binding("k", "remove", N_("Remove player")),
        Binding("c", "cancel", N_("Cancel event")),
        Binding("escape", "close", N_("Back")),
    ]

    def __init__(self, select: int | None = None) -> None:
        super().__init__()
        #: The event whose standings the hub sends us.
        self.followed: int | None = None
        #: The event to put the cursor on once listed (an app taking over from another).
        self._select = select
        #: What each table shows (see :func:`show_rows`), and whose standings are shown.
        self._listed: list[Row] = []
        self._standings: list[Row] = []
        self._standings_of: int | None = None

    def compose_body(self) -> ComposeResult:
        yield DataTable(id="nights", cursor_type="row", zebra_stripes=False)
        yield TextPanel(id="about", wrap=True)
        yield DataTable(id="standings", cursor_type="row", zebra_stripes=False)

    def setup(self) -> None:
        nights = self.query_one("#nights", DataTable)
        nights.border_title = _("Events")
        for label in (_("#"), _("Event"), _("Game"), _("Players"), _("State")):
            nights.add_column(label)
        standings = self.query_one("#standings", DataTable)
        standings.border_title = _("Standings")
        for label in (_("Place"), _("Name"), _("Points"), _("Tie-break"), _("Games")):
            standings.add_column(label)
        nights.focus()

    def on_mount(self) -> None:
        self.gapp.send(Night("list"))
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        """The countdown to a next round moves on (nothing else changes by itself)."""
        if any(n.get("next_in") is not None for n in self.gapp.model.nights or []):
            self.refresh_view()

    def status_context(self) -> str:
        return _("Events")

    @property
    def selected(self) -> dict[str, Any] | None:
        """The event under the cursor, as last told (its standings if we follow it)."""
        listed = self.gapp.model.nights or []
        try:
            row = self.query_one("#nights", DataTable).cursor_row
        except NoMatches:  # (recomposing)
            return None
        if not 0 <= row < len(listed):
            return None
        night = listed[row]
        return self.gapp.model.night.get(night["id"], night)

    @while_composed
    def refresh_view(self) -> None:
        table = self.query_one("#nights", DataTable)
        listed = self.gapp.model.nights or []
        received = self.gapp.model.night_received
        now = time.monotonic()
        rows: list[Row] = [
            (
                str(night["id"]),
                (night["name"], ""),
                game_title(night["game"]),
                str(night["registered"]),
                state_label(night, now - received.get(night["id"], now)),
            )
            for night in listed
        ]
        self._listed = show_rows(table, self._listed, rows)
        if self._select is not None and listed:
            ids = [night["id"] for night in listed]
            if self._select in ids:
                table.move_cursor(row=ids.index(self._select))
            self._select = None
        self._show_selected()

    def _show_selected(self) -> None:
        night = self.selected
        note = self.query_one("#about", TextPanel)
        standings = self.query_one("#standings", DataTable)
        shown_of = None if night is None else night["id"]
        if shown_of != self._standings_of:  # (another event's: from the top)
            standings.clear()
            self._standings, self._standings_of = [], shown_of
        if night is None:
            listed = self.gapp.model.nights
            note.text = _("Loading…") if listed is None else _("No events yet; n makes one.")
            self.refresh_bindings()
            return
        if night["id"] != self.followed:
            if self.followed is not None:
                self.gapp.send(Night("unwatch", night=self.followed))
            self.followed = night["id"]
            self.gapp.send(Night("watch", night=night["id"]))
        note.text = about(night)
        rows: list[Row] = []
        for row in night.get("standings", []):
            style = " ".join(
                word for word, on in (("bold", row["you"]), ("strike", row["withdrawn"])) if on
            )
            rows.append(
                (
                    str(row["place"]),
                    (row["name"], style),
                    points(row["points"]),
                    points(row["tiebreak"]),
                    str(row["games"]),
                )
            )
        self._standings = show_rows(standings, self._standings, rows)
        self.refresh_bindings()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "nights":
            self._show_selected()

    def on_nights_changed(self, event: events.NightsChanged) -> None:
        self.refresh_view()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        night = self.selected
        over = night is None or night["status"] in ("finished", "cancelled")
        if action == "register":
            return not over and night is not None and not night["you"]
        if action == "withdraw":
            return not over and night is not None and bool(night["you"])
        if action == "table":
            return night is not None and night.get("table") is not None
        if action == "start":
            return (
                night is not None
                and bool(night.get("hosting"))
                and night["status"] in ("registering", "between")
            )
        if action == "new":
            return not self.gapp.model.you.get("guest")
        if action in ("pause", "resume", "extend", "remove", "cancel", "invite", "uninvite"):
            if over or night is None or not night.get("hosting"):
                return False
            if action in ("pause", "resume"):
                return bool(night.get("paused")) == (action == "resume")
        return True

    def action_register(self) -> None:
        if (night := self.selected) is not None:
            self.gapp.send(Night("register", night=night["id"]))

    def action_withdraw(self) -> None:
        if (night := self.selected) is not None:
            self.gapp.send(Night("withdraw", night=night["id"]))

    def action_start(self) -> None:
        if (night := self.selected) is not None:
            self.gapp.send(Night("start", night=night["id"]))

    def action_pause(self) -> None:
        if (night := self.selected) is not None:
            self.gapp.send(Night("pause", night=night["id"]))

    def action_resume(self) -> None:
        if (night := self.selected) is not None:
            self.gapp.send(Night("resume", night=night["id"]))

    def action_extend(self) -> None:
        """One more round (pressed again, another)."""
        if (night := self.selected) is not None:
            self.gapp.send(Night("extend", night=night["id"], rounds=1))

    def action_remove(self) -> None:
        self._host_op_on_a_name("remove", _("Remove player"), _("The name of the player to remove"))

    def action_invite(self) -> None:
        """A player the host names may register (told so if online)."""
        self._host_op_on_a_name("invite", _("Invite"), _("Name the player to invite."))

    def action_uninvite(self) -> None:
        """The invitation of a player the host names taken back (a registration made with it
        stands: the host removes that with k)."""
        self._host_op_on_a_name(
            "uninvite", _("Uninvite"), _("Name the player whose invitation to take back.")
        )

    def _host_op_on_a_name(self, op: str, title: str, prompt: str) -> None:
        """Ask the host for a player's name, then send ``op`` on the selected event."""
        from .ask_name import AskNameScreen

        night = self.selected
        if night is None:
            return
        ident = night["id"]

        def named(name: str | None) -> None:
            if name:
                self.gapp.send(Night(op, night=ident, player=name))

        self.app.push_screen(AskNameScreen(title, prompt), named)

    def action_cancel(self) -> None:
        from .confirm import ConfirmScreen

        night = self.selected
        if night is None:
            return
        ident = night["id"]
        text = _(
            "No more rounds will be played; the tables of a round under way close and any "
            "chips at stake go back to their players.\n\nCancel the event?"
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.gapp.send(Night("cancel", night=ident))

        self.app.push_screen(ConfirmScreen(_("Cancel event"), text), answered)

    def action_table(self) -> None:
        night = self.selected
        if night is not None and night.get("table") is not None:
            self.gapp.open_table(int(night["table"]))

    def action_new(self) -> None:
        from .ask_name import AskNameScreen

        def named(name: str | None) -> None:
            if name:
                self.app.push_screen(NightSetupScreen(name))

        self.app.push_screen(AskNameScreen(_("New event"), _("The event's name")), named)

    def action_close(self) -> None:
        if self.followed is not None:
            self.gapp.send(Night("unwatch", night=self.followed))
        self.dismiss()


class NightSetupScreen(GambitModal):
    """A new event's rules, one per line: up and down choose the line, left and right change
    it, Enter makes it."""

    DEFAULT_CSS = """
    NightSetupScreen #rules {
        height: 7;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "line(-1)", N_("Line"), key_display="↑↓"),
        Binding("down", "line(1)", N_("Line"), show=False),
        Binding("right", "change(1)", N_("Change"), key_display="←→"),
        Binding("left", "change(-1)", N_("Change"), show=False),
        Binding("enter", "create", N_("Create")),
        Binding("escape", "cancel", N_("Cancel")),
    ]
    #: Round counts offered.
    ROUNDS = tuple(range(1, 10))

    def __init__(self, name: str) -> None:
        super().__init__()
        self.night_name = name
        self.line = 0
        self.values: dict[str, Any] = {
            "game": "prophets_gambit",
            "players": 3,
            "format": "swiss",
            "rounds": 3,
            "fill": "bots",
            "access": "everyone",
        }

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="dialog", id="setup"):
            yield TextPanel(id="rules")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#setup").border_title = _("New event") + " · " + escape(self.night_name)
        self.show()

    def _games(self) -> list[dict[str, Any]]:
        return list(self.gapp.model.server.get("games", []))

    def _choices(self, key: str) -> list[Any]:
        if key == "game":
            return [g["name"] for g in self._games()] or ["prophets_gambit"]
        if key == "players":
            game = next((g for g in self._games() if g["name"] == self.values["game"]), None)
            low, high = (game["min_players"], game["max_players"]) if game else (3, 5)
            return list(range(low, high + 1))
        if key == "format":
            return list(NIGHT_FORMATS)
        if key == "rounds":
            return list(self.ROUNDS)
        if key == "access":
            return list(ACCESS)
        return list(NIGHT_FILLS)

    def _label(self, key: str, value: Any) -> str:
        if key == "game":
            return game_title(value)
        if key == "format":
            return format_label(value)
        if key == "fill":
            return fill_label(value)
        if key == "access":
            return access_label(value)
        return str(value)

    @while_composed
    def show(self) -> None:
        titles = {
            "game": _("Game"),
            "players": _("Table size"),
            "format": _("Format"),
            "rounds": _("Rounds"),
            "fill": _("Players left over"),
            "access": _("Who may join"),
        }
        text = Text()
        for index, (key, title) in enumerate(titles.items()):
            mark = ">" if index == self.line else " "
            line = f"{mark} {title}: < {self._label(key, self.values[key])} >"
            text.append(line + "\n", style="bold" if index == self.line else "")
        self.query_one("#rules", TextPanel).text = text

    def action_line(self, step: int) -> None:
        self.line = (self.line + step) % len(self.values)
        self.show()

    def action_change(self, step: int) -> None:
        key = list(self.values)[self.line]
        choices = self._choices(key)
        now = self.values[key]
        index = choices.index(now) if now in choices else 0
        self.values[key] = choices[(index + step) % len(choices)]
        if key == "game":
            sizes = self._choices("players")
            if self.values["players"] not in sizes:
                self.values["players"] = sizes[0]
        self.show()

    def action_create(self) -> None:
        self.gapp.send(Night("create", name=self.night_name, **self.values))
        self.dismiss()

    def action_cancel(self) -> None:
        self.dismiss()
