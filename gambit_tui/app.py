"""The Gambit app: one per player, talking to the hub only through protocol messages.

The SSH host (or ``gambit play``) makes a connection and runs::

    app = GambitApp(conn, term=TermInfo(...), identity="SHA256:…" or None, name="wished")
    await app.run_async(size=(term.width, term.height))

The app says ``hello`` itself, then a worker reads the connection: each message updates the
:class:`~gambit_tui.model.ClientModel` and every screen in the stack is told what changed with
a Textual message (:mod:`gambit_tui.events`). Nothing here prints: many apps share one server
process, so problems go to :mod:`logging`.
"""

from __future__ import annotations

import gettext
import logging
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.filter import LineFilter, Monochrome
from textual.notifications import SeverityLevel
from textual.screen import Screen

from protocol.codec import ProtocolError
from protocol.connection import Connection, ConnectionClosed
from protocol.event_log import expand
from protocol.messages import PROTOCOL_VERSION, validate_server
from protocol.requests import Hello, Profile, Request
from protocol.term import TermInfo

from . import events
from .ascii_text import asciify
from .cards import CardStyle
from .entropy import Entropy
from .i18n import LANGUAGES, N_, _, ascii_catalog, translations
from .model import LATE_BELL, ClientModel, turn_clock
from .prefs import Prefs
from .refusals import server_text
from .screens.base import GambitScreen
from .themes import MONO, THEME_NAMES

log = logging.getLogger(__name__)
#: A debug run (``GAMBIT_CHECK_MESSAGES=1``) checks every message from the hub as the hub checks
#: the client's, and drops (and logs) one the protocol does not list.
CHECK_MESSAGES = bool(os.environ.get("GAMBIT_CHECK_MESSAGES"))

#: Key pairs as a terminal without UTF-8 shows them (other keys: ascii_text.asciify).
_ASCII_KEYS = {"←→": "<>", "↑↓": "^v"}


@dataclass(frozen=True, slots=True)
class Notice:
    """A notice put up, and until when (``time.monotonic``) it stays."""

    message: str
    title: str
    severity: SeverityLevel
    until: float


