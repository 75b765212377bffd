"""Deterministic randomness from a seed and a counter.

A state never holds a live RNG object: each random event draws from ``Random(f"{seed}:{n}")``
with a counter that the state stores. That keeps snapshots small plain data and makes a game
exactly reproducible from its parameters and its action log.
"""

from __future__ import annotations

import random


def rng_for(seed: int | str, counter: int) -> random.Random:
    return random.Random(f"{seed}:{counter}")


def order_deck(
    all_cards: tuple[str, ...] | list[str], stacked: list[str] | None, seed: int | str, salt: str
) -> list[str]:
    """The deck, top first: the stacked cards in their order, then the rest shuffled by seed.

    ``stacked`` may name all the cards (a fully explicit order) or only the top few, which is
    what tests and duplicate deals need. Unknown or repeated codes raise ValueError.
    """
    stacked = list(stacked or [])
    known = set(all_cards)
    seen: set[str] = set()
    for code in stacked:
        if code not in known:
            raise ValueError(f"{code!r} is not a card of this deck")
        if code in seen:
            raise ValueError(f"{code!r} appears twice in the deck order")
        seen.add(code)
    rest = [c for c in all_cards if c not in seen]
    random.Random(f"{seed}:{salt}").shuffle(rest)
    return stacked + rest
