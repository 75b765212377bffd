"""Each seat's result of a finished game, as a player's history lists it.

Kept with the record (``game_players``) when the game ends, because the chips a seat won and
how its rating moved cannot be worked out later: ratings move on, stakes are not in the
engine's record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type hints only
    from server.engine.base import Outcome

    from .table import Table


def game_results(table: Table, outcome: Outcome, payouts: list[int]) -> list[dict[str, Any]]:
    """Per seat: ``place`` (1 = first), ``chips`` won (+) or lost (-), ``rating_change``
    (None for a bot, or when the game was not rated)."""
    n = len(payouts)
    contributions = outcome.contributions or [1] * n
    changes = list(table.rating_changes) + [None] * n
    return [
        {
            "place": outcome.ranking.index(seat) + 1 if seat in outcome.ranking else None,
            "chips": payouts[seat] - contributions[seat] * table.stake,
            "rating_change": changes[seat],
        }
        for seat in range(n)
    ]
