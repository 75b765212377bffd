"""`gambit demo` plays every game to its result, narrated from the spectator's seat."""

import io
import re
import subprocess
import sys

import pytest

from server.cli import main
from server.demo import MOVE_PAUSE, run_demo


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


class Terminal(io.StringIO):
    """Output that says it is a terminal, as a person's screen is."""

    def isatty(self) -> bool:
        return True


def test_the_demo_is_paced_like_a_narration_on_a_terminal_and_not_when_piped():
    slept: list[float] = []
    out = Terminal()
    run_demo(["prophet"], seed=3, players=3, bot="heuristic", out=out, sleep=slept.append)
    moves = sum(1 for line in out.getvalue().splitlines() if " plays " in line or " bids " in line)
    assert slept and set(slept) == {MOVE_PAUSE} and 0 < MOVE_PAUSE <= 1
    assert len(slept) >= moves  # a pause after every move (and after each deal's start)
    for fast, piped in ((True, Terminal()), (False, io.StringIO())):
        slept.clear()
        run_demo(
            ["prophet"],
            seed=3,
            players=3,
            bot="heuristic",
            out=piped,
            fast=fast,
            sleep=slept.append,
        )
        assert slept == []
        assert piped.getvalue() == out.getvalue()


def test_the_fast_flag_is_on_the_command_line(capsys):
    assert main(["demo", "--game", "prophet", "--seed", "3", "--fast"]) == 0
    assert "--- Result of Prophet ---" in capsys.readouterr().out


def test_plurals_are_right():
    out = io.StringIO()
    run_demo(None, seed=3, players=None, bot="heuristic", out=out)
    text = out.getvalue()
    assert "(s)" not in text
    assert "draws 1 card." in text and " 1 card each" in text
    assert not re.search(r"\b1 cards\b|[+-]1 points\b", text)


def test_the_help_says_what_the_demo_plays_and_the_demo_plays_it(capsys):
    """Issue 38: the help said "one deal of each game", and its Fortunes played a rubber of
    four. The help names what a whole game of each kind is; the demo plays just that."""
    with pytest.raises(SystemExit):
        main(["--help"])
    top = " ".join(capsys.readouterr().out.split())
    assert "one deal of each game" not in top
    assert "a whole game of each kind" in top
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    for said in (
        "Prophet's Gambit: one deal",
        "Prophet: a deal per round",
        "Fortunes: a rubber of four deals",
    ):
        assert said in help_text, help_text
    out = io.StringIO()
    run_demo(None, seed=11, players=None, bot="heuristic", out=out)
    parts = re.split(r"\n=== ", out.getvalue())[1:]
    pg, prophet, fortunes = parts
    assert pg.startswith("Prophet's Gambit (one deal)")
    assert "Round 2 begins" in pg and pg.split("\n", 1)[1].count(" deals.") == 1
    assert fortunes.startswith("Fortunes (a rubber of four deals)")
    assert re.findall(r"Deal (\d) ends", fortunes) == ["1", "2", "3", "4"]
    rounds = re.findall(r"Round (\d+): (\d+) cards? each", prophet)
    assert len(rounds) > 1 and all(int(n) == int(cards) for n, cards in rounds)
