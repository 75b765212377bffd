"""Helpers that drive engines in tests: random legal play, and hidden-card bookkeeping."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import msgpack

from protocol.actions import Action
from server.engine import State

HIDDEN_PLACES = ("deck", "high_deck", "set_aside")


def is_hidden_place(place: str) -> bool:
    """Card-location convention: hands, Fates and undealt cards are hidden; the rest public."""
    return place in HIDDEN_PLACES or place.startswith(("hand:", "fate:"))


def owner(place: str) -> int | None:
    if place.startswith(("hand:", "fate:")):
        return int(place.split(":")[1])
    return None


def strings_in(obj: Any) -> Iterator[str]:
    """Every string inside a view, read back from its msgpack form (what goes on the wire)."""
    return wire_strings(msgpack.unpackb(msgpack.packb(obj), raw=False, strict_map_key=False))


def wire_strings(obj: Any) -> Iterator[str]:
    """Every string inside a message already in its wire form (read back from msgpack)."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def random_step(state: State, rng: random.Random) -> tuple[int, Action]:
    seat = rng.choice(sorted(state.pending()))
    action = rng.choice(state.legal_actions(seat))
    state.apply(seat, action)
    return seat, action


def play_out(state: State, rng: random.Random, limit: int = 5000) -> int:
    steps = 0
    while not state.is_over:
        random_step(state, rng)
        steps += 1
        assert steps < limit, "game did not end"
    return steps
