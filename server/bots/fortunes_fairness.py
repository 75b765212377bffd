"""Fortunes' fairness bar (ruling 11), measured: how often the first dealer's partnership wins
between four equal bots.

One place plays these games, so the benchmark's figure (bench/engine.py) and the tests' smaller
samples are the same measurement. Every game is fixed by its index: game ``i`` is dealt first
by seat ``i % 4`` with the seed ``"fairness:i"``, and the bots are seeded from ``i`` too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.engine import get_game

from .base import make_bot


@dataclass(frozen=True, slots=True)
class Record:
    """Games played, games the first dealer's partnership won, and drawn games (antes back)."""

    games: int
    won: int
    drawn: int

    @property
    def share(self) -> float:
        """The first dealer's partnership's share of all the games (a draw is not a win)."""
        return self.won / self.games if self.games else 0.0


def play_game(options: dict[str, Any], dealer: int, seed: str, bot: str, bot_seed: int) -> Any:
    """One Fortunes game to its end between four bots of one kind, each reading its view."""
    state = get_game("fortunes").new_state(4, options, dealer=dealer, seed=seed)
    bots = [make_bot("fortunes", bot, bot_seed * 4 + s) for s in range(4)]
    while not state.is_over:
        seat = min(state.pending())
        state.apply(seat, bots[seat].choose(state.view(seat)))
    return state


def first_dealer_record(
    games: int, betting: str = "rubber", bot: str = "heuristic", first: int = 0
) -> Record:
    """Play games ``first`` … ``first + games - 1`` with ``betting`` and count how often the
    first dealer's partnership (the dealer and the seat across) took the pot."""
    won = drawn = 0
    for i in range(first, first + games):
        dealer = i % 4
        state = play_game({"betting": betting}, dealer, f"fairness:{i}", bot, i)
        outcome = state.outcome()
        if outcome.refund:
            drawn += 1
        elif outcome.winners[0] in (dealer, (dealer + 2) % 4):
            won += 1
    return Record(games, won, drawn)
