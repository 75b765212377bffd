"""One connection's state in the hub, and the online player it belongs to."""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from protocol.connection import Connection, ConnectionClosed
from protocol.event_log import SentLogs, Shared, TableMessage
from protocol.server_messages import ServerMessage

from .config import HubConfig
from .errors import HubError
from .frames import Prepared
from .limits import Budget

if TYPE_CHECKING:  # for type hints only
    from .chat import RateLimiter
    from .outbox import Outbox

log = logging.getLogger(__name__)

#: What a session is sent: a server message as made, or one already prepared to go out (a
#: table's view made of parts shared by its readers, or a frame encoded once for many).
Outgoing = ServerMessage | TableMessage | Prepared
_ids = itertools.count(1)
_SEND_NOWAIT = Connection.send_nowait


@dataclass(eq=False, slots=True)
class Session:
    conn: Connection
    id: int = field(default_factory=lambda: next(_ids))
    player: Player | None = None
    bad_frames: int = 0
    lobby_dirty: bool = False
    alive: bool = True
    #: Said goodbye: what it sends is no longer read (it is hung up once the bye is out).
    ending: bool = False
    #: Where messages wait while the writes they show are not committed (see outbox.py).
    outbox: Outbox | None = None
    #: Messages refused for being over budget: a client that runs this dry is cut off.
    refusals: RateLimiter | None = None
    #: The tables this client's lobby shows now, and whether it shows the lobby at all (only
    #: then does it get lobby updates; see lobby.py).
    lobby_shown: frozenset[int] | set[int] = field(default_factory=set)
    lobby_watching: bool = True
    #: The players list this client's lobby shows now (names and guest flags, in order): an
    #: update carries a new one only when it differs.
    lobby_players: tuple[Any, ...] | None = None
    #: The events each table's last view carried on this connection: a view that follows on
    #: goes out as a delta (protocol/event_log.py).
    sent_logs: SentLogs = field(default_factory=SentLogs)

    def push(self, message: Outgoing) -> None:
        """Send without blocking, once what it shows is stored; a dead connection is noticed
        by its reader task."""
        if self.outbox is not None:
            self.outbox.send(self, message)
        else:
            self.deliver(message)

    def deliver_view(
        self,
        table: int,
        seat: int | None,
        shared: Shared,
        private: dict[str, Any],
        since: dict[str, Any] | None = None,
        added: list[Any] | None = None,
    ) -> None:
        """Send the table's view at a change (``TableMessage(table, seat, shared, private)``)
        as :meth:`deliver` would, its frame joined from parts encoded once per change
        (protocol/event_log.py) without making the message (``since``, ``added``: see
        ``SentLogs.seat_frame``)."""
        if not self.alive:
            return
        try:
            if type(self.conn).send_nowait is _SEND_NOWAIT:
                frame = self.sent_logs.seat_frame(table, seat, shared, private, since, added)
                self.conn.write(frame)
            else:  # (a connection that checks what it sends is given the message itself)
                message = TableMessage(table, seat, shared, private)
                self.conn.send_nowait(self.sent_logs.shrink(message))
        except ConnectionClosed:
            self.alive = False

    def deliver(self, message: Outgoing) -> None:
        if not self.alive:
            return
        try:
            if type(message) is TableMessage and type(self.conn).send_nowait is _SEND_NOWAIT:
                # A table's view at a move: its frame joined from parts encoded once per
                # change (protocol/event_log.py), the very bytes of the delta's encoding.
                self.conn.write(self.sent_logs.frame(message))
                return
            # Made a delta here, as it goes out: a message the outbox drops was never sent.
            wire: Any = message  # (from here on a plain map: its type was checked when made)
            wire = self.sent_logs.shrink(wire)
            # Encoded once for many (see frames.py); a connection that checks what it sends
            # (the hiding audit in tests) is given the message itself.
            if type(wire) is Prepared and type(self.conn).send_nowait is _SEND_NOWAIT:
                self.conn.write(wire.frame)
            else:
                self.conn.send_nowait(wire)
        except ConnectionClosed:
            self.alive = False


def chosen_language(sent: str | None, stored: str | None) -> str:
    """The language a player is spoken to in: the one stored with their key (their choice on
    the welcome screen or in Settings, or their client's locale at their first visit), else
    the one their client's locale names (the app sends it in its hello, from
    :attr:`protocol.term.TermInfo.language`), else English. A stored choice wins over the
    locale: many clients send ``LANG=en_US.UTF-8`` whatever language their player chose.

    The one place this is decided: the hub at each hello (which stores the locale's language
    for a key that has none yet), and the SSH host for what it says itself before an app has
    asked the hub (``server/ssh/session.py``).
    """
    return stored or sent or "en"


@dataclass(eq=False, slots=True)
class Player:
    """A player online, with one or more sessions (a second terminal, a reconnect)."""

    id: str
    name: str
    guest: bool
    lang: str
    chat: RateLimiter
    #: What they may still send (see limits.py), and whom they befriended (the lobby lists
    #: friends online first).
    budget: Budget = field(default_factory=lambda: Budget.of(HubConfig()))
    friends: set[str] = field(default_factory=set)
    #: Players whose chat and invites this one does not want (see social.py).
    ignores: set[str] = field(default_factory=set)
    #: An admin of this server (see admin.py).
    admin: bool = False
    sessions: set[Session] = field(default_factory=set)
    prefs: dict[str, Any] = field(default_factory=dict)  # guests' prefs live only this long

    def push(self, message: Outgoing) -> None:
        for session in list(self.sessions):
            session.push(message)


def need_player(session: Session) -> Player:
    """The player who said hello on ``session``; HubError if it has not yet."""
    if session.player is None:
        raise HubError("hello_first", "Say hello first.")
    return session.player
