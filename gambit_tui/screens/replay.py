"""A finished game, step by step, on the table screens themselves: it looks exactly like play.

The hub replays the game (``replay`` messages, shaped like ``table`` messages); this screen asks
for the moment to show and keeps it in the model under the game's own key (``-id``, never a
table's), so the game's table screen, its score sheet and its last trick read it as they read a
table. Nobody is asked anything in a replay: the game's own keys are off, and the replay's keys
step through it. The game is over, so every hand may be open (``s`` cycles each seat's view and
all hands at once), and the verdict on its deal (commitment, seed, cards) is in the status line
and, in full, behind ``i``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from protocol.requests import Record, Replay

from .. import events
from ..cards import CardStyle, card_text, french_text
from ..fortunes_text import FORTUNES_FACES
from ..i18n import N_, _
from ..names import seat_name
from ..widgets.text_lines import TextPanel, retitle
from .base import GambitModal
from .fortunes_table import FortunesTableScreen
from .pg_table import PGTableScreen
from .prophet_table import ProphetTableScreen
from .table_base import COMMITMENT_SHOWN, TableScreen

#: Seconds between steps while playing, slowest first; + and - choose.
SPEEDS = (2.0, 1.0, 0.5, 0.25, 0.1)

REPLAY_KEYS: list[BindingType] = [
    Binding("right", "step(1)", N_("Step"), key_display="←→"),
    Binding("left", "step(-1)", N_("Step"), show=False),
    Binding("home", "jump('start')", N_("Start")),
    Binding("end", "jump('end')", N_("End")),
    Binding("d", "next_deal", N_("Next deal")),
    Binding("space", "play", N_("Play")),
    Binding("plus", "speed(1)", N_("Faster"), key_display="+-"),
    Binding("minus", "speed(-1)", N_("Faster"), show=False),
    Binding("s", "seat", N_("Seat")),
    Binding("i", "verdict", N_("Deal")),
    Binding("escape", "back", N_("Back")),
    Binding("enter", "close_result", N_("Close")),
    Binding("escape", "close_result", N_("Close"), show=False),
]
_REPLAY_ACTIONS = {
    "step",
    "jump",
    "next_deal",
    "play",
    "speed",
    "seat",
    "verdict",
    "back",
    "players",
}

#: The verdict on a finished game's deal, in words, by the hub's verdict.
VERDICTS = {
    "pass": N_("deal verified"),
    "fail": N_("deal FAILED verification"),
    "not fair": N_("deal not fair"),
    "unverifiable": N_("deal not verifiable"),
}
#: Each check of a deal, passed and failed, by its subject.
CHECKS = {
    "commitment": (
        N_("The revealed seed hashes to the commitment shown before the deal."),
        N_("The revealed seed does NOT hash to the commitment shown before the deal."),
    ),
    "seed": (
        N_("The game was dealt from that seed."),
        N_("The game was NOT dealt from that seed."),
    ),
    "moves": (
        N_("Every move was possible with the cards the seed deals."),
        N_("A move was impossible with the cards the seed deals."),
    ),
    "deals": (
        N_("Every deal holds exactly the cards the seed gives."),
        N_("A deal differs from the cards the seed gives."),
    ),
    "result": (
        N_("The result is the one these cards and moves give."),
        N_("The result is NOT the one these cards and moves give."),
    ),
    "players": (
        N_("Every player's value matches the commitment their app sent."),
        N_("A player's value does NOT match the commitment their app sent."),
    ),
    "fair": (N_("The deal was fair."), N_("The deal was not random: not fair.")),
    "record": (N_("The record is whole."), N_("The record is damaged or incomplete.")),
}


class OpenHands(TextPanel):
    """Every hand at this moment, over the bottom of the table, when all hands are shown."""

    DEFAULT_CSS = """
    OpenHands {
        layer: dialog;
        dock: bottom;
        display: none;
        margin-bottom: 1;
        border: round $accent;
        border-title-color: $foreground;
        background: $surface;
        padding: 0 1;
    }
    OpenHands.-open {
        display: block;
    }
    """


if TYPE_CHECKING:
    _TableScreen = TableScreen  # what the mixin is mixed into, as the checker sees it
else:
    _TableScreen = object


class ReplayMixin(_TableScreen):
    """What turns a game's table screen into its replay (listed before the table screen)."""

    REPLAY = True

    def __init__(self, game_id: int, seat: int | None = None) -> None:
        super().__init__(-game_id)
        self.game_id = game_id
        #: Whose view is shown (None: every hand open).
        self.replay_seat = seat
        self.step = 0
        self.playing = False
        self.speed = 1
        self._timer: Any = None
        self._hands_panel: OpenHands | None = None

    # --- the model ---------------------------------------------------------------------------

    @property
    def record(self: Any) -> dict[str, Any] | None:
        return self.gapp.model.records.get(self.game_id)

    @property
    def steps(self: Any) -> int:
        frame = self.message
        return int(frame["steps"]) if frame else 0

    def compose(self: Any) -> ComposeResult:
        yield from super().compose()
        self._hands_panel = OpenHands()
        yield self._hands_panel

    def on_mount(self: Any) -> None:
        if self.record is None:
            self.gapp.send(Record(self.game_id))
        self.ask_step(0)

    def ask_step(self: Any, step: int) -> None:
        self.gapp.send(Replay(self.game_id, max(0, step), seat=self.replay_seat))

    def status_context(self: Any) -> str:
        parts = [
            _("Replay of game {id}").format(id=self.game_id),
            _("move {n} of {total}").format(n=self.step, total=self.steps),
        ]
        record = self.record
        if record is not None:
            parts.append(_(VERDICTS.get(record["verify"]["verdict"], VERDICTS["unverifiable"])))
        return " · ".join(parts)

    def on_table_updated(self: Any, event: events.TableUpdated) -> None:
        if event.table_id != self.table_id:
            return
        frame = self.message or {}
        step = int(frame.get("step", 0))
        if abs(step - self.step) != 1:
            self.reset_log()
        self.step = step
        super().on_table_updated(event)
        self.show_hands()
        if self.playing and step >= self.steps:
            self.playing = False
        self.refresh_status()
        self.refresh_bindings()

    def on_record_arrived(self: Any, event: events.RecordArrived) -> None:
        if event.game_id == self.game_id:
            self.refresh_status()
            self.refresh_bindings()

    def reset_log(self: Any) -> None:
        """A jump (not one step on): the table screen's log of earlier rounds starts again."""
        screen: Any = self  # (a Prophet or Fortunes screen's own log, when it keeps one)
        if hasattr(screen, "_log_round"):
            screen._log_before, screen._log_events, screen._log_round = [], [], None
        if hasattr(screen, "_seen"):
            screen._seen = None
        self._results_shown.clear()

    def show_hands(self: Any) -> None:
        panel = self._hands_panel
        frame = self.message
        if panel is None or frame is None:
            return
        open_ = self.replay_seat is None
        panel.set_class(open_, "-open")
        if not open_:
            return
        retitle(panel, _("Every hand"))
        style = self.gapp.card_style
        lines = []
        for seat, hand in enumerate(frame.get("hands") or []):
            line = Text(f"{seat_name(frame['info']['seats'][seat])}: ", style="bold")
            if hand:
                line.append_text(Text(" ").join(self.card_face(card, style) for card in hand))
            else:
                line.append(_("no cards"))
            lines.append(line)
        panel.text = Text("\n").join(lines)
        # (A text panel's size comes from its styles, not its text.)
        panel.styles.height = min(len(lines) + 2, 9)

    def card_face(self, code: str, style: CardStyle) -> Text:
        return french_text(code, style)

    # --- keys ----------------------------------------------------------------------------------

    def bindings_state(self: Any) -> None:
        """No summary of the keys (they follow the step, not the table's): the footer looks
        at them every time, as a replay moves only when the player steps."""
        return None

    def check_table_action(self: Any, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("score_sheet", "last_trick", "reading"):
            return super().check_table_action(action, parameters)
        if action not in _REPLAY_ACTIONS:
            return False
        if self.message is None:
            return action == "back"
        if action == "step":
            by = parameters[0]  # (the binding's: a number of steps)
            target = self.step + (by if isinstance(by, int) else 0)
            return 0 <= target <= self.steps
        if action == "next_deal":
            return any(s > self.step for s in self._deal_steps())
        if action == "verdict":
            return self.record is not None
        return True

    def _deal_steps(self: Any) -> list[int]:
        record = self.record
        return list(record["deals"]) if record else []

    def action_step(self: Any, delta: int) -> None:
        self.ask_step(self.step + delta)

    def action_jump(self: Any, where: str) -> None:
        self.playing = False
        self.ask_step(0 if where == "start" else self.steps)

    def action_next_deal(self: Any) -> None:
        later = [s for s in self._deal_steps() if s > self.step]
        if later:
            self.ask_step(later[0])

    def action_play(self: Any) -> None:
        """Play the moves one after another at the chosen speed, or stop."""
        self.playing = not self.playing
        if self.playing:
            if self.step >= self.steps:
                self.ask_step(0)
            self._schedule()
        self.refresh_status()

    def _schedule(self: Any) -> None:
        self._timer = self.set_timer(SPEEDS[self.speed], self._autostep)

    def _autostep(self: Any) -> None:
        if not self.playing or not self.is_mounted:
            return
        if self.step >= self.steps:
            self.playing = False
            return
        if not self.result_open:
            self.ask_step(self.step + 1)
        self._schedule()

    def action_speed(self: Any, delta: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + delta))
        self.notice(_("{s} s a move").format(s=SPEEDS[self.speed]), timeout=2)

    def action_seat(self: Any) -> None:
        """The next seat's view; after the last seat, every hand at once."""
        seats = len(self.info.get("seats") or [])
        if self.replay_seat is None:
            self.replay_seat = 0
        elif self.replay_seat + 1 < seats:
            self.replay_seat += 1
        else:
            self.replay_seat = None
        self.reset_log()
        self.ask_step(self.step)

    def action_verdict(self: Any) -> None:
        title = _("The deal of game {id}").format(id=self.game_id)
        self.app.push_screen(VerdictScreen(title, verdict_text(self.record)))

    def action_back(self: Any, _to: str = "") -> None:
        self.playing = False
        self.dismiss()

    def on_unmount(self: Any) -> None:
        self.gapp.model.views.pop(self.table_id, None)


