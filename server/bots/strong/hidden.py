"""Dealing the cards a seat has not seen to the places it cannot see, as its view allows.

Trick-taking views say more than which cards are out: a player who did not follow suit holds
none of it. :func:`deal_hidden` fills each hidden place with the right number of unseen cards,
honouring those voids (the most constrained place first, as GIB's dealer does), and says so
when the constraints leave no way (the caller draws again).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

#: A card as the caller names it (a code, or a simulation's index).
Card = TypeVar("Card")


def deal_hidden(
    unseen: list[Card],
    sizes: dict[str, int],
    allowed: dict[str, Callable[[Card], bool]],
    rng: random.Random,
) -> dict[str, list[Card]] | None:
    """Every unseen card dealt to a place: ``sizes[place]`` cards each, where ``allowed``
    (by place; missing means anything) accepts the card. None when the constraints cannot be
    met by this draw. The sizes must add up to ``len(unseen)``."""
    pool = list(unseen)
    rng.shuffle(pool)
    fits = {
        place: [c for c in pool if place not in allowed or allowed[place](c)] for place in sizes
    }
    order = sorted(sizes, key=lambda p: len(fits[p]) - sizes[p])
    taken: set[Card] = set()
    out: dict[str, list[Card]] = {}
    for place in order:
        need = sizes[place]
        got = [c for c in fits[place] if c not in taken][:need]
        if len(got) < need:
            return None
        taken.update(got)
        out[place] = got
    return out
