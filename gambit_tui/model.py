"""What the app knows of the server: everything it has been told, and nothing else.

The app's connection reader feeds each message to :meth:`ClientModel.apply`, which updates the
model and says what changed; the app then tells its screens. Keeping this free of Textual means
the bookkeeping (lobby updates, removed tables, chat history) is tested on its own.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

CHAT_HISTORY = 200


def replay_key(game_id: int) -> int:
    """Where a finished game's replay is kept in :attr:`ClientModel.views`."""
    return -game_id


@dataclass(slots=True)
class ChatLine:
    channel: str
    sender: str
    text: str
    table: int | None = None


@dataclass(slots=True)
class ClientModel:
    you: dict[str, Any] = field(default_factory=dict)
    server: dict[str, Any] = field(default_factory=dict)
    tables: dict[int, dict[str, Any]] = field(default_factory=dict)
    players: list[dict[str, Any]] = field(default_factory=list)
    #: How many players are online and tables open in all: the hub lists only so many.
    online: int = 0
    tables_total: int = 0
    #: The last ``table`` message of each table we sit at or watch.
    views: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: When each of those arrived (monotonic), to count the turn timers down from.
    received: dict[int, float] = field(default_factory=dict)
    chat: dict[str | int, deque[ChatLine]] = field(default_factory=dict)
    #: The chat line that came last (on any channel).
    chat_said: ChatLine = field(default_factory=lambda: ChatLine("", "", ""))
    invites: list[dict[str, Any]] = field(default_factory=list)
    friends: list[dict[str, Any]] | None = None
    #: The last page of our finished games the hub sent (None: not asked yet).
    history: dict[str, Any] | None = None
    #: Game → its last leaderboard.
    leaderboards: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Who asks us to be friends (``{"name"}``), and whom we asked, not yet answered.
    requests: list[dict[str, Any]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    #: Finished games' records opened in the app, by game id (players, result, deal verdict).
    records: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: Players' public profiles, by name (casefolded), as last sent.
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The server's game nights as last listed (None: not asked yet), and each one followed
    #: (its standings, our table in the round under way), by id.
    nights: list[dict[str, Any]] | None = None
    night: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: When each night's last news came (monotonic, by id): its countdown runs from there.
    night_received: dict[int, float] = field(default_factory=dict)
    #: The hub's last answer to each admin request (admins only), by op.
    admin: dict[str, Any] = field(default_factory=dict)

    # --- reading messages ----------------------------------------------------------------------

    def apply(self, message: dict[str, Any]) -> str | None:
        """Take in one server message; returns what changed ("lobby", "you", "table", …)."""
        kind = message.get("t")
        if kind == "welcome":
            self.you = dict(message["you"])
            self.server = dict(message["server"])
            return "welcome"
        if kind == "you":
            self.you = {k: v for k, v in message.items() if k != "t"}
            return "you"
        if kind == "lobby":
            self.tables = {t["id"]: t for t in message["tables"]}
            self.players = list(message["players"])
            self._totals(message)
            return "lobby"
        if kind == "lobby_update":
            for info in message.get("tables") or []:
                self.tables[info["id"]] = info
            for table_id in message.get("removed") or []:
                self.tables.pop(table_id, None)
            if message.get("players") is not None:
                self.players = list(message["players"])
            self._totals(message)
            return "lobby"
        if kind == "table":
            table_id = message["table"]
            self.views[table_id] = message
            self.received[table_id] = time.monotonic()
            self.tables[table_id] = {k: v for k, v in message["info"].items() if k != "deadlines"}
            return "table"
        if kind == "left":
            self.views.pop(message["table"], None)
            self.received.pop(message["table"], None)
            return "left"
        if kind == "chat":
            line = ChatLine(
                message["channel"], message["from"], message["text"], message.get("table")
            )
            key: str | int = "lobby" if line.channel == "lobby" else (line.table or 0)
            self.chat.setdefault(key, deque(maxlen=CHAT_HISTORY)).append(line)
            self.chat_said = line
            return "chat"
        if kind == "invites":
            self.invites = list(message["invites"])
            return "social"
        if kind == "invite":
            entry = {k: message.get(k) for k in ("table", "from", "game")}
            self.invites = [i for i in self.invites if i["table"] != entry["table"]] + [entry]
            return "social"
        if kind == "friends":
            self.friends = list(message["friends"])
            self.requests = list(message.get("requests") or [])
            self.sent = list(message.get("sent") or [])
            return "social"
        if kind == "friend_request":
            name = message["from"]
            self.requests = [r for r in self.requests if r["name"] != name] + [{"name": name}]
            return "social"
        if kind == "history":
            self.history = message
            return "history"
        if kind == "leaderboard":
            self.leaderboards[message["game"]] = message
            return "history"
        if kind == "record":
            self.records[message["game"]] = message
            return "record"
        if kind == "nights":
            self.nights = list(message["nights"])
            now = time.monotonic()
            for night in self.nights:
                self.night_received[night["id"]] = now
            return "nights"
        if kind == "night":
            self.night[message["night"]["id"]] = message["night"]
            self.night_received[message["night"]["id"]] = time.monotonic()
            return "nights"
        if kind == "replay":
            # A replay's moment is kept like a table's, under the game's own key (negative:
            # never a table's), so the table screens read it as they read a table.
            key = replay_key(message["game"])
            self.views[key] = {
                "t": "table",
                "table": key,
                "info": message["info"],
                "seat": message["seat"],
                "view": message["view"],
                "step": message["step"],
                "steps": message["steps"],
                "hands": message["hands"],
            }
            return "replay"
        if kind == "player":
            self.profiles[message["name"].casefold()] = message
            return "profile"
        if kind == "admin_reply":
            self.admin[message["op"]] = message["data"]
            return "admin"
        return None

    def _totals(self, message: dict[str, Any]) -> None:
        self.online = int(message.get("online") or len(self.players))
        self.tables_total = int(message.get("tables_total") or len(self.tables))

    # --- questions screens ask -----------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.you.get("name", "")

    def chat_lines(self, key: str | int) -> list[ChatLine]:
        return list(self.chat.get(key, ()))

    def game_info(self, game: str) -> dict[str, Any] | None:
        for info in self.server.get("games", []):
            if info["name"] == game:
                return info
        return None

    def my_seat(self, table_id: int) -> int | None:
        view = self.views.get(table_id)
        return None if view is None else view.get("seat")

    def seated_tables(self) -> list[int]:
        """Tables where we hold a seat (as the hub last told us); never a replay."""
        return [t for t, v in self.views.items() if v.get("seat") is not None and t > 0]

    def deadline_left(self, table_id: int, seat: int) -> float | None:
        """Seconds left on ``seat``'s turn timer now, if it has one."""
        view = self.views.get(table_id)
        if view is None:
            return None
        left = view["info"].get("deadlines", {}).get(str(seat))
        if left is None:
            return None
        return max(0.0, left - (time.monotonic() - self.received.get(table_id, 0.0)))

    def forget_invite(self, table_id: int) -> None:
        self.invites = [i for i in self.invites if i["table"] != table_id]

    def forget_request(self, name: str) -> None:
        self.requests = [r for r in self.requests if r["name"] != name]

    def pending(self) -> list[tuple[str, Any]]:
        """What waits for the player's answer, oldest first: ``("invite", table id)`` and
        ``("friend", name)``."""
        out: list[tuple[str, Any]] = [("friend", r["name"]) for r in self.requests]
        out += [("invite", i["table"]) for i in self.invites if i.get("game")]
        return out


#: Seconds left on the player's turn timer when the bell rings if the table is out of sight.
LATE_BELL = 10.0


@dataclass(frozen=True, slots=True)
class TurnClock:
    """The player's most urgent turn timer: where, seconds left, and which decision (the
    table and its deadline, to the second) so that its bell rings once."""

    table_id: int
    left: float
    key: tuple[int, int]


def turn_clock(model: ClientModel) -> TurnClock | None:
    """The turn timer with the least time left among the tables where the player must decide
    now (None if there is none); the seconds come from the hub's deadlines."""
    best: TurnClock | None = None
    for table_id in model.seated_tables():
        message = model.views[table_id]
        seat = message.get("seat")
        if seat is None or not (message.get("view") or {}).get("ask"):
            continue
        left = model.deadline_left(table_id, seat)
        if left is None:
            continue
        deadline = model.received.get(table_id, 0.0) + message["info"]["deadlines"][str(seat)]
        if best is None or left < best.left:
            best = TurnClock(table_id, left, (table_id, round(deadline)))
    return best
