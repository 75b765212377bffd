"""What the hub sends, declared once as typed maps.

Each server message is a :class:`~typing.TypedDict` here: the hub builds plain dicts (no
object to make, nothing added to the cost of a message), and the type checker checks each one
where it is made, against its type's fields (``Session.push`` takes a :data:`ServerMessage`):
a misspelt or missing field, or a field of another message, fails ``mypy``.
:data:`~protocol.messages.SERVER_MESSAGES` (which tests and a debug run check every received
message against) is read from these declarations, so there is no second list to keep in step.
``docs/protocol.md`` documents each message with an example.

Those with a field named ``from`` (a Python keyword) are written in the functional form; the
types are read at run time (:func:`fields_by_type`), so this module does without ``from
__future__ import annotations``.
"""

from typing import Any, Literal, NotRequired, TypedDict, get_args


#: The wire fields of a sentence the hub says: English ``message``, the ``text`` template and
#: its ``args`` (``server.hub.errors.said``): a client shows it in its player's language.
class Sentence(TypedDict):
    message: str
    text: NotRequired[str]
    args: NotRequired[dict[str, Any]]


#: A player as they see themselves (``welcome``'s ``you``, and the ``you`` message).
class YouInfo(TypedDict):
    id: str
    name: str
    guest: bool
    chips: int
    ratings: dict[str, int]
    lang: str
    prefs: dict[str, Any]
    admin: bool


class Welcome(TypedDict):
    t: Literal["welcome"]
    v: int
    you: YouInfo
    server: dict[str, Any]
    returning: bool


class You(YouInfo):
    t: Literal["you"]


class Lobby(TypedDict):
    t: Literal["lobby"]
    tables: list[dict[str, Any]]
    players: list[dict[str, Any]]
    online: int
    tables_total: int


class LobbyUpdate(TypedDict):
    t: Literal["lobby_update"]
    tables: list[dict[str, Any]]
    removed: list[int]
    players: Any  # (None: the list shown is still right)
    online: int
    tables_total: int


class Table(TypedDict):
    t: Literal["table"]
    table: int
    info: dict[str, Any]
    seat: int | None
    view: dict[str, Any] | None
    #: (made from ``view`` as the message goes out: protocol/event_log.py)
    delta: NotRequired[Any]


class Left(TypedDict):
    t: Literal["left"]
    table: int


class StandIn(TypedDict):
    t: Literal["stand_in"]
    table: int
    games: int
    chips: int


Chat = TypedDict(
    "Chat",
    {
        "t": Literal["chat"],
        "channel": str,
        "from": str,
        "text": str,
        "ts": int,
        "table": NotRequired[int],
    },
)
Invite = TypedDict("Invite", {"t": Literal["invite"], "table": int, "from": str, "game": str})


class Invites(TypedDict):
    t: Literal["invites"]
    invites: list[dict[str, Any]]


class Friends(TypedDict):
    t: Literal["friends"]
    friends: list[dict[str, Any]]
    requests: list[dict[str, Any]]
    sent: list[dict[str, Any]]


FriendRequest = TypedDict("FriendRequest", {"t": Literal["friend_request"], "from": str})


class Error(TypedDict):
    t: Literal["error"]
    code: str
    message: str
    text: NotRequired[str]
    args: NotRequired[dict[str, Any]]
    #: The type of the request refused (none: not caused by a request).
    ref: NotRequired[str]


class Notice(TypedDict):
    t: Literal["notice"]
    code: str
    message: str
    text: NotRequired[str]
    args: NotRequired[dict[str, Any]]


class Pong(TypedDict):
    t: Literal["pong"]
    n: int


class Bye(TypedDict):
    t: Literal["bye"]
    code: str
    message: str
    text: NotRequired[str]
    args: NotRequired[dict[str, Any]]


class AdminReply(TypedDict):
    t: Literal["admin_reply"]
    op: str
    data: Any


class History(TypedDict):
    t: Literal["history"]
    games: list[dict[str, Any]]
    game: str | None
    page: int
    pages: int
    total: int


class Leaderboard(TypedDict):
    t: Literal["leaderboard"]
    game: str
    min_games: int
    rows: list[dict[str, Any]]


class Record(TypedDict):
    t: Literal["record"]
    game: int
    kind: str
    finished: int
    seats: list[dict[str, Any]]
    steps: int
    deals: list[int]
    deal: dict[str, Any] | None  # (None: the game has no stored deal)
    verify: dict[str, Any]
    outcome: dict[str, Any] | None


class Replay(TypedDict):
    t: Literal["replay"]
    game: int
    step: int
    steps: int
    seat: int | None
    info: dict[str, Any]
    view: dict[str, Any]
    hands: list[list[str]]


class Player(TypedDict):
    t: Literal["player"]
    name: str
    since: int
    online: bool
    games: int
    by_game: dict[str, dict[str, Any]]


#: Game nights: the list a player sees, and one night in full (rules, rounds, standings).
class Nights(TypedDict):
    t: Literal["nights"]
    nights: list[dict[str, Any]]


class NightInfo(TypedDict):
    t: Literal["night"]
    night: dict[str, Any]


#: Every message the hub sends (``"t"`` tells which).
ServerMessage = (
    Welcome
    | You
    | Lobby
    | LobbyUpdate
    | Table
    | Left
    | StandIn
    | Chat
    | Invite
    | Invites
    | Friends
    | FriendRequest
    | Error
    | Notice
    | Pong
    | Bye
    | AdminReply
    | History
    | Leaderboard
    | Record
    | Replay
    | Player
    | Nights
    | NightInfo
)


def fields_by_type() -> dict[str, tuple[str, ...]]:
    """Each server message type and its fields (besides ``t``), as declared above."""
    out: dict[str, tuple[str, ...]] = {}
    for message in get_args(ServerMessage):
        (kind,) = get_args(message.__annotations__["t"])
        out[kind] = tuple(name for name in message.__annotations__ if name != "t")
    return out
