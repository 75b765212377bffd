"""End to end (issue 41): ``gambit connect`` in a pseudo-terminal, its app running on the
player's side, at one table with a player in an OpenSSH terminal session on the same
``gambit serve``; both play a whole deal and see the same table.
"""

from __future__ import annotations

import re
import sys

import pytest

from .conftest import needs_openssh
from .harness import ServeProcess, SSHTerminal, ssh_keygen
from .test_e2e import Player, join, play_until_result

pytestmark = needs_openssh


class LocalPlayer(Player):
    """``gambit connect`` in a terminal of its own, with its own home (no known hosts yet)."""

    def __init__(self, serve, user: str, key, home) -> None:
        cmd = [
            sys.executable,
            "-m",
            "server.cli",
            "connect",
            "-p",
            str(serve.port),
            "-i",
            str(key),
            f"{user}@127.0.0.1",
        ]
        self.term = SSHTerminal(cmd, env={"HOME": str(home)})


@pytest.fixture
def serve(tmp_path):
    (tmp_path / "serve").mkdir()
    server = ServeProcess(tmp_path / "serve", "--bot-delay", "0.1")
    yield server
    assert server.stop() == 0, server.log()
    assert "Traceback" not in server.log(), server.log()


def test_gambit_connect_and_a_terminal_session_play_a_deal_together(serve, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    ada = LocalPlayer(serve, "Ada", ssh_keygen(tmp_path / "ada"), home)
    bo = Player(serve, "Bo", key=ssh_keygen(tmp_path / "bo"))
    try:
        # First visit: the host key's fingerprint is shown and the player asked.
        screen = ada.wait_for(r"continue connecting \(yes/no\)\?")
        assert re.search(r"ED25519 key fingerprint is SHA256:\S+", screen)
        ada.press("yes\r")
        # The banner and the welcome screen (a key's first visit) say how, once.
        assert "pipx install gambit-tables, then gambit connect" in serve.banner
        screen = " ".join(bo.wait_for(r"'gambit connect' plays").replace("│", " ").split())
        assert "(pipx install gambit-tables), 'gambit connect' plays from there." in screen
        for player in (ada, bo):
            player.enter_lobby()
        assert (home / ".ssh" / "known_hosts").read_text().startswith(f"[127.0.0.1]:{serve.port}")
        ada.press("n")
        ada.wait_for("New table")
        ada.settle()
        ada.press("\x13")  # ctrl+s: create
        number = re.search(r"Table (\d+) · stake", ada.wait_for(r"Table \d+ · stake")).group(1)
        join(bo, number, owner="Ada")
        ada.wait_for(r"Bo")
        for n in (3, 4):
            ada.press("b")
            ada.wait_for(rf"Bot {n}")
        ada.settle()
        ada.press("s")
        for player in (ada, bo):
            player.wait_for("The Bid")
        # Each sees the other at the table.
        assert "Bo" in ada.term.text() and "Ada" in bo.term.text()
        play_until_result([ada, bo])
        shown = [player.settle() for player in (ada, bo)]
        for screen in shown:
            assert "The Reveal" in screen
        # The same table on both screens: every seat's cards, and who won the deal.
        assert seats(shown[0]) == seats(shown[1]), "\n\n".join(shown)
        assert len(seats(shown[0])) == 4
        won = re.search(r"The Reveal: .+ wins? the deal\.", shown[0])
        assert won is not None and won.group(0) in shown[1]
        # Back to the lobby and out, as from a terminal session: the local app ends cleanly.
        ada.press("\r")
        ada.settle()
        ada.press("\x1b")
        ada.wait_for("Lobby chat")
        ada.settle()
        ada.press("q")
        assert ada.term.wait_exit() == 0
    finally:
        ada.close()
        bo.close()


def seats(screen: str) -> dict[str, str]:
    """Each seat's line of the seats box (its cards as the table shows them), by name."""
    found = {}
    for line in screen.splitlines():
        match = re.match(r"│\s+(Ada|Bo|Bot \d)(?: \(you\))?\s+(.*?)\s*││", line)
        if match:
            found[match.group(1)] = re.sub(r"\s+", " ", match.group(2))
    return found
