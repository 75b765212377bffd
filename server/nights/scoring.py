"""Points from one finished game: at the table (Swiss, round robin) and across tables that
held the same cards (duplicate nights' matchpoints).

Both count the same way: one point for each player beaten, half for each tie, by the
game's own scores (higher is better). At a table that is the place's worth (first of four:
3); across ``T`` tables the players who held one seat's cards share ``T(T-1)/2`` points.
"""

from __future__ import annotations

from collections.abc import Sequence


def beaten(mine: float, others: Sequence[float]) -> float:
    """One point for each other score below ``mine``, half for each equal to it."""
    return sum(1.0 if mine > o else 0.5 if mine == o else 0.0 for o in others)


def table_points(scores: Sequence[float]) -> list[float]:
    """Each seat's points at its own table (bots' seats count as players beaten)."""
    return [beaten(s, [o for j, o in enumerate(scores) if j != i]) for i, s in enumerate(scores)]


def matchpoints(rows: Sequence[Sequence[float]]) -> list[list[float]]:
    """``rows[table][seat]``: the scores of tables that played the same deal set, seat ``s``
    holding the same cards at every table. Each seat's matchpoints against the other tables'
    same seat."""
    return [
        [
            beaten(score, [other[seat] for j, other in enumerate(rows) if j != index])
            for seat, score in enumerate(row)
        ]
        for index, row in enumerate(rows)
    ]
