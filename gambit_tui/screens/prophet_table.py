"""The Prophet table: the round and trump, every seat's bid against tricks won, the trick on
the table, the log, your bid and your hand, and a key for every legal action."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.widgets import Static

from protocol.actions import MAX_TRICKS, Bid, Play

from ..autoplay import AutoPlay
from ..cards import FRENCH_FACES, french_text
from ..event_lines import line_data, line_of
from ..i18n import N_, _
from ..names import choice_label, french_card_name, game_title
from ..prophet_text import ask_text, bid_hint, event_text, round_line, trump_line
from ..widgets.chat_panel import ChatPanel
from ..widgets.choice_row import Choice, ChoiceRow, digit_range
from ..widgets.event_log import EventLog
from ..widgets.hand_row import FittingChoiceRow, HandRow
from ..widgets.prompt_bar import PromptBar
from ..widgets.prophet_seats import ProphetSeats
from ..widgets.text_lines import retitle
from ..widgets.trick_view import TrickView, last_trick_text
from .base import while_composed
from .last_trick import LastTrickScreen
from .table_base import TABLE_KEYS, TableScreen

#: Log lines kept from earlier rounds (the hub sends only the current round's events).
LOG_KEEP = 200


def split_round(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A view's events as (the previous round's tail, this round's from its ``deal``).

    The engine deals the next round in the action that ends one, so until the new round's
    first trick is won a view starts with the old round's final trick and ``round_scored``.
    """
    for i in range(len(events) - 1, -1, -1):
        if events[i].get("e") == "deal":
            return events[:i], events[i:]
    return [], list(events)


