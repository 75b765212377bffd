"""One event as it goes: who registered, each round's tables and byes, each table's scores.

Pure: the hub asks it to seat the next round (:meth:`Night.seat_next_round`) and tells it each
table's scores (:meth:`Night.record`); it answers what the standings are. A late registration
plays from the next round; a withdrawal is seated no more (a round under way is finished by a
stand-in in their seat, and counts). Saved whole as a record (:meth:`Night.to_record`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from . import pairing
from .rules import MAX_ROUNDS, NightRules
from .standings import Standing, order_of, standings

#: registering → playing → between → playing … → finished (or cancelled at any time).
STATUSES = ("registering", "playing", "between", "finished", "cancelled")


class NightError(Exception):
    """A request the event refuses: a stable code and a sentence with ``{}`` arguments."""

    def __init__(self, code: str, message: str, **args: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.args_ = code, message, args


@dataclass(slots=True)
class Entrant:
    """A registered player: the first round they may be seated in; withdrawn or not."""

    since: int = 1
    withdrawn: bool = False


@dataclass(slots=True)
class Round:
    """One round: each table's seats (None: a bot), byes, and each table's game scores by
    seat once it has finished (None before). ``table_ids`` are the hub's tables."""

    number: int
    tables: list[list[str | None]]
    byes: list[str]
    scores: list[list[float] | None] = field(default_factory=list)
    table_ids: list[int | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.scores:
            self.scores = [None] * len(self.tables)
        if not self.table_ids:
            self.table_ids = [None] * len(self.tables)

    @property
    def complete(self) -> bool:
        return all(s is not None for s in self.scores)

    def table_of(self, pid: str) -> int | None:
        for index, seats in enumerate(self.tables):
            if pid in seats:
                return index
        return None


@dataclass(slots=True)
class Night:
    id: int
    rules: NightRules
    host: str
    status: str = "registering"
    #: Registered players, in the order they registered.
    entrants: dict[str, Entrant] = field(default_factory=dict)
    rounds: list[Round] = field(default_factory=list)
    #: The host paused the event: no round is seated by itself until they resume it.
    paused: bool = False
    #: Players the host invited, in the order invited: they may register whatever the access.
    invited: list[str] = field(default_factory=list)
    #: The name shown as the host when the server's operator made the event from its command
    #: line (``gambit event create --host``, else the server's name); None: the host's own.
    host_name: str | None = None

    # --- who plays ---------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.status in ("finished", "cancelled")

    def register(self, pid: str) -> int:
        """Register ``pid`` (again, after a withdrawal); the first round they will play."""
        if self.over:
            raise NightError("event_over", "This event is over.")
        entrant = self.entrants.get(pid)
        since = len(self.rounds) + 1
        if entrant is not None and not entrant.withdrawn:
            raise NightError("event_registered", "You are registered already.")
        if entrant is None:
            self.entrants[pid] = Entrant(since)
        else:
            entrant.withdrawn = False
            entrant.since = max(entrant.since, since)
        return since

    def withdraw(self, pid: str) -> None:
        """No more rounds for ``pid``; before the first round they are simply forgotten."""
        entrant = self.entrants.get(pid)
        if entrant is None or entrant.withdrawn:
            raise NightError("event_not_registered", "You are not registered for this event.")
        if self.over:
            raise NightError("event_over", "This event is over.")
        if not self.rounds:
            del self.entrants[pid]
        else:
            entrant.withdrawn = True

    def invite(self, pid: str) -> None:
        """Let ``pid`` register (an ``invited`` event is for them and the host only)."""
        if self.over:
            raise NightError("event_over", "This event is over.")
        if pid not in self.invited:
            self.invited.append(pid)

    def uninvite(self, pid: str) -> None:
        """Take back an invitation (a registration made with it stands: the host removes)."""
        if self.over:
            raise NightError("event_over", "This event is over.")
        if pid not in self.invited:
            raise NightError("event_not_invited", "That player is not invited to this event.")
        self.invited.remove(pid)

    def active(self) -> list[str]:
        """Who is seated in the next round, in registration order."""
        return [pid for pid, e in self.entrants.items() if not e.withdrawn]

    def met(self) -> dict[str, set[str]]:
        """Each player's table mates so far (bots left out)."""
        met: dict[str, set[str]] = {}
        for rnd in self.rounds:
            for seats in rnd.tables:
                people = [p for p in seats if p is not None]
                for pid in people:
                    met.setdefault(pid, set()).update(p for p in people if p != pid)
        return met

    def byes_had(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for rnd in self.rounds:
            for pid in rnd.byes:
                counts[pid] = counts.get(pid, 0) + 1
        return counts

    # --- rounds ------------------------------------------------------------------------------

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    def minimum_players(self) -> int:
        """How many must be registered to seat a round."""
        return self.rules.table_size if self.rules.fill == "byes" else 2

    def may_seat_next(self, now: float | None = None) -> None:
        """Raise unless the next round can be seated now."""
        if self.over:
            raise NightError("event_over", "This event is over.")
        if self.status == "playing":
            raise NightError("event_playing", "A round is under way.")
        if len(self.rounds) >= self.rules.rounds:
            raise NightError("event_over", "This event is over.")
        closes = self.rules.closes_at
        if now is not None and closes is not None and now >= closes and self.rounds:
            raise NightError("event_closed", "The event has closed: no more rounds.")
        if len(self.active()) < self.minimum_players():
            raise NightError(
                "event_too_few",
                "At least {count} players must be registered to start a round.",
                count=self.minimum_players(),
            )

    def next_order(self) -> list[str]:
        """The order players are seated in: Swiss by standing, the others as registered,
        turned by one place a round so that where repeats cannot be avoided they differ."""
        active = self.active()
        if self.rules.format == "swiss":
            wanted = set(active)
            return [p for p in order_of(self.standings()) if p in wanted]
        turn = len(self.rounds) % len(active) if active else 0
        return active[turn:] + active[:turn]

    def seat_next_round(self, now: float | None = None) -> Round:
        """Seat everyone registered for the next round and start it."""
        self.may_seat_next(now)
        seating = pairing.seat_round(
            self.next_order(),
            self.rules.table_size,
            self.met(),
            self.byes_had(),
            fill=self.rules.fill,
        )
        rnd = Round(len(self.rounds) + 1, seating.tables, seating.byes)
        self.rounds.append(rnd)
        self.status = "playing"
        return rnd

    def record(self, table: int, scores: list[float]) -> bool:
        """A table of the current round has finished with these scores by seat; True once
        the whole round has (then the event is between rounds, or finished after its last)."""
        rnd = self.current
        if rnd is None or self.status != "playing":
            raise NightError("event_not_playing", "No round is under way.")
        if len(scores) != len(rnd.tables[table]):
            raise ValueError("a score for each seat")
        rnd.scores[table] = list(scores)
        if not rnd.complete:
            return False
        self.status = "finished" if len(self.rounds) >= self.rules.rounds else "between"
        return True

    def finish(self) -> None:
        """End the event after the current round (a closing time passed, or the host)."""
        if self.status != "playing":
            self.status = "finished"

    def cancel(self) -> None:
        if self.over:
            raise NightError("event_over", "This event is over.")
        self.status = "cancelled"

    def pause(self) -> None:
        """No next round by itself (a round under way plays on) until :meth:`resume`."""
        if self.over:
            raise NightError("event_over", "This event is over.")
        self.paused = True

    def resume(self) -> None:
        if self.over:
            raise NightError("event_over", "This event is over.")
        self.paused = False

    def extend(self, more: int) -> None:
        """``more`` rounds after those planned (not once it is over)."""
        if self.over:
            raise NightError("event_over", "This event is over.")
        if more < 1 or self.rules.rounds + more > MAX_ROUNDS:
            raise NightError(
                "event_rounds", "An event has at most {count} rounds.", count=MAX_ROUNDS
            )
        self.rules = replace(self.rules, rounds=self.rules.rounds + more)

    def remove(self, pid: str) -> None:
        """The host takes ``pid`` out: as a withdrawal (a game under way is finished by a
        stand-in and counts)."""
        self.withdraw(pid)

    def standings(self) -> list[Standing]:
        return standings(self)

    # --- saving ------------------------------------------------------------------------------

    def to_record(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rules": self.rules.to_record(),
            "host": self.host,
            "status": self.status,
            "entrants": [[pid, e.since, e.withdrawn] for pid, e in self.entrants.items()],
            "paused": self.paused,
            "invited": list(self.invited),
            "host_name": self.host_name,
            "rounds": [
                {
                    "number": r.number,
                    "tables": r.tables,
                    "byes": r.byes,
                    "scores": r.scores,
                    "table_ids": r.table_ids,
                }
                for r in self.rounds
            ],
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Night:
        return cls(
            id=data["id"],
            rules=NightRules.from_record(data["rules"]),
            host=data["host"],
            status=data["status"],
            entrants={pid: Entrant(since, withdrawn) for pid, since, withdrawn in data["entrants"]},
            rounds=[Round(**r) for r in data["rounds"]],
            paused=bool(data.get("paused", False)),
            invited=list(data.get("invited", [])),  # (none in events kept before invitations)
            host_name=data.get("host_name"),
        )
