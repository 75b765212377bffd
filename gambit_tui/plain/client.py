"""The plain session: a hub client that says what happens in lines and reads commands.

Like the Textual app, it says ``hello`` on its connection and keeps a
:class:`~gambit_tui.model.ClientModel` of what the hub sends; unlike it, it writes each new
thing once, as a sentence, in order, and never redraws. Every rule comes from the hub: whose
turn it is and what may be done (the view's ``ask`` and ``legal``), why something is refused
(``error``). Hub messages and keystrokes are handled in one task, in the order they came.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from rich.text import Text

from protocol.codec import ProtocolError
from protocol.connection import Connection, ConnectionClosed
from protocol.event_log import expand
from protocol.messages import PROTOCOL_VERSION
from protocol.requests import (
    Act,
    AddBot,
    Chat,
    CreateTable,
    Hello,
    Leave,
    Profile,
    Request,
    Spectate,
    Start,
)

from .. import fortunes_text, pg_text, prophet_text
from ..ascii_text import asciify
from ..entropy import Entropy
from ..i18n import N_, _, ascii_catalog, ngettext, plain_catalog, translations
from ..model import ClientModel
from ..names import game_title, seat_name, status_label
from ..refusals import server_text
from .editor import PROMPT, LineEditor
from .history import HISTORY_HELP, ReplayCommands
from .new_table import parse_new
from .nights import NIGHT_MESSAGES, NIGHTS_HELP, NightCommands
from .parser import Choice, choices_of, command_name, command_of, parse
from .people import PEOPLE_HELP, PEOPLE_MESSAGES, PeopleCommands
from .prompt import numbered_hand, turn_prompt
from .result import result_lines
from .settings import SETTINGS_HELP, SettingsCommands
from .short import ShortTricks
from .words import COMMANDS, MODES, STYLE, card_name, english, face, is_number

log = logging.getLogger(__name__)

BELL = "\a"
#: What :meth:`PlainClient.say` takes out of a line: C0 and C1 controls, DEL, and the
#: bidirectional overrides and isolates (which reorder what a terminal shows).
CONTROLS = dict.fromkeys(
    [*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)
#: Lines ``last`` repeats.
LAST_LINES = 8


def _plain(text: Text | str) -> str:
    return text.plain if isinstance(text, Text) else text


#: Each game's text module, whose ``event_text`` says one event.
EVENT_TEXTS: dict[str, Any] = {
    "prophets_gambit": pg_text,
    "prophet": prophet_text,
    "fortunes": fortunes_text,
}


class PlainClient(ReplayCommands, SettingsCommands, PeopleCommands, NightCommands):
    """One player's plain session. ``write`` takes the bytes for their terminal."""

    def __init__(
        self,
        conn: Connection,
        write: Callable[[bytes], None],
        *,
        lang: str | None = None,
        identity: str | None = None,
        name: str | None = None,
        unicode: bool = True,
    ) -> None:
        self.conn = conn
        self._write = write
        self.term_lang = lang
        self.identity = identity
        self.wished_name = name
        self.unicode = unicode
        self.model = ClientModel()
        self.entropy = Entropy()
        self.editor = LineEditor()
        self.lang = lang or "en"
        #: The table the player sits at or watches (commands act on it).
        self.table: int | None = None
        #: Per table: the events of its last view (all said).
        self._said: dict[int, list[dict[str, Any]]] = {}
        #: Per table: the last decision prompted (so it is asked once).
        self._prompted: dict[int, Any] = {}
        self._results: set[tuple[int, int]] = set()
        #: Per table: who sat in each seat at its last message.
        self._seated: dict[int, list[str]] = {}
        #: The last lines said at each table (``last``).
        self._recent: dict[int, list[str]] = {}
        #: The short verbosity's tricks under way (settings.py).
        self.short_tricks = ShortTricks()
        self._inbox: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.done = False
        #: Every line written, in order (tests read it).
        self.said: list[str] = []

    # --- the language ------------------------------------------------------------------------

    def _use(self, lang: str) -> None:
        self.lang = lang
        catalog = translations(lang)
        plain_catalog.set(catalog if self.unicode else ascii_catalog(catalog))

    # --- output ------------------------------------------------------------------------------

    def say(self, *lines: str, bell: bool = False) -> None:
        """Lines above the prompt line (a bell first if ``bell``). Control characters are
        taken out of every line: lines carry other players' words (chat, names of tables and
        events), and in a terminal that is not redrawn a stray ESC or CSI is a command."""
        lines = tuple(line.translate(CONTROLS) for line in lines)
        text = "".join(line + "\r\n" for line in lines)
        self.said.extend(lines)
        self._out(self.editor.around((BELL if bell and self.bell_on else "") + text))

    def _out(self, text: str) -> None:
        self._write((text if self.unicode else asciify(text)).encode("utf-8", "replace"))

    def send(self, request: Request) -> None:
        try:
            self.conn.send_nowait(request.to_wire())
        except ConnectionClosed:
            self.done = True

    # --- running -----------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Bytes the player typed (safe from any task of the loop)."""
        self._inbox.put_nowait(("keys", data))

    def exit(self) -> None:
        self._inbox.put_nowait(("quit", None))

    async def run(self) -> None:
        """Say hello, then handle hub messages and keys in order until the player leaves."""
        self._use(self.lang)
        hello = Hello(
            PROTOCOL_VERSION,
            name=self.wished_name[:24] if self.wished_name else None,
            lang=self.term_lang or None,
            identity=self.identity or None,
        )
        reader = asyncio.get_running_loop().create_task(self._read())
        try:
            await self.conn.send(hello.to_wire())
            while not self.done:
                kind, value = await self._inbox.get()
                try:
                    if kind == "hub":
                        self.receive(value)
                    elif kind == "keys":
                        self._keys(value)
                    else:
                        self.done = True
                except Exception:
                    log.exception("plain session could not handle %s", kind)
        except ConnectionClosed:
            pass
        finally:
            reader.cancel()
            self._out("\r\n")

    async def _read(self) -> None:
        try:
            while True:
                message = await self.conn.recv()
                if not isinstance(message, ProtocolError):
                    self._inbox.put_nowait(("hub", message))
        except ConnectionClosed:
            self._inbox.put_nowait(("closed", None))

    # --- keys and commands -------------------------------------------------------------------

    def _keys(self, data: bytes) -> None:
        for key in self.editor.feed(data):
            self._out(self.editor.echo())
            if key.kind == "quit":
                self.done = True
                return
            if key.kind == "tab":
                self._complete(key.text)
            else:
                before = len(self.said)
                self.command(key.text)
                # (a line said wrote the prompt after it)
                self._out(self.editor.echo() + (PROMPT if len(self.said) == before else ""))
        self._out(self.editor.echo())

    def _complete(self, text: str) -> None:
        if " " in text.strip():
            return
        keys, _exact = command_of(text.strip()) if text.strip() else ([], False)
        if len(keys) == 1:
            self._out(self.editor.replace(command_name(keys[0]) + " "))
        elif keys:
            self.say(", ".join(command_name(k) for k in keys))

    def choices(self) -> list[Choice]:
        """The legal actions now open to the player, numbered."""
        message = self.model.views.get(self.table or 0)
        view = (message or {}).get("view") or {}
        if not message or message.get("seat") is None or not view.get("ask"):
            return []
        return choices_of(message["info"]["game"], view.get("legal", []), self._names(message))

    def command(self, line: str) -> None:
        """Do what a typed line asks."""
        parsed = parse(line, self.choices())
        if parsed.refusal:
            self.say(parsed.refusal)
        elif parsed.action is not None and self.table is not None:
            self.send(Act(self.table, _action(parsed.action)))
        elif parsed.command is not None:
            getattr(self, f"do_{parsed.command}")(parsed.arg)

    def do_help(self, arg: str) -> None:
        if arg:
            keys, _exact = command_of(arg.split()[0])
            if len(keys) == 1 and keys[0] in HELP:
                self.say(f"{command_name(keys[0])}: {_(HELP[keys[0]])}")
                return
        words = ", ".join(_(word) for word in COMMANDS.values())
        self.say(
            _("Commands: {commands}.").format(commands=words),
            _(
                "On your turn, type the number of a choice, or a verb and a card, as in "
                "play 7 swords. Type help and a command to hear more."
            ),
        )

    def do_tables(self, arg: str) -> None:
        tables = sorted(self.model.tables.values(), key=lambda t: t["id"])
        if not tables:
            self.say(_("No tables are open: type new to open one."))
            return
        self.say(*(self._table_line(info) for info in tables))

    def _table_line(self, info: dict[str, Any]) -> str:
        seats = ", ".join(seat_name(s) for s in info.get("seats", []))
        return _("Table {n}: {game}, {status}; seats: {seats}.").format(
            n=info["id"],
            game=game_title(info["game"]),
            status=status_label(info.get("status", "")),
            seats=seats,
        )

    def do_lobby(self, arg: str) -> None:
        self.leave_replay()
        self.say(
            ngettext("{n} player online.", "{n} players online.", self.model.online or 1).format(
                n=self.model.online or 1
            )
        )
        self.do_tables(arg)

    def do_new(self, arg: str) -> None:
        wanted = parse_new(arg, self.model.server.get("games", []))
        if wanted.refusal:
            self.say(wanted.refusal)
            return
        info = self.model.game_info(wanted.game) or {}
        self.send(
            CreateTable(
                wanted.game,
                wanted.players or int(info.get("min_players", 3)),
                options=wanted.options or None,
                stake=wanted.stake,
                timer=wanted.timer,
            )
        )

    def _number(self, arg: str) -> int | None:
        word = arg.strip().split()[0] if arg.strip() else ""
        if not is_number(word):
            self.say(_("Which table? Type its number, as in join 1; tables lists them."))
            return None
        return int(word)

    def do_join(self, arg: str) -> None:
        n = self._number(arg)
        if n is not None:
            self.table = n
            self.send(self.join_request(n))

    def do_watch(self, arg: str) -> None:
        n = self._number(arg)
        if n is not None:
            self.table = n
            self.send(Spectate(n))

    def _at_table(self) -> dict[str, Any] | None:
        message = self.model.views.get(self.table or 0)
        if message is None:
            self.say(_("You are not at a table: type tables, then join and its number."))
        return message

    def do_bot(self, arg: str) -> None:
        message = self._at_table()
        if message is None:
            return
        empty = [s["seat"] for s in message["info"]["seats"] if not s["name"] and not s["bot"]]
        if not empty:
            self.say(_("Every seat is taken: type start to begin."))
            return
        self.send(AddBot(message["table"], empty[0]))

    def do_start(self, arg: str) -> None:
        message = self._at_table()
        if message is not None:
            self.send(Start(message["table"]))

    def do_leave(self, arg: str) -> None:
        message = self._at_table()
        if message is not None:
            self.send(Leave(message["table"]))

    def do_hand(self, arg: str) -> None:
        message = self._at_table()
        if message is None:
            return
        view = message.get("view") or {}
        game = message["info"]["game"]
        named = face(game)
        hand = numbered_hand(game, view.get("hand") or [], self.choices())
        if not hand:
            self.say(_("You hold no cards."))
            return
        line = _("Your hand: {cards}.").format(cards=", ".join(hand))
        if view.get("fate"):
            line += " " + _("Your Fate is now {card}.").format(
                card=named(view["fate"], STYLE).plain
            )
        self.say(line)

    def do_table(self, arg: str) -> None:
        message = self._at_table()
        if message is None:
            return
        info = message["info"]
        lines = [self._table_line(info)]
        view = message.get("view") or {}
        names = self._names(message)
        waiting = [names[s] for s in view.get("waiting") or [] if 0 <= s < len(names)]
        if waiting:
            lines.append(_("Waiting for {names}.").format(names=", ".join(waiting)))
        self.say(*lines)

    def do_last(self, arg: str) -> None:
        recent = self._recent.get(self.table or 0, [])
        self.say(*(recent or [_("Nothing has happened at this table yet.")]))

    def do_score(self, arg: str) -> None:
        message = self._at_table()
        if message is None:
            return
        view = message.get("view") or {}
        names = self._names(message)
        scores = view.get("totals") or view.get("scores")
        if not scores:
            self.say(_("No scores yet."))
            return
        self.say(", ".join(f"{names[i]} {s}" for i, s in enumerate(scores) if i < len(names)))

    def do_time(self, arg: str) -> None:
        """The seconds left on the turn timers running at the player's table (the hub's
        deadlines, counted down since its message came)."""
        message = self._at_table()
        if message is None:
            return
        names = self._names(message)
        lines: list[str] = []
        for key in sorted(message["info"].get("deadlines") or {}, key=int):
            seat = int(key)
            left = self.model.deadline_left(message["table"], seat)
            if left is None or not 0 <= seat < len(names):
                continue
            n = round(left)
            if seat == message.get("seat"):
                lines.insert(
                    0,
                    ngettext(
                        "You have {n} second left on your turn.",
                        "You have {n} seconds left on your turn.",
                        n,
                    ).format(n=n),
                )
            else:
                lines.append(
                    ngettext(
                        "{name} has {n} second left.", "{name} has {n} seconds left.", n
                    ).format(name=names[seat], n=n)
                )
        self.say(*(lines or [_("No turn timer is running at this table.")]))

    def do_say(self, arg: str) -> None:
        if not arg:
            self.say(_("Say what: type say and your words."))
        elif self.table is not None and self.table in self.model.views:
            self.send(Chat("table", arg, self.table))
        else:
            self.send(Chat("lobby", arg))

    def do_mode(self, arg: str) -> None:
        """Remember the plain mode (or the full screen) with the player's key: the hub keeps
        it in their settings, and the SSH host starts it when they next connect."""
        word = arg.strip().split()[0].casefold() if arg.strip() else ""
        found = [
            plain
            for key, plain in MODES.items()
            if word and any(w.casefold().startswith(word) for w in (english(key), _(key)))
        ]
        if len(found) != 1:
            self.say(
                _(
                    "Type mode plain to keep the plain mode with your key, or mode screen for the "
                    "full screen."
                )
            )
            return
        if self.model.you.get("guest"):
            self.say(
                _("Only a key is remembered: connect with an SSH key, or as plain@ each time.")
            )
            return
        prefs = {**(self.model.you.get("prefs") or {}), "plain": found[0]}
        self.send(Profile(prefs=prefs))
        self.model.you = {**self.model.you, "prefs": prefs}
        if found[0]:
            self.say(_("Saved: the plain mode starts whenever you connect with this key."))
        else:
            self.say(_("Saved: the full screen starts when you next connect with this key."))

    def do_quit(self, arg: str) -> None:
        self.done = True

    # --- what the hub says -------------------------------------------------------------------

    def receive(self, message: dict[str, Any]) -> None:
        kind = message.get("t")
        if kind == "table":
            views: dict[Any, dict[str, Any]] = self.model.views
            message = expand(views.get(message.get("table")), message)
        self.model.apply(message)
        if kind == "welcome":
            self._use(self.model.you.get("lang") or self.lang)
            self.say(
                _("Gambit, plain mode. You are {name}.").format(name=self.model.name),
                _("Type tables to hear the open tables, new to open one, help for more."),
            )
        elif kind == "you":
            self._use(self.model.you.get("lang") or self.lang)
        elif kind == "table":
            self._table(message)
        elif kind == "left":
            self.say(_("You left table {n}.").format(n=message["table"]))
            if self.table == message["table"]:
                self.table = None
        elif kind == "chat" and not self.chat_unsaid(message):
            self.say(_("{name} says: {text}").format(name=message["from"], text=message["text"]))
        elif kind == "invite":
            self.say(
                _("{name} invites you to table {n}: type join {n}.").format(
                    name=message["from"], n=message["table"]
                ),
                bell=True,
            )
        elif kind in PEOPLE_MESSAGES:
            self.hear_people(message)
        elif kind in NIGHT_MESSAGES:
            self.hear_nights(message)
        elif kind in ("error", "notice"):
            if message.get("ref") != "entropy":
                self.say(server_text(message))
        elif kind in ("history", "replay"):
            self.replay_receive(kind, message)
        elif kind == "bye":
            self.say(server_text(message, _("The server said goodbye.")))
            self.done = True

    def _names(self, message: dict[str, Any]) -> list[str]:
        return [seat_name(s) for s in message["info"]["seats"]]

    def _table(self, message: dict[str, Any]) -> None:
        table_id = message["table"]
        answer = self.entropy.answer(message)
        if answer is not None:
            self.send(answer)
        if table_id not in self._said:
            self._said[table_id] = []
            self.table = table_id
            seat = message.get("seat")
            if seat is not None:
                self.say(
                    _(
                        "You sit at table {n}, seat {seat}: type bot to add a bot, start to begin."
                    ).format(n=table_id, seat=seat + 1)
                )
            else:
                self.say(_("You watch table {n}.").format(n=table_id))
        self._seats(table_id, message)
        view = message.get("view")
        if not view:
            return
        self._events(table_id, message, view)
        self._result(table_id, message, view)
        self._prompt(table_id, message, view)

    def _seats(self, table_id: int, message: dict[str, Any]) -> None:
        """Who sat down or stood up since the table's last message."""
        names = self._names(message)
        before = self._seated.get(table_id)
        self._seated[table_id] = names
        if before is None or len(before) != len(names) or self.quiet_at(table_id):
            return
        lines = []
        for seat, (old, new) in enumerate(zip(before, names, strict=True)):
            if old == new:
                continue
            if message["info"]["seats"][seat].get("name") or message["info"]["seats"][seat].get(
                "bot"
            ):
                lines.append(_("{name} takes seat {seat}.").format(name=new, seat=seat + 1))
            else:
                lines.append(_("Seat {seat} is free.").format(seat=seat + 1))
        if lines:
            self.say(*lines)

    def _events(self, table_id: int, message: dict[str, Any], view: dict[str, Any]) -> None:
        events = view.get("events") or []
        told = already_said(self._said.get(table_id, []), events)
        game = message["info"]["game"]
        names = self._names(message)
        module = EVENT_TEXTS.get(game)
        lines: list[str] = []
        seat = message.get("seat")
        if module is not None and self.short:
            lines = self._short_lines(table_id, message, events, told)
        elif module is not None:
            for ev in events[told:]:
                if ev.get("e") == "turn" and ev.get("seat") == seat:
                    continue  # (the prompt that follows says so: nothing is said twice)
                if ev.get("e") == "game_over" and view.get("outcome"):
                    continue  # (Prophet's: "Game over." and the result say the end, once)
                line = module.event_text(ev, lambda s: names[s], STYLE, face(game))
                if line is not None:
                    lines.append(line.plain)
        self._said[table_id] = list(events)
        if lines and not self.quiet_at(table_id):
            recent = self._recent.setdefault(table_id, [])
            recent.extend(lines)
            del recent[:-LAST_LINES]
            self.say(*lines)

    def _short_lines(
        self, table_id: int, message: dict[str, Any], events: list[dict[str, Any]], told: int
    ) -> list[str]:
        """The new events in the short verbosity (short.py)."""
        game = message["info"]["game"]
        names = self._names(message)
        module = EVENT_TEXTS[game]
        seat = message.get("seat")

        def full(ev: dict[str, Any]) -> str | None:
            if ev.get("e") == "turn" and ev.get("seat") == seat:
                return None
            line = module.event_text(ev, lambda s: names[s], STYLE, face(game))
            return None if line is None else str(line.plain)

        return self.short_tricks.lines(
            table_id, game, events, told, names.__getitem__, lambda c: card_name(game, c), full
        )

    def _prompt(self, table_id: int, message: dict[str, Any], view: dict[str, Any]) -> None:
        ask = view.get("ask")
        if message.get("seat") is None or not ask or view.get("over"):
            self._prompted.pop(table_id, None)
            return
        key = (len(view.get("events") or []), repr(ask), repr(view.get("legal")))
        if self._prompted.get(table_id) == key:
            return
        self._prompted[table_id] = key
        self.table = table_id
        game = message["info"]["game"]
        so_far = self.short_tricks.so_far(table_id) if self.short else None
        self.say(
            *([so_far] if so_far else []),
            turn_prompt(game, view, self._names(message)),
            bell=True,
        )

    def _result(self, table_id: int, message: dict[str, Any], view: dict[str, Any]) -> None:
        outcome = view.get("outcome")
        if not view.get("over") or not outcome:
            return
        key = (table_id, int(message["info"].get("games_played", 0)))
        if key in self._results:
            return
        self._results.add(key)
        lines = [_("Game over."), *result_lines(message, STYLE)]
        self.say(*lines)


