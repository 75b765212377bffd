"""The form that opens a table: game, seats, stake, timer, who may join, and every option of
the chosen game, as the server describes them in its welcome."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.events import DescendantFocus
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static

from protocol.requests import CreateTable

from ..i18n import N_, _
from ..names import ACCESS, favoured_choice_label, game_title, option_label
from ..refusals import server_text
from ..widgets.line_input import LineInput
from .base import GambitModal


class _Form(VerticalScroll, can_focus=False):
    """The fields scroll into view as they get focus; the box itself is no Tab stop."""


class CreateTableScreen(GambitModal):
    """Every field is one line, so the longest game's form fits in 80×24. The option fields
    are rebuilt when the game changes; nothing is checked here that the hub does not check
    again. The focused field's row is drawn reversed (seen without colour too) and its keys
    are spelled out below the form; a wrong value, found here or refused by the hub, is told
    under its field and the form stays open with everything typed."""

    DEFAULT_CSS = """
    CreateTableScreen .row {
        height: 1;
    }
    CreateTableScreen .row Label {
        width: 30;
    }
    CreateTableScreen .row.-focused > Label {
        text-style: bold reverse;
    }
    CreateTableScreen .row Select:focus > SelectCurrent {
        text-style: bold reverse;
    }
    CreateTableScreen .row Input:focus {
        text-style: bold underline;
    }
    CreateTableScreen Button:focus {
        text-style: bold reverse;
    }
    CreateTableScreen .field-error {
        height: auto;
        padding-left: 30;
        color: $text-error;
        text-style: bold;
        display: none;
    }
    CreateTableScreen .field-error.-shown {
        display: block;
    }
    /* Two rows when the focused field's name and keys need them (the duplicate set's, in
       every language): the form leaves the dialog room for the second. */
    CreateTableScreen #hint {
        color: $text-muted;
        height: auto;
        max-height: 2;
    }
    CreateTableScreen .row Select, CreateTableScreen .row Input {
        width: 1fr;
    }
    CreateTableScreen #options-title {
        color: $text-muted;
        margin-top: 1;
    }
    CreateTableScreen #buttons {
        height: 1;
        margin-top: 1;
        align-horizontal: right;
    }
    CreateTableScreen #buttons Button {
        margin-left: 2;
    }
    CreateTableScreen #form {
        height: auto;
        max-height: 15;
    }
    CreateTableScreen #options {
        height: auto;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "create", N_("Create"), priority=True),
        Binding("tab", "app.focus_next", N_("Next field")),
        Binding("escape", "cancel", N_("Cancel")),
        Binding("shift+tab", "app.focus_previous", N_("Previous field"), show=False),
    ]

    def compose_body(self) -> ComposeResult:
        games = self.gapp.model.server.get("games", [])
        first = next(
            (g for g in games if g["name"] == "prophets_gambit"), games[0] if games else None
        )
        counts = self._counts(first)
        timer = int(self.gapp.model.server.get("turn_timer", 60))
        with Vertical(classes="dialog", id="dialog"):
            with _Form(id="form"):
                yield from self._row(
                    _("Game"),
                    Select(
                        [(game_title(g["name"]), g["name"]) for g in games],
                        value=first["name"] if first else Select.BLANK,
                        allow_blank=False,
                        id="game",
                        compact=True,
                    ),
                )
                yield from self._row(
                    _("Players"),
                    Select(
                        [(str(n), n) for n in counts],
                        value=4 if 4 in counts else counts[0],
                        id="players",
                        compact=True,
                        allow_blank=False,
                    ),
                )
                yield from self._row(
                    _("Stake (chips each game)"),
                    LineInput("10", id="stake", type="integer", compact=True),
                )
                yield from self._row(
                    _("Turn timer (seconds, 0 off)"),
                    LineInput(str(timer), id="timer", type="integer", compact=True),
                )
                yield from self._row(
                    _("Who may join"),
                    Select(
                        [(_(label), key) for key, label in ACCESS.items()],
                        value="everyone",
                        allow_blank=False,
                        id="access",
                        compact=True,
                    ),
                )
                yield from self._row(
                    _("Highest rating (blank: any)"),
                    LineInput("", id="max_rating", type="integer", compact=True),
                )
                yield from self._row(
                    _("Duplicate set (blank: none)"),
                    LineInput("", id="duplicate", max_length=24, compact=True),
                )
                yield Static(id="options-title")
                yield Vertical(id="options")
            yield Static(id="hint")
            yield Static(classes="field-error", id="error-general")
            with Horizontal(id="buttons"):
                yield Button(_("Cancel"), id="cancel", compact=True)
                yield Button(_("Create"), id="create", variant="primary", compact=True)

    @staticmethod
    def _row(label: str, field: Widget) -> ComposeResult:
        """A field with its label, and the line under it that tells what is wrong with it."""
        yield Horizontal(Label(label), field, classes="row")
        yield Static(classes="field-error", id=f"error-{field.id}")

    def on_mount(self) -> None:
        self.query_one("#dialog").border_title = _("New table")
        self._form_ready()

    def _form_ready(self) -> None:
        """Fill in the game's options and focus the game, once the form's fields are mounted
        (on a busy server the screen's mount can come before its form's)."""
        try:
            game = self.query_one("#game", Select)
        except NoMatches:
            self.call_after_refresh(self._form_ready)
            return
        self._game_changed()
        game.focus()

    # --- the focused field -----------------------------------------------------------------

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        super().on_descendant_focus(event)
        self._show_hint(event.widget)

    def _show_hint(self, widget: Widget) -> None:
        """Name the field that has focus and the keys it takes: typing goes where it says."""
        field = widget.parent if isinstance(widget.parent, Select) else widget
        if isinstance(field, Select):
            keys = _("Enter opens the list, ↑↓ choose")
        elif isinstance(field, Input) and field.id == "duplicate":
            keys = _("tables with the same name get the same cards")
        elif isinstance(field, Input):
            keys = self._number_hint(field.id or "")
        elif isinstance(field, Button):
            keys = _("Enter presses it")
        else:
            return
        row = field.parent
        # (A class, not ``:focus-within``: Textual does not restyle the label beside a
        # field when focus moves between fields.)
        for other in self.query(".row.-focused"):
            if other is not row:
                other.remove_class("-focused")
        if row is not None and row.has_class("row"):
            row.add_class("-focused")
        labels = list(row.query(Label).results(Label)) if row is not None else []
        if isinstance(field, Button):
            name = str(field.label)
        elif labels:
            name = str(labels[0].content)
        else:
            name = ""
        hint = _("{field}: {keys}").format(field=name, keys=keys) if name else keys
        self.query_one("#hint", Static).update(hint)

    def _number_hint(self, widget_id: str) -> str:
        limits = {"stake": (0, 1_000_000), "timer": (0, 3600), "max_rating": (0, 100_000)}
        lo_hi = limits.get(widget_id)
        if lo_hi is None and widget_id.startswith("opt-"):
            info = self._game_info() or {}
            spec = (info.get("options") or {}).get(widget_id[4:]) or {}
            if spec.get("min") is not None and spec.get("max") is not None:
                lo_hi = (spec["min"], spec["max"])
        if lo_hi is None:
            return _("type a whole number")
        return _("type a number from {lo} to {hi}").format(lo=lo_hi[0], hi=lo_hi[1])

    @staticmethod
    def _counts(game: dict[str, Any] | None) -> list[int]:
        if game is None:
            return [3]
        return list(range(game["min_players"], game["max_players"] + 1))

    def _game_info(self) -> dict[str, Any] | None:
        value = self.query_one("#game", Select).value
        return self.gapp.model.game_info(value) if isinstance(value, str) else None

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "game":
            self._game_changed()

    def _game_changed(self) -> None:
        info = self._game_info()
        if info is None:
            return
        players = self.query_one("#players", Select)
        counts = self._counts(info)
        if players.value not in counts:
            players.set_options([(str(n), n) for n in counts])
            players.value = 4 if 4 in counts else counts[0]
        else:
            keep = players.value
            players.set_options([(str(n), n) for n in counts])
            players.value = keep
        box = self.query_one("#options", Vertical)
        box.remove_children()
        options = info.get("options") or {}
        title = self.query_one("#options-title", Static)
        if not options:
            title.update(
                _("{game} has no table options of its own.").format(game=game_title(info["name"]))
            )
        else:
            title.update(_("Options of {game}:").format(game=game_title(info["name"])))
        rows: list[Widget] = []
        for name, spec in options.items():
            label = option_label(name)
            if spec.get("house_rule"):
                label += " " + _("(house rule)")
            if spec.get("choices"):
                favours = spec.get("favours")
                field: Select | Input = Select(
                    [(favoured_choice_label(c, favours), c) for c in spec["choices"]],
                    value=spec["default"],
                    allow_blank=False,
                    id=f"opt-{name}",
                    compact=True,
                )
            else:
                field = LineInput(
                    str(spec["default"]), id=f"opt-{name}", type="integer", compact=True
                )
                lo, hi = spec.get("min"), spec.get("max")
                if lo is not None and hi is not None:
                    field.tooltip = _("{lo} to {hi}").format(lo=lo, hi=hi)
            rows.extend(self._row(label, field))
        box.mount_all(rows)

    # --- creating --------------------------------------------------------------------------

    def _int(
        self, widget_id: str, lo: int, hi: int, label: str, blank: int | None = 0
    ) -> int | None:
        raw = self.query_one(f"#{widget_id}", Input).value.strip()
        if not raw:
            if blank is None:
                return None
            return blank
        try:
            value = int(raw)
        except ValueError:
            raise FieldError(
                widget_id, _("{field} must be a whole number.").format(field=label)
            ) from None
        if not lo <= value <= hi:
            raise FieldError(
                widget_id,
                _("{field} must be from {lo} to {hi}.").format(field=label, lo=lo, hi=hi),
            )
        return value

    def _ready(self, widget_id: str) -> Widget | None:
        """The field ``widget_id`` once it is mounted; None while it is being made. (The option
        fields are made again when the game changes: a Ctrl+S that came first found no field,
        or a drop-down without a value, which could not be sent, and the session ended.)"""
        try:
            field = self.query_one(f"#{widget_id}")
        except NoMatches:
            return None
        return field if field.is_mounted else None

    def _choice(self, widget_id: str, choices: list[Any], default: Any) -> Any:
        """A drop-down's value; ``default`` (what it is about to show) while it is being made."""
        field = self._ready(widget_id)
        value = field.value if isinstance(field, Select) else default
        return value if value in choices else default

    def build_message(self) -> CreateTable:
        """The ``create_table`` message for what the form says; FieldError (a ValueError
        naming the first wrong field) if it is wrong."""
        info = self._game_info()
        if info is None:
            raise FieldError("game", _("Choose a game."))
        players = self.query_one("#players", Select).value
        game = info["name"]
        players = players if isinstance(players, int) else info["min_players"]
        stake = self._int("stake", 0, 1_000_000, _("Stake"))
        timer = self._int("timer", 0, 3600, _("Turn timer"))
        access = self._choice("access", list(ACCESS), "everyone")
        rating = self._int("max_rating", 0, 100_000, _("Highest rating"), blank=None)
        # Tables opened with the same set name are dealt the same cards (duplicate).
        duplicate = " ".join(self.query_one("#duplicate", Input).value.split())
        options: dict[str, Any] = {}
        for name, spec in (info.get("options") or {}).items():
            if spec.get("choices"):
                value = self._choice(f"opt-{name}", spec["choices"], spec["default"])
            else:
                lo = spec.get("min") if spec.get("min") is not None else -(2**31)
                hi = spec.get("max") if spec.get("max") is not None else 2**31 - 1
                if self._ready(f"opt-{name}") is None:
                    value = spec["default"]  # the field is being made: it will show this
                else:
                    value = self._int(
                        f"opt-{name}", lo, hi, option_label(name), blank=spec["default"]
                    )
            if value != spec["default"]:
                options[name] = value
        return CreateTable(
            game,
            players,
            options=options,
            access=access,
            max_rating=rating,
            stake=stake,
            timer=timer,
            duplicate=duplicate or None,
        )

    def show_error(self, widget_id: str | None, text: str) -> None:
        """Tell what is wrong under its field (or above the buttons), and focus the field;
        every other error line is cleared."""
        for line in self.query(".field-error").results(Static):
            line.update("")
            line.remove_class("-shown")
        if not text:
            return
        target = self.query(f"#error-{widget_id}").results(Static) if widget_id else iter(())
        line = next(iter(target), None) or self.query_one("#error-general", Static)
        line.update(Text("✗ " + text))  # may name a duplicate set: player text, not markup
        line.add_class("-shown")
        if widget_id and self.query(f"#{widget_id}"):
            field = self.query_one(f"#{widget_id}")
            field.focus()
            self.call_after_refresh(line.scroll_visible, animate=False)

    #: The ``create_table`` sent and not yet answered: the form waits for the table (which
    #: closes it) or the hub's refusal (told under the field, the form kept).
    awaiting_table = False

    def action_create(self) -> None:
        focused = self.focused
        if isinstance(focused, LineInput):
            # Ctrl+S is a priority key, run before the box has the keys typed just ahead of
            # it (over SSH a stake and Ctrl+S often arrive in one packet): read it after them.
            focused.after_typed(self._create)
        else:
            self._create()

    def _create(self) -> None:
        if self.awaiting_table:
            return
        try:
            message = self.build_message()
        except FieldError as err:
            self.show_error(err.field, str(err))
            return
        self.show_error(None, "")
        self.awaiting_table = self.gapp.send(message)

    def take_refusal(self, message: dict[str, Any]) -> bool:
        """Show the hub's refusal of the table beside its field; True if it was ours."""
        if not self.awaiting_table or message.get("ref") != "create_table":
            return False
        self.awaiting_table = False
        code = message.get("code")
        if code == "chips":
            stake = self.query_one("#stake", Input).value.strip()
            chips = self.gapp.model.you.get("chips", 0)
            text = _("A stake of {stake} is more than your {chips} chips.").format(
                stake=stake, chips=chips
            )
            self.show_error("stake", text)
        else:
            self.show_error(None, server_text(message, _("The server refused.")))
        return True

    def action_cancel(self) -> None:
        self.dismiss()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "create":
            self.action_create()
        else:
            self.action_cancel()


class FieldError(ValueError):
    """What is wrong with one field of the form (``field`` is its widget id)."""

    def __init__(self, field: str, text: str) -> None:
        super().__init__(text)
        self.field = field
