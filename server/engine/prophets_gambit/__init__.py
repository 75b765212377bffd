"""Prophet's Gambit: the Tarokka-deck poker game for 3–5 players (RULINGS.md, rulings 1–15).

One :class:`~.state.PGState` is one deal; a table plays deal after deal with the dealer moving
clockwise (:meth:`Game.next_dealer`) and each deal's winner taking the pot of one ante each.
"""

from __future__ import annotations

from typing import ClassVar

from server.engine import register
from server.engine.base import Game, OptionSpec

from .state import PGState


class ProphetsGambit(Game):
    name = "prophets_gambit"
    title = "Prophet's Gambit"
    min_players = 3
    max_players = 5
    deck = "tarokka"
    options: ClassVar[dict[str, OptionSpec]] = {}  # no table options of its own
    state_class = PGState


GAME = register(ProphetsGambit())
PGState.game = GAME

__all__ = ["GAME", "PGState", "ProphetsGambit"]
