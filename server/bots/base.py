"""The bot interface and the random bot every game shares."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, TypeVar

from protocol.actions import Action, action_from_wire

_REGISTRY: dict[tuple[str, str], type[Bot]] = {}


class Bot(ABC):
    """Chooses an action from a seat's view (the very view a human's app gets, legal actions
    listed as their wire maps). Deterministic for a given seed."""

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any]) -> Action:
        """One of the seat's legal actions, as the typed value the hub and engines take."""
        return action_from_wire(self.decide(view))

    @abstractmethod
    def decide(self, view: dict[str, Any]) -> dict[str, Any]:
        """One of ``view["legal"]``, as the view lists it (rollouts call this on light views
        and skip the conversion)."""


class RandomBot(Bot):
    """Any legal action, uniformly: the baseline the heuristic bots must beat."""

    def decide(self, view: dict[str, Any]) -> dict[str, Any]:
        return self.rng.choice(view["legal"])


_B = TypeVar("_B", bound="Bot")


def register_bot(game: str, kind: str) -> Callable[[type[_B]], type[_B]]:
    """Class decorator: make ``cls`` the ``kind`` bot of ``game``."""

    def deco(cls: type[_B]) -> type[_B]:
        _REGISTRY[(game, kind)] = cls
        return cls

    return deco


def _load() -> None:
    from . import fortunes, prophet, prophets_gambit, strong  # noqa: F401


def bot_kinds(game: str) -> list[str]:
    _load()
    return ["random", *sorted(k for g, k in _REGISTRY if g == game)]


def make_bot(
    game: str,
    kind: str = "heuristic",
    seed: int | str = 0,
    think_ms: float | None = None,
    iterations: int | None = None,
) -> Bot:
    """A ``kind`` bot for ``game``. A strong bot thinks ``think_ms`` per decision (None: its
    default), or searches exactly ``iterations`` worlds (repeatable: for tests); the other
    kinds ignore both."""
    if kind == "random":
        return RandomBot(seed)
    _load()
    try:
        cls = _REGISTRY[(game, kind)]
    except KeyError:
        raise ValueError(f"No {kind!r} bot for {game!r}") from None
    if kind == "strong":
        strong: Callable[..., Bot] = cls  # (the strong kinds take a budget too)
        return strong(seed, think_ms=think_ms, iterations=iterations)
    return cls(seed)
