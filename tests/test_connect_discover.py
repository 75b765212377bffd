"""``gambit connect`` with no host (issue 42): the servers found on the network are listed,
numbered; the only one is taken, several are asked about, none says how to name a host."""

from __future__ import annotations

import argparse
import io

import pytest

from gambit_connect import discover
from gambit_connect.discover import Found, choose
from gambit_connect.launcher import Target, found_target

ADA = Found("Gambit on ada", "192.168.1.5", 2222, "0.1.0")
BOB = Found("Gambit on bob", "192.168.1.7", 2300, "0.1.0")


def _never(prompt: str) -> str:
    raise AssertionError(f"asked {prompt!r}")


def test_none_found_says_how_to_name_a_host():
    out = io.StringIO()
    assert choose([], "en", ask=_never, out=out) is None
    said = out.getvalue()
    assert "No Gambit server answered on this network" in said
    assert "gambit connect HOST" in said and "ssh -p 2222 play@HOST" in said


def test_the_only_server_found_is_taken_without_asking():
    out = io.StringIO()
    assert choose([ADA], "en", ask=_never, out=out) is ADA
    assert out.getvalue() == "Connecting to Gambit on ada (192.168.1.5, port 2222).\n"


def test_several_are_listed_by_number_and_the_player_picks_one():
    out = io.StringIO()
    answers = iter(["3", "two", "2"])
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    assert choose([ADA, BOB], "en", ask=ask, out=out) is BOB
    lines = out.getvalue().splitlines()
    assert lines[:3] == [
        "Gambit servers on this network:",
        "  1. Gambit on ada  (192.168.1.5, port 2222)",
        "  2. Gambit on bob  (192.168.1.7, port 2300)",
    ]
    assert asked == ["Which one (1-2)? "] * 3
    # Enter alone, or the end of input, picks none.
    assert choose([ADA, BOB], "en", ask=lambda _: "", out=io.StringIO()) is None

    def ended(prompt: str) -> str:
        raise EOFError

    assert choose([ADA, BOB], "en", ask=ended, out=io.StringIO()) is None


def test_the_words_are_in_the_players_language():
    out = io.StringIO()
    choose([], "uk", ask=_never, out=out)
    assert "gambit connect HOST" in out.getvalue()
    assert "No Gambit server" not in out.getvalue()


def test_gambit_connect_with_no_host_connects_to_the_server_found(monkeypatch, capsys):
    async def fake_browse() -> list[Found]:
        return [BOB]

    monkeypatch.setattr(discover, "browse", fake_browse)
    args = argparse.Namespace(target=None, port=2222, identity=None, compress=True)
    assert found_target(args, "en") == Target("play", "192.168.1.7", 2300, None, True)
    assert "Looking for Gambit servers" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["connect"], ["connect", "-p", "2300"]])
def test_the_host_may_be_left_out(argv):
    from server.cli import build_parser

    assert build_parser().parse_args(argv).target is None
