"""Fortunes' fixed facts: four players, the 78-card deck and the table options (rulings 10
and 11)."""

from __future__ import annotations

from typing import ClassVar

from server.engine.base import Game, OptionSpec

from .state import FortunesState

#: Ruling 10's ways to bet. ``"ante"`` is the single deal: it keeps the name it had when it
#: was the default, so games stored before the rubber replay as they were played.
BETTING = ("rubber", "ante", "raise", "bid", "target", "target_exact")

#: Ruling 11: the betting options whose first dealer's partnership wins more than 55 % of the
#: games between equal bots, so the lobby says they favour the dealer's team (the figures are
#: in docs/benchmarks.md; ``bench/engine.py`` measures them). One deal favours the team that
#: leads first and leads ten of its 19 tricks; a fold in option (b) ends a deal early, mostly
#: after the dealer's own lead; option (c) is bid 0 and played as one deal; and option (d)'s
#: first partnership to reach the target is most often the one that was High first.
FAVOURS = {"ante": "dealer", "raise": "dealer", "bid": "dealer", "target": "dealer"}


class FortunesGame(Game):
    name = "fortunes"
    title = "Fortunes"
    min_players = 4
    max_players = 4
    deck = "fortunes"
    state_class = FortunesState
    partnerships = ((0, 2), (1, 3))
    options: ClassVar[dict[str, OptionSpec]] = {
        "betting": OptionSpec(
            default="rubber",
            choices=BETTING,
            help="rubber: four deals, a fixed ante; ante: a single deal, a fixed ante; raise: "
            "stay, raise or fold before each trick; bid: each partnership bids its tricks; "
            "target: deal until a partnership reaches the target; target_exact: the same "
            "without going over.",
            favours=FAVOURS,
        ),
        "max_raises": OptionSpec(
            default=3,
            minimum=0,
            maximum=19,
            help="How many raises one deal allows, all players together (betting 'raise').",
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
