"""Lookalike names through the real OpenSSH client against ``gambit serve``: the SSH username
is the name a player asks for, and the refusal is what they read on the welcome screen."""

from __future__ import annotations

import re
import time

import pytest

from tests.ssh.conftest import needs_openssh
from tests.ssh.harness import ServeProcess, SSHTerminal, ssh_command, ssh_keygen

pytestmark = needs_openssh


@pytest.fixture
def serve(tmp_path):
    (tmp_path / "serve").mkdir()
    server = ServeProcess(tmp_path / "serve")
    yield server
    assert server.stop() == 0, server.log()
    assert "Traceback" not in server.log(), server.log()


def test_lookalikes_of_alice_are_refused_over_ssh(serve, tmp_path):
    keys = {who: ssh_keygen(tmp_path / who) for who in ("alice", "mallory", "olena")}
    terms: list[SSHTerminal] = []
    try:
        alice = SSHTerminal(ssh_command(serve.port, "Alice", key=keys["alice"]))
        terms.append(alice)
        alice.wait_for(r"Alice · 1,000 chips")
        # The username is the wished name: the refusal shows on the welcome screen.
        for name, says in [("\u00c1lice", r"looks too much like"), ("\u0410lice", r"mixes")]:
            mallory = SSHTerminal(ssh_command(serve.port, name, key=keys["mallory"]))
            terms.append(mallory)
            screen = mallory.wait_for(says)
            assert "Enter the lobby" in screen and "Player-" in screen
            mallory.close()
        # asyncssh's SASLprep turns away a username with ᴀ (not in Unicode 3.2) before any
        # name check, so that one is typed on the welcome screen: the refusal is said under
        # the field, the form stays, and the player keeps the name they had.
        mallory = SSHTerminal(ssh_command(serve.port, "play", key=keys["mallory"]))
        terms.append(mallory)
        _type_name(mallory, "\u1d00lice")
        screen = mallory.wait_for(r"\u1d00lice looks too much like Alice, who is online\.")
        assert "Enter the lobby" in screen and "Lobby chat" not in screen, screen
        header = screen.splitlines()[0]
        assert re.match(r" Player-\d{4} · ", header), header
        olena = SSHTerminal(ssh_command(serve.port, "Олена", key=keys["olena"]))
        terms.append(olena)
        olena.wait_for(r"Олена · 1,000 chips")
    finally:
        for term in terms:
            term.close()


def _type_name(term: SSHTerminal, name: str) -> None:
    """On the welcome screen: clear the name field, type ``name`` and press Enter."""
    term.wait_for(r"Enter the lobby")
    settled = time.monotonic() + 0.5
    while time.monotonic() < settled:  # the welcome screen is up whole (it may be drawn
        term.pump()  # again as the hub's first answers land) before the player types
    term.send("\x7f" * 24 + name)
    term.wait_for(name)
    term.send("\r")


def test_a_taken_name_is_refused_in_words_over_ssh(serve, tmp_path):
    """Issue 38, item 9: "alice", registered and online, typed by a new key on the welcome
    screen is refused in words and the form stays; a free name then enters the lobby."""
    keys = {who: ssh_keygen(tmp_path / who) for who in ("alice", "newcomer")}
    terms: list[SSHTerminal] = []
    try:
        alice = SSHTerminal(ssh_command(serve.port, "alice", key=keys["alice"]))
        terms.append(alice)
        alice.wait_for(r"alice · 1,000 chips")
        newcomer = SSHTerminal(ssh_command(serve.port, "play", key=keys["newcomer"]))
        terms.append(newcomer)
        _type_name(newcomer, "alice")
        screen = newcomer.wait_for(r"✗ Someone online is already called alice\.")
        assert "Enter the lobby" in screen and "Lobby chat" not in screen, screen
        header = screen.splitlines()[0]
        assert re.match(r" Player-\d{4} · ", header), header
        _type_name(newcomer, "Bramble")
        screen = newcomer.wait_for(r"Lobby chat")
        newcomer.wait_for(lambda text: text.splitlines()[0].startswith(" Bramble · "))
    finally:
        for term in terms:
            term.close()
