"""What a client asks of the hub, as typed values (after python-chess's ``Move``): the one
declaration of the client messages.

Each client message is a frozen class here: the app builds ``Join(table=7)`` rather than
spelling out ``{"t": "join", "table": 7}``, and :func:`request_from_wire` turns a received map
into its value. Each field's annotation carries its rule on the wire (``protocol/fields.py``:
type, length, range, choices); a field with a default (None) is optional, and one left
``None`` is not sent (the hub reads a missing field and a ``null`` one alike). The schema
the hub validates every frame against (:data:`CLIENT_MESSAGES`, :func:`validate_client`) and
the hub's routing (``server/hub/hub.py``) are read from these classes.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from .actions import Action, action_from_wire
from .codec import ProtocolError
from .fields import (
    ACCESS,
    ADMIN_OPS,
    BOT_KINDS,
    CHANNEL,
    FINISHED_GAME,
    FLAG,
    GAME,
    LANGUAGE,
    MAX_CHAT,
    MAX_ID,
    NAME,
    NIGHT_FILLS,
    NIGHT_FORMATS,
    NIGHT_OPS,
    SEAT,
    TABLE,
    Field,
    check_scalar_tree,
    mapping,
    number,
    string,
)


@dataclass(frozen=True, slots=True)
class Request:
    """One client message: its wire type in ``TYPE``, its fields as attributes."""

    TYPE: ClassVar[str] = ""
    #: Attributes whose wire name is a Python keyword.
    WIRE_NAMES: ClassVar[dict[str, str]] = {}

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"t": self.TYPE}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is None:
                continue
            if isinstance(value, Action):
                value = value.to_wire()
            wire[self.WIRE_NAMES.get(field.name, field.name)] = value
        return wire

    @classmethod
    def from_wire(cls, wire: Any) -> Request:
        if not isinstance(wire, dict) or wire.get("t") != cls.TYPE:
            raise ProtocolError("invalid", f"A {cls.TYPE} message must be a map of that type.")
        return cls._of(validate_client(wire))

    @classmethod
    def _of(cls, wire: dict[str, Any]) -> Request:
        """The value of a map :func:`validate_client` has passed."""
        attrs = {value: key for key, value in cls.WIRE_NAMES.items()}
        return cls(**{attrs.get(key, key): value for key, value in wire.items() if key != "t"})

    @classmethod
    def schema(cls) -> dict[str, Field]:
        """Each wire field and its rule, as this class's annotations give them (a field with a
        default is optional)."""
        hints = typing.get_type_hints(cls, include_extras=True)
        out: dict[str, Field] = {}
        for field in dataclasses.fields(cls):
            rules = [
                m for m in getattr(hints[field.name], "__metadata__", ()) if isinstance(m, Field)
            ]
            assert len(rules) == 1, f"{cls.__name__}.{field.name} needs one rule"
            required = field.default is dataclasses.MISSING
            out[cls.WIRE_NAMES.get(field.name, field.name)] = dataclasses.replace(
                rules[0], required=required
            )
        return out


@dataclass(frozen=True, slots=True)
class Hello(Request):
    """The first message of every connection. ``identity`` is honoured only on trusted
    transports (the server's own SSH sessions); elsewhere the hub makes the client a guest."""

    TYPE: ClassVar[str] = "hello"
    v: Annotated[int, number(0, 1_000_000)]
    name: Annotated[str | None, NAME] = None
    lang: Annotated[str | None, LANGUAGE] = None
    identity: Annotated[str | None, string(MAX_ID)] = None


@dataclass(frozen=True, slots=True)
class Profile(Request):
    """A new name or language, or the app's own preferences (alerts, card faces, theme...),
    remembered per identity."""

    TYPE: ClassVar[str] = "profile"
    name: Annotated[str | None, NAME] = None
    lang: Annotated[str | None, LANGUAGE] = None
    prefs: Annotated[dict[str, Any] | None, mapping(16)] = None


@dataclass(frozen=True, slots=True)
class CreateTable(Request):
    """A new table (``duplicate``: the name of a duplicate set to join, every table of which
    is dealt the same cards)."""

    TYPE: ClassVar[str] = "create_table"
    game: Annotated[str, GAME]
    players: Annotated[int, number(3, 6)]
    options: Annotated[dict[str, Any] | None, mapping(16)] = None
    access: Annotated[str | None, string(16, choices=ACCESS)] = None
    max_rating: Annotated[int | None, number(0, 100_000, nullable=True)] = None
    stake: Annotated[int | None, number(0, 1_000_000)] = None
    timer: Annotated[int | None, number(0, 3600)] = None
    duplicate: Annotated[str | None, string(24, nullable=True)] = None


@dataclass(frozen=True, slots=True)
class Join(Request):
    TYPE: ClassVar[str] = "join"
    table: Annotated[int, TABLE]
    seat: Annotated[int | None, number(0, 5, nullable=True)] = None


@dataclass(frozen=True, slots=True)
class Leave(Request):
    TYPE: ClassVar[str] = "leave"
    table: Annotated[int, TABLE]


@dataclass(frozen=True, slots=True)
class Stand(Request):
    TYPE: ClassVar[str] = "stand"
    table: Annotated[int, TABLE]


@dataclass(frozen=True, slots=True)
class Spectate(Request):
    TYPE: ClassVar[str] = "spectate"
    table: Annotated[int, TABLE]


@dataclass(frozen=True, slots=True)
class AddBot(Request):
    TYPE: ClassVar[str] = "add_bot"
    table: Annotated[int, TABLE]
    seat: Annotated[int, SEAT]
    kind: Annotated[str | None, string(16, choices=BOT_KINDS)] = None


@dataclass(frozen=True, slots=True)
class RemoveBot(Request):
    TYPE: ClassVar[str] = "remove_bot"
    table: Annotated[int, TABLE]
    seat: Annotated[int, SEAT]


@dataclass(frozen=True, slots=True)
class Start(Request):
    TYPE: ClassVar[str] = "start"
    table: Annotated[int, TABLE]


@dataclass(frozen=True, slots=True)
class ResultRead(Request):
    """The player closed the result of the table's last game: once every player there has,
    the next game need not wait out the pause between games."""

    TYPE: ClassVar[str] = "result_read"
    table: Annotated[int, TABLE]


@dataclass(frozen=True, slots=True)
class Act(Request):
    """An action at a table: the action is a typed value (``protocol.actions``)."""

    TYPE: ClassVar[str] = "act"
    table: Annotated[int, TABLE]
    action: Annotated[Action, mapping(8)]

    @classmethod
    def _of(cls, wire: dict[str, Any]) -> Act:
        return cls(wire["table"], action_from_wire(wire["action"]))


@dataclass(frozen=True, slots=True)
class Chat(Request):
    TYPE: ClassVar[str] = "chat"
    channel: Annotated[str, CHANNEL]
    text: Annotated[str, string(MAX_CHAT)]
    table: Annotated[int | None, TABLE] = None


@dataclass(frozen=True, slots=True)
class Friend(Request):
    """Friendship is asked (``add``) and answered by the other player (``accept``/``decline``)."""

    TYPE: ClassVar[str] = "friend"
    op: Annotated[str, string(8, choices=("add", "accept", "decline", "remove", "list"))]
    name: Annotated[str | None, NAME] = None


@dataclass(frozen=True, slots=True)
class Invite(Request):
    TYPE: ClassVar[str] = "invite"
    op: Annotated[str, string(8, choices=("send", "accept", "decline"))]
    table: Annotated[int, TABLE]
    name: Annotated[str | None, NAME] = None


@dataclass(frozen=True, slots=True)
class Night(Request):
    """Game nights: list them, follow one's standings, make one, register, withdraw; the
    host's ops (start a round early, pause, resume, extend by ``rounds``, cancel, remove the
    player named ``player``, invite or uninvite the player named ``player``). ``night`` names
    the event for every op but list and create.
    ``starts_at`` and ``closes_at`` (create): wall-clock seconds, the first round seated by
    itself then, and no round seated after. ``host`` (create, from the server's own command
    line only): the name players see as the event's host."""

    TYPE: ClassVar[str] = "night"
    op: Annotated[str, string(8, choices=NIGHT_OPS)]
    night: Annotated[int | None, number(1, 2**31)] = None
    name: Annotated[str | None, NAME] = None
    game: Annotated[str | None, GAME] = None
    players: Annotated[int | None, number(3, 6)] = None
    format: Annotated[str | None, string(16, choices=NIGHT_FORMATS)] = None
    rounds: Annotated[int | None, number(1, 20)] = None
    options: Annotated[dict[str, Any] | None, mapping(16)] = None
    access: Annotated[str | None, string(16, choices=ACCESS)] = None
    fill: Annotated[str | None, string(8, choices=NIGHT_FILLS)] = None
    bots: Annotated[str | None, string(16, choices=BOT_KINDS)] = None
    timer: Annotated[int | None, number(0, 3600)] = None
    player: Annotated[str | None, NAME] = None
    starts_at: Annotated[int | None, number(0, 2**40)] = None
    closes_at: Annotated[int | None, number(0, 2**40)] = None
    host: Annotated[str | None, NAME] = None


@dataclass(frozen=True, slots=True)
class Ping(Request):
    TYPE: ClassVar[str] = "ping"
    n: Annotated[int, number(0, 2**31)]


@dataclass(frozen=True, slots=True)
class LobbyWatch(Request):
    """Whether the client shows the lobby now: lobby updates go only to clients that do (a
    player at a table needs none), and turning it on brings a fresh ``lobby``."""

    TYPE: ClassVar[str] = "lobby_watch"
    on: Annotated[bool, FLAG]


@dataclass(frozen=True, slots=True)
class Ignore(Request):
    """Someone's chat and invites disappear for the sender (or come back)."""

    TYPE: ClassVar[str] = "ignore"
    name: Annotated[str, NAME]
    on: Annotated[bool, FLAG]


@dataclass(frozen=True, slots=True)
class Report(Request):
    """A chat line shown to the sender, reported to the admins."""

    TYPE: ClassVar[str] = "report"
    WIRE_NAMES: ClassVar[dict[str, str]] = {"sender": "from"}
    channel: Annotated[str, CHANNEL]
    sender: Annotated[str, NAME]
    text: Annotated[str, string(MAX_CHAT)]
    table: Annotated[int | None, TABLE] = None


@dataclass(frozen=True, slots=True)
class History(Request):
    """The sender's finished games, newest first, a page at a time (``game``: of one game
    only)."""

    TYPE: ClassVar[str] = "history"
    game: Annotated[str | None, string(32, nullable=True, choices=GAME.choices)] = None
    page: Annotated[int | None, number(0, 100_000)] = None


@dataclass(frozen=True, slots=True)
class Leaderboard(Request):
    """The best rated players at one game (with at least a few games played)."""

    TYPE: ClassVar[str] = "leaderboard"
    game: Annotated[str, GAME]


@dataclass(frozen=True, slots=True)
class Record(Request):
    """A finished game's record: who played, how it ended, its deal and the verdict on it."""

    TYPE: ClassVar[str] = "record"
    game: Annotated[int, FINISHED_GAME]


@dataclass(frozen=True, slots=True)
class Replay(Request):
    """A finished game's table after ``step`` actions, as ``seat`` saw it (null: a
    spectator)."""

    TYPE: ClassVar[str] = "replay"
    game: Annotated[int, FINISHED_GAME]
    step: Annotated[int, number(0, 1_000_000)]
    seat: Annotated[int | None, number(0, 5, nullable=True)] = None


@dataclass(frozen=True, slots=True)
class Entropy(Request):
    """Players' entropy for the table's next deal (``deal``: its commitment, as shown): first
    ``commit`` (SHA-256 of a random value), then, once commitments close, ``reveal`` (the
    value)."""

    TYPE: ClassVar[str] = "entropy"
    table: Annotated[int, TABLE]
    deal: Annotated[str, string(64)]
    commit: Annotated[str | None, string(64)] = None
    reveal: Annotated[str | None, string(64)] = None


@dataclass(frozen=True, slots=True)
class Player(Request):
    """A player's public profile, by name."""

    TYPE: ClassVar[str] = "player"
    name: Annotated[str, NAME]


@dataclass(frozen=True, slots=True)
class Admin(Request):
    """Admins only (see docs/protocol.md): one op and what it needs."""

    TYPE: ClassVar[str] = "admin"
    op: Annotated[str, string(16, choices=ADMIN_OPS)]
    who: Annotated[str | None, string(MAX_ID)] = None
    address: Annotated[str | None, string(64)] = None
    seconds: Annotated[int | None, number(0, 10**9)] = None
    reason: Annotated[str | None, string(200)] = None
    text: Annotated[str | None, string(MAX_CHAT)] = None
    table: Annotated[int | None, TABLE] = None
    amount: Annotated[int | None, number(-(10**9), 10**9)] = None


#: Each request class by its wire type.
REQUESTS: dict[str, type[Request]] = {
    cls.TYPE: cls
    for cls in (
        Hello,
        Profile,
        CreateTable,
        Join,
        Leave,
        Stand,
        Spectate,
        AddBot,
        RemoveBot,
        Start,
        ResultRead,
        Act,
        Chat,
        Friend,
        Invite,
        Night,
        Ping,
        LobbyWatch,
        Ignore,
        Report,
        History,
        Leaderboard,
        Record,
        Replay,
        Entropy,
        Player,
        Admin,
    )
}


#: Each client message type and its fields' rules (read from the classes above).
CLIENT_MESSAGES: dict[str, dict[str, Field]] = {
    kind: cls.schema() for kind, cls in REQUESTS.items()
}


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
            check_scalar_tree(name, message[name])
    return message


def request_from_wire(wire: Any) -> Request:
    """The typed value of one received client message, else ProtocolError (as
    :func:`validate_client` words it)."""
    if not isinstance(wire, dict):
        raise ProtocolError("bad_message", "A message must be a map.")
    kind: Any = wire.get("t")  # (a client's: anything)
    cls = REQUESTS.get(kind)
    if cls is None:
        raise ProtocolError("unknown_type", f"Unknown message type {str(kind)[:32]!r}.")
    return cls.from_wire(wire)


def request_of(message: dict[str, Any]) -> Request:
    """The value of a message :func:`validate_client` has passed (the hub
    checks each frame once, then reads it as its value). Only an ``act`` can still be refused
    here (ProtocolError): an action map of no known shape."""
    return REQUESTS[message["t"]]._of(message)