def join_tail(seen: list[dict[str, Any]], tail: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The old round's events as this client saw them, completed by the tail a later view
    carries: the tail begins with plays already seen, so only what follows them is added."""
    for overlap in range(min(len(seen), len(tail)), 0, -1):
        if seen[-overlap:] == tail[:overlap]:
            return seen + tail[overlap:]
    return seen + tail


class ProphetTableScreen(TableScreen, inherit_bindings=False):
    """One Prophet table. The screen reads the table message from the model and sets its
    widgets; an action is sent only if it is one of ``view["legal"]``, once per decision."""

    DEFAULT_CSS = """
    ProphetTableScreen.-chat EventLog {
        display: none;
    }
    ProphetTableScreen #round {
        height: 2;
        padding: 0 1;
        background: $boost;
    }
    ProphetTableScreen #top {
        height: 7;
    }
    ProphetTableScreen ChatPanel {
        height: 1fr;
    }
    ProphetTableScreen #bids {
        display: none;
    }
    ProphetTableScreen #bids.-shown {
        display: block;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "bid", N_("Bid")),
        Binding("enter", "play", N_("Play")),
        # While bidding the arrows and digits choose the bid, and the footer says so.
        Binding("left", "bid_move(-1)", N_("Choose bid"), key_display="←→"),
        Binding("right", "bid_move(1)", N_("Choose bid"), show=False),
        Binding("left", "move(-1)", N_("Pick card"), key_display="←→"),
        Binding("right", "move(1)", N_("Pick card"), show=False),
        *[Binding(str(n), f"digit({n})", N_("Pick card"), show=False) for n in range(10)],
        Binding("t", "score_sheet", N_("Scores")),
        Binding("l", "last_trick", N_("Last trick")),
        *TABLE_KEYS,
    ]
    CHAT_IN_LOG = True
    #: Notices over the log's right half (at 80x24 while bidding its two rows: one notice,
    #: the oldest go first); with the chat open, over the seats panel's right half: the
    #: game's totals, not the bids and tricks won (the trick stays in sight).
    NOTICES_OVER = (("#log", 0.5), ("ProphetSeats", 0.5))

    def __init__(self, table_id: int) -> None:
        super().__init__(table_id)
        self.autoplay: AutoPlay = AutoPlay(self, self.autoplay_act)
        #: The log of earlier rounds, and the round whose events (from its deal) it shows now.
        self._log_before: list[Text] = []
        self._log_events: list[dict[str, Any]] = []
        self._log_round: int | None = None

    def compose_body(self) -> ComposeResult:
        yield Static(id="round")
        with Horizontal(id="top"):
            yield ProphetSeats()
            yield TrickView()
        yield EventLog(id="log")
        yield ChatPanel(id="chat", title=_("Table chat"), max_length=self.chat_max)
        yield FittingChoiceRow(id="bids")
        yield HandRow(id="hand")
        yield PromptBar()

    # --- what the screen reads -------------------------------------------------------------

    def _decision_key(self) -> tuple[Any, ...]:
        """Names the decision the current view is about: it changes with every event, and
        with the game (a table plays game after game, each from round 1). Events count from
        the round's deal: the old round's tail leaves the view mid-round."""
        view = self.view or {}
        return (
            self.info.get("games_played"),
            view.get("round"),
            len(split_round(view.get("events", []))[1]),
            repr(view.get("ask")),
        )

    # --- showing the table -----------------------------------------------------------------

    @while_composed
    def refresh_view(self) -> None:
        message = self.message
        if message is None:
            return
        style = self.gapp.card_style
        view = message.get("view")
        players = len(message["info"]["seats"])
        self.query_one("#top").styles.height = players + 3
        seats = self.query_one(ProphetSeats)
        seats.style = style
        seats.message = message
        retitle(seats, game_title("prophet"))
        self._tick()
        self._set_round_bar(view)
        self.query_one(TrickView).show(
            (view or {}).get("trick") or [],
            players=players,
            leader=(view or {}).get("leader"),
            turn=(view or {}).get("turn"),
            last=(view or {}).get("last_trick"),
            names=self.name_of,
            faces=FRENCH_FACES,
            style=style,
        )
        self._set_log(view)
        self._set_bids(view)
        self._set_hand(view)
        self._set_prompt(view)
        self.autoplay.consider(
            self._decision_key(),
            (view or {}).get("legal", []) if self.ask else [],
            enabled=self.gapp.prefs.autoplay_forced and self.seat is not None,
        )
        self.refresh_bindings()

    def _set_round_bar(self, view: dict[str, Any] | None) -> None:
        bar = self.query_one("#round", Static)
        if not view:
            options = self.info.get("options") or {}
            line = Text(game_title("prophet"), style="bold")
            line.append(
                " · "
                + _("schedule {name}").format(
                    name=choice_label(options.get("schedule", "ascending"))
                ),
                style="dim",
            )
            bar.update(line)
            return
        trump = trump_line(view, self.name_of, self.gapp.card_style)
        bar.update(Text("\n").join([round_line(view), trump]))

    def _lines(self, evs: list[dict[str, Any]]) -> list[Text]:
        style = self.gapp.card_style
        return self.event_lines(evs, lambda ev: event_text(ev, self.name_of, style))

    def _set_log(self, view: dict[str, Any] | None) -> None:
        """The log keeps earlier rounds: each table message carries only this round's events
        (after a round's end, until the next round's first trick, also that end), so when the
        round moves on the old round's lines, completed by its end, stay above."""
        if not view:
            return
        round_no = view.get("round")
        tail, current = split_round(view.get("events", []))
        if self._log_round is None:
            self._log_before = self._lines(tail)
        elif round_no != self._log_round:
            self._log_before += self._lines(join_tail(self._log_events, tail))
            self._log_before = self._log_before[-LOG_KEEP:]
        self._log_round = round_no
        self._log_events = current
        self.show_log(self._log_before + self._lines(current))

    def hand_over(self) -> dict[str, Any]:
        """As every table's, and the log of earlier rounds, which no view carries any more:
        its lines, the round they lead to and that round's events (plain data)."""
        state = super().hand_over()
        if self._log_round is not None:
            state["log"] = {
                "before": [line_data(line) for line in self._log_before],
                "round": self._log_round,
                "events": self._log_events,
            }
        return state

    def take_over(self, state: dict[str, Any]) -> None:
        super().take_over(state)
        log = state.get("log")
        if isinstance(log, dict) and log.get("round") is not None:
            made = (line_of(data) for data in log.get("before") or [])
            self._log_before = [line for line in made if line is not None]
            self._log_round = log["round"]
            self._log_events = list(log.get("events") or [])

    def _set_bids(self, view: dict[str, Any] | None) -> None:
        row = self.query_one("#bids", ChoiceRow)
        ask = self.ask or {}
        bidding = ask.get("kind") == "bid"
        row.set_class(bidding, "-shown")
        row.active = bidding
        if not bidding or view is None:
            row.choices = []
            return
        legal = {a["tricks"] for a in view.get("legal", []) if a["type"] == "bid"}
        row.heading = _("Your bid")
        row.numbered = False
        row.choices = [
            Choice(Text(str(b), style="bold"), b, enabled=b in legal)
            for b in range(ask.get("max", view.get("cards", 0)) + 1)
        ]

    def _set_hand(self, view: dict[str, Any] | None) -> None:
        self.show_hand(self.query_one(HandRow), view, FRENCH_FACES)

    def _set_prompt(self, view: dict[str, Any] | None) -> None:
        prompt = self.query_one(PromptBar)
        ask = self.ask
        prompt.yours = bool(ask)
        if view is None:
            prompt.question = self.waiting_room_text()
            prompt.hint = self.deal_hint()
            return
        if view.get("over"):
            winners = (view.get("outcome") or {}).get("winners", [])
            prompt.question = Text(
                _("The game is over. Highest total: {names}.").format(
                    names=", ".join(self.name_of(s) for s in winners)
                )
            )
            prompt.hint = self.soon_hint(_("The next game starts soon."))
            return
        if ask:
            prompt.question = ask_text(ask, view, self.gapp.card_style)
            prompt.hint = bid_hint(ask, view) if ask.get("kind") == "bid" else self._card_hint()
            return
        turn = view.get("turn")
        name = self.name_of(turn) if turn is not None else "?"
        if view.get("phase") == "bid":
            prompt.question = Text(_("{name} is bidding.").format(name=name))
            prompt.hint = bid_hint({}, view) if view.get("dealer") != self.seat else Text("")
        else:
            prompt.question = Text(_("{name}'s turn.").format(name=name))
            prompt.hint = self._card_hint()

    def _card_hint(self) -> Text:
        """A line naming the picked card and how to pick another."""
        return self.card_hint(
            self.query_one(HandRow),
            french_text,
            french_card_name,
            picking=self.ask_kind == "play",
        )

    @while_composed
    def on_choice_row_moved(self, event: ChoiceRow.Moved) -> None:
        event.stop()  # the app has nothing to do with it
        view = self.view
        if view and not view.get("over") and (self.ask or {}).get("kind") != "bid":
            self.query_one(PromptBar).hint = self._card_hint()

    # --- acting ----------------------------------------------------------------------------

    def check_table_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.is_mounted or not self.query(HandRow):
            return False
        if action == "bid":
            return self.legal_bid() is not None
        if action == "play":
            return self.legal_play() is not None
        if action == "bid_move":
            bidding = (self.ask or {}).get("kind") == "bid"
            return bidding and bool(self._active_row().choices) and not self.chat_open
        if action == "move":
            bidding = (self.ask or {}).get("kind") == "bid"
            return not bidding and bool(self._active_row().choices) and not self.chat_open
        if action == "digit":
            return bool(self._active_row().choices) and not self.chat_open
        if action in ("score_sheet", "last_trick"):
            return self.view is not None and not self.chat_open
        return super().check_table_action(action, parameters)

    def game_bindings_state(self) -> Hashable | None:
        try:
            bids = self.query_one("#bids", ChoiceRow)
            self.query_one(HandRow)
        except NoMatches:
            return None
        return (
            (self.ask or {}).get("kind"),
            self.legal_bid() is not None,
            self.legal_play() is not None,
            bool(self._active_row().choices),
            self.view is not None,
            len(bids.choices),  # the footer's digits for a bid
        )

    def _active_row(self) -> ChoiceRow:
        """The row the arrows and digits move in: the bids while bidding, else the hand."""
        if (self.ask or {}).get("kind") == "bid":
            return self.query_one("#bids", ChoiceRow)
        return self.query_one(HandRow)

    def legal_bid(self) -> Bid | None:
        """The legal bid under the cursor of the bid row, if the player is bidding."""
        view = self.view
        if not view or self.chat_open or (self.ask or {}).get("kind") != "bid":
            return None
        tricks = self.query_one("#bids", ChoiceRow).selected
        if type(tricks) is not int or not 0 <= tricks <= MAX_TRICKS:
            return None
        action = Bid(tricks)
        return action if action.to_wire() in view.get("legal", []) else None

    def action_bid(self) -> None:
        action = self.legal_bid()
        if action is not None:
            self._send_action(action)

    def action_play(self) -> None:
        action = self.legal_play()
        if action is not None:
            self._send_action(action)

    def on_hand_row_play(self, event: HandRow.Play) -> None:
        """A card played from the row itself (a second click on the picked card)."""
        if (self.ask or {}).get("kind") == "play":
            self._send_action(Play(event.card))

    def action_move(self, delta: int) -> None:
        self._active_row().move(delta)
        self.refresh_bindings()

    def action_bid_move(self, delta: int) -> None:
        self.action_move(delta)

    def footer_keys(self, action: str, shown: str) -> str:
        """The bid's keys in the footer: the arrows, and the digits that choose a bid."""
        if action.startswith("bid_move"):
            choices = len(self.query_one("#bids", ChoiceRow).choices)
            if choices > 1:
                return f"{shown} {digit_range(choices, first=0)}"
        return shown

    def action_digit(self, digit: int) -> None:
        """A digit picks that bid while bidding (0–9), else the card in that place."""
        row = self._active_row()
        if isinstance(row, HandRow):
            row.pick_digit(digit)
        else:
            row.pick(digit)
        self.refresh_bindings()

    def action_score_sheet(self) -> None:
        from .score_sheet import ScoreSheetScreen

        self.app.push_screen(ScoreSheetScreen(self.table_id))

    def action_last_trick(self) -> None:
        self.app.push_screen(LastTrickScreen(self.table_id, self._last_trick_body))

    def _last_trick_body(self) -> Any:
        """The last trick; before a round's first trick is won, the previous round's final
        one, named as such."""
        view = self.view or {}
        last = view.get("last_trick")
        body = last_trick_text(
            last, len(self.info["seats"]), self.name_of, FRENCH_FACES, self.gapp.card_style
        )
        if last and last.get("round", view.get("round")) != view.get("round"):
            head = _("Round {round} ended with this trick.").format(round=last["round"])
            return Group(Text(head, style="bold"), body)
        return body

    def timers_widget(self) -> ProphetSeats:
        return self.query_one(ProphetSeats)