def already_said(before: list[dict[str, Any]], events: list[dict[str, Any]]) -> int:
    """How many of ``events`` (a view's) were in the last view's ``before``: a view shows a
    window of the game's events that may start later than the last one did (Prophet's starts
    at the last round's final trick until the new round's first is won), so the new list
    continues a tail of the old one; none is shared when a new deal starts afresh."""
    for start in range(len(before)):
        shared = len(before) - start
        if shared <= len(events) and before[start:] == events[:shared]:
            return shared
    return 0


def _action(wire: dict[str, Any]) -> Any:
    from protocol.actions import action_from_wire

    return action_from_wire(wire)


#: One sentence of help per command.
HELP: dict[str, str] = {
    "help": N_("Lists the commands; help and a command says what it does."),
    "tables": N_("Lists the open tables, one line each."),
    "new": N_(
        "Opens a table: new, or new and a game, a number of players and options, as in new "
        "prophet 4 players stake 10 schedule down."
    ),
    "join": N_("Sits you at a table: join and its number."),
    "watch": N_("Lets you watch a table: watch and its number."),
    "bot": N_("Seats a bot in the next empty seat of your table."),
    "start": N_("Starts the game at your table."),
    "leave": N_("Takes you away from your table."),
    "lobby": N_("Says who is online and lists the tables."),
    "hand": N_("Says the cards in your hand."),
    "table": N_("Says who sits at your table and whom it waits for."),
    "last": N_("Says the last lines of your table again."),
    "score": N_("Says the scores at your table."),
    "time": N_("Says how long you, or whoever must play, have left on the turn."),
    "say": N_("Says your words to your table, or to the lobby."),
    "mode": N_(
        "Keeps the plain mode with your key (mode plain), or goes back to the full screen from "
        "your next connection (mode screen)."
    ),
    "quit": N_("Ends the session; Ctrl+C and Ctrl+D do too."),
    **HISTORY_HELP,
    **SETTINGS_HELP,
    **PEOPLE_HELP,
    **NIGHTS_HELP,
}
