"""The Fortunes table: seats by compass point around the trick, the deal's state (direction,
led suit, Stars, scores, betting), the tricks each player has won, your hand, the question
pending, and a key for every legal action."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.geometry import Region
from textual.screen import Screen

from protocol.actions import Bid, Play, action_from_wire

from ..autoplay import AutoPlay
from ..cards import CardStyle
from ..fortunes_text import (
    FORTUNES_FACES,
    TRICKS,
    ask_text,
    card_name,
    card_text,
    compass_name,
    direction_text,
    disposition_mark,
    disposition_word,
    notices,
    suit_legend,
    team_at,
    team_label,
)
from ..i18n import N_, _, ngettext
from ..result_text import stand_in_move_text
from ..sentences import fill
from ..widgets.chat_panel import ChatPanel
from ..widgets.choice_row import ChoiceRow, digit_range
from ..widgets.fortunes_compass import FortunesCompass
from ..widgets.fortunes_hand import FortunesHand
from ..widgets.fortunes_status import FortunesStatus, signed
from ..widgets.fortunes_won import FortunesWon
from ..widgets.hand_row import HandRow
from ..widgets.panel_join import PanelJoin
from ..widgets.prompt_bar import PromptBar
from ..widgets.trick_view import trick_grid
from .base import while_composed
from .last_trick import LastTrickScreen
from .notice_place import right_part
from .table_base import NOTICE_ROWS, TABLE_KEYS, TableScreen

#: A quarter of the tricks: where the bid starts before the player changes it.
FIRST_BID = 5


class FortunesTableScreen(TableScreen, inherit_bindings=False):
    """One Fortunes table. The screen reads the table message from the model and sets its
    widgets; an action is sent only if it is one of ``view["legal"]``, once per decision."""

    DEFAULT_CSS = """
    FortunesTableScreen.-chat FortunesWon {
        display: none;
    }
    FortunesTableScreen #top {
        height: 10;
    }
    FortunesTableScreen FortunesWon {
        height: 1fr;
    }
    FortunesTableScreen ChatPanel {
        height: 1fr;
    }
    /* At 80x24 there is no row for a border between the won tricks and the hand: they are
       one box in two parts, the line between them (PanelJoin) carrying the hand's title. The
       footer keeps two rows, which the keys need in German and Ukrainian, and in English
       once there is a last trick to show. With the chat open, the hand has its own box. */
    FortunesTableScreen FortunesWon {
        border-bottom: none;
    }
    FortunesTableScreen FortunesHand {
        border-top: none;
        height: 3;
    }
    FortunesTableScreen.-chat PanelJoin {
        display: none;
    }
    FortunesTableScreen.-chat FortunesHand {
        border-top: round $primary 50%;
        height: 4;
    }
    FortunesTableScreen GambitFooter {
        max-height: 2;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "play", N_("Play")),
        Binding("p", "play", N_("Play"), show=False),
        Binding("enter", "bid", N_("Bid")),
        Binding("up", "bid_step(1)", N_("Choose bid"), key_display="↑↓"),
        Binding("down", "bid_step(-1)", N_("Choose bid"), show=False),
        Binding("s", "bet('stay')", N_("Stay")),
        Binding("r", "bet('raise')", N_("Raise")),
        Binding("f", "bet('fold')", N_("Fold")),
        Binding("enter", "next_deal", N_("Next deal")),
        Binding("n", "next_deal", N_("Next deal"), show=False),
        Binding("left", "move(-1)", N_("Pick card"), key_display="←→"),
        Binding("right", "move(1)", N_("Pick card"), show=False),
        *[Binding(str(n), f"digit({n})", N_("Pick card"), show=False) for n in range(10)],
        Binding("l", "last_trick", N_("Last trick")),
        Binding("v", "reading", N_("Reading")),
        *TABLE_KEYS,
    ]
    HAND = FortunesHand
    #: No log of moves here: the table's chat lines go under the won tricks (show_log).
    CHAT_IN_LOG = True

    def __init__(self, table_id: int) -> None:
        super().__init__(table_id)
        self.autoplay: AutoPlay = AutoPlay(self, self.autoplay_act)
        #: The number of tricks the player is about to bid.
        self.bid = FIRST_BID
        #: (deal, events seen): where the notices of new events start.
        self._seen: tuple[int, int] | None = None
        #: Readings already shown: ("deal", games played, deal) or ("over", games played).
        self._readings_shown: set[tuple[Any, ...]] = set()
        #: The reading that came up by itself, and the deal it is of (see maybe_show_result).
        self._auto_reading: tuple[tuple[Any, ...], Screen] | None = None
        #: The card style the suits' legend under the hand was made in.
        self._legend_style: CardStyle | None = None

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield FortunesCompass()
            yield FortunesStatus()
        yield FortunesWon()
        yield ChatPanel(id="chat", title=_("Table chat"), max_length=self.chat_max)
        yield PanelJoin()
        yield FortunesHand(id="hand")
        yield PromptBar()

    # --- what the screen reads -------------------------------------------------------------

    def _decision_key(self) -> tuple[Any, ...]:
        """Names the decision the current view is about (changes with every event)."""
        view = self.view or {}
        return (
            self.info.get("games_played", 0),
            view.get("deal"),
            len(view.get("events", [])),
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
        for widget in (
            self.query_one(FortunesCompass),
            self.query_one(FortunesStatus),
            self.query_one(FortunesWon),
        ):
            widget.style = style
            widget.message = message
        self._tick()
        self.show_log([])  # (the chat lines a moved app handed over, the first time)
        self._notify_new(view)
        self._set_hand(view)
        self._set_prompt(view)
        self.autoplay.consider(
            self._decision_key(),
            (view or {}).get("legal", []) if self.ask_kind == "play" else [],
            enabled=self.gapp.prefs.autoplay_forced and self.seat is not None,
        )
        self.refresh_bindings()

    def show_log(self, lines: list[Text]) -> None:
        """The table's chat lines, under the won tricks' rows: a line said is one more row
        there, not a notice (a notice lays the whole screen out again as it comes and goes;
        docs/benchmarks.md, "What a table's chat costs"). The table keeps no log of moves
        (``lines`` is empty): its news are notices."""
        self._log_lines = lines
        self.query_one(FortunesWon).chat = self._chat_in_log.lines(lines)
        self._show_said()

    def _show_said(self) -> None:
        """The newest line said on the line under the won tricks when the box has no row
        for it (80x24 while a card is to be played: the footer's second row took it), so a
        player sees what is said with the chat closed, whatever the phase."""
        won = self.query_one(FortunesWon)
        chat = won.chat
        no_row = won.chat_room() < 1
        newest = chat[-1] if chat and no_row else None
        self.query_one(PanelJoin).show_said(newest)
        self.notice_place.update()  # (a line said took an empty row: see table_notice_area)

    def table_notice_area(self) -> Region | None:
        """Notices lie over the won tricks' empty rows, under the players' rows and the
        lines said (issue 43's chaos runs: notices over the line said hid it for seconds),
        while three rows are empty (a one-line notice and the row above it), the box's right
        border in sight; else (80x24) over the Deal panel, top right: a notice here is news
        of the deal (a flip, Stars free, a raise, a fold), which the compass shows too and
        the panel once it is gone; three notices fit there, the oldest go first. There too
        with the chat open (not over its lines, which the player reads)."""
        won = self.notice_panel("FortunesWon")
        if isinstance(won, FortunesWon) and not self.chat_open:
            free = won.free_rows()
            if free >= NOTICE_ROWS:
                box = won.region
                top = won.content_region.bottom - free
                return right_part(Region(box.x, top, box.width, free))
        deal = self.notice_panel("FortunesStatus")
        return None if deal is None else right_part(deal.region, 1.0)

    def on_fortunes_won_chat_room_changed(self, event: FortunesWon.ChatRoomChanged) -> None:
        event.stop()
        self._show_said()

    def _notify_new(self, view: dict[str, Any] | None) -> None:
        """A notice for each new flip, Stars becoming free, a raise or a fold (not for what
        was already on the table when the screen opened)."""
        if not view:
            return
        deal = int(view.get("deal", 1))
        evs = view.get("events") or []
        seen = self._seen
        self._seen = (deal, len(evs))
        if seen is None:
            return
        # A new deal (or a new game: its deal 1 starts with fewer events) starts afresh.
        start = seen[1] if seen[0] == deal and seen[1] <= len(evs) else 0
        if start >= len(evs):
            return
        for text in notices(
            evs,
            start,
            self.name_of,
            self.gapp.card_style,
            mine=self.seat,
        ):
            self.notice(text)
        for ev in evs[start:]:  # (no log at this table: a bot's move for a player is told)
            if ev.get("e") == "stand_in":
                self.notice(stand_in_move_text(ev, self.name_of(ev["seat"])))

    def _set_hand(self, view: dict[str, Any] | None) -> None:
        hand = self.query_one(FortunesHand)
        self.show_hand(
            hand,
            view,
            FORTUNES_FACES,
            lambda n: ngettext("Your hand: {n} card", "Your hand: {n} cards", n).format(n=n),
        )
        self.query_one(PanelJoin).show_title_of(hand)
        style = self.gapp.card_style
        if self._legend_style != style:  # (a new subtitle repaints the whole row: once)
            self._legend_style = style
            hand.border_subtitle = suit_legend(style)

    def _set_prompt(self, view: dict[str, Any] | None) -> None:
        prompt = self.query_one(PromptBar)
        ask = self.ask
        prompt.yours = bool(ask)
        if view is None:
            prompt.question = self.waiting_room_text()
            prompt.hint = self.deal_hint()
            return
        if view.get("over"):
            prompt.question = self._over_text(view)
            again = (
                _("v shows the reading again.")
                if self.REPLAY  # (a replay shows what happened: no game comes next)
                else _("v shows the reading again. The next game starts soon.")
            )
            prompt.hint = Text(again, style="dim")
            return
        if ask:
            prompt.question = ask_text(ask, view, self.gapp.card_style)
            prompt.hint = self._hint(ask, view)
            return
        prompt.question = self._waiting_text(view)
        prompt.hint = self._card_hint()

    def _over_text(self, view: dict[str, Any]) -> Text:
        outcome = view.get("outcome") or {}
        if outcome.get("refund"):
            return Text(_("The game is over: a draw, every player takes back their ante."))
        winners = outcome.get("winners") or []
        names = ", ".join(self.name_of(s) for s in winners)
        return Text(
            ngettext(
                "The game is over: {names} takes the pot.",
                "The game is over: {names} share the pot.",
                len(winners),
            ).format(names=names)
        )

    def _hint(self, ask: dict[str, Any], view: dict[str, Any]) -> Text:
        kind = ask.get("kind")
        if kind == "bid":
            out = Text(_("Your bid:") + " ")
            left, right = ("<", ">") if self.gapp.card_style.ascii else ("◀", "▶")
            out.append(f"{left} {self.bid} {right}", style="bold reverse")
            keys = digit_range(int(ask.get("max", TRICKS)) + 1, first=0)
            change = _("↑↓ or {keys} change · house rule: each player bids").format(keys=keys)
            out.append("  ·  " + change, style="dim")
            return out
        if kind == "bet":
            stay, raised = self.bet_costs()
            if not self.can_pay(stay):
                return Text(
                    _("You cannot pay the ante again ({chips} chips): you must fold.").format(
                        chips=stay
                    ),
                    style="bold",
                )
            raises = int(ask.get("raises_left", 0))
            out = Text(
                _("A stay pays {stay} chips, a raise {raised}.").format(stay=stay, raised=raised)
                + " ",
                style="dim",
            )
            out.append(
                ngettext(
                    "{n} more raise this deal (house rule).",
                    "{n} more raises this deal (house rule).",
                    raises,
                ).format(n=raises)
            )
            return out
        if kind == "next_deal":
            return Text(_("v shows the reading of the deal."), style="dim")
        return self._card_hint()

    def _waiting_text(self, view: dict[str, Any]) -> Text:
        phase = view.get("phase")
        waiting = view.get("waiting") or []
        turn = view.get("turn")
        name = self.name_of(turn) if turn is not None else "?"
        if phase == "bid":
            return Text(_("{name} is bidding.").format(name=name))
        if phase == "bet":
            return Text(_("{name} decides: stay, raise or fold.").format(name=name))
        if phase == "next_deal":
            return Text(
                _("Waiting for {names} to start the next deal.").format(
                    names=", ".join(self.name_of(s) for s in waiting)
                )
            )
        return Text(_("{name}'s turn.").format(name=name))

    def _card_hint(self) -> Text:
        """A line naming the picked card, how to pick another, and why cards are dimmed."""
        return self.card_hint(
            self.query_one(FortunesHand),
            card_text,
            card_name,
            picking=self.ask_kind == "play",
            dimmed=_("dimmed cards may not be played"),
        )

    @while_composed
    def on_choice_row_moved(self, event: ChoiceRow.Moved) -> None:
        event.stop()  # the app has nothing to do with it
        view = self.view
        if view and not view.get("over") and self.ask_kind in (None, "play"):
            self.query_one(PromptBar).hint = self._card_hint()

    # --- the reading -----------------------------------------------------------------------

    def maybe_show_result(self) -> None:
        """The reading comes up by itself when a deal ends (between the deals of a target
        game, and at the end of the game, where it also says who takes the pot)."""
        view = self.view
        message = self.message
        if not view or message is None:
            return
        games = self.info.get("games_played", 0)
        if view.get("over"):
            key: tuple[Any, ...] = ("over", games)
        elif view.get("phase") == "next_deal":
            key = ("deal", games, view.get("deal"))
        else:
            return
        if key in self._readings_shown:
            return
        self._readings_shown.add(key)
        from .fortunes_reading import FortunesReadingScreen

        reading = FortunesReadingScreen(message)
        self._auto_reading = (key, reading)
        # (closed by the player: the game's end read; closed by itself, the table plays on)
        self.app.push_screen(reading, lambda _: self.result_read() if key[0] == "over" else None)

    def next_deal_begun(self) -> bool:
        """Whether a deal after the one the reading that came up by itself is of has begun:
        a new game after the game's end, the next deal after a deal's."""
        view = self.view
        if view is None or view.get("over") or self._auto_reading is None:
            return False
        key = self._auto_reading[0]
        if key[0] == "over":
            return True
        return view.get("phase") != "next_deal" or view.get("deal") != key[2]

    def close_finished_result(self) -> None:
        """The reading that came up by itself closes when the next deal begins (one the
        player opened with ``v`` stays: they asked for it)."""
        if self._auto_reading is None:
            return
        key, reading = self._auto_reading
        self._auto_reading = None
        if self.app.screen is not reading:
            return  # closed already (or under a dialog the player opened on top of it)
        self.quiet_keys()
        reading.dismiss()
        if key[0] == "over":
            self.notice(_("The next game has started."))
        else:
            self.notice(_("The next deal has started."))

    def action_reading(self) -> None:
        from .fortunes_reading import FortunesReadingScreen

        if self.message is not None:
            self.app.push_screen(FortunesReadingScreen(self.message))

    def action_last_trick(self) -> None:
        self.app.push_screen(LastTrickScreen(self.table_id, self.last_trick_body))

    def last_trick_body(self) -> RenderableType:
        """The last trick taken: every card in playing order, who won it, which way it went
        in the end (and whether Stars flipped it), its disposition and its points."""
        view = self.view or {}
        tricks = view.get("tricks") or []
        style = self.gapp.card_style
        if not tricks:
            return Text(_("No trick has been taken yet this deal."), style="dim")
        last = tricks[-1]
        dealer = int(view.get("dealer", 0))
        winner = int(last["winner"])
        out = Table.grid()
        out.add_column()
        leader = int(last["leader"])
        head = Text(
            _("Trick {n}, led by {name} ({point}).").format(
                n=last["n"], name=self.name_of(leader), point=compass_name(leader, dealer)
            )
        )
        out.add_row(head)
        out.add_row(
            trick_grid(last["cards"], 4, self.name_of, FORTUNES_FACES, style, winner=winner)
        )
        line = direction_text(last["direction"], style)
        flips = int(last.get("flips") or 0)
        if flips:
            line.append(" · ")
            line.append(_("flipped ×{n}").format(n=flips), style="dim")
        out.add_row(line)
        result = fill(
            _("{name} won it with {card}: {mark} {disposition} for the {team} team, {points}."),
            name=self.name_of(winner),
            card=card_text(last["top"], style),
            mark=disposition_mark(last["disposition"], style),
            disposition=disposition_word(last["disposition"]),
            team=team_label(team_at(view, winner)),
            points=Text(signed(int(last["points"])), style="bold"),
        )
        out.add_row(result)
        return out

    # --- acting ----------------------------------------------------------------------------

    def check_table_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.is_mounted or not self.query(FortunesHand):
            return False
        kind = self.ask_kind
        if action == "play":
            return self.legal_play() is not None
        if action in ("bid", "bid_step"):
            return kind == "bid" and not self.chat_open
        if action == "bet":
            kind = "stay" if not parameters else str(parameters[0])
            if self._legal(kind) is None:
                return False
            stay, raised = self.bet_costs()
            return self.can_pay({"stay": stay, "raise": raised}.get(kind, 0))
        if action == "next_deal":
            return self._legal("next_deal") is not None
        if action == "move":  # not while bidding: the bid is chosen with ↑↓ and digits
            return (
                kind != "bid"
                and bool(self.query_one(FortunesHand).choices)
                and not (self.chat_open)
            )
        if action == "digit":
            return (kind == "bid" or bool(self.query_one(FortunesHand).choices)) and not (
                self.chat_open
            )
        if action == "last_trick":
            return bool((self.view or {}).get("tricks")) and not self.chat_open
        if action == "reading":
            return self.view is not None and not self.chat_open
        return super().check_table_action(action, parameters)

    def game_bindings_state(self) -> Hashable | None:
        try:
            hand = self.query_one(FortunesHand)
        except NoMatches:
            return None
        view = self.view
        ask = self.ask or {}
        return (
            ask.get("kind"),
            ask.get("max"),  # the footer's digits for a bid
            self.legal_play() is not None,
            self._bets_open(),
            self._legal("next_deal") is not None,
            bool(hand.choices),
            bool((view or {}).get("tricks")),
            view is not None,
        )

    def _bets_open(self) -> tuple[bool, bool, bool]:
        """Whether the player may stay, raise and fold now (``check_table_action``'s answer
        for each bet, without its look for the hand row)."""
        stay, raised = self.bet_costs()
        costs = {"stay": stay, "raise": raised, "fold": 0}
        stay_ok, raise_ok, fold_ok = (
            self._legal(kind) is not None and self.can_pay(costs[kind])
            for kind in ("stay", "raise", "fold")
        )
        return stay_ok, raise_ok, fold_ok

    def bet_costs(self) -> tuple[int, int]:
        """What a stay and a raise cost now, in chips: the current ante, and the ante a stake
        higher (ruling 10 b)."""
        ante = int((self.ask or {}).get("ante", 1))
        stake = int(self.info.get("stake", 0))
        return ante * stake, (ante + 1) * stake

    def can_pay(self, chips: int) -> bool:
        """Whether the player's chips cover ``chips`` (the hub refuses a stay or raise they
        do not: who cannot pay the ante must fold)."""
        mine = self.gapp.model.you.get("chips")
        return mine is None or chips <= int(mine)

    def _legal(self, kind: str) -> dict[str, Any] | None:
        """The legal action of type ``kind`` without fields (stay, raise, fold, next deal)."""
        view = self.view
        if not view or self.chat_open:
            return None
        return next((a for a in view.get("legal", []) if a == {"type": kind}), None)

    def action_play(self) -> None:
        self.query_one(FortunesHand).play()

    def on_hand_row_play(self, event: HandRow.Play) -> None:
        action = Play(event.card)
        if self.legal_play() == action:
            self._send_action(action)

    def action_bid(self) -> None:
        action = Bid(self.bid)
        if self.ask_kind == "bid":
            self._send_action(action)

    def action_bid_step(self, delta: int) -> None:
        self.set_bid(self.bid + delta)

    def set_bid(self, tricks: int) -> None:
        """Put the bid at ``tricks`` (kept within 0 and the most the ask allows)."""
        most = int((self.ask or {}).get("max", TRICKS))
        self.bid = max(0, min(most, tricks))
        view = self.view
        if view and self.ask:
            self.query_one(PromptBar).hint = self._hint(self.ask, view)

    def action_bet(self, kind: str) -> None:
        action = self._legal(kind)
        if action is not None:
            self._send_action(action_from_wire(action))

    def action_next_deal(self) -> None:
        action = self._legal("next_deal")
        if action is not None:
            self._send_action(action_from_wire(action))

    def action_move(self, delta: int) -> None:
        self.query_one(FortunesHand).move(delta)
        self.refresh_bindings()

    def footer_keys(self, action: str, shown: str) -> str:
        """The bid's keys in the footer: the arrows, and the digits that set a bid."""
        if action.startswith("bid_step"):
            most = int((self.ask or {}).get("max", TRICKS))
            return f"{shown} {digit_range(most + 1, first=0)}"
        return shown

    def action_digit(self, digit: int) -> None:
        """A digit sets the bid while bidding (0–9), else picks the card in that place."""
        if self.ask_kind == "bid":
            self.set_bid(digit)
            return
        self.query_one(FortunesHand).pick_digit(digit)
        self.refresh_bindings()

    def timers_widget(self) -> FortunesCompass:
        return self.query_one(FortunesCompass)
