"""The Prophet's Gambit table: seats, the middle of the table, the log, your hand, the
question pending, and a key for every legal answer."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.css.query import NoMatches

from protocol.actions import action_from_wire

from ..cards import card_text
from ..i18n import N_, NC_, _
from ..names import game_title, tarokka_card_name
from ..pg_text import ask_text, event_text
from ..widgets.chat_panel import ChatPanel
from ..widgets.choice_row import Choice, ChoiceRow
from ..widgets.event_log import EventLog
from ..widgets.pg_center import PGCenter
from ..widgets.pg_seats import PGSeats
from ..widgets.prompt_bar import PromptBar
from ..widgets.text_lines import retitle
from .base import while_composed
from .table_base import TABLE_KEYS, TableScreen

#: Ask kinds answered with a card from the player's own hand.
HAND_KINDS = ("bid", "turn", "discard", "beast", "donjon", "raven", "tempter", "forced")
#: Ask kinds answered by choosing another player.
SEAT_KINDS = ("darklord", "marionette", "tempter_target")
#: Action types that carry a card, and the one that carries a seat.
CARD_TYPES = ("bid", "play", "risk", "discard", "give", "pick", "take")
SEAT_TYPES = ("target",)


class PGTableScreen(TableScreen, inherit_bindings=False):
    """One Prophet's Gambit table. The screen reads the table message from the model, sets
    its widgets, and offers exactly the legal actions of the pending ask as keys: an action is
    sent only if it is one of ``view["legal"]``."""

    DEFAULT_CSS = """
    PGTableScreen.-chat EventLog {
        display: none;
    }
    PGTableScreen #top {
        height: 8;
    }
    PGTableScreen #lower {
        height: 1fr;
    }
    PGTableScreen ChatPanel {
        height: 1fr;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "act('bid')", N_("Bid")),
        Binding("p", "act('play')", N_("Play")),
        Binding("enter", "act('play')", N_("Play"), show=False),
        Binding("x", "act('risk')", N_("Risk")),
        Binding("r", "act('replace')", N_("Replace Fate")),
        Binding("k", "act('keep')", N_("Keep Fate")),
        Binding("d", "act('draw')", N_("Draw")),
        Binding("n", "act('pass')", N_("Pass")),
        Binding("enter", "act('discard')", N_("Discard")),
        Binding("enter", "act('give')", N_("Give")),
        Binding("enter", "act('target')", N_("Choose")),
        Binding("enter", "act('pick')", N_("Pick")),
        Binding("enter", "act('take')", N_("Take")),
        Binding("h", "act('highest')", N_("Highest")),
        Binding("l", "act('lowest')", N_("Lowest")),
        Binding("k", "act('kill')", N_("Kill")),
        Binding("s", "act('save')", NC_("the Focus at the Execution", "Save")),
        Binding("left", "move(-1)", N_("Pick card"), key_display="←→"),
        Binding("right", "move(1)", N_("Pick card"), show=False),
        *[Binding(str(n), f"pick({n - 1})", N_("Pick card"), show=False) for n in range(1, 10)],
        *TABLE_KEYS,
    ]
    CHAT_IN_LOG = True
    #: Notices over the log's right half; with the chat open, over the Table panel (the
    #: Focus and the player's Fate are in the log and the hint too).
    NOTICES_OVER = (("#log", 0.5), ("PGCenter", 1.0))

    def __init__(self, table_id: int) -> None:
        super().__init__(table_id)
        self._legal_memo: tuple[dict[str, Any], dict[str, list[dict[str, Any]]]] | None = None
        #: The hand's choices, by the hand, the cards that may be picked and the card style.
        self._hand_choices: tuple[tuple[Any, ...], list[Choice]] | None = None

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield PGSeats()
            yield PGCenter()
        yield EventLog(id="log")
        yield ChatPanel(id="chat", title=_("Table chat"), max_length=self.chat_max)
        yield ChoiceRow(id="choices")
        yield PromptBar()

    # --- showing the table -----------------------------------------------------------------

    @while_composed
    def refresh_view(self) -> None:
        message = self.message
        if message is None:
            return
        style = self.gapp.card_style
        view = message.get("view")
        for widget in (self.query_one(PGSeats), self.query_one(PGCenter)):
            widget.style = style
            widget.message = message
        retitle(self.query_one(PGSeats), game_title("prophets_gambit"))
        self._tick()
        self.show_log(
            self.event_lines(
                (view or {}).get("events", []), lambda ev: event_text(ev, self.name_of, style)
            )
        )
        self._set_choices(view)
        self._set_prompt(view)
        self.refresh_bindings()

    def _set_choices(self, view: dict[str, Any] | None) -> None:
        row = self.query_one(ChoiceRow)
        style = self.gapp.card_style
        ask = self.ask or {}
        kind = ask.get("kind")
        row.active = bool(ask)
        if self.no_hand_shown(row, view):
            return
        assert view is not None  # (no_hand_shown says so when it is None)
        if kind in SEAT_KINDS:
            row.heading = _("Choose a player")
            row.choices = [
                Choice(Text(self.name_of(s), style="bold"), s) for s in ask.get("targets", [])
            ]
            return
        if kind == "darklord_pick":
            row.heading = _("{name}'s hand").format(name=self.name_of(ask["target"]))
            row.choices = [Choice(card_text(c, style), c) for c in ask.get("hand", [])]
            return
        if kind == "ghost":
            row.heading = _("The discard pile")
            row.choices = [Choice(card_text(c, style), c) for c in view.get("discard", [])]
            return
        allowed = frozenset(ask.get("cards", [])) if kind == "forced" else None
        row.heading = _("Your hand")
        hand = tuple(view.get("hand", []))
        # The same list while the hand and what may be picked stay: most moves are other
        # players' (an equal list changes nothing in the row, and the same one is quick to
        # compare; the card hint is remembered for it).
        made = self._hand_choices
        if made is None or made[0] != (hand, allowed, style):
            choices = [
                Choice(card_text(c, style), c, enabled=allowed is None or c in allowed)
                for c in hand
            ]
            made = self._hand_choices = ((hand, allowed, style), choices)
        row.choices = made[1]

    def _set_prompt(self, view: dict[str, Any] | None) -> None:
        prompt = self.query_one(PromptBar)
        style = self.gapp.card_style
        ask = self.ask
        prompt.yours = bool(ask)
        if view is None:
            prompt.question = self.waiting_room_text()
            prompt.hint = self.deal_hint()
            return
        if view.get("over"):
            winner = (view.get("outcome") or {}).get("winners", [None])[0]
            prompt.question = Text(
                _("The Reveal: {name} wins the deal.").format(
                    name=self.name_of(winner) if winner is not None else "?"
                )
            )
            prompt.hint = self.soon_hint(_("The next deal starts soon."))
            return
        if ask:
            prompt.question = ask_text(ask, view, self.name_of, style)
            prompt.hint = self._card_hint()
            return
        waiting = [self.name_of(s) for s in view.get("waiting", [])]
        if view.get("phase") == "bid" and waiting:
            prompt.question = Text(
                _("Waiting for {names} to commit a card to the Bid.").format(
                    names=", ".join(waiting)
                )
            )
        elif view.get("turn") is not None and len(waiting) <= 1:
            question = Text(_("{name}'s turn.").format(name=self.name_of(view["turn"])))
            if waiting and waiting[0] != self.name_of(view["turn"]):
                question.append(" " + _("{name} is choosing.").format(name=waiting[0]))
            prompt.question = question
        elif waiting:
            prompt.question = Text(_("Still choosing: {names}.").format(names=", ".join(waiting)))
        else:
            prompt.question = Text("")
        prompt.hint = self._card_hint()

    def _card_hint(self) -> Text:
        """A line naming the picked card (or player) and how to pick another."""
        row = self.query_one(ChoiceRow)
        selected = row.selected
        return self.card_hint(
            row,
            card_text,
            tarokka_card_name,
            picking=bool(self.ask),
            suffix=self.name_of(selected) if isinstance(selected, int) else "",
        )

    @while_composed
    def on_choice_row_moved(self, event: ChoiceRow.Moved) -> None:
        event.stop()  # the app has nothing to do with it
        if self.view and not self.view.get("over"):
            self.query_one(PromptBar).hint = self._card_hint()

    # --- acting ----------------------------------------------------------------------------

    @property
    def choice_row(self) -> ChoiceRow | None:
        """The row of cards or players, if composed (remembered: the footer asks about every
        key after every move, and a DOM query each time was a tenth of the server's CPU)."""
        try:
            return self.query_one(ChoiceRow)
        except NoMatches:
            return None

    def check_table_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        row = self.choice_row if self.is_mounted else None
        if row is None:
            return False
        if action == "act":
            return self.legal_action(str(parameters[0])) is not None
        if action in ("move", "pick"):
            return bool(row.choices) and not self.chat_open
        return super().check_table_action(action, parameters)

    def game_bindings_state(self) -> Hashable | None:
        row = self.choice_row if self.is_mounted else None
        if row is None:
            return None
        view = self.view
        legal: tuple[str, ...] = ()
        if view and not self.chat_open:
            kinds = self._legal_by_type(view)
            legal = tuple(kind for kind in kinds if self.legal_action(kind) is not None)
        return (bool(row.choices), legal)

    def _legal_by_type(self, view: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
        """The view's legal actions by type (remembered for the view: the footer asks about
        each of some twenty keys after every move)."""
        memo = self._legal_memo
        if memo is None or memo[0] is not view:
            by_type: dict[str, list[dict[str, Any]]] = {}
            for action in view.get("legal", []):
                by_type.setdefault(action["type"], []).append(action)
            memo = self._legal_memo = (view, by_type)
        return memo[1]

    def legal_action(self, kind: str) -> dict[str, Any] | None:
        """The legal action of type ``kind`` for the picked card or player, if there is one."""
        view = self.view
        if not view or self.chat_open:
            return None
        candidates = self._legal_by_type(view).get(kind)
        if not candidates:
            return None
        row = self.choice_row
        if kind in CARD_TYPES:
            card = row.selected if row else None
            return next((a for a in candidates if a.get("card") == card), None)
        if kind in SEAT_TYPES:
            seat = row.selected if row else None
            return next((a for a in candidates if a.get("seat") == seat), None)
        return candidates[0]

    def action_act(self, kind: str) -> None:
        """Send the legal action of type ``kind`` (once per decision)."""
        action = self.legal_action(kind)
        if action is not None:
            self._send_action(action_from_wire(action))

    def action_move(self, delta: int) -> None:
        self.query_one(ChoiceRow).move(delta)
        self.refresh_bindings()

    def action_pick(self, index: int) -> None:
        self.query_one(ChoiceRow).pick(index)
        self.refresh_bindings()

    def next_deal_notice(self) -> str:
        return _("The next deal has started.")

    def timers_widget(self) -> PGSeats:
        return self.query_one(PGSeats)
