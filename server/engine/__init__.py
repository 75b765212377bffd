"""The rules of Gambit's games: pure, deterministic, no I/O.

Find a game by name with :func:`get_game`; every game has the shape described in
:mod:`server.engine.base`.
"""

from __future__ import annotations

from protocol.actions import Action

from .base import Ask, Game, OptionSpec, Outcome, State
from .errors import BadSetup, IllegalAction, MalformedAction, OutOfTurn, RulesError

GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    try:
        return GAMES[name]  # (asked at every move: the games are loaded by the first ask)
    except KeyError:
        pass
    _load()
    try:
        return GAMES[name]
    except KeyError:
        raise BadSetup(f"There is no game called {name!r}.") from None


def all_games() -> dict[str, Game]:
    _load()
    return dict(GAMES)


def _load() -> None:
    # Imported lazily so that each game module can import this package's names.
    from . import fortunes, prophet, prophets_gambit  # noqa: F401


__all__ = [
    "GAMES",
    "Action",
    "Ask",
    "BadSetup",
    "Game",
    "IllegalAction",
    "MalformedAction",
    "OptionSpec",
    "OutOfTurn",
    "Outcome",
    "RulesError",
    "State",
    "all_games",
    "get_game",
    "register",
]
