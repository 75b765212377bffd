"""Every message of the Gambit protocol, and strict validation of what clients send.

A message is a msgpack map with ``"t"`` naming its type. Clients send the types in
:data:`CLIENT_MESSAGES`; the hub answers with the types in :data:`SERVER_MESSAGES`. Every
incoming message is checked by :func:`validate_client` (type known, required fields present,
no unknown fields, types, lengths and ranges right) before the hub looks at it.
``docs/protocol.md`` documents each message with an example.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .codec import ProtocolError

PROTOCOL_VERSION = 2
LANGUAGES = ("en", "uk", "de")
GAMES = ("prophets_gambit", "prophet", "fortunes")
ACCESS = ("everyone", "friends", "invited")
BOT_KINDS = ("heuristic", "random", "strong")
#: Game nights' formats, and what becomes of players left over when tables do not divide.
NIGHT_FORMATS = ("swiss", "round_robin", "duplicate")
NIGHT_FILLS = ("bots", "byes")
NIGHT_OPS = ("list", "watch", "unwatch", "create", "register", "withdraw", "start")
MAX_NAME = 24
MAX_CHAT = 500
MAX_ID = 128
ADMIN_OPS = (
    "sessions",
    "kick",
    "ban",
    "unban",
    "bans",
    "mute",
    "unmute",
    "broadcast",
    "motd",
    "close_table",
    "chips",
    "audit",
    "reports",
    "log",
    "restart",
    "cancel_restart",
)


@dataclass(frozen=True, slots=True)
class Field:
    """One field's rule: accepted python types, required or not, and limits."""

    types: tuple[type, ...]
    required: bool = True
    max_len: int | None = None
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False

    def check(self, name: str, value: Any) -> None:
        if value is None and self.nullable:
            return
        if type(value) not in self.types:  # bool is not an int here
            wanted = " or ".join(t.__name__ for t in self.types)
            raise ProtocolError("invalid", f"Field {name!r} must be {wanted}.")
        if self.max_len is not None and len(value) > self.max_len:
            raise ProtocolError("too_long", f"Field {name!r} is longer than {self.max_len}.")
        if self.choices is not None and value not in self.choices:
            raise ProtocolError(
                "invalid", f"Field {name!r} must be one of {', '.join(map(str, self.choices))}."
            )
        if self.minimum is not None and value < self.minimum:
            raise ProtocolError("invalid", f"Field {name!r} must be at least {self.minimum}.")
        if self.maximum is not None and value > self.maximum:
            raise ProtocolError("invalid", f"Field {name!r} must be at most {self.maximum}.")


def _int(lo: int | None = None, hi: int | None = None, **kw: Any) -> Field:
    return Field((int,), minimum=lo, maximum=hi, **kw)


def _str(max_len: int, **kw: Any) -> Field:
    return Field((str,), max_len=max_len, **kw)


TABLE = _int(1, 2**31)
SEAT = _int(0, 5)

