"""Finished games opened in the app: a game's record (who played, the verdict on its deal) and
the table at any moment of it, as any seat saw it or with every hand open.

Only finished games are in the store's records (a running table's game is not), so nothing
here can show the cards of a game in play: a spectator of a running table who asks for its
record is told there is no such finished game, until it has ended.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from protocol.actions import action_from_wire
from protocol.requests import Record, Replay
from server.engine import State, get_game
from server.records import record as records
from server.records.verify import verify

from . import deals, ratings
from .errors import HubError
from .session import need_player

if TYPE_CHECKING:  # for type hints only
    from .duplicate import Duplicate
    from .runtime import HubRuntime
    from .session import Session

#: Games replayed at once (the last few asked for), kept so a step forward costs one action.
CURSORS = 64


@dataclass(slots=True)
class Cursor:
    """One finished game being stepped through: its record and the state ``step`` actions in."""

    record: dict[str, Any]
    state: State
    step: int = 0
    #: Per seat, the rating the game gave a player who had none at it yet (None: a change).
    first_ratings: list[int | None] = field(default_factory=list)


def deal_steps(record: dict[str, Any]) -> list[int]:
    """The moments a deal (a round) begins: 0, and each step whose action dealt again."""
    game = get_game(record["game"])
    state = game.replay(record["params"], [])
    steps = [0]
    for number, (seat, action) in enumerate(record["actions"], start=1):
        before = len(state.events)
        state.apply(seat, action_from_wire(action))
        if any(ev.get("e") == "deal" for ev in state.events[before:]):
            steps.append(number)
    return steps


class Replays:
    """Finished games' records, and the games being stepped through in the app."""

    def __init__(self, run: HubRuntime, duplicate: Duplicate) -> None:
        # Collaborators: the store, players' names, and the duplicate sets (a set's game
        # someone may yet hold).
        self.run = run
        self.store = run.store
        self.duplicate = duplicate
        #: Finished games being stepped through, by (session, game), the last used last.
        self.cursors: OrderedDict[tuple[int, int], Cursor] = OrderedDict()

    def finished_record(self, game_id: int) -> dict[str, Any]:
        row = self.store.game(game_id)
        if row is None:
            raise HubError("no_game", "There is no finished game {game}.", game=game_id)
        names = {pid: self.run.name_of(pid) for pid in row["players"] if pid is not None}
        return records.from_game(row, names)

    def on_record(self, session: Session, message: Record) -> None:
        """A finished game's record, without its moves: who played, how it ended, its deal
        (the seed revealed) and the verdict of checking it (``docs/fair-deals.md``)."""
        player = need_player(session)
        record = self.finished_record(message.game)
        self.duplicate.may_open(player, record)  # a set's game someone may yet hold
        report = verify(record)
        deal = record.get("deal") or {}
        row = self.store.game(record["id"])
        assert row is not None  # (finished_record found it)
        session.push(
            {
                "t": "record",
                "game": record["id"],
                "kind": record["game"],
                "finished": int(row["finished"]),
                "seats": record["seats"],
                "steps": len(record["actions"]),
                "deals": deal_steps(record),
                "deal": {
                    "commitment": deal.get("commitment"),
                    "seed": deal.get("hub_seed"),
                    "fair": bool(deal.get("fair")),
                    "reason": deals.REASONS.get(deal.get("note", ""), ""),
                    "entropy": deal.get("entropy"),
                }
                if deal
                else None,
                "verify": report.summary(),
                "outcome": record["outcome"],
            }
        )

    def _cursor(self, session: Session, game_id: int, step: int) -> Cursor:
        cursors = self.cursors
        key = (session.id, game_id)
        cursor = cursors.pop(key, None)
        if cursor is None or cursor.step > step:
            record = cursor.record if cursor else self.finished_record(game_id)
            firsts = cursor.first_ratings if cursor else self.first_ratings(record)
            state = get_game(record["game"]).replay(record["params"], [])
            cursor = Cursor(record, state, first_ratings=firsts)
        actions = cursor.record["actions"]
        while cursor.step < min(step, len(actions)):
            seat, action = actions[cursor.step]
            cursor.state.apply(seat, action_from_wire(action))
            cursor.step += 1
        cursors[key] = cursor
        while len(cursors) > CURSORS:
            cursors.popitem(last=False)
        return cursor

    def first_ratings(self, record: dict[str, Any]) -> list[int | None]:
        """Per seat, the first rating the game gave a player who had none at its game before
        (None for the others): the live result said "your first rating, 1043", not "+43"
        (``Play.rate``'s ``first_ratings``); so does the replay."""
        row = self.store.game(record["id"])
        players: list[str | None] = row["players"] if row is not None else []
        firsts: list[int | None] = []
        for seat, pid in zip(record["seats"], players, strict=False):
            change = seat.get("rating_change")
            first = (
                pid is not None
                and change is not None
                and not self.store.rated_before(pid, record["game"], record["id"])
            )
            firsts.append(ratings.display(None) + change if first else None)
        return firsts

    def on_replay(self, session: Session, message: Replay) -> None:
        """The table of a finished game after ``step`` actions, as ``seat`` saw it (None: as a
        spectator saw it), with every hand open: the game is over, nothing is secret now."""
        player = need_player(session)
        game_id, seat = message.game, message.seat
        cursor = self._cursor(session, game_id, message.step)
        record, state = cursor.record, cursor.state
        self.duplicate.may_open(player, record)
        players = len(record["seats"])
        if seat is not None and seat >= players:
            raise HubError("no_seat", "This game had seats 0 to {last}.", last=players - 1)
        view = state.view(seat)
        view["ask"], view["legal"] = None, []  # a replay asks nobody anything
        over = view["over"]
        info = {
            "id": record["table"],
            "game": record["game"],
            "title": record["title"],
            "players": players,
            "options": record["params"]["options"],
            # (the pot and each seat's chips follow from it; 0 for a game recorded before
            # stakes were kept)
            "stake": record.get("stake") or 0,
            "status": "between" if over else "playing",
            "dealer": record["params"]["dealer"],
            "games_played": 1 if over else 0,
            "seats": [
                {
                    "seat": s["seat"],
                    "name": s["name"],
                    "bot": "heuristic" if s["bot"] else None,
                    "away": False,
                    "reserved": None,
                }
                for s in record["seats"]
            ],
            "spectators": 0,
            "rating_changes": [s.get("rating_change") for s in record["seats"]],
            "first_ratings": cursor.first_ratings,
            "deadlines": {},
            "deal": None,
        }
        places = state.card_locations()
        session.push(
            {
                "t": "replay",
                "game": game_id,
                "step": cursor.step,
                "steps": len(record["actions"]),
                "seat": seat,
                "info": info,
                "view": view,
                "hands": [list(places.get(f"hand:{s}", [])) for s in range(players)],
            }
        )
