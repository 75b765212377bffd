"""``bench/bots.py --h2h KIND``: the strong Prophet bot in two seats against another kind in
the other two, each duplicate deal played with the sides' seats swapped (a smoke run: one
world a decision, short rounds)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import bots as bench
from prophet_previous import PreviousProphetBot

from server.engine import get_game

SHORT = {"schedule": "ascending", "cap": 2}


@pytest.mark.parametrize("kind", ["heuristic", "previous"])
def test_a_deal_is_played_twice_with_the_seats_swapped(kind: str) -> None:
    res = bench.play_h2h((kind, 0, None, 1, False, SHORT))
    rows = res["rows"]
    assert [r["strong"] for r in rows] == [[0, 2], [1, 3]]
    for r in rows:
        assert 0 <= r["pot"] <= 1 and r["mine"] >= 0 and r["theirs"] >= 0
    # Both sides search (one world a decision, none when every sample failed) when both are
    # strong bots; the heuristic searches nothing.
    assert {w for _, w in res["decisions"]["strong"]} <= {0, 1}
    assert 1 in {w for _, w in res["decisions"]["strong"]}
    others = {w for _, w in res["decisions"]["other"]}
    assert others <= {0, 1} and (1 in others) == (kind == "previous")
    summary = bench.summarize_h2h([res, bench.play_h2h((kind, 1, None, 1, False, SHORT))])
    assert summary["h2h_seeds"] == 2 and summary["h2h_games"] == 4
    assert 0 <= summary["h2h_pot_share"] <= 1
    assert summary["h2h_strong_worlds_per_decision"] == 1  # (over the searched decisions)
    assert "pot share" in bench.h2h_line(summary)


def test_the_previous_bot_is_the_strong_bot_of_before_and_plays_legally() -> None:
    game = get_game("prophet")
    state = game.new_state(4, SHORT, dealer=0, seed="prev")
    bot = PreviousProphetBot("p", iterations=2)
    while not state.is_over:
        seat = state.turn
        view = state.view(seat)
        action = bot.choose(view)
        assert action.to_wire() in view["legal"]
        state.apply(seat, action)


def test_the_command_line_prints_the_figures_as_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench, "H2H_OPTIONS", SHORT)  # (forked workers inherit it)
    bench.main(["--h2h", "previous", "--seeds", "2", "--iterations", "1", "--workers", "1"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    figures = json.loads(last)
    assert figures["h2h_kind"] == "previous" and figures["h2h_games"] == 4
    assert figures["iterations"] == 1
