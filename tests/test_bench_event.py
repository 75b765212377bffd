"""``bench/event.py``: its scripted players answer each decision once, on a view that shows
their last move (a smoke run: 12 players, two rounds)."""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import event as bench

from server.nights.night import Night


async def test_no_move_of_the_benchs_players_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a view sent before a player's move was taken still asked for it and was
    answered again: about 3 refusals a game (out of turn, or illegal for the next decision),
    each a wasted message both ways in a bench that measures the hub's loop."""
    monkeypatch.setattr(Night, "seat_next_round", Night.seat_next_round)  # (the bench's probe)
    callbacks = list(gc.callbacks)
    args = argparse.Namespace(
        players=12, size=4, rounds=2, game="prophets_gambit", gc="default", lobby=False
    )
    args.verbose = False
    try:
        result = await bench.run(args)
    finally:
        gc.callbacks[:] = callbacks
    assert (result["status"], result["games"], result["ledger_sum"]) == ("finished", 6, 0)
    assert result["errors"] == 0
