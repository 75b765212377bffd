"""`gambit demo` plays every game to its result, narrated from the spectator's seat."""

import io
import subprocess
import sys

import pytest

from server.cli import main
from server.demo import run_demo


def test_demo_plays_each_game_to_a_result():
    out = io.StringIO()
    assert run_demo(None, seed=11, players=None, bot="heuristic", out=out) == 0
    text = out.getvalue()
    for title in ("Prophet's Gambit", "Prophet", "Fortunes"):
        assert f"--- Result of {title} ---" in text
    assert text.count("Pot at a stake of 10:") == 3
    assert "The Reveal:" in text and "wins the trick" in text and "Trick 19:" in text
    assert "{" not in text, "every event should have a readable sentence"


def test_demo_is_reproducible_from_its_seed():
    a, b = io.StringIO(), io.StringIO()
    run_demo(["prophets_gambit"], seed=5, players=3, bot="random", out=a)
    run_demo(["prophets_gambit"], seed=5, players=3, bot="random", out=b)
    assert a.getvalue() == b.getvalue() and "3 players" in a.getvalue()


def test_console_entry_point_runs_the_demo():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from server.cli import main; raise SystemExit(main())",
            "demo",
            "--game",
            "prophet",
            "--seed",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "--- Result of Prophet ---" in done.stdout


def test_unknown_game_is_refused_by_the_cli(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["demo", "--game", "chess"])
    assert exit_.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