CLIENT_MESSAGES: dict[str, dict[str, Field]] = {
    # The first message of every connection. ``identity`` is honoured only on trusted
    # transports (the server's own SSH sessions); elsewhere the hub makes the client a guest.
    "hello": {
        "v": _int(0, 1_000_000),
        "name": _str(MAX_NAME, required=False),
        "lang": _str(8, required=False, choices=LANGUAGES),
        "identity": _str(MAX_ID, required=False),
    },
    "profile": {
        "name": _str(MAX_NAME, required=False),
        "lang": _str(8, required=False, choices=LANGUAGES),
        # The app's own preferences (alerts, card faces, theme…), remembered per identity.
        "prefs": Field((dict,), required=False, max_len=16),
    },
    "create_table": {
        "game": _str(32, choices=GAMES),
        "players": _int(3, 6),
        "options": Field((dict,), required=False, max_len=16),
        "access": _str(16, required=False, choices=ACCESS),
        "max_rating": _int(0, 100_000, required=False, nullable=True),
        "stake": _int(0, 1_000_000, required=False),
        "timer": _int(0, 3600, required=False),
        # The name of a duplicate set to join (every table of it is dealt the same cards).
        "duplicate": _str(24, required=False, nullable=True),
    },
    "join": {"table": TABLE, "seat": _int(0, 5, required=False, nullable=True)},
    "leave": {"table": TABLE},
    "stand": {"table": TABLE},
    "spectate": {"table": TABLE},
    "add_bot": {"table": TABLE, "seat": SEAT, "kind": _str(16, required=False, choices=BOT_KINDS)},
    "remove_bot": {"table": TABLE, "seat": SEAT},
    "start": {"table": TABLE},
    "result_read": {"table": TABLE},
    "act": {"table": TABLE, "action": Field((dict,), max_len=8)},
    "chat": {
        "channel": _str(8, choices=("lobby", "table")),
        "table": _int(1, 2**31, required=False),
        "text": _str(MAX_CHAT),
    },
    # Friendship is asked (``add``) and answered by the other player (``accept``/``decline``).
    "friend": {
        "op": _str(8, choices=("add", "accept", "decline", "remove", "list")),
        "name": _str(MAX_NAME, required=False),
    },
    "invite": {
        "op": _str(8, choices=("send", "accept", "decline")),
        "table": TABLE,
        "name": _str(MAX_NAME, required=False),
    },
    # Game nights: list them, follow one's standings, make one, register, withdraw, start a
    # round (the host). ``night`` names the event for every op but list and create.
    "night": {
        "op": _str(8, choices=NIGHT_OPS),
        "night": _int(1, 2**31, required=False),
        "name": _str(MAX_NAME, required=False),
        "game": _str(32, required=False, choices=GAMES),
        "players": _int(3, 6, required=False),
        "format": _str(16, required=False, choices=NIGHT_FORMATS),
        "rounds": _int(1, 20, required=False),
        "options": Field((dict,), required=False, max_len=16),
        "access": _str(16, required=False, choices=ACCESS),
        "fill": _str(8, required=False, choices=NIGHT_FILLS),
        "bots": _str(16, required=False, choices=BOT_KINDS),
        "timer": _int(0, 3600, required=False),
    },
    "ping": {"n": _int(0, 2**31)},
    # Whether the client shows the lobby now: lobby updates go only to clients that do (a
    # player at a table needs none), and turning it on brings a fresh ``lobby``.
    "lobby_watch": {"on": Field((bool,))},
    # Someone's chat and invites disappear for the sender (or come back).
    "ignore": {"name": _str(MAX_NAME), "on": Field((bool,))},
    # A chat line shown to the sender, reported to the admins.
    "report": {
        "channel": _str(8, choices=("lobby", "table")),
        "table": _int(1, 2**31, required=False),
        "from": _str(MAX_NAME),
        "text": _str(MAX_CHAT),
    },
    # The sender's finished games, newest first, a page at a time (``game``: of one game only).
    "history": {
        "game": _str(32, required=False, nullable=True, choices=GAMES),
        "page": _int(0, 100_000, required=False),
    },
    # The best rated players at one game (with at least a few games played).
    "leaderboard": {"game": _str(32, choices=GAMES)},
    # A finished game's record: who played, how it ended, its deal and the verdict on it.
    "record": {"game": _int(1, 2**62)},
    # A finished game's table after ``step`` actions, as ``seat`` saw it (null: a spectator).
    "replay": {
        "game": _int(1, 2**62),
        "step": _int(0, 1_000_000),
        "seat": _int(0, 5, required=False, nullable=True),
    },
    # Players' entropy for the table's next deal (``deal``: its commitment, as shown): first
    # ``commit`` (SHA-256 of a random value), then, once commitments close, ``reveal`` (the value).
    "entropy": {
        "table": TABLE,
        "deal": _str(64),
        "commit": _str(64, required=False),
        "reveal": _str(64, required=False),
    },
    # A player's public profile, by name.
    "player": {"name": _str(MAX_NAME)},
    # Admins only (see docs/protocol.md): one op and what it needs.
    "admin": {
        "op": _str(16, choices=ADMIN_OPS),
        "who": _str(MAX_ID, required=False),
        "address": _str(64, required=False),
        "seconds": _int(0, 10**9, required=False),
        "reason": _str(200, required=False),
        "text": _str(MAX_CHAT, required=False),
        "table": _int(1, 2**31, required=False),
        "amount": _int(-(10**9), 10**9, required=False),
    },
}

