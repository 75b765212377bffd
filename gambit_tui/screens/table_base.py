"""What every table screen shares: the seat, the waiting room, chat, leaving, the Reveal."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable
from functools import partial
from typing import Any, ClassVar

from rich.text import Text
from textual import events as textual_events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Input

from protocol.actions import Action, Play
from protocol.requests import Act, AddBot, Chat, Invite, Leave, RemoveBot, ResultRead, Start

from .. import events
from ..autoplay import AutoPlay
from ..cards import CardStyle, DeckFaces
from ..chat_in_log import ChatInLog
from ..event_lines import EventLines
from ..i18n import N_, _, ngettext
from ..names import seat_name, status_label
from ..result_text import result_text, result_title, stand_in_move_text
from ..widgets.chat_panel import ChatPanel
from ..widgets.choice_row import ChoiceRow, pick_hint
from ..widgets.event_log import EventLog
from ..widgets.hand_row import HandRow
from ..widgets.prompt_bar import PromptBar
from ..widgets.result_panel import ResultPanel
from .base import GambitScreen, while_composed
from .notice_place import NoticePlace, right_part

#: The result of a deal comes up this many seconds after the move that ended it, which shows
#: at once like every move: the last card is seen landing before the result covers the table.
#: A little more or less for each player: the apps of a table's players share the server's
#: cores, and drawing a result costs several moves' worth; all at the same instant, the moves
#: of every other table waited behind them (``bench/ssh_load.py``'s slowest actions).
RESULT_DELAY = (0.6, 1.0)
_result_delay = random.Random()

#: For this many seconds after a result closes by itself (the next deal began), keys do not
#: act at the table: a key pressed to close the result must not play the new deal's first
#: card (a player who pressed Enter as the result went committed a card to the next Bid).
KEYS_QUIET = 1.0

#: Keys of every table screen. A subclass lists them after its own keys (and does not inherit
#: bindings): a subclass's binding for a key would otherwise replace these ("s" both starts the
#: game and, in Prophet's Gambit, saves the Focus), and the footer shows the game's keys first.
TABLE_KEYS: list[BindingType] = [
    Binding("b", "add_bot", N_("Add bot")),
    Binding("u", "remove_bot", N_("Remove bot")),
    Binding("s", "start", N_("Start")),
    Binding("i", "invite", N_("Invite")),
    Binding("c", "chat", N_("Chat")),
    Binding("q", "leave", N_("Leave")),
    # Esc closes an open chat first (said so in the footer), else goes back to the screen the
    # table opened over, named in the footer (:attr:`GambitScreen.ESCAPE_TO`).
    Binding("escape", "close_chat", N_("Close chat")),
    Binding("escape", "back('lobby')", N_("Lobby")),
    Binding("escape", "back('events')", N_("Events")),
    Binding("escape", "back('back')", N_("Back")),
    # The seated players' profiles. Out of the footer: it is full at 80 columns mid-deal.
    Binding("w", "players", N_("Players"), show=False),
    # Only while the result of a deal is open, and then the only keys.
    Binding("enter", "close_result", N_("Close")),
    Binding("escape", "close_result", N_("Close"), show=False),
]


#: The fewest rows notices are laid over (a one-line notice, the blank row above it and one
#: more): an area with fewer leaves them to Textual's place.
NOTICE_ROWS = 3

#: How many hex characters of a deal's commitment a table shows (enough to compare by eye).
COMMITMENT_SHOWN = 12

#: Why a deal is not fair, by the hub's reason word.
NOT_FAIR = {
    "fixed_seed": N_("not fair: fixed seed"),
    "stacked": N_("not fair: stacked"),
    "duplicate": N_("not fair: duplicate"),
}


def deal_text(deal: dict[str, Any] | None, *, reason: bool = False) -> str:
    """The commitment to a table's deal: the hash's start and, in words, whether the deal is
    fair ("" without one); with ``reason``, why not ("not fair: stacked")."""
    if not deal or not deal.get("commitment"):
        return ""
    short = str(deal["commitment"])[:COMMITMENT_SHOWN]
    if deal.get("fair"):
        fairness = _("fair")
    elif reason:
        fairness = _(NOT_FAIR.get(deal.get("reason") or "", N_("not fair")))
    else:
        fairness = _("not fair")
    return _("deal {hash} {fairness}").format(hash=short, fairness=fairness)


class TableScreen(GambitScreen):
    """A table the player sits at or watches. Subclasses draw the game; this class keeps the
    keys of the waiting room (bots, start, invite), chat, leaving and the result of a deal.

    The result is a panel over the table (:class:`ResultPanel`): while it is open its keys
    are the only ones, as in a dialog, and the table goes on below it.
    """

    # Chat opens by the screen's ``-chat`` class, never by a widget's inline ``display``:
    # an inline style would beat the app's rule that hides everything but the "too small"
    # notice (every table, which hides its chat as it opens, drew its log over the notice).
    DEFAULT_CSS = """
    TableScreen {
        layers: default dialog;
    }
    TableScreen ChatPanel {
        display: none;
    }
    TableScreen.-chat ChatPanel {
        display: block;
    }
    /* While notices lie over a panel of the table (notice_place.py), compact toasts as wide
       as Textual makes them or as the panel allows; no scroll gutter on their rack (Textual
       sized the rack without it, and the last notice was cut). */
    TableScreen.-notices-placed ToastRack {
        overflow-y: hidden;
    }
    TableScreen.-notices-placed Toast {
        max-width: 100%;
        padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = TABLE_KEYS
    #: Nothing takes the focus by itself: the first focusable widget is the hidden chat
    #: panel's log, whose scroll keys would take the arrows the hand needs.
    AUTO_FOCUS = ""
    #: The widget holding the player's hand (a :class:`HandRow`), for :meth:`legal_play`.
    HAND: ClassVar[type[HandRow]] = HandRow
    #: A finished game's replay: it shows what happened, and nothing comes after its end.
    REPLAY: ClassVar[bool] = False
    #: The screen has an :class:`EventLog` (set by :meth:`show_log`), or a place of its own
    #: for its log's lines (a Fortunes table's, under the won tricks): the table's chat
    #: lines are shown there (gambit_tui/chat_in_log.py). Without one, a line said while the
    #: chat is closed is a notice.
    CHAT_IN_LOG: ClassVar[bool] = False
    #: The panels notices (toasts) lie over, the first one shown, and the share of its
    #: width, on the right (see :meth:`table_notice_area`): the log of moves, and while the chat is
    #: open (the log hidden) a panel of secondary information at the top. Never the hand, a
    #: bid row, the question or the keys; nor the chat's lines, which a player reads there.
    NOTICES_OVER: ClassVar[tuple[tuple[str, float], ...]] = (("#log", 0.5),)

    def __init__(self, table_id: int) -> None:
        super().__init__()
        self.table_id = table_id
        self._results_shown: set[int] = set()
        #: Seats we asked a bot for and the hub has not confirmed yet (keys can outrun it).
        self._bot_asked: set[int] = set()
        self.chat_open = False
        #: Chat typed in the app this one took over from, not sent yet (see take_over).
        self._draft = ""
        #: A table message came while another screen covered this one.
        self._behind = False
        self._event_lines = EventLines()
        #: The log's lines of events last shown, and the chat lines said among them.
        self._log_lines: list[Text] = []
        self._chat_in_log = ChatInLog()
        self._result_panel: ResultPanel | None = None
        #: The table message whose result is open or due (shown again if the screen is
        #: recomposed), until the player closes it or the next deal begins.
        self._open_result: dict[str, Any] | None = None
        #: Every notice this screen raised, newest last (tests read it; the toasts fade).
        self.notices: list[str] = []
        #: The decision (:meth:`_decision_key`) an action was sent for: one per decision.
        self._acted_on: tuple[Any, ...] | None = None
        #: Until this ``time.monotonic()`` keys do not act (see :data:`KEYS_QUIET`).
        self._quiet_until = 0.0
        #: Plays the player's forced moves, at tables that offer it.
        self.autoplay: AutoPlay | None = None
        #: The last card hint: the row's choices it was made for, what else it read, the hint.
        self._hint_memo: tuple[list[Any], tuple[Any, ...], Text] | None = None
        #: Keeps the notices over :meth:`notice_area` as the layout changes.
        self.notice_place = NoticePlace(self, self.notice_area)
        #: The widgets of :attr:`NOTICES_OVER`, by selector, once found (a layout asks).
        self._notice_panels: dict[str, Widget] = {}

    # --- the model -------------------------------------------------------------------------

    @property
    def ask_kind(self) -> str | None:
        return (self.ask or {}).get("kind")

    def _decision_key(self) -> tuple[Any, ...]:
        """Names the decision the current view is about (changes with every event)."""
        view = self.view or {}
        return (len(view.get("events", [])), repr(view.get("ask")))

    def no_hand_shown(self, row: ChoiceRow, view: dict[str, Any] | None) -> bool:
        """Say in ``row`` why it shows no hand, if it shows none (no deal yet, or the player
        watches): True then. Otherwise its words for an empty hand are set: False."""
        if view is None:
            row.heading = _("Your hand")
            row.choices = []
            row.placeholder = _("The game has not started yet.")
            return True
        if self.seat is None:
            row.heading = _("Watching")
            row.choices = []
            row.placeholder = _("You are watching this table: hands stay hidden.")
            return True
        row.placeholder = _("No cards in hand.")
        return False

    def show_hand(
        self,
        row: HandRow,
        view: dict[str, Any] | None,
        faces: DeckFaces,
        heading: Callable[[int], str] | None = None,
    ) -> None:
        """Show the player's hand in ``row`` (``heading`` names it, given the number of
        cards): while they are to play, the cards they may play stand out."""
        playing = self.ask_kind == "play"
        row.active = playing
        if self.no_hand_shown(row, view):
            return
        assert view is not None  # (no_hand_shown says so when it is None)
        hand = view.get("hand") or []
        playable = None
        if playing:
            playable = {a["card"] for a in view.get("legal", []) if a["type"] == "play"}
        row.heading = heading(len(hand)) if heading is not None else _("Your hand")
        row.show(
            hand,
            faces=faces,
            style=self.gapp.card_style,
            order=self.gapp.prefs.sort,
            playable=playable,
        )

    def card_hint(
        self,
        row: ChoiceRow,
        face: Callable[[str, CardStyle], Text],
        name: Callable[[str], str],
        *,
        picking: bool,
        dimmed: str = "",
        suffix: str = "",
    ) -> Text:
        """A line naming the card under the cursor in ``row`` (its ``face`` and ``name``) and,
        while ``picking``, the keys that pick another, and ``dimmed`` if some cards are;
        ``suffix`` last.

        Remembered while the row's choices (the same list: a screen that keeps its choices
        sets the same one) and everything else it reads stay the same: most moves change
        nothing in it, for every player at the table."""
        card = row.selected
        reads = (
            card,
            row.cursor,
            picking,
            dimmed,
            suffix,
            face,
            name,
            self.gapp.card_style,
            id(self.gapp.translations),
            row.numbered,
            row.layout_width(),
        )
        memo = self._hint_memo
        if memo is not None and memo[0] is row.choices and memo[1] == reads:
            return memo[2]
        out = self._card_hint_text(row, card, face, name, picking=picking, dimmed=dimmed)
        if suffix:
            out.append(suffix)
        self._hint_memo = (row.choices, reads, out)
        return out

    def _card_hint_text(
        self,
        row: ChoiceRow,
        card: Any,
        face: Callable[[str, CardStyle], Text],
        name: Callable[[str], str],
        *,
        picking: bool,
        dimmed: str,
    ) -> Text:
        """:meth:`card_hint` made anew (without its suffix)."""
        out = Text(style="dim")
        if isinstance(card, str):
            out.append_text(face(card, self.gapp.card_style))
            out.append(" " + name(card))
            keys = pick_hint(row) if picking else ""
            if keys:
                out.append("  ·  " + keys)
                if dimmed and not all(c.enabled for c in row.choices):
                    out.append("  ·  " + dimmed)
        return out

    def legal_play(self) -> Play | None:
        """The legal play of the card under the cursor, if the player is to play."""
        view = self.view
        if not view or self.chat_open or self.ask_kind != "play":
            return None
        card = self.query_one(self.HAND).selected
        if not isinstance(card, str) or not card:
            return None
        action = Play(card)
        return action if action.to_wire() in view.get("legal", []) else None

    def _send_action(self, action: Action, *, by_key: bool = True) -> None:
        """Send ``action`` if it is legal now, at most once per decision; ``by_key`` (the
        player's key, not :class:`AutoPlay`): not just after a result closed by itself."""
        view = self.view
        if view is None or action.to_wire() not in view.get("legal", []):
            return
        if by_key and self.keys_quiet():
            return
        marker = self._decision_key()
        if self._acted_on == marker:
            return
        self._acted_on = marker
        if self.autoplay is not None:
            self.autoplay.cancel()
        self.gapp.send(Act(self.table_id, action))

    def keys_quiet(self) -> bool:
        """Whether a key now is one meant for a result that has just closed by itself."""
        return time.monotonic() < self._quiet_until

    def quiet_keys(self) -> None:
        """A result closes by itself: keys pressed for it do not act on what replaces it."""
        self._quiet_until = time.monotonic() + KEYS_QUIET

    def autoplay_act(self, action: Action) -> None:
        """What :class:`AutoPlay` plays for the player (never held back like a key)."""
        self._send_action(action, by_key=False)

    def on_refused(self, event: events.Refused) -> None:
        if event.ref == "act":
            self._acted_on = None  # let the player try again

    @property
    def message(self) -> dict[str, Any] | None:
        return self.gapp.model.views.get(self.table_id)

    @property
    def info(self) -> dict[str, Any]:
        message = self.message
        return message["info"] if message else {"seats": [], "game": "", "status": "waiting"}

    @property
    def view(self) -> dict[str, Any] | None:
        message = self.message
        return message.get("view") if message else None

    @property
    def seat(self) -> int | None:
        message = self.message
        return message.get("seat") if message else None

    @property
    def ask(self) -> dict[str, Any] | None:
        """The decision this player must make now, if any."""
        view = self.view
        return view.get("ask") if view else None

    @property
    def game(self) -> str | None:  # type: ignore[override]  # read-only here: the table says
        return self.info.get("game") or None

    @property
    def chat_max(self) -> int:
        """The hub's longest chat line."""
        return int(self.gapp.model.server.get("chat_max", 500))

    def name_of(self, seat: int) -> str:
        seats = self.info["seats"]
        return seat_name(seats[seat]) if 0 <= seat < len(seats) else "?"

    def event_lines(
        self, evs: list[dict[str, Any]], make: Callable[[dict[str, Any]], Text | None]
    ) -> list[Text]:
        """The log lines of ``evs`` (``make`` draws one event), each event drawn once."""
        names = tuple(seat_name(seat) for seat in self.info["seats"])
        context = (self.gapp.card_style, names, id(self.gapp.translations))

        def line(ev: dict[str, Any]) -> Text | None:
            if ev.get("e") == "stand_in":  # (the hub's, in every game)
                return Text(stand_in_move_text(ev, self.name_of(ev["seat"])), style="italic")
            return make(ev)

        return self._event_lines.lines(evs, line, context)

    def show_log(self, lines: list[Text]) -> None:
        """Show ``lines`` (the events', oldest first) in the log, with the table's chat lines
        said among them."""
        self._log_lines = lines
        self.query_one(EventLog).lines = self._chat_in_log.lines(lines)

    def waiting_room_text(self) -> Text:
        """The prompt before a game starts: who we wait for, or that it may start."""
        free = sum(1 for s in self.info["seats"] if not (s.get("name") or s.get("bot")))
        if self.seat is None:
            return Text(_("Waiting for the players to start the game."))
        if free:
            return Text(
                ngettext(
                    "Waiting for players: {n} seat free. Add bots or invite friends.",
                    "Waiting for players: {n} seats free. Add bots or invite friends.",
                    free,
                ).format(n=free)
            )
        return Text(_("Every seat is taken: press s to start."))

    def deal_hint(self) -> Text:
        """Under the waiting room's prompt: the next game's deal, committed before it is dealt,
        with why it is not fair if it is not (after whose cards the player holds, at a table
        of a duplicate set)."""
        text = deal_text(self.info.get("deal"), reason=True)
        if text:
            text = _("Committed before the deal: {deal}").format(deal=text)
        return self._with_duplicate(text)

    def soon_hint(self, soon: str) -> Text:
        """Under a finished game's prompt: the next game starts soon, and its deal is
        committed already (``soon`` says which). Nothing in a replay: no game comes next."""
        if self.REPLAY:
            return Text("", style="dim")
        text = deal_text(self.info.get("deal"), reason=True)
        if text:
            soon = _("{soon}: {deal}").format(soon=soon.rstrip("."), deal=text)
        return self._with_duplicate(soon)

    def _with_duplicate(self, hint: str) -> Text:
        """A hint led by :meth:`duplicate_hint` when there is one (what does not fit goes
        from the end: the deal's commitment, then this)."""
        parts = [part for part in (self.duplicate_hint(), hint) if part]
        return Text(PromptBar.HINT_SEP.join(parts), style="dim")

    def duplicate_hint(self) -> str:
        """At a table of a duplicate set: which game of the set, and whose cards the player
        holds; once a game is over, the seat whose cards they hold next (at the set's later
        tables people move seats between games: ``server/hub/duplicate.py``)."""
        dup = self.info.get("duplicate")
        seat = self.seat
        if not dup or seat is None:
            return ""
        view = self.view
        if view is not None and view.get("over"):
            move = int(dup.get("move") or 0)
            after = (seat - move) % len(self.info["seats"])
            text = (
                _("Set {set}, game {game} next: you move to seat {seat}")
                if move
                else _("Set {set}, game {game} next: you keep seat {seat}")
            )
            return text.format(set=dup["set"], game=dup["game"] + 1, seat=after + 1)
        return _("Set {set}, game {game}: you hold seat {seat}'s cards").format(
            set=dup["set"], game=dup["game"], seat=seat + 1
        )

    def status_context(self) -> str:
        info = self.info
        parts = [
            _("Table {id}").format(id=self.table_id),
            _("stake {n}").format(n=info.get("stake", 0)),
        ]
        # While the table waits or is between games the prompt shows these; but at a table of
        # a duplicate set its hint leads with whose cards the player holds, and the waiting
        # room's commitment may not fit after it: it is told here (in place of "waiting",
        # which the prompt says too, so that it fits at 80 columns in German).
        dup, status = info.get("duplicate"), info.get("status")
        if self.seat is None:
            parts.append(_("watching"))
        elif status != "playing" and not (dup and status == "waiting"):
            parts.append(status_label(status or ""))
        if dup and status == "playing":
            parts.append(_("set {set}, game {game}").format(set=dup["set"], game=dup["game"]))
        shown = status == "playing" or (dup and status == "waiting")
        if shown and (deal := deal_text(info.get("deal"))):
            parts.append(deal)
        return " · ".join(parts)

    # --- events ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield from super().compose()
        # Kept, not queried: the keys ask whether it is open many times after every move.
        self._result_panel = ResultPanel()
        yield self._result_panel

    def setup(self) -> None:
        self.query_one(ChatPanel).show_lines(self.gapp.model.chat_lines(self.table_id))
        self.set_chat(self.chat_open)
        if self._draft:
            # What comes next is typed after the draft, not over it: its focus (a message
            # that may come after this) must not select it all.
            field = self.query_one(ChatPanel).query_one(Input)
            field.select_on_focus = False
            field.call_later(self._type_draft, field)
        if self._open_result is not None:  # a language or theme change recomposed the screen
            self.show_result(self._open_result)

    def on_mount(self) -> None:
        # (Textual calls GambitScreen.on_mount too: handlers run for every class.)
        self._ticker = self.set_interval(1.0, self._tick)
        self.notice_place.follow()

    def notice_area(self) -> Region | None:
        """Where notices go (:mod:`.notice_place`): beside the result of a deal while it is
        open, else over the table's panel (:meth:`table_notice_area`)."""
        if self.result_open and self._result_panel is not None:
            return self.beside_result(self._result_panel.region)
        return self.table_notice_area()

    def beside_result(self, result: Region) -> Region | None:
        """The right half of the rows under the open result, down to the question (the hand
        and the question: only the result's keys act while it is open), else of those above
        it; None (the result fills the table): Textual's place."""
        prompt = self.notice_panel("PromptBar")
        width = self.size.width
        end = prompt.region.bottom if prompt is not None else result.bottom
        under = Region(0, result.bottom, width, end - result.bottom)
        above = Region(0, 1, width, result.y - 1)  # (under the status line)
        for rows in (under, above):
            if rows.height >= NOTICE_ROWS:
                return right_part(rows)
        return None

    def table_notice_area(self) -> Region | None:
        """The right part of the first panel of :attr:`NOTICES_OVER` shown (on the log half
        its width, as Textual's toasts take), from its top: once the log is full its newest
        lines are at the bottom. None (none shown, or the screen is too small to show the
        table): Textual's place, bottom right."""
        for selector, share in self.NOTICES_OVER:
            panel = self.notice_panel(selector)
            if panel is not None:
                return right_part(panel.region, share)
        return None

    def notice_panel(self, selector: str) -> Widget | None:
        """The widget ``selector`` names, if it is shown (found once, and again after a
        recompose: a layout asks)."""
        widget = self._notice_panels.get(selector)
        if widget is None or not widget.is_attached:
            try:
                widget = self._notice_panels[selector] = self.query_one(selector)
            except NoMatches:
                return None
        region = widget.region
        return widget if region.width > 1 and region.height > 0 else None

    def timers_widget(self) -> Any:
        """The widget with a ``timers`` attribute (seconds left per seat), if the game shows
        turn timers."""
        return None

    @while_composed
    def _tick(self) -> None:
        """Count the turn timers down between table messages: seconds left come from the
        model, which knows when the message came."""
        message = self.message
        widget = self.timers_widget()
        if message is None or self._behind or widget is None:
            self._keep_ticking(False)
            return
        timers = {}
        for seat in message["info"].get("deadlines") or {}:
            left = self.gapp.model.deadline_left(self.table_id, int(seat))
            if left is not None:
                timers[int(seat)] = left
        if timers or widget.timers:
            widget.timers = timers
        self._keep_ticking(bool(timers))

    def _keep_ticking(self, on: bool) -> None:
        """Tick every second only while a turn timer runs (the screen's ``refresh_view``
        calls :meth:`_tick` with every table message): a timer that fires for nothing, every
        second for every player, cost a server of many apps as much as their moves did."""
        ticker = getattr(self, "_ticker", None)
        if ticker is None:
            return
        if on:
            ticker.resume()
        else:
            ticker.pause()

    def on_unmount(self) -> None:
        self.gapp.table_screen_closed(self.table_id, self)

    def on_table_updated(self, event: events.TableUpdated) -> None:
        if event.table_id != self.table_id:
            return
        self._bot_asked.clear()
        if self.app.screen is self:
            self.redraw()
        else:
            # Under a dialog (the rules, the score sheet…) the table waits, and is drawn once
            # when it is on top again: Textual repaints the whole dialog, backdrop and all, for
            # any change in the screen below it. (Not ``is_current``: that is also true under a
            # see-through dialog.)
            self._behind = True
        self.maybe_show_result()
        if self.next_deal_begun():
            self.close_finished_result()

    def redraw(self) -> None:
        """Show the latest state of the table."""
        self._behind = False
        self.refresh_status()
        self.refresh_view()
        self.refresh_bindings()

    def on_screen_resume(self) -> None:
        if self._behind:
            self.redraw()

    @while_composed
    def on_chat_arrived(self, event: events.ChatArrived) -> None:
        if event.key != self.table_id:
            return
        line = event.line
        self.query_one(ChatPanel).add_line(line)
        if not self.CHAT_IN_LOG:
            if not self.chat_open:
                self.notify(f"{line.sender}: {line.text}", timeout=4)
            return
        # In the log, not a notice: a notice mounts a widget and lays the screen out again,
        # as it comes and as it goes (docs/benchmarks.md, "What a table's chat costs").
        self._chat_in_log.said(line.sender, line.text)
        if self.app.screen is self:
            self.show_log(self._log_lines)
        else:
            self._behind = True  # (drawn when on top again: see on_table_updated)

    def on_chat_panel_send(self, event: ChatPanel.Send) -> None:
        if event.text.startswith("/"):
            self.gapp.chat_command(event.text, self.table_id)
            return
        self.gapp.send(Chat("table", event.text, table=self.table_id))

    def maybe_show_result(self) -> None:
        view = self.view
        if not view or not view.get("over"):
            return
        key = self.info.get("games_played", 0)
        if key in self._results_shown:
            return
        self._results_shown.add(key)
        message = self._open_result = self.message or {}
        self.set_timer(_result_delay.uniform(*RESULT_DELAY), partial(self._result_due, message))

    def _result_due(self, message: dict[str, Any]) -> None:
        if self._open_result is not message or self.result_open:
            return
        if self.next_deal_begun():
            # (Only with a pause between deals shorter than the result's delay: the log
            # tells how the last one ended.)
            self._open_result = None
            return
        self.show_result(message)
        self.draw_now()

    def next_deal_begun(self) -> bool:
        """Whether the table plays a deal that has not ended (a result shown, or due, belongs
        to one before it)."""
        view = self.view
        return view is not None and not view.get("over")

    def close_finished_result(self) -> None:
        """The next deal has begun: the result of the last one closes by itself, so it never
        covers the new deal (a spectator, who has nothing to press, saw one result stay over
        deal after deal), and a notice says why it went."""
        if self._open_result is None:
            return
        was_open = self.result_open
        self.quiet_keys()  # (open, or about to open: a key may be on its way for it)
        self.close_result()
        if was_open:
            self.notice(self.next_deal_notice())

    def next_deal_notice(self) -> str:
        return _("The next game has started.")

    def notice(self, text: str, timeout: float = 4) -> None:
        """A short notice over the table (a toast), kept in :attr:`notices`."""
        self.notices.append(text)
        self.notify(text, timeout=timeout, markup=False)

    @while_composed
    def show_result(self, message: dict[str, Any]) -> None:
        """Show the result of the deal that ``message`` ended; it stays until the player
        closes it or the next deal begins (see :meth:`close_finished_result`)."""
        self._open_result = message
        if self._result_panel is None:
            return  # shown by setup() once composed
        if self.chat_open:
            self.set_chat(False)  # Enter must close the result, not send a chat line
        self._result_panel.show(result_title(message), result_text(message, self.gapp.card_style))
        self.refresh_bindings()

    @property
    def result_open(self) -> bool:
        panel = self._result_panel
        return panel is not None and panel.is_open

    def action_close_result(self) -> None:
        """The player closed the result: the hub may deal the next game once everyone at the
        table has (``result_read``), rather than wait out the pause between games."""
        was_open = self.result_open
        self.close_result()
        self.result_read(was_open)

    def result_read(self, was_open: bool = True) -> None:
        """Tell the hub this seated player has read the last game's result (not of a
        replay's: no game comes after it)."""
        if (
            was_open
            and not self.REPLAY
            and self.seat is not None
            and self.info.get("status") == "between"
        ):
            self.gapp.send(ResultRead(self.table_id))

    def close_result(self) -> None:
        """Close the result panel (by the player's key, or by itself)."""
        self._open_result = None
        if self._result_panel is not None:
            self._result_panel.close()
        self.refresh_bindings()
        self.draw_now()

    def on_resize(self, event: textual_events.Resize) -> None:
        if self.result_open and self._result_panel is not None:
            self._result_panel.place()

    # --- chat ------------------------------------------------------------------------------

    @while_composed
    def set_chat(self, open_: bool) -> None:
        """Show the chat panel (and focus its input) or hide it again."""
        self.chat_open = open_
        self.set_class(open_, "-chat")
        panel = self.query_one(ChatPanel)
        if open_:
            panel.focus_input()
        else:
            self.set_focus(None)
        self.refresh_bindings()

    # --- keys ------------------------------------------------------------------------------

    def bindings_state(self) -> Hashable | None:
        """What :meth:`check_action` reads, for the footer (see ``GambitScreen``): the
        result panel, chat, what the waiting room's keys read, the app's answer key, and the
        game's own (:meth:`game_bindings_state`; None: none, the footer looks every time)."""
        if not self.is_mounted:
            return None
        game = self.game_bindings_state()
        if game is None:
            return None
        seated = self.seat is not None
        info = self.info
        status = info.get("status")
        seats: tuple[bool, bool] | None = None
        if seated and status == "waiting":
            seats = (
                any(s.get("bot") for s in info["seats"]),
                any(not (s.get("name") or s.get("bot")) for s in info["seats"]),
            )
        pending = bool(self.gapp.model.pending())  # the app's Ctrl+R
        return (self.result_open, self.chat_open, seated, status, seats, pending, game)

    def game_bindings_state(self) -> Hashable | None:
        """What :meth:`check_table_action` reads beyond this class's keys, and how
        ``footer_keys`` writes the keys, cheap to work out (None: no such summary)."""
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While the result of a deal is open, closing it is the only key (as in a dialog).
        if action == "close_result" or self.result_open:
            return action == "close_result" and self.result_open
        return self.check_table_action(action, parameters)

    def check_table_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Whether a key of the table (not the result panel) is available now."""
        if action == "chat":
            return not self.chat_open
        if action == "back" and parameters and parameters[0] != self.escape_to():
            return False
        if action in ("close_chat", "back"):
            return self.chat_open == (action == "close_chat")
        seated = self.seat is not None
        if action == "invite":
            return seated
        if action not in ("add_bot", "remove_bot", "start"):
            return True
        info = self.info
        if not seated or info.get("status") != "waiting":
            return False
        if action == "remove_bot":
            return any(s.get("bot") for s in info["seats"])
        free = any(not (s.get("name") or s.get("bot")) for s in info["seats"])
        return free if action == "add_bot" else not free

    def action_add_bot(self) -> None:
        free = [
            s["seat"]
            for s in self.info["seats"]
            if not (s.get("name") or s.get("bot")) and s["seat"] not in self._bot_asked
        ]
        if free:
            self._bot_asked.add(free[0])
            self.gapp.send(AddBot(self.table_id, free[0]))

    def action_remove_bot(self) -> None:
        bots = [s["seat"] for s in self.info["seats"] if s.get("bot")]
        if bots:
            self.gapp.send(RemoveBot(self.table_id, bots[-1]))

    def action_start(self) -> None:
        self.gapp.send(Start(self.table_id))

    def action_invite(self) -> None:
        from .pick_player import PickPlayerScreen

        def invite(name: str | None) -> None:
            if name:
                self.gapp.send(Invite("send", self.table_id, name=name))

        seated = {s["name"] for s in self.info.get("seats", []) if s.get("name")}
        self.app.push_screen(PickPlayerScreen(_("Invite a player to this table"), seated), invite)

    def action_chat(self) -> None:
        self.set_chat(True)

    def hand_over(self) -> dict[str, Any]:
        """What this table's screen in a new app needs to look the same (see resume.py):
        whether the chat is open, what is typed in it, and the chat lines in the log."""
        draft = ""
        if self.chat_open and self.is_mounted:
            draft = self.query_one(ChatPanel).query_one(Input).value
        log_chat = self._chat_in_log.hand_over()
        return {"chat": self.chat_open, "draft": draft, "log_chat": log_chat}

    def _type_draft(self, field: Input) -> None:
        """Put back what was typed in the chat, the cursor after it (kept for the next
        widgets if these were replaced meanwhile: a recompose)."""
        if not field.is_attached or not self._draft:
            return
        field.value, self._draft = self._draft, ""
        field.cursor_position = len(field.value)

    def take_over(self, state: dict[str, Any]) -> None:
        """Look as :meth:`hand_over` said (before this screen is mounted)."""
        self.chat_open = bool(state.get("chat"))
        self._draft = str(state.get("draft") or "")
        self._chat_in_log.take_over(state.get("log_chat") or [])

    def action_close_chat(self) -> None:
        self.set_chat(False)

    def action_players(self) -> None:
        """The profiles of the players in the seats (bots have none)."""
        from .profile import ProfileScreen

        names = [s["name"] for s in self.info.get("seats", []) if s.get("name")]
        self.app.push_screen(ProfileScreen(names))

    def action_leave(self) -> None:
        """Stand up or stop watching. During a game a seat cannot just go: a bot plays it to
        the end with the player's chips at stake, so the player is asked first."""
        view = self.view
        if self.seat is None or view is None or view.get("over"):
            self._leave()
            return
        from .confirm import ConfirmScreen

        text = _(
            "A bot will play your seat until this game ends. Your chips stay at stake: what "
            "the bot wins or loses is yours, and you will be told when you come back. "
            "Press j on this table in the lobby to take your seat back.\n\nLeave the table?"
        )
        self.app.push_screen(
            ConfirmScreen(_("Leave during a game"), text),
            lambda yes: self._leave() if yes else None,
        )

    def _leave(self) -> None:
        self.gapp.send(Leave(self.table_id))

    def escape_to(self) -> str:
        """Where Esc goes: the screen under this one (``lobby``, ``events`` or ``back``)."""
        stack = self.app.screen_stack
        below = stack[stack.index(self) - 1] if self in stack[1:] else None
        return str(getattr(below, "ESCAPE_TO", "back"))

    def action_back(self, _to: str = "") -> None:
        if self.chat_open:
            self.set_chat(False)
            return
        self.gapp.leave_table_screen(self.table_id, keep_seat=self.seat is not None)
        if self.seat is None:
            self.gapp.send(Leave(self.table_id))