def verdict_text(record: dict[str, Any] | None) -> str:
    """The deal's commitment, its revealed seed and each check, in words."""
    if record is None:
        return ""
    deal = record.get("deal") or {}
    verify = record["verify"]
    lines = [_(VERDICTS.get(verify["verdict"], VERDICTS["unverifiable"])).capitalize() + "."]
    if deal:
        lines.append(_("Commitment: {hash}").format(hash=deal["commitment"]))
        lines.append(_("Seed: {seed}").format(seed=deal["seed"]))
        lines.append(
            _("At the table: deal {hash}").format(hash=deal["commitment"][:COMMITMENT_SHOWN])
        )
        if deal.get("entropy") == "hub+players":
            lines.append(_("The seed was mixed with the players' own random values."))
    for subject, good in verify["checks"]:
        passed, failed = CHECKS.get(subject, CHECKS["record"])
        lines.append(("+ " if good else "x ") + _(passed if good else failed))
    return "\n".join(lines)


class VerdictScreen(GambitModal):
    """The verdict on a finished game's deal, in full, over its replay."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,i", "close", N_("Close"), key_display="esc"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self._title = title
        self._text = text

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="dialog", id="verdict"):
            yield Static(self._text, markup=False)

    def on_mount(self) -> None:
        self.query_one("#verdict").border_title = self._title

    def action_close(self) -> None:
        self.dismiss()


class ProphetReplayScreen(ReplayMixin, ProphetTableScreen, inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = [
        *REPLAY_KEYS,
        Binding("t", "score_sheet", N_("Scores"), show=False),
        Binding("l", "last_trick", N_("Last trick"), show=False),
    ]


class PGReplayScreen(ReplayMixin, PGTableScreen, inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = REPLAY_KEYS

    def card_face(self, code: str, style: CardStyle) -> Text:
        return card_text(code, style)


class FortunesReplayScreen(ReplayMixin, FortunesTableScreen, inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = [
        *REPLAY_KEYS,
        Binding("l", "last_trick", N_("Last trick"), show=False),
        Binding("v", "reading", N_("Reading"), show=False),
    ]

    def card_face(self, code: str, style: CardStyle) -> Text:
        return FORTUNES_FACES.text(code, style)


SCREENS: dict[str, type[ReplayMixin]] = {
    "prophet": ProphetReplayScreen,
    "prophets_gambit": PGReplayScreen,
    "fortunes": FortunesReplayScreen,
}


def replay_screen(game: str, game_id: int, seat: int | None) -> TableScreen:
    """The replay of finished game ``game_id`` (of ``game``), from ``seat``'s view."""
    return SCREENS[game](game_id, seat)
