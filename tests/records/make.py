"""Records of whole games for tests, made as the hub makes them but without a hub."""

from __future__ import annotations

import random
import time
from typing import Any

from server.engine import fairness, get_game
from server.hub import deals
from server.records.record import from_game
from tests.engine.play import random_step


def make_record(
    name: str = "prophet",
    players: int = 3,
    hub_seed: str = "ab" * 32,
    options: dict[str, Any] | None = None,
    play_seed: int = 1,
    fair: bool = True,
) -> dict[str, Any]:
    """A finished game's record, dealt from ``hub_seed`` and played by random legal moves."""
    game = get_game(name)
    deal = {
        "hub_seed": hub_seed,
        "commitment": fairness.commitment(hub_seed),
        "contributions": [],
        "fair": fair,
        "note": "" if fair else deals.FIXED_SEED_NOTE,
    }
    state = game.new_state(players, options, seed=deals.game_seed(deal))
    log = fairness.DealLog(state)
    rng = random.Random(play_seed)
    while not state.is_over:
        random_step(state, rng)
        log.note(state)
    outcome = state.outcome()
    assert outcome is not None
    row = {
        "id": 1,
        "table_id": 1,
        "game": name,
        "params": state.params,
        "history": state.history,
        "outcome": outcome.to_wire(),
        "players": ["ada"] + [None] * (players - 1),
        "finished": time.time(),
        "deal": deals.revealed(deal, state.params, log.deals),
        "results": {0: {"place": 1, "chips": 5, "rating_change": 3}},
    }
    return from_game(row, {"ada": "Ada"})
