"""What a client asks of the hub, as typed values (after python-chess's ``Move``).

Each client message of :data:`~protocol.messages.CLIENT_MESSAGES` is a frozen class here: the
app builds ``Join(table=7)`` rather than spelling out ``{"t": "join", "table": 7}``, and
:func:`request_from_wire` turns a received map into its value, refusing a malformed one with
the same :class:`ProtocolError` as :func:`~protocol.messages.validate_client` (whose schema
stays the one place that holds each field's limits; ``tests/test_requests.py`` keeps the two
in step). An optional field left ``None`` is not sent: the hub reads a missing field and a
``null`` one alike.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from .actions import Action, action_from_wire
from .codec import ProtocolError
from .messages import validate_client


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


@dataclass(frozen=True, slots=True)
class Hello(Request):
    TYPE: ClassVar[str] = "hello"
    v: int
    name: str | None = None
    lang: str | None = None
    identity: str | None = None


@dataclass(frozen=True, slots=True)
class Profile(Request):
    TYPE: ClassVar[str] = "profile"
    name: str | None = None
    lang: str | None = None
    prefs: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class CreateTable(Request):
    TYPE: ClassVar[str] = "create_table"
    game: str
    players: int
    options: dict[str, Any] | None = None
    access: str | None = None
    max_rating: int | None = None
    stake: int | None = None
    timer: int | None = None
    duplicate: str | None = None


@dataclass(frozen=True, slots=True)
class Join(Request):
    TYPE: ClassVar[str] = "join"
    table: int
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Leave(Request):
    TYPE: ClassVar[str] = "leave"
    table: int


@dataclass(frozen=True, slots=True)
class Stand(Request):
    TYPE: ClassVar[str] = "stand"
    table: int


@dataclass(frozen=True, slots=True)
class Spectate(Request):
    TYPE: ClassVar[str] = "spectate"
    table: int


@dataclass(frozen=True, slots=True)
class AddBot(Request):
    TYPE: ClassVar[str] = "add_bot"
    table: int
    seat: int
    kind: str | None = None


@dataclass(frozen=True, slots=True)
class RemoveBot(Request):
    TYPE: ClassVar[str] = "remove_bot"
    table: int
    seat: int


@dataclass(frozen=True, slots=True)
class Start(Request):
    TYPE: ClassVar[str] = "start"
    table: int


@dataclass(frozen=True, slots=True)
class ResultRead(Request):
    """The player closed the result of the table's last game: once every player there has,
    the next game need not wait out the pause between games."""

    TYPE: ClassVar[str] = "result_read"
    table: int


@dataclass(frozen=True, slots=True)
class Act(Request):
    """An action at a table: the action is a typed value (``protocol.actions``)."""

    TYPE: ClassVar[str] = "act"
    table: int
    action: Action

    @classmethod
    def _of(cls, wire: dict[str, Any]) -> Act:
        return cls(wire["table"], action_from_wire(wire["action"]))


@dataclass(frozen=True, slots=True)
class Chat(Request):
    TYPE: ClassVar[str] = "chat"
    channel: str
    text: str
    table: int | None = None


@dataclass(frozen=True, slots=True)
class Friend(Request):
    TYPE: ClassVar[str] = "friend"
    op: str
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Invite(Request):
    TYPE: ClassVar[str] = "invite"
    op: str
    table: int
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Night(Request):
    TYPE: ClassVar[str] = "night"
    op: str
    night: int | None = None
    name: str | None = None
    game: str | None = None
    players: int | None = None
    format: str | None = None
    rounds: int | None = None
    options: dict[str, Any] | None = None
    access: str | None = None
    fill: str | None = None
    bots: str | None = None
    timer: int | None = None


@dataclass(frozen=True, slots=True)
class Ping(Request):
    TYPE: ClassVar[str] = "ping"
    n: int


@dataclass(frozen=True, slots=True)
class LobbyWatch(Request):
    TYPE: ClassVar[str] = "lobby_watch"
    on: bool


@dataclass(frozen=True, slots=True)
class Ignore(Request):
    TYPE: ClassVar[str] = "ignore"
    name: str
    on: bool


@dataclass(frozen=True, slots=True)
class Report(Request):
    TYPE: ClassVar[str] = "report"
    WIRE_NAMES: ClassVar[dict[str, str]] = {"sender": "from"}
    channel: str
    sender: str
    text: str
    table: int | None = None


@dataclass(frozen=True, slots=True)
class History(Request):
    TYPE: ClassVar[str] = "history"
    game: str | None = None
    page: int | None = None


@dataclass(frozen=True, slots=True)
class Leaderboard(Request):
    TYPE: ClassVar[str] = "leaderboard"
    game: str


@dataclass(frozen=True, slots=True)
class Record(Request):
    TYPE: ClassVar[str] = "record"
    game: int


@dataclass(frozen=True, slots=True)
class Replay(Request):
    TYPE: ClassVar[str] = "replay"
    game: int
    step: int
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Entropy(Request):
    TYPE: ClassVar[str] = "entropy"
    table: int
    deal: str
    commit: str | None = None
    reveal: str | None = None


@dataclass(frozen=True, slots=True)
class Player(Request):
    TYPE: ClassVar[str] = "player"
    name: str


@dataclass(frozen=True, slots=True)
class Admin(Request):
    TYPE: ClassVar[str] = "admin"
    op: str
    who: str | None = None
    address: str | None = None
    seconds: int | None = None
    reason: str | None = None
    text: str | None = None
    table: int | None = None
    amount: int | None = None


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


def request_from_wire(wire: Any) -> Request:
    """The typed value of one received client message, else ProtocolError (as
    :func:`~protocol.messages.validate_client` words it)."""
    if not isinstance(wire, dict):
        raise ProtocolError("bad_message", "A message must be a map.")
    kind: Any = wire.get("t")  # (a client's: anything)
    cls = REQUESTS.get(kind)
    if cls is None:
        raise ProtocolError("unknown_type", f"Unknown message type {str(kind)[:32]!r}.")
    return cls.from_wire(wire)


def request_of(message: dict[str, Any]) -> Request:
    """The value of a message :func:`~protocol.messages.validate_client` has passed (the hub
    checks each frame once, then reads it as its value). Only an ``act`` can still be refused
    here (ProtocolError): an action map of no known shape."""
    return REQUESTS[message["t"]]._of(message)
