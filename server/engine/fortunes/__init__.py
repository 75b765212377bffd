"""Fortunes: four players in two teams, 78 cards, 19 tricks whose direction Stars flip.

Importing this package registers the game. The rules are in :mod:`.tricks` (one trick),
:mod:`.settle` (who takes the pot) and :mod:`.state` (the deal and its phases).
"""

from __future__ import annotations

from server.engine import register

from .game import GAME, FortunesGame
from .state import FortunesState

register(GAME)

__all__ = ["GAME", "FortunesGame", "FortunesState"]
