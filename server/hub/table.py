"""A table: its settings, its seats and the game in play. Plain data plus rules of seating.

The hub owns the I/O (messages, storage, timers); a Table only knows who sits where, what the
table allows and which engine state is running, so it can be saved and rebuilt exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from server.engine import State, get_game
from server.engine.fairness import DealLog

from .tables import SeatList, Tables

#: Where a table is: seating players (and bots) before its first game, a game in play, or the
#: pause after a game, its result on show, before the next (waiting -> playing -> between ->
#: playing ...). Players and the lobby see it as it is.
TableStatus = Literal["waiting", "playing", "between"]
TABLE_STATUSES: tuple[TableStatus, ...] = get_args(TableStatus)


@dataclass(slots=True, frozen=True)
class Seat:
    """Who holds a seat. A human seat keeps its player while they are away; after the grace
    period a bot takes the seat over and the player may reclaim it (``reserved``). Frozen: a
    seat changes by a new one put in its place, which the hub's index of seats is told of
    (``server.hub.tables``)."""

    player: str | None = None
    bot: str | None = None
    reserved: str | None = None

    @property
    def empty(self) -> bool:
        return self.player is None and self.bot is None


@dataclass(slots=True)
class Table:
    id: int
    game: str
    players: int
    options: dict[str, Any]
    owner: str
    access: str = "everyone"
    max_rating: int | None = None
    stake: int = 0
    timer: float = 60.0
    seats: list[Seat] = field(default_factory=list)
    status: TableStatus = "waiting"
    dealer: int = 0
    games_played: int = 0
    #: The chip account each seat anted from in the current game: payouts go back there,
    #: even if a bot has since taken the seat over.
    accounts: list[str] = field(default_factory=list)
    #: How the last game moved each seat's rating, as players see ratings (None: a bot).
    rating_changes: list[int | None] = field(default_factory=list)
    #: The rating the last game gave each seat whose player had none in this game before
    #: (their first rated game: "first rating 868" says more than "-132"); else None.
    first_ratings: list[int | None] = field(default_factory=list)
    #: Chips each seat put into the pot in the current game (ante, stays, raises): what a
    #: stand-in bot's result for an absent player is measured against.
    paid: list[int] = field(default_factory=list)
    #: Per player whose seat a stand-in bot played with their chips: the games it finished
    #: for them and the chips it won (negative: lost), told to them when they sit down again.
    away: dict[str, dict[str, int]] = field(default_factory=dict)
    #: The secret seed of the game in play, or of the next one before it is dealt, with its
    #: commitment (``server.hub.deals``): stored with the table, shown only as the commitment.
    deal: dict[str, Any] | None = None
    #: The duplicate set the table belongs to (``server.hub.duplicate``): its name, secret
    #: seed and first dealer, and the table's own results of the set's games; None: not one.
    duplicate: dict[str, Any] | None = None
    #: The game night this table seats a round of (``server.hub.nights``): the event's id,
    #: the round and the table's index in it (and ``host``, the name its host is shown
    #: under, for an event the server's operator made); such a table plays one game. None:
    #: not one.
    night: dict[str, Any] | None = None
    state: State | None = None
    #: Where the cards lay at each deal of the game in play (``fairness.DealLog``), for its record.
    deal_log: DealLog | None = None
    #: The parts of the last change's messages every reader shared (``protocol.event_log``):
    #: the next change's info is compared with it, not copied again when it is the same.
    shared: Any = field(default=None, repr=False, compare=False)
    #: The game state and its moves then that ``shared``'s public part was built of: while
    #: they are the state's now, a bot in a seat is given that part (as a person there is),
    #: not one built again (``Turns.seat_view``).
    public_of: Any = field(default=None, repr=False, compare=False)
    #: The info its readers were last shown (without the turn timers) and what it was made
    #: of, kept while only the game moves (``Play.shared_table_info``).
    shown_info: Any = field(default=None, repr=False, compare=False)
    #: The views' events mark (``State.events_mark``) and each reading seat's own part of
    #: the view at the last change: the next change makes an untouched seat's from it.
    seat_views: Any = field(default=None, repr=False, compare=False)
    #: The hub's open tables while this one is among them: told of every seat put in.
    index: Tables | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.seats:
            self.seats = [Seat() for _ in range(self.players)]

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "seats":
            object.__setattr__(self, name, value)
            return
        old = getattr(self, "seats", ())
        index = getattr(self, "index", None)
        object.__setattr__(self, name, SeatList(value, self.id, index))
        if index is not None:
            index.seats_replaced(self.id, old, self.seats)

    # --- seating ---------------------------------------------------------------------------

    def seat_of(self, player: str) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.player == player:
                return i
        return None

    def reserved_seat_of(self, player: str) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.reserved == player:
                return i
        return None

    def humans(self) -> list[str]:
        return [s.player for s in self.seats if s.player is not None]

    @property
    def full(self) -> bool:
        return all(not s.empty for s in self.seats)

    @property
    def title(self) -> str:
        return get_game(self.game).title

    # --- saving ------------------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """Everything but the engine state (stored as params + actions) and live sessions."""
        data = {
            "id": self.id,
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "owner": self.owner,
            "access": self.access,
            "max_rating": self.max_rating,
            "stake": self.stake,
            "timer": self.timer,
            # (not dataclasses.asdict: it deep-copies, and this runs at every action)
            "seats": [
                {"player": s.player, "bot": s.bot, "reserved": s.reserved} for s in self.seats
            ],
            "status": self.status,
            "dealer": self.dealer,
            "games_played": self.games_played,
            "accounts": self.accounts,
            "rating_changes": self.rating_changes,
            "first_ratings": self.first_ratings,
            "paid": self.paid,
            "away": self.away,
            "deal": self.deal,
            "duplicate": self.duplicate,
            "night": self.night,
        }
        return data

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Table:
        data = dict(data)
        data["seats"] = [Seat(**s) for s in data["seats"]]
        if data.get("status", "waiting") not in TABLE_STATUSES:
            raise ValueError(f"table {data.get('id')}: no such status {data['status']!r}")
        return cls(**data)
