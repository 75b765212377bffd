"""The standings of an event from its rounds: place, points, tie-break, games, byes.

Swiss and round robin count points at the table (:func:`scoring.table_points`) and break ties
by Buchholz (the sum of the points of everyone a player has sat with). A duplicate night
counts matchpoints against the other tables that played the same cards, from the tables
finished so far, and breaks ties by the points at the player's own table. A bye scores the
rules' bye points (at a duplicate night: the average, half a point per other table). Bots are
beaten or beat players like anyone, but are never ranked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import scoring

if TYPE_CHECKING:  # for type hints only
    from .night import Night, Round


@dataclass(frozen=True, slots=True)
class Standing:
    place: int
    player: str
    points: float
    tiebreak: float
    games: int
    byes: int
    withdrawn: bool


def round_points(night: Night, rnd: Round) -> tuple[dict[str, float], dict[str, float]]:
    """Per player of one round: the points it gave (table points or matchpoints, byes
    included) and the table points (a duplicate night's tie-break)."""
    points: dict[str, float] = {}
    at_table: dict[str, float] = {}
    played = [(t, s) for t, s in zip(rnd.tables, rnd.scores, strict=True) if s is not None]
    duplicate = night.rules.format == "duplicate"
    across = scoring.matchpoints([s for _, s in played]) if duplicate else []
    for index, (table, scores) in enumerate(played):
        mine = scoring.table_points(scores)
        for seat, pid in enumerate(table):
            if pid is None:
                continue
            at_table[pid] = mine[seat]
            points[pid] = across[index][seat] if duplicate else mine[seat]
    bye = night.rules.bye_points
    if bye is None:
        bye = (len(rnd.tables) - 1) / 2 if duplicate else night.rules.points_for_bye
    for pid in rnd.byes:
        points[pid] = bye
        at_table[pid] = night.rules.points_for_bye if duplicate else bye
    return points, at_table


def standings(night: Night) -> list[Standing]:
    """Everyone registered, best first; equal points and tie-break share a place."""
    order = list(night.entrants)
    points = dict.fromkeys(order, 0.0)
    table = dict.fromkeys(order, 0.0)
    games = dict.fromkeys(order, 0)
    byes = dict.fromkeys(order, 0)
    for rnd in night.rounds:
        got, at_table = round_points(night, rnd)
        for pid, value in got.items():
            if pid in points:
                points[pid] += value
                table[pid] += at_table[pid]
        for pid in rnd.byes:
            if pid in byes:
                byes[pid] += 1
        for seats, scores in zip(rnd.tables, rnd.scores, strict=True):
            if scores is not None:
                for seated in seats:
                    if seated is not None and seated in games:
                        games[seated] += 1
    if night.rules.format == "duplicate":
        tiebreak = table
    else:
        met = night.met()
        tiebreak = {pid: sum(points.get(o, 0.0) for o in met.get(pid, ())) for pid in order}
    position = {pid: i for i, pid in enumerate(order)}
    ranked = sorted(order, key=lambda p: (-points[p], -tiebreak[p], position[p]))
    rows: list[Standing] = []
    for i, pid in enumerate(ranked):
        place = i + 1
        if rows and (rows[-1].points, rows[-1].tiebreak) == (points[pid], tiebreak[pid]):
            place = rows[-1].place
        rows.append(
            Standing(
                place,
                pid,
                points[pid],
                tiebreak[pid],
                games[pid],
                byes[pid],
                night.entrants[pid].withdrawn,
            )
        )
    return rows


def order_of(rows: Sequence[Standing]) -> list[str]:
    """The players in standing order (Swiss seats them in it)."""
    return [row.player for row in rows]
