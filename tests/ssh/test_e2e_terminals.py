"""End to end: the bytes a real ``ssh`` client receives are what its terminal can show.

A client whose locale is not UTF-8 (``LANG=C``) must get ASCII only, borders included; one
whose terminal has no colour (``TERM=xterm-mono``, ``TERM=vt100``) or whose player sent
``NO_COLOR=1`` must get no colour codes (bold, reverse and underline only). Each client walks
the welcome screen, the lobby, the new-table dialog with its game drop-down open, and a table
of each game with bots, mid-deal; everything ssh wrote to its terminal is then read byte by
byte. A client that says nothing gets UTF-8 and colour, as before (the test would pass
trivially if nothing were ever drawn).
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from .conftest import needs_openssh
from .harness import ServeProcess, SSHTerminal, ssh_command
from .test_e2e import Player

pytestmark = needs_openssh

GAMES = ("Prophet's Gambit", "Prophet", "Fortunes")
#: The client's environment, and what it sends of it.
CLIENTS = {
    "utf8-colour": ({}, ""),
    "lang-c": ({"LANG": "C"}, "LANG"),
    "xterm-mono": ({"TERM": "xterm-mono"}, "LANG"),
    "vt100-lang-c": ({"TERM": "vt100", "LANG": "C"}, "LANG"),
    "no-color": ({"NO_COLOR": "1"}, "LANG NO_COLOR"),
}
#: The tables each kind of client sits at: every game for one kind that must get ASCII only and
#: no colour (each game's cards are drawn differently; a session a game), one game each for the
#: rest.
WALKS = {
    "utf8-colour": ("Prophet's Gambit",),
    "lang-c": ("Fortunes",),
    "xterm-mono": ("Prophet",),
    "vt100-lang-c": GAMES,  # no colour either: every game's cards
    "no-color": ("Fortunes",),
}
SGR = re.compile(rb"\x1b\[([0-9;:]*)m")


def colour_parameters(raw: bytes) -> list[str]:
    """Every SGR colour parameter in ``raw``: 30–39, 40–49, 90–97, 100–107, 38;… and 48;…"""
    found: list[str] = []
    for match in SGR.finditer(raw):
        codes = [int(p) if p else 0 for p in re.split(rb"[;:]", match.group(1))]
        i = 0
        while i < len(codes):
            code = codes[i]
            if code in (38, 48):
                found.append(match.group(0).decode())
                i += 3 if codes[i + 1 : i + 2] == [5] else 5
                continue
            if 30 <= code <= 49 or 90 <= code <= 97 or 100 <= code <= 107:
                found.append(match.group(0).decode())
            i += 1
    return found


class Client(Player):
    """A player whose ssh client says what ``kind`` of terminal it is (or says nothing)."""

    def __init__(self, serve: ServeProcess, kind: str) -> None:
        env, send = CLIENTS[kind]
        extra = ["-o", f"SendEnv={send}"] if send else []
        self.term = SSHTerminal(ssh_command(serve.port, extra=extra), env=env)

    def game_shown(self) -> str:
        match = re.search(r"Game\s+(.+?)\s+[v▼]", self.term.text())
        return match.group(1) if match else ""

    def choose_game(self, game: str) -> None:
        """Set the dialog's game: open the drop-down, a step down (up at the list's end), ⏎."""
        step = "\x1b[B"
        for _try in range(6):
            before = self.game_shown()
            if before == game:
                return
            self.press("\r")
            self.wait_for(r"Game\s+.+\s+[\^▲]")
            self.settle(0.2)
            self.press(step + "\r")
            self.wait_for(r"Game\s+.+\s+[v▼]")
            self.settle(0.2)
            if self.game_shown() == before:
                step = "\x1b[A"
        raise AssertionError(f"could not choose {game}:\n{self.term.text()}")

    def walk(self, games: tuple[str, ...]) -> None:
        """Welcome, lobby, the dialog and a table of each of ``games`` with bots, mid-deal."""
        self.wait_for("Enter the lobby")
        self.settle()
        self.press("\r")
        self.wait_for("Lobby chat")
        self.lobby = self.settle()
        for game in games:
            self.press("n")
            self.wait_for("New table")
            self.settle()
            self.choose_game(game)
            self.press("\x13")  # ctrl+s: create
            # (The status line may show the turn clock of the table left before, not this one's
            # number: the prompt says it is this new table.)
            self.wait_for("Waiting for players")
            self.settle()
            for _bot in range(3):
                self.press("b")
                self.settle(0.2)
            self.press("s")
            self.term.wait_for(lambda t: "Start" not in t.splitlines()[-1], 20.0)
            self.settle(1.0)
            self.press("\x1b")  # back to the lobby, the seat kept
            self.wait_for("Lobby chat")
            self.settle()


@pytest.fixture(scope="module")
def walked(tmp_path_factory):
    """Each kind of client's bytes, once it has walked every screen."""
    server = ServeProcess(
        tmp_path_factory.mktemp("serve"), "--bot-delay", "0.1", "--between-games", "60"
    )

    def walk(kind: str, game: str) -> tuple[bytes, str]:
        client = Client(server, kind)
        try:
            client.walk((game,))
            return bytes(client.term.raw), client.lobby
        finally:
            client.close()

    # A session of each kind for each of its games (the kind that walks every game walks them
    # in three sessions of its own, side by side, not one after another in one: its bytes are
    # read the same, all three sessions' together).
    sessions = [(kind, game) for kind in CLIENTS for game in WALKS[kind]]
    try:
        # The clients walk at once, as players would: each waits on its own terminal.
        with ThreadPoolExecutor(len(sessions)) as pool:
            walks = list(pool.map(walk, *zip(*sessions, strict=True)))
        raw: dict[str, tuple[bytes, str]] = {}
        for (kind, _game), (sent, lobby) in zip(sessions, walks, strict=True):
            before = raw.get(kind)
            raw[kind] = (before[0] + sent, before[1]) if before else (sent, lobby)
        yield raw
    finally:
        assert server.stop() == 0, server.log()
        assert "Traceback" not in server.log(), server.log()


def test_a_client_that_says_nothing_gets_unicode_and_colour(walked):
    raw, lobby = walked["utf8-colour"]
    assert "╭─ Tables ─" in lobby and "·".encode() in raw
    assert colour_parameters(raw)


@pytest.mark.parametrize("kind", ["lang-c", "vt100-lang-c"])
def test_a_client_without_utf8_gets_ascii_only(walked, kind):
    raw, lobby = walked[kind]
    odd = sorted({b for b in raw if b >= 0x80})
    assert not odd, raw.decode("utf-8", "replace")[-2000:]
    assert "+- Tables -" in lobby  # the borders are drawn, in ASCII


@pytest.mark.parametrize("kind", ["xterm-mono", "vt100-lang-c", "no-color"])
def test_a_client_without_colour_gets_none(walked, kind):
    raw, _lobby = walked[kind]
    assert colour_parameters(raw) == []
    assert b"\x1b[7m" in raw or re.search(rb"\x1b\[[0-9;]*\b7m", raw)  # highlights: reverse


def test_a_client_without_colour_still_gets_utf8(walked):
    assert "╭─ Tables ─" in walked["xterm-mono"][1]
