"""Fortunes' fixed facts: four players, the 78-card deck and the table options (ruling 10)."""

from __future__ import annotations

from typing import ClassVar

from server.engine.base import Game, OptionSpec

from .state import FortunesState

BETTING = ("ante", "raise", "bid", "target", "target_exact")


class FortunesGame(Game):
    name = "fortunes"
    title = "Fortunes"
    min_players = 4
    max_players = 4
    deck = "fortunes"
    state_class = FortunesState
    options: ClassVar[dict[str, OptionSpec]] = {
        "betting": OptionSpec(
            default="ante",
            choices=BETTING,
            help="ante: one deal, a fixed ante; raise: stay, raise or fold before each trick; "
            "bid: each team bids its tricks; target: deal until a partnership reaches the "
            "target; target_exact: the same without going over.",
        ),
        "max_raises": OptionSpec(
            default=3,
            minimum=0,
            maximum=19,
            help="How many times each player may raise in one deal (betting 'raise').",
            house_rule=True,
        ),
        "target": OptionSpec(
            default=100,
            minimum=1,
            maximum=1000,
            help="The partnership total that ends a 'target' or 'target_exact' game.",
            house_rule=True,
        ),
        "max_deals": OptionSpec(
            default=10,
            minimum=1,
            maximum=50,
            help="The most deals a 'target' or 'target_exact' game lasts.",
            house_rule=True,
        ),
    }


GAME = FortunesGame()
FortunesState.game = GAME
