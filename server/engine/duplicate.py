"""Duplicate deals: one deal played several times, results compared seat by seat.

As in duplicate bridge, the same cards are played again with other people (or bots) holding
them, at several tables at once or one after another with the players' seats rotated, and
each result is compared only with the results of those who held the same cards. The luck of
the deal then cancels out of the comparison.

A duplicate deal is the same *seed* given to the engine (and the same dealer and options):
the engines' own deck orders (``rng.order_deck``, ``fairness``) then deal the same cards to
the same seat at every copy, every deal of the game (a stacked ``deck`` names the first
deal's order only; Prophet deals again each round, Prophet's Gambit reshuffles). A set of
duplicate deals draws one secret seed and derives each deal's seed from it one way, so a
record that reveals one deal's seed tells nothing of the set's next deals. Such deals were
known before they were played (other tables held them), so they are never called fair
(``server.hub.deals``, ``docs/fair-deals.md``).

Pure and deterministic, like every engine module.
"""

from __future__ import annotations

import hashlib
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from protocol.actions import Action

from . import get_game
from .base import Outcome, State

#: The name and version of the set seed → deal seed derivation.
ALGORITHM = "gambit-duplicate-v1"

#: ``chooser(player, state, seat)`` → the action of ``player`` sitting at ``seat``. A bot
#: must be given ``state.view(seat)`` only; the state is passed so a test may replay.
Chooser = Callable[[int, State, int], Action]


def deal_seed(set_seed: str, index: int) -> str:
    """The seed of deal ``index`` (0, 1, …) of a duplicate set: SHA-256 (hex) of the
    algorithm's name, the set's secret seed and the index, one a line."""
    text = f"{ALGORITHM}\n{set_seed}\n{int(index)}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seating(num_players: int, shift: int) -> list[int]:
    """Which player sits at each seat in rotation ``shift``: player ``p`` takes seat
    ``(p + shift) % n``, so over ``n`` rotations every player holds every seat's cards."""
    return [(seat - shift) % num_players for seat in range(num_players)]


def copies(
    game_name: str,
    num_players: int,
    options: dict[str, Any] | None,
    dealer: int,
    seed: int | str,
    count: int,
) -> list[State]:
    """``count`` fresh games of the same deal: same cards to the same seats in each."""
    game = get_game(game_name)
    return [game.new_state(num_players, options, dealer, seed) for _ in range(count)]


def play_rotated(
    game_name: str,
    num_players: int,
    options: dict[str, Any] | None,
    dealer: int,
    seed: int | str,
    chooser: Chooser,
    shifts: Sequence[int] | None = None,
) -> list[tuple[list[int], Outcome]]:
    """Play one deal once per rotation in ``shifts`` (default: all ``n``), each copy to its
    end: ``(seating, outcome)`` per rotation, ``seating[seat]`` being the player there.
    The lowest pending seat acts first, so a result is repeatable for repeatable choosers."""
    results = []
    for shift in range(num_players) if shifts is None else shifts:
        who = seating(num_players, shift)
        (state,) = copies(game_name, num_players, options, dealer, seed, 1)
        while not state.is_over:
            seat = min(state.pending())
            state.apply(seat, chooser(who[seat], state, seat))
        outcome = state.outcome()
        assert outcome is not None
        results.append((who, outcome))
    return results


def compare(results: Sequence[Sequence[float]]) -> list[list[float | None]]:
    """Seat by seat: each copy's result minus the mean of the other copies' results with the
    same seat's cards. ``results[copy][seat]``; None where no other copy held that seat."""
    out: list[list[float | None]] = []
    for index, row in enumerate(results):
        line: list[float | None] = []
        for seat, mine in enumerate(row):
            others = [r[seat] for i, r in enumerate(results) if i != index]
            line.append(mine - statistics.fmean(others) if others else None)
        out.append(line)
    return out


def by_player(
    rotated: Sequence[tuple[Sequence[int], Sequence[float]]], num_players: int
) -> list[float]:
    """Each player's total comparison over rotations: ``rotated`` holds ``(seating,
    results by seat)`` per copy; a player's figure sums, seat by seat, how much better
    (positive) they did with those cards than the others who held them."""
    deltas = compare([list(results) for _, results in rotated])
    totals = [0.0] * num_players
    for (who, _), line in zip(rotated, deltas, strict=True):
        for seat, delta in enumerate(line):
            if delta is not None:
                totals[who[seat]] += delta
    return totals
