"""End to end (issue 41): ``gambit connect`` in a pseudo-terminal, its app running on the
player's side, at one table with a player in an OpenSSH terminal session on the same
``gambit serve``; both play a whole deal and see the same table.
"""

from __future__ import annotations

import contextlib
import re
import select
import socket
import sys
import threading

import pytest

from .conftest import needs_openssh
from .harness import ServeProcess, SSHTerminal, ssh_keygen
from .test_e2e import Player, join, play_until_result

pytestmark = needs_openssh


class LocalPlayer(Player):
    """``gambit connect`` in a terminal of its own, with its own home (no known hosts yet)."""

    def __init__(self, serve, user: str, key, home, port: int | None = None) -> None:
        cmd = [
            sys.executable,
            "-m",
            "server.cli",
            "connect",
            "-p",
            str(port or serve.port),
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
        # Out, as from a terminal session (the next deal may have begun: Ctrl+Q asks first,
        # or quits at once between deals): the local app ends cleanly.
        ada.press("\x11")
        if "Quit during a game" in ada.settle():
            ada.press("y")
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


class Relay:
    """A TCP relay to the server on a port of its own, whose connections a test can cut: the
    player's link dies under them (both sockets reset), as on a network that drops."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.accepted = 0
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target))
            self.pairs.append((client, server))
            self.accepted += 1
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        try:
            while True:
                ready, _, _ = select.select([a, b], [], [], 1.0)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    peers[sock].sendall(data)
        except OSError:
            return
        finally:
            for sock in (a, b):
                with contextlib.suppress(OSError):
                    sock.close()

    def cut(self) -> None:
        for pair in self.pairs:
            for sock in pair:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
                    sock.shutdown(socket.SHUT_RDWR)
        self.pairs.clear()

    def close(self) -> None:
        self.closed = True
        self.listener.close()
        self.cut()


def test_a_cut_link_comes_back_to_the_seat_and_the_screen_says_so(serve, tmp_path):
    relay = Relay(serve.port)
    home = tmp_path / "home"
    home.mkdir()
    ada = LocalPlayer(serve, "Ada", ssh_keygen(tmp_path / "ada"), home, port=relay.port)
    try:
        ada.wait_for(r"continue connecting \(yes/no\)\?")
        ada.press("yes\r")
        ada.enter_lobby()
        ada.press("n")
        ada.wait_for("New table")
        ada.settle()
        ada.press("\x13")
        number = re.search(r"Table (\d+) · stake", ada.wait_for(r"Table \d+ · stake")).group(1)
        for n in (2, 3, 4):
            ada.press("b")
            ada.wait_for(rf"Bot {n}")
        ada.settle()
        ada.press("s")
        ada.wait_for("The Bid")
        relay.cut()  # the link dies under the app
        ada.wait_for("Reconnecting to the tables")
        screen = ada.wait_for("Back at the tables")
        # (The first visit connected twice: once to see the host key, once trusting it.)
        assert relay.accepted == 3
        # Still at the table, in the seat: the app never left its screen.
        assert re.search(rf"Table {number} · stake", screen) and "Ada (you)" in screen
        assert ada.term.proc.poll() is None
    finally:
        ada.close()
        relay.close()
