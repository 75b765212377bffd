"""Who sits with whom in a round: tables in the order given, no repeat meeting while one can
be avoided, byes to those who have had fewest.

Every format seats the same way and differs only in the order it gives: Swiss gives the
standings (so equal scores sit together), round robin and duplicate nights the registration
order. :func:`seat_tables` searches, in that order, for tables where nobody meets anyone
again; the search is exhaustive for a small field and bounded for a large one, where it
falls back to tables with the fewest repeats.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

#: Steps of the search for repeat-free tables before it settles for the fewest repeats.
SEARCH_BUDGET = 200_000
#: Who sits in a bot's seat in :func:`seat_round`'s search (nobody has met a bot).
_BOT = "\x00bot"

Met = Mapping[str, frozenset[str] | set[str]]


@dataclass(frozen=True, slots=True)
class Seating:
    """One round: each table's seats in order (None: a bot) and who has a bye."""

    tables: list[list[str | None]]
    byes: list[str]


def byes_for(order: Sequence[str], count: int, byes_had: Mapping[str, int]) -> list[str]:
    """``count`` players to sit out: those with the fewest byes so far, and among them the
    last in ``order`` (the lowest standing)."""
    if count <= 0:
        return []
    position = {p: i for i, p in enumerate(order)}
    ranked = sorted(order, key=lambda p: (byes_had.get(p, 0), -position[p]))
    return sorted(ranked[:count], key=position.__getitem__)


def seat_round(
    order: Sequence[str],
    size: int,
    met: Met,
    byes_had: Mapping[str, int],
    *,
    fill: str = "bots",
    budget: int = SEARCH_BUDGET,
) -> Seating:
    """Seat ``order`` at tables of ``size``. With ``fill`` "bots" the players left over sit
    at one more table with bots; with "byes" they sit out (:func:`byes_for`)."""
    players = list(order)
    rest = len(players) % size
    if not players:
        return Seating([], [])
    if fill == "byes":
        byes = byes_for(players, rest, byes_had)
        players = [p for p in players if p not in byes]
        if not players:
            return Seating([], byes)
    else:
        byes = []
        players += [f"{_BOT}{i}" for i in range(size - rest if rest else 0)]
    tables = seat_tables(players, size, met, budget=budget)
    return Seating([[None if p.startswith(_BOT) else p for p in t] for t in tables], byes)


def _met(met: Met, a: str, b: str) -> bool:
    return b in met.get(a, ()) or a in met.get(b, ())


def seat_tables(
    order: Sequence[str], size: int, met: Met, *, budget: int = SEARCH_BUDGET
) -> list[list[str]]:
    """Split ``order`` (a multiple of ``size``) into tables: the first unseated player with
    the next ones in order who have met nobody at the table. Repeat-free tables are found
    whenever they exist within ``budget`` steps of search; else the fewest repeats, greedily."""
    if len(order) % size:
        raise ValueError("the players do not fill whole tables")
    left = list(order)
    steps = [0]

    def search(left: list[str]) -> list[list[str]] | None:
        if not left:
            return []
        head, others = left[0], left[1:]
        for table in tables_with(head, others):
            steps[0] += 1
            if steps[0] > budget:
                return None
            chosen = set(table)
            rest = search([p for p in others if p not in chosen])
            if rest is not None:
                return [table, *rest]
            if steps[0] > budget:
                return None
        return None

    def tables_with(head: str, others: list[str]) -> Iterator[list[str]]:
        table = [head]

        def extend(start: int) -> Iterator[list[str]]:
            if len(table) == size:
                yield list(table)
                return
            for i in range(start, len(others)):
                candidate = others[i]
                if any(_met(met, candidate, p) for p in table):
                    continue
                table.append(candidate)
                yield from extend(i + 1)
                table.pop()
                if steps[0] > budget:
                    return
                steps[0] += 1

        yield from extend(0)

    found = search(left)
    return found if found is not None else _fewest_repeats(left, size, met)


def _fewest_repeats(order: list[str], size: int, met: Met) -> list[list[str]]:
    """Greedy tables: each next seat to whoever earliest in order adds fewest repeats."""
    left = list(order)
    tables = []
    while left:
        table = [left.pop(0)]
        while len(table) < size:
            best = min(
                range(len(left)),
                key=lambda i: (sum(_met(met, left[i], p) for p in table), i),
            )
            table.append(left.pop(best))
        tables.append(table)
    return tables


def repeats(tables: Sequence[Sequence[str | None]], met: Met) -> int:
    """How many pairs at these tables have met before (bots never count)."""
    count = 0
    for table in tables:
        people = [p for p in table if p is not None]
        for i, a in enumerate(people):
            count += sum(_met(met, a, b) for b in people[i + 1 :])
    return count
