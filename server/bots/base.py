"""The bot interface and the random bot every game shares."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any

_REGISTRY: dict[tuple[str, str], type[Bot]] = {}


class Bot(ABC):
    """Chooses an action from a seat's view. Deterministic for a given seed."""

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(seed)

    @abstractmethod
    def choose(self, view: dict[str, Any]) -> dict[str, Any]:
        """One of ``view["legal"]``."""


class RandomBot(Bot):
    """Any legal action, uniformly: the baseline the heuristic bots must beat."""

    def choose(self, view: dict[str, Any]) -> dict[str, Any]:
        return self.rng.choice(view["legal"])


def register_bot(game: str, kind: str):
    """Class decorator: make ``cls`` the ``kind`` bot of ``game``."""

    def deco(cls: type[Bot]) -> type[Bot]:
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
        return cls(seed, think_ms=think_ms, iterations=iterations)  # type: ignore[call-arg]
    return cls(seed)
