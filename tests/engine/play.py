"""Helpers that drive engines in tests: random legal play, and hidden-card bookkeeping."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator
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


class CardCodes:
    """A deck's card codes, found straight in a message's msgpack bytes: the checks made for
    every seat at every step of every game, done in C (one regular expression) rather than by
    walking the decoded message in Python."""

    def __init__(self, cards: Iterable[str]) -> None:
        self.codes = frozenset(cards)
        by_length: dict[int, list[bytes]] = {}
        for code in sorted(self.codes, reverse=True):
            data = code.encode()
            assert 0 < len(data) < 32, "a card code is a msgpack fixstr"
            by_length.setdefault(len(data), []).append(re.escape(data))
        # msgpack writes a string this short as one byte 0xa0 | length, then its UTF-8 bytes.
        self.pattern = re.compile(
            b"|".join(
                re.escape(bytes([0xA0 | n])) + b"(?:" + b"|".join(codes) + b")"
                for n, codes in sorted(by_length.items())
            )
        )

    def outside(self, obj: Any, allowed: set[str]) -> set[str]:
        """The codes among the strings of ``obj``'s msgpack form that are not in ``allowed``:
        exactly ``set(strings_in(obj)) & self.codes - allowed``.

        Every code the message holds is in its bytes as the pattern has it, and a match
        cannot hide another (a match's last bytes are ASCII, a code's first byte is not), so
        the bytes find all of them; they may also find one by chance (the same bytes inside a
        longer string or a number): only then is the message decoded and walked, exactly."""
        found = {m[1:].decode() for m in self.pattern.findall(msgpack.packb(obj))} - allowed
        if found:
            found = set(strings_in(obj)) & self.codes - allowed
        return found


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
