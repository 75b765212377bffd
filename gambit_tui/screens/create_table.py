"""The form that opens a table: game, seats, stake, timer, who may join, and every option of
the chosen game, as the server describes them in its welcome."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static

from ..i18n import N_, _
from ..names import ACCESS, favoured_choice_label, game_title, option_label
from ..widgets.line_input import LineInput
from .base import GambitModal


class CreateTableScreen(GambitModal):
    """Every field is one line, so the longest game's form fits in 80×24. The option fields
    are rebuilt when the game changes; nothing is checked here that the hub does not check
    again (its refusal arrives as a notice)."""

    DEFAULT_CSS = """
    CreateTableScreen .row {
        height: 1;
    }
    CreateTableScreen .row Label {
        width: 30;
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
        max-height: 16;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "create", N_("Create"), priority=True),
        Binding("escape", "cancel", N_("Cancel")),
    ]

    def compose_body(self) -> ComposeResult:
        games = self.gapp.model.server.get("games", [])
        first = next(
            (g for g in games if g["name"] == "prophets_gambit"), games[0] if games else None
        )
        with VerticalScroll(classes="dialog", id="form"):
            with Horizontal(classes="row"):
                yield Label(_("Game"))
                yield Select(
                    [(game_title(g["name"]), g["name"]) for g in games],
                    value=first["name"] if first else Select.BLANK,
                    allow_blank=False,
                    id="game",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Label(_("Players"))
                counts = self._counts(first)
                yield Select(
                    [(str(n), n) for n in counts],
                    value=4 if 4 in counts else counts[0],
                    id="players",
                    compact=True,
                    allow_blank=False,
                )
            with Horizontal(classes="row"):
                yield Label(_("Stake (chips each deal)"))
                yield LineInput("10", id="stake", type="integer", compact=True)
            with Horizontal(classes="row"):
                yield Label(_("Turn timer (seconds, 0 off)"))
                timer = int(self.gapp.model.server.get("turn_timer", 60))
                yield LineInput(str(timer), id="timer", type="integer", compact=True)
            with Horizontal(classes="row"):
                yield Label(_("Who may join"))
                yield Select(
                    [(_(label), key) for key, label in ACCESS.items()],
                    value="everyone",
                    allow_blank=False,
                    id="access",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Label(_("Highest rating (blank: any)"))
                yield LineInput("", id="max_rating", type="integer", compact=True)
            yield Static(id="options-title")
            yield VerticalScroll(id="options")
            with Horizontal(id="buttons"):
                yield Button(_("Cancel"), id="cancel", compact=True)
                yield Button(_("Create"), id="create", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#form").border_title = _("New table")
        self._game_changed()
        self.query_one("#game", Select).focus()

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
        box = self.query_one("#options", VerticalScroll)
        box.remove_children()
        options = info.get("options") or {}
        title = self.query_one("#options-title", Static)
        if not options:
            title.update(
                _("{game} has no table options of its own.").format(game=game_title(info["name"]))
            )
        else:
            title.update(_("Options of {game}:").format(game=game_title(info["name"])))
        rows = []
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
            rows.append(Horizontal(Label(label), field, classes="row"))
        box.mount_all(rows)
        box.styles.height = len(rows)

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
            raise ValueError(_("{field} must be a whole number.").format(field=label)) from None
        if not lo <= value <= hi:
            raise ValueError(
                _("{field} must be from {lo} to {hi}.").format(field=label, lo=lo, hi=hi)
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

    def build_message(self) -> dict[str, Any]:
        """The ``create_table`` message for what the form says; ValueError if it is wrong."""
        info = self._game_info()
        if info is None:
            raise ValueError(_("Choose a game."))
        players = self.query_one("#players", Select).value
        message: dict[str, Any] = {
            "t": "create_table",
            "game": info["name"],
            "players": players if isinstance(players, int) else info["min_players"],
            "stake": self._int("stake", 0, 1_000_000, _("Stake")),
            "timer": self._int("timer", 0, 3600, _("Turn timer")),
            "access": self._choice("access", list(ACCESS), "everyone"),
        }
        rating = self._int("max_rating", 0, 100_000, _("Highest rating"), blank=None)
        if rating is not None:
            message["max_rating"] = rating
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
        message["options"] = options
        return message

    def action_create(self) -> None:
        try:
            message = self.build_message()
        except ValueError as err:
            self.notify(str(err), severity="error")
            return
        self.gapp.send(message)
        self.dismiss()

    def action_cancel(self) -> None:
        self.dismiss()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "create":
            self.action_create()
        else:
            self.action_cancel()