#: What the hub sends; documented in docs/protocol.md. Checked in tests, not at run time.
SERVER_MESSAGES: dict[str, tuple[str, ...]] = {
    "welcome": ("v", "you", "server", "returning"),
    "you": ("id", "name", "guest", "chips", "ratings", "lang", "prefs", "admin"),
    "lobby": ("tables", "players", "online", "tables_total"),
    "lobby_update": ("tables", "removed", "players", "online", "tables_total"),
    "table": ("table", "info", "seat", "view", "delta"),
    "left": ("table",),
    "stand_in": ("table", "games", "chips"),
    "chat": ("channel", "from", "text", "ts", "table"),
    "invite": ("table", "from", "game"),
    "invites": ("invites",),
    "friends": ("friends", "requests", "sent"),
    "friend_request": ("from",),
    "error": ("code", "message", "text", "args", "ref"),
    "notice": ("code", "message", "text", "args"),
    "pong": ("n",),
    "bye": ("code", "message", "text", "args"),
    "admin_reply": ("op", "data"),
    "history": ("games", "game", "page", "pages", "total"),
    "leaderboard": ("game", "min_games", "rows"),
    "record": ("game", "kind", "finished", "seats", "steps", "deals", "deal", "verify", "outcome"),
    "replay": ("game", "step", "steps", "seat", "info", "view", "hands"),
    "player": ("name", "since", "online", "games", "by_game"),
    "nights": ("nights",),
    "night": ("night",),
}
#: Finished games per page of a player's history.
HISTORY_PAGE = 10
#: Rows of a leaderboard.
LEADERBOARD_ROWS = 20


def _check_scalar_tree(name: str, value: Any, depth: int = 0) -> None:
    """Actions and options hold only small scalars (and, in options, one level of nesting)."""
    if depth > 2:
        raise ProtocolError("invalid", f"Field {name!r} is nested too deeply.")
    if isinstance(value, dict):
        if len(value) > 16:
            raise ProtocolError("invalid", f"Field {name!r} has too many entries.")
        for key, item in value.items():
            if not isinstance(key, str) or len(key) > 32:
                raise ProtocolError("invalid", f"Field {name!r} has a bad key.")
            _check_scalar_tree(name, item, depth + 1)
    elif isinstance(value, str):
        if len(value) > 64:
            raise ProtocolError("too_long", f"A value in {name!r} is too long.")
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        if not -(2**31) <= value < 2**31:
            raise ProtocolError("invalid", f"A number in {name!r} is out of range.")
    else:
        raise ProtocolError("invalid", f"Field {name!r} holds an unsupported value.")


def validate_client(message: dict[str, Any]) -> dict[str, Any]:
    """The message unchanged if it is a well-formed client message; else ProtocolError."""
    kind: Any = message.get("t")  # (a client's: anything)
    schema = CLIENT_MESSAGES.get(kind)
    if schema is None:
        raise ProtocolError("unknown_type", f"Unknown message type {str(kind)[:32]!r}.")
    for name in message:
        if name != "t" and name not in schema:
            raise ProtocolError("invalid", f"Unexpected field {str(name)[:32]!r} in {kind}.")
    for name, field in schema.items():
        if name not in message:
            if field.required:
                raise ProtocolError("invalid", f"{kind} needs the field {name!r}.")
            continue
        field.check(name, message[name])
        if field.types == (dict,):
            _check_scalar_tree(name, message[name])
    return message


def validate_server(message: dict[str, Any]) -> dict[str, Any]:
    """The message unchanged if it is a message the hub may send (type known, no field
    :data:`SERVER_MESSAGES` does not list); else ProtocolError. The hub's tests check every
    message their clients receive with it, and the app does when ``GAMBIT_CHECK_MESSAGES`` is
    set (a debug run)."""
    kind: Any = message.get("t")  # (unchecked yet: anything)
    fields = SERVER_MESSAGES.get(kind)
    if fields is None:
        raise ProtocolError("unknown_type", f"The hub sent an unknown type {str(kind)[:32]!r}.")
    extra = sorted(name for name in message if name != "t" and name not in fields)
    if extra:
        raise ProtocolError("invalid", f"The hub sent an unlisted field {extra[0]!r} in {kind}.")
    return message


def error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"t": "error", "code": code, "message": message, **extra}