class GambitApp(App[None]):
    """Lobby, tables and settings for one player."""

    TITLE = "Gambit"
    ENABLE_COMMAND_PALETTE = False
    # (Typed as Textual's App types them: its ClassVar[…] | None hint is an instance's.)
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [(0, "-narrow"), (80, "-wide")]  # noqa: RUF012
    VERTICAL_BREAKPOINTS: list[tuple[int, str]] | None = [(0, "-short"), (24, "-tall")]  # noqa: RUF012
    CSS = """
    Screen.-narrow > *, Screen.-short > * {
        display: none;
    }
    Screen.-narrow > TooSmall, Screen.-short > TooSmall {
        display: block;
    }
    /* Without colour a field's focus (a faint tint) would not show: reverse or underline. */
    App.-no-colour Select:focus > SelectCurrent {
        text-style: reverse;
    }
    App.-no-colour Input:focus {
        text-style: underline;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "rules", N_("Rules")),
        Binding("ctrl+q", "quit", N_("Quit"), show=False, priority=True),
        Binding("ctrl+r", "answer", N_("Answer"), priority=True),
    ]

    def __init__(
        self,
        conn: Connection,
        *,
        term: TermInfo | None = None,
        identity: str | None = None,
        name: str | None = None,
        resume: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.conn = conn
        #: What an app this one takes over from left (see resume.py): no hello then.
        self._resume = resume
        self.term = term or TermInfo()
        self.identity = identity
        self.wished_name = name
        self.model = ClientModel()
        #: Our random values for tables' next deals (players' entropy; entropy.py).
        self.entropy = Entropy()
        self.prefs = Prefs()
        self.lang = self.term.language or "en"
        self.translations = self._catalog(self.lang)
        #: Tables whose screen the player closed while keeping their seat (don't reopen).
        self.dismissed: set[int] = set()
        #: Tables we asked to watch; their first message opens a screen.
        self.watching: set[int] = set()
        #: A welcome came: a second one means the server moved this connection to another
        #: hub (a standby taking over), and the screens stay as they are.
        self.welcomed = False
        #: How many "your turn" alerts were raised (tests read it; the bell is invisible).
        self.alerts = 0
        #: The decisions (table, deadline) whose late bell has rung.
        self._late_bells: set[tuple[int, int]] = set()
        #: What stand-in bots did with the player's chips, as told (tests read it).
        self.stand_in_notices: list[str] = []
        #: What the terminal's window title was last set to.
        self.window_title = "Gambit"
        #: Whether a status bar shows the seconds left of the player's turn (see _turn_clock).
        self._turn_shown = False
        self._asked: dict[int, bool] = {}
        self._table_screens: dict[int, Screen] = {}
        #: Friend requests already told in a notice (each is told once).
        self._told: set[str] = set()
        #: The notices put up, newest last (see withdraw_notices).
        self._notices: list[Notice] = []
        #: The notice of each invitation ("invite", table) and friend request ("friend",
        #: name), taken down once it is answered.
        self._social_notices: dict[tuple[str, Any], str] = {}
        self.closed_reason: str | None = None
        #: Greys only, for a terminal without colour (see get_line_filters).
        self._monochrome = None if self.term.colour else Monochrome()

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, and greys only for a terminal without colour. (The colour depth
        of a player's terminal is set by the app's host, which knows it: Textual reads the
        process's, which on a server is the server's.)"""
        filters = super().get_line_filters()
        mono = self._monochrome
        if mono is None or any(isinstance(f, Monochrome) for f in filters):
            return filters
        return [*filters, mono]

    # --- start and the connection ------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        from .screens.connecting import ConnectingScreen

        return ConnectingScreen()

    def on_mount(self) -> None:
        self.register_theme(MONO)
        if not self.term.colour:
            self.theme = MONO.name
            self.add_class("-no-colour")
        self._clock = self.set_interval(1.0, self._turn_clock)
        if self._resume is not None:
            self._take_over(self._resume)
        self.run_worker(self._talk(), name="connection", exit_on_error=False)

    def _take_over(self, state: dict[str, Any]) -> None:
        """Go on from where the app this one replaces was (see resume.py): the lobby, and the
        table screens that were open on it, drawn in the first frame."""
        from . import resume
        from .screens.lobby import LobbyScreen

        resume.restore(self, state)
        self.welcomed = True
        self._adopt_you()
        self.push_screen(LobbyScreen())
        events_screen = resume.events_screen_of(state)
        if events_screen is not None:
            from .screens.nights import NightsScreen

            self.push_screen(NightsScreen(select=events_screen.get("follows")))
        for table_id, shown in resume.screens_of(state):
            self.open_table(table_id)
            take_over = getattr(self.table_screen(table_id), "take_over", None)
            if take_over is not None:
                take_over(shown)
        for message, title, severity, left in resume.notices_of(state):
            self.notify(message, title=title, severity=severity, timeout=left)  # type: ignore[arg-type]  # (a severity this app put up)

    def resume_state(self) -> dict[str, Any]:
        """What a new app needs to go on where this one is (plain data; see resume.py)."""
        from . import resume

        return resume.snapshot(self)

    def table_screen(self, table_id: int) -> Screen | None:
        """The open screen of a table, if any."""
        return self._table_screens.get(table_id)

    def table_screens(self) -> list[int]:
        """The tables whose screens are open, oldest first (replays are not tables)."""
        return [table_id for table_id in self._table_screens if table_id > 0]

    @property
    def shown_table(self) -> int | None:
        """The table the player looks at or last opened (None: only the lobby and the
        like): where the server would rather run this app (see server/apphost/workers.py)."""
        for table_id in reversed(self._table_screens):
            if table_id > 0:
                return table_id
        return None

    async def _talk(self) -> None:
        """Say hello, then turn every message from the hub into model changes and events."""
        hello = Hello(
            PROTOCOL_VERSION,
            name=self.wished_name[:24] if self.wished_name else None,
            lang=self.term.language or None,
            identity=self.identity or None,
        )
        try:
            if self._resume is None:  # (an app that takes over: the hub knows it already)
                await self.conn.send(hello.to_wire())
            self._resume = None
            while True:
                message = await self.conn.recv()
                if isinstance(message, ProtocolError):
                    log.warning("bad frame from the hub: %s", message)
                    continue
                try:
                    if CHECK_MESSAGES:
                        validate_server(message)
                    self.receive(message)
                except Exception:
                    log.exception("could not handle %s", message.get("t"))
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("connection reader failed")
        self.connection_lost()

    def connection_lost(self) -> None:
        if self.closed_reason is None:
            self.closed_reason = _("The connection to the server was lost.")
        if self.is_running:
            self.notify(self.closed_reason, severity="error", timeout=3)
            self.set_timer(1.5, self.exit)

    def chat_command(self, text: str, key: str | int) -> None:
        """A chat line that starts with "/" (see chat_commands.py)."""
        from .chat_commands import command

        message, say = command(text, key, self.model)
        if message is not None:
            self.send(message)
        if say is not None:
            self.notify(say, timeout=8)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A notice, always plain text: notices carry what players typed (a chat line, a
        broadcast, the message of the day) and player text is never markup. (Textual reads
        a notice as markup by default, and a screen's ``notify`` passes that on.)"""
        seconds = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
        now = time.monotonic()
        if len(self._notices) >= 16:  # a long chat at a table: forget the notices gone
            self._notices = [n for n in self._notices if n.until > now]
        self._notices.append(Notice(message, title, severity, now + seconds))
        super().notify(message, title=title, severity=severity, timeout=seconds, markup=False)

    def live_notices(self) -> list[list[Any]]:
        """The notices still up: message, title, severity, seconds left (see resume.py)."""
        now = time.monotonic()
        return [
            [n.message, n.title, n.severity, n.until - now] for n in self._notices if n.until > now
        ]

    def withdraw_notices(self, messages: set[str]) -> None:
        """Take down the notices saying ``messages`` (an invitation once answered); the
        others stay up for the rest of their time. (Textual removes notices only all at
        once: the others are put up again. Textual puts a notice up through a message, so
        that is done after the messages already posted: a notice asked for just before,
        not yet up, is taken down too.)"""
        now = time.monotonic()
        live = [n for n in self._notices if n.until > now]
        kept = [n for n in live if n.message not in messages]
        self._notices = list(kept)  # (a copy: notices noted from now on are not kept ones)
        if len(kept) < len(live):
            self.call_later(self._put_up_again, kept)

    def _put_up_again(self, kept: list[Notice]) -> None:
        """Every notice taken down, and ``kept`` put up again (those not withdrawn since)."""
        self.clear_notifications()
        still = [n for n in kept if any(n is m for m in self._notices)]
        self._notices = [m for m in self._notices if not any(m is n for n in still)]
        now = time.monotonic()
        for notice in still:
            if notice.until > now:
                self.notify(
                    notice.message,
                    title=notice.title,
                    severity=notice.severity,
                    timeout=notice.until - now,
                )

    def withdraw_answered(self) -> None:
        """Take down the notice of each invitation or friend request no longer waiting."""
        waiting = set(self.model.pending())
        done = {text for key, text in self._social_notices.items() if key not in waiting}
        if done:
            self._social_notices = {k: t for k, t in self._social_notices.items() if k in waiting}
            self.withdraw_notices(done)

    def send(self, request: Request) -> bool:
        """Send one message; False (and a notice) if the server is gone."""
        try:
            self.conn.send_nowait(request.to_wire())
        except ConnectionClosed:
            self.notify(_("Not connected to the server."), severity="error")
            return False
        return True

    # --- what the hub says ---------------------------------------------------------------------

    def receive(self, message: dict[str, Any]) -> None:
        """Apply one server message and tell the screens."""
        kind = message.get("t")
        if kind == "table":  # a view sent as a delta of its events, made whole
            views: dict[Any, dict[str, Any]] = self.model.views  # (any key: None finds none)
            message = expand(views.get(message.get("table")), message)
        changed = self.model.apply(message)
        if kind == "welcome":
            self._adopt_you()
            if self.welcomed:
                # (the notice that said it was reconnecting is over: up for its 10 s, it stood
                # on the one saying it is back, and at a Fortunes table of four at 80x24 the
                # two covered the line under the won tricks, where what is said shows)
                self.withdraw_notices({_("Reconnecting to the tables…")})
                self.notify(_("Back at the tables."))
                return
            self.welcomed = True
            if message.get("returning") and not self.model.you.get("guest"):
                self._straight_back()
            else:
                from .screens.welcome import WelcomeScreen

                self.push_screen(WelcomeScreen())
        elif kind == "you":
            self._adopt_you()
            self.broadcast(events.YouChanged)
        elif changed == "lobby":
            self.broadcast(events.LobbyChanged)
        elif changed == "table":
            self._table_message(message)
        elif kind == "left":
            self.close_table(message["table"])
        elif changed == "chat":
            key = "lobby" if message["channel"] == "lobby" else message.get("table", 0)
            self.broadcast(events.ChatArrived, key, self.model.chat_said)
        elif changed == "history":
            self.broadcast(events.HistoryArrived)
        elif changed == "record":
            self.broadcast(events.RecordArrived, message["game"])
        elif changed == "replay":
            key = -message["game"]
            top = self.screen
            now = top if getattr(top, "table_id", None) == key else None
            self.broadcast(events.TableUpdated, key, now=now)
        elif changed == "profile":
            self.broadcast(events.ProfileArrived)
        elif changed == "nights":
            self.broadcast(events.NightsChanged)
        elif changed == "admin":
            self.broadcast(events.AdminReplied, message["op"])
        elif changed == "social":
            self._tell_social(message)
            self.withdraw_answered()
            self.broadcast(events.SocialChanged)
            self.screen.refresh_bindings()  # Ctrl+R answers, while anything waits
        elif kind == "stand_in":
            from .result_text import stand_in_text

            text = stand_in_text(int(message["games"]), int(message["chips"]))
            self.stand_in_notices.append(text)
            self.notify(text, timeout=12, markup=False)
        elif kind == "error" and message.get("ref") == "entropy":
            # The app's own automatic answer came too late or too early: nothing to tell.
            log.info("entropy refused: %s", message.get("message"))
        elif kind == "notice" and message.get("code") == "stood_in":
            # A bot moved in the player's seat while they were away or out of time.
            text = server_text(message)
            self.stand_in_notices.append(text)
            self.notify(text, timeout=12, markup=False)
        elif kind == "notice" and message.get("code") == "reconnecting":
            # Said by the SSH gateway while a standby hub takes over (server/bus/gateway.py).
            self.notify(_("Reconnecting to the tables…"), timeout=10)
        elif kind in ("error", "notice"):
            taken = getattr(self.screen, "take_refusal", None)
            if kind == "error" and taken is not None and taken(message):
                self.broadcast(events.Refused, message.get("ref"))
                return
            self.notify(
                server_text(message),
                severity="error" if kind == "error" else "information",
                markup=False,
            )
            if kind == "error":
                self.broadcast(events.Refused, message.get("ref"))
        elif kind == "bye":
            self.closed_reason = server_text(message, _("The server said goodbye."))

    def _tell_social(self, message: dict[str, Any]) -> None:
        """A notice for each new invitation or friend request, saying how to answer it."""
        kind = message.get("t")
        if kind == "invite":
            text = _("{name} invites you to table {table}: Ctrl+R to answer.").format(
                name=message.get("from"), table=message.get("table")
            )
            self._social_notices[("invite", message.get("table"))] = text
            self.notify(text, timeout=10)
            return
        if kind == "friend_request":
            names = [message["from"]]
        elif kind == "friends":
            names = [r["name"] for r in self.model.requests if r["name"] not in self._told]
        else:
            return
        self._told.update(names)
        for name in names:
            text = _("{name} asks to be your friend: Ctrl+R to answer.").format(name=name)
            self._social_notices[("friend", name)] = text
            self.notify(text, timeout=10)

    def action_answer(self) -> None:
        """Answer what waits (invitations, friend requests) from its notice."""
        from .screens.answer import AnswerScreen

        if self.model.pending() and not isinstance(self.screen, AnswerScreen):
            self.push_screen(AnswerScreen())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "answer":
            return bool(self.model.pending())
        return True

    def _straight_back(self) -> None:
        """A key the hub knows skips the welcome: the lobby, and the player's table on top of
        it as soon as the hub sends it (see ``_table_message``), with a one-line greeting."""
        from .screens.lobby import LobbyScreen

        self.push_screen(LobbyScreen())
        # One line in the narrowest toast; another name is a chat command away (/name).
        self.notify(_("Welcome back, {name}.").format(name=self.model.name))
        motd = str(self.model.server.get("motd") or "").strip()
        if motd:  # the admins' message of the day, which the welcome screen would have shown
            self.notify(motd, title=_("Message of the day"), timeout=10)

    def broadcast(
        self, kind: type[events.ServerEvent], *args: Any, now: Screen | None = None
    ) -> None:
        """Tell every screen that handles ``kind`` (waking a screen that does not costs as
        much as a small repaint, after every move, under every table). The screen ``now`` (the
        one on top) handles it here and draws the result at once where the app's host can (see
        ``GambitScreen.handle_now``)."""
        for screen in list(self.screen_stack):
            handler = getattr(screen, kind.handler_name, None)
            if handler is None:
                continue
            message = kind(*args)
            if (
                screen is now
                and isinstance(screen, GambitScreen)
                and screen.handle_now(handler, message)
            ):
                continue
            screen.post_message(message)

    def _adopt_you(self) -> None:
        you = self.model.you
        prefs = Prefs.from_wire(you.get("prefs"))
        lang = you.get("lang") or self.lang
        look = prefs != self.prefs or lang != self.lang
        self.prefs = prefs
        if lang != self.lang:
            self.lang = lang
            self.translations = self._catalog(lang)
        self.theme = THEME_NAMES[self.theme_name]
        if look:
            self.broadcast(events.LookChanged)

    # --- tables ------------------------------------------------------------------------------

    def open_replay(self, game: str, game_id: int, seat: int | None) -> None:
        """Step through finished game ``game_id`` on its table screen, from ``seat``'s view
        (None: every hand open)."""
        from .screens.replay import replay_screen

        self.push_screen(replay_screen(game, game_id, seat))

    def _table_message(self, message: dict[str, Any]) -> None:
        table_id = message["table"]
        if (message.get("info") or {}).get("deadlines"):
            self._clock.resume()  # a turn timer may be ours now (see _turn_clock)
        answer = self.entropy.answer(message)
        if answer is not None:
            self.send(answer)
        self._alert_if_asked(table_id, message)
        # The table's own screen draws a move at once: it reaches the player without waiting
        # behind other apps' work in the same process.
        top = self.screen
        now = top if getattr(top, "table_id", None) == table_id else None
        self.broadcast(events.TableUpdated, table_id, now=now)
        if table_id in self._table_screens:
            return
        wanted = table_id in self.watching or (
            message.get("seat") is not None and table_id not in self.dismissed
        )
        if wanted and self.in_lobby():
            self.open_table(table_id)

    def in_lobby(self) -> bool:
        """Whether the player is past the welcome screen (table screens sit on the lobby)."""
        from .screens.lobby import LobbyScreen

        return any(isinstance(s, LobbyScreen) for s in self.screen_stack)

    def open_table(self, table_id: int) -> None:
        """Show a table's screen (on top of whatever is open)."""
        if table_id in self._table_screens or table_id not in self.model.views:
            return
        self.dismissed.discard(table_id)
        game = self.model.views[table_id]["info"]["game"]
        if game == "prophets_gambit":
            from .screens.pg_table import PGTableScreen

            screen: Screen = PGTableScreen(table_id)
        elif game == "prophet":
            from .screens.prophet_table import ProphetTableScreen

            screen = ProphetTableScreen(table_id)
        elif game == "fortunes":
            from .screens.fortunes_table import FortunesTableScreen

            screen = FortunesTableScreen(table_id)
        else:
            from .screens.generic_table import GenericTableScreen

            screen = GenericTableScreen(table_id)
        self._table_screens[table_id] = screen
        if getattr(self.screen, "awaiting_table", False):
            self.pop_screen()  # the new-table form, whose table this is
        self.push_screen(screen)

    def leave_table_screen(self, table_id: int, *, keep_seat: bool) -> None:
        """Close a table's screen; with ``keep_seat`` the player stays seated (back to lobby)."""
        if keep_seat:
            self.dismissed.add(table_id)
        self.watching.discard(table_id)
        self._pop_table_screen(table_id)

    def close_table(self, table_id: int) -> None:
        """The hub says we no longer sit at or watch this table."""
        self.watching.discard(table_id)
        self.dismissed.discard(table_id)
        self._asked.pop(table_id, None)
        self._pop_table_screen(table_id)
        self.broadcast(events.LobbyChanged)

    def _pop_table_screen(self, table_id: int) -> None:
        screen = self._table_screens.pop(table_id, None)
        if screen is None or screen not in self.screen_stack:
            return
        while self.screen_stack[-1] is not screen:
            self.pop_screen()
        self.pop_screen()

    def table_screen_closed(self, table_id: int, screen: Screen) -> None:
        """Forget ``screen`` as the table's, unless a newer screen of that table took its
        place (the player left to the lobby and opened the table again before it unmounted)."""
        if self._table_screens.get(table_id) is screen:
            del self._table_screens[table_id]

    # --- "your turn" ---------------------------------------------------------------------------

    def _turn_clock(self) -> None:
        """While a dialog or a result covers the table where it is the player's turn, the
        status bar of what covers it shows their seconds left, and the bell rings once at
        ``LATE_BELL`` seconds: a turn timer must not run out unseen."""
        from .widgets.status_bar import StatusBar

        clock = turn_clock(self.model)
        text = ""
        if clock is not None and self._table_covered(clock.table_id):
            seconds = math.ceil(clock.left)
            text = _("Your turn: {n} s").format(n=seconds)
            if clock.left <= LATE_BELL and clock.key not in self._late_bells:
                self._late_bells.add(clock.key)
                if self.prefs.alert:
                    self.bell()
        if not text and not self._turn_shown:
            if clock is None:
                # No turn timer of ours runs: sleep until a table message brings one (a
                # timer firing every second for every player cost a server of many apps
                # about a twentieth of their moves' CPU).
                self._clock.pause()
            return  # nothing to show, nothing shown: no screen is gone through (every second)
        self._turn_shown = bool(text)
        top = self.screen
        for screen in self.screen_stack:
            for bar in screen.query(StatusBar):
                bar.turn = text if screen is top else ""

    def _table_covered(self, table_id: int) -> bool:
        """Whether the table's own view is out of sight: another screen or dialog is on top,
        or the result panel covers it."""
        from .screens.table_base import TableScreen

        top = self.screen
        return not (isinstance(top, TableScreen) and top.table_id == table_id) or top.result_open

    def _alert_if_asked(self, table_id: int, message: dict[str, Any]) -> None:
        view = message.get("view") or {}
        asked = bool(view.get("ask")) and message.get("seat") is not None
        before = self._asked.get(table_id, False)
        self._asked[table_id] = asked
        if asked and not before:
            self.alerts += 1
            if self.prefs.alert:
                self.bell()
                self.set_window_title(_("Your turn — Gambit"))
            if table_id in self.dismissed:
                self.notify(
                    _("Your turn at table {table}: select it in the lobby and press o.").format(
                        table=table_id
                    )
                )
        elif before and not any(self._asked.values()):
            self.set_window_title("Gambit")

    def set_window_title(self, title: str) -> None:
        """Set the terminal window's title (OSC 2); tests run headless and skip it.

        Not through ``App.title``: that reactive repaints the whole screen when it changes.
        """
        self.window_title = title
        if not self.is_headless and self._driver is not None:
            clean = "".join(ch for ch in title if ch.isprintable())
            self._driver.write(f"\x1b]2;{clean}\x07")

    # --- looks, language, preferences ----------------------------------------------------------

    def _catalog(self, lang: str) -> gettext.NullTranslations:
        """The catalog for ``lang``, in ASCII for a terminal without UTF-8."""
        catalog = translations(lang)
        return catalog if self.term.unicode else ascii_catalog(catalog)

    @property
    def theme_name(self) -> str:
        """The player's theme; the monochrome one on a terminal that shows no colour (its
        greys keep a highlight lighter than the rest, which such a terminal shows reversed)."""
        return self.prefs.theme if self.term.colour else "mono"

    @property
    def card_style(self) -> CardStyle:
        """How cards look: ASCII faces on a terminal without UTF-8 whatever the setting (it
        could only show them as rubble), else as the player chose or the terminal suggests."""
        ascii_cards = self.prefs.ascii if self.prefs.ascii is not None else not self.term.unicode
        return CardStyle(
            ascii=ascii_cards or not self.term.unicode,
            four_colour=self.prefs.four_colour,
            suit_letters=self.prefs.suit_letters,
            theme=self.theme_name,
        )

    def get_key_display(self, binding: Binding) -> str:
        """Keys as Textual writes them ("⏎", "←→"), spelled in ASCII for a terminal without
        UTF-8 ("Enter", "<>")."""
        shown = super().get_key_display(binding)
        if self.term.unicode:
            return shown
        return _ASCII_KEYS.get(shown) or asciify(shown)

    def save_settings(self, lang: str, prefs: Prefs) -> None:
        """Apply settings now and ask the hub to remember them."""
        self.send(Profile(prefs=prefs.to_wire(), lang=lang if lang in LANGUAGES else None))
        self.model.you = {**self.model.you, "prefs": prefs.to_wire(), "lang": lang}
        self._adopt_you()

    # --- app-wide actions ----------------------------------------------------------------------

    def in_play(self) -> bool:
        """Whether the player holds a seat in a game in play (a table's own screen asks
        before such a seat is left: see ``TableScreen.action_leave``)."""
        for table_id, message in self.model.views.items():
            view = message.get("view")
            if table_id > 0 and message.get("seat") is not None and view and not view.get("over"):
                return True
        return False

    async def action_quit(self) -> None:
        """Ctrl+Q. In a game in play the player is asked first, as ``q`` at the table asks:
        their seat waits for them a while, then a bot plays it with their chips at stake.
        Ctrl+Q again on the question quits."""
        from .screens.confirm import QuitQuestion

        if not self.in_play() or isinstance(self.screen, QuitQuestion):
            self.exit()
            return
        text = _(
            "You are in a game. Your seat waits for you a while; then a bot plays it until "
            "this game ends, and your chips stay at stake.\n\nQuit Gambit?"
        )
        self.push_screen(
            QuitQuestion(_("Quit during a game"), text),
            lambda yes: self.exit() if yes else None,
        )

    def action_rules(self) -> None:
        from .screens.rules import RulesScreen

        if not isinstance(self.screen, RulesScreen):
            game = getattr(self.screen, "game", None)
            self.push_screen(RulesScreen(game if isinstance(game, str) else None))
