"""End to end: ``gambit serve`` with the real Gambit app, played through the real OpenSSH client.

Each player is an ``ssh`` process in a pseudo-terminal whose screen is read with pyte; they
press keys exactly as a person would. Every wait is bounded.
"""

from __future__ import annotations

import re
import signal
import time
import weakref

import pytest

from .conftest import needs_openssh
from .harness import ServeProcess, SSHTerminal, ThreadServer, ssh_command, ssh_keygen
from .screens import decision_key
from .test_host import run_ssh

pytestmark = needs_openssh


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    server = ServeProcess(tmp_path_factory.mktemp("serve"), "--bot-delay", "0.1")
    yield server
    assert server.stop() == 0, server.log()
    assert "Traceback" not in server.log(), server.log()


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keys")
    return {name: ssh_keygen(folder / name) for name in ("ada", "bo", "cy", "di", "ed")}


class Player:
    """One person at one terminal."""

    def __init__(self, serve, user: str = "play", key=None, cols=80, rows=24):
        self.term = SSHTerminal(ssh_command(serve.port, user, key=key), cols=cols, rows=rows)

    def settle(self, quiet: float = 0.3, timeout: float = 5.0) -> str:
        """Let the screen finish drawing: until nothing arrives for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        seen, since = len(self.term.raw), time.monotonic()
        while time.monotonic() < deadline and time.monotonic() - since < quiet:
            self.term.pump(0.05)
            if len(self.term.raw) != seen:
                seen, since = len(self.term.raw), time.monotonic()
        return self.term.text()

    def wait_for(self, pattern: str, timeout: float = 20.0) -> str:
        return self.term.wait_for(pattern, timeout)

    def press(self, keys: str) -> None:
        self.term.send(keys)

    def enter_lobby(self) -> str:
        """Through the welcome screen; a key the server knows (an earlier test's, on the same
        server) goes straight to the lobby (issue 18, item 9)."""
        screen = self.wait_for("Enter the lobby|Lobby chat")
        if "Enter the lobby" in screen:
            self.settle()
            self.press("\r")
            self.wait_for("Lobby chat")
        return self.settle()

    def footer(self) -> str:
        return self.term.text().rstrip().splitlines()[-1]

    def close(self) -> None:
        self.term.close()


@pytest.fixture
def players():
    made: list[Player] = []
    yield made
    for player in made:
        player.close()


def test_serve_says_how_to_connect(serve):
    assert re.search(r"Connect with:  ssh -p \d+ play@localhost", serve.banner)
    assert re.search(r"Host key fingerprint: SHA256:\S+", serve.banner)


def test_a_guest_reaches_the_lobby(serve, players):
    guest = Player(serve)
    players.append(guest)
    screen = guest.enter_lobby()
    assert re.search(r"Guest-\d{4}[\s│]+\(guest\)", screen)  # in the online list
    assert "Tables" in screen


def test_a_key_is_remembered_with_its_name(serve, players, keys):
    first = Player(serve, "Ada", key=keys["ada"])
    players.append(first)
    screen = first.enter_lobby()
    assert re.search(r"│ Ada\s+│", screen)  # in the online list, not a guest
    first.press("q")
    assert first.term.wait_exit() == 0
    # Next time, from "anywhere", the same key is the same player with the same name, and
    # goes straight to the lobby with a greeting (issue 18, item 9): no welcome screen.
    again = Player(serve, "play", key=keys["ada"])
    players.append(again)
    screen = again.wait_for(r"Welcome back, Ada\.")
    assert re.search(r"│ Ada\s+│", again.wait_for(r"│ Ada\s+│"))
    assert "Lobby chat" in screen
    assert b"Enter the lobby" not in bytes(again.term.raw)


def test_the_screen_follows_the_window(serve, players):
    player = Player(serve)
    players.append(player)
    player.enter_lobby()
    player.term.resize(100, 30)
    # The header spans the new width: "Lobby" moves to its right end.
    player.term.wait_for(lambda t: re.fullmatch(r" .{85,}Lobby", t.splitlines()[0].rstrip()))
    player.term.resize(60, 20)
    player.wait_for("terminal is too small")
    player.term.resize(80, 24)
    player.wait_for("Lobby chat")


def test_stopping_the_server_says_goodbye(tmp_path):
    server = ServeProcess(tmp_path)
    try:
        player = Player(server)
        player.enter_lobby()
        server.proc.send_signal(signal.SIGTERM)
        assert player.term.wait_exit() != 0
        assert "server is stopping" in player.term.output()
        player.close()
    finally:
        assert server.stop() == 0


def test_no_app_outlives_its_session(tmp_path):
    """Sessions of the real app, ended every way: no app (or its screens) stays in memory."""
    from server.apphost.in_process import default_app_factory

    made: list[weakref.ref] = []

    def factory(*args):
        app = default_app_factory(*args)
        made.append(weakref.ref(app))
        return app

    server = ThreadServer(tmp_path, factory).start()
    try:
        ada, bo, cy = (Player(server, name) for name in ("Ada", "Bo", "Cy"))
        for player in (ada, bo, cy):
            player.enter_lobby()
        ada.press("n")
        ada.wait_for("New table")
        ada.settle()
        ada.press("\x13")
        ada.wait_for(r"Table \d+ · stake")
        bo.press("q")  # quits
        ada.term.kill()  # drops
        cy.press("c")
        cy.press("typing when the line goes")
        cy.term.kill()
        assert bo.term.wait_exit() == 0
        for player in (ada, bo, cy):
            player.close()
        deadline = time.monotonic() + 10
        while server.sync(lambda: len(server.host.sessions)) and time.monotonic() < deadline:
            time.sleep(0.05)

        assert len(made) == 3
        assert server.alive(made) == 0
    finally:
        server.stop()


def test_only_terminal_sessions(serve):
    code, out = run_ssh(ssh_command(serve.port, remote=["cat", "/etc/passwd"]))
    assert code == 1 and "Gambit runs no commands" in out


def test_a_dropped_player_gets_their_seat_back(serve, players, keys):
    bo = Player(serve, "Bo", key=keys["bo"])
    players.append(bo)
    bo.enter_lobby()
    bo.press("n")
    bo.wait_for("New table")
    bo.settle()
    bo.press("\x13")  # ctrl+s: create
    number = re.search(r"Table (\d+) · stake", bo.wait_for(r"Table \d+ · stake")).group(1)
    for n in (2, 3, 4):
        bo.press("b")
        bo.wait_for(rf"Bot {n}")
    bo.press("s")
    seat = seat_line(bo.wait_for("The Bid"), "Bo (you)")
    bo.term.kill()  # the connection drops without a goodbye
    back = Player(serve, "play", key=keys["bo"])
    players.append(back)
    # Straight back to the table, past the welcome screen (the app opens the table over the
    # lobby by itself), in the same seat; a stand-in played meanwhile.
    screen = back.wait_for(rf"Table {number} · stake.*(?s:.*)Bo \(you\)")
    assert seat_line(screen, "Bo (you)") == seat
    assert b"Enter the lobby" not in bytes(back.term.raw)


def seat_line(screen: str, who: str) -> int:
    """Which line of the seats box shows ``who``."""
    return next(i for i, line in enumerate(screen.splitlines()) if who in line)


def play_until_result(table: list[Player], timeout: float = 180.0) -> None:
    """Each player does what the footer offers whenever it is their decision."""
    done: set[int] = set()
    pressed: dict[int, tuple[str, float]] = {}
    deadline = time.monotonic() + timeout
    while len(done) < len(table):
        assert time.monotonic() < deadline, "\n\n".join(p.term.text() for p in table)
        for index, player in enumerate(table):
            if index in done:
                continue
            player.term.pump(0.02)
            screen = player.term.text()
            if "The Reveal" in screen:
                done.add(index)
                continue
            footer = player.footer()
            key = decision_key(footer)
            if key is None:
                continue
            last = pressed.get(index)
            now = time.monotonic()
            if last and last[0] == footer and now - last[1] < 1.0:
                continue  # give the last key press time to show
            if last and last[0] == footer:
                player.press("\x1b[C")  # same question again: that card was refused, try the next
            player.press(key)
            pressed[index] = (footer, now)


def timer_moves(serve: ServeProcess, since: int) -> list[str]:
    """The server's log lines after ``since`` (characters) saying a player's turn timer ran out
    and a bot made their decision: one :func:`play_until_result` missed (it waited the
    timer's minute; each line names the seat)."""
    return [
        line
        for line in serve.log()[since:].splitlines()
        if "a stand-in moves in seat" in line and line.endswith("(time)")
    ]


def test_three_players_and_bots_play_a_deal(serve, players, keys):
    ada = Player(serve, "Ada", key=keys["ada"])
    cy = Player(serve, "Cy", key=keys["cy"])
    di = Player(serve, "Di", key=keys["di"])
    table = [ada, cy, di]
    players.extend(table)
    for player in table:
        player.enter_lobby()
    ada.press("n")
    ada.wait_for("New table")
    ada.settle()
    ada.press("\x13")
    number = re.search(r"Table (\d+) · stake", ada.wait_for(r"Table \d+ · stake")).group(1)
    for friend in (cy, di):
        join(friend, number, owner="Ada")
    ada.wait_for(r"Di")
    ada.press("b")  # a bot in the fourth seat
    ada.wait_for(r"Bot 4")
    ada.settle()
    ada.press("s")
    for player in table:
        player.wait_for("The Bid")
    since = len(serve.log())
    play_until_result(table)
    for player in table:
        assert "The Reveal" in player.term.text()
    assert timer_moves(serve, since) == []


def join(player: Player, number: str, owner: str) -> None:
    """Select table ``number`` in the lobby's list and join it."""
    screen = player.wait_for(rf"│ {number}  Prophet")
    rows = [line for line in screen.splitlines() if re.match(r"│ \d+  ", line)]
    index = next(i for i, line in enumerate(rows) if line.startswith(f"│ {number}  "))
    player.settle()
    player.press("\x1b[B" * index)  # down to its row
    player.wait_for(rf"Table {number}, opened by {owner}")
    player.press("j")
    player.wait_for(rf"Table {number} · stake")


def test_a_finished_game_is_replayed_from_your_games(serve, players, tmp_path):
    """Eve plays one game of Prophet's Gambit (one deal) with three bots, opens it from Your
    games, steps through it to the end and sees what was played: the result, and her deal
    verified (mixed with her app's own entropy: this server deals at random)."""
    eve = Player(serve, "Eve", key=ssh_keygen(tmp_path / "eve"))
    players.append(eve)
    eve.enter_lobby()
    eve.press("n")
    eve.wait_for("New table")
    eve.settle()
    eve.press("\x13")
    eve.wait_for(r"Table \d+ · stake")
    for n in (2, 3, 4):
        eve.press("b")
        eve.wait_for(rf"Bot {n}")
    eve.press("s")
    eve.wait_for("The Bid")
    since = len(serve.log())
    play_until_result([eve])
    assert timer_moves(serve, since) == []
    eve.press("\r")  # close the result
    eve.settle(0.2)
    eve.press("q")  # leave the table; it closes
    # (2 s after she closed the result, the only player there, the next deal begins: a
    # slow machine may leave during it, which asks first)
    if "Leave the table?" in eve.wait_for("Lobby chat|Leave the table\\?"):
        eve.press("y")
        eve.wait_for("Lobby chat")
    eve.settle()
    eve.press("h")
    eve.wait_for(r"Prophet's Gambit .*\d/4")
    eve.settle()
    eve.press("\r")  # the game under the cursor: the newest
    screen = eve.wait_for(r"Replay of game \d+ · move 0 of [1-9]\d*")
    steps = int(re.search(r"move 0 of (\d+)", screen).group(1))
    assert steps > 4
    for move in (1, 2, 3):  # a move on at a time
        eve.press("\x1b[C")
        eve.wait_for(rf"move {move} of {steps}")
    eve.press("\x1b[F")  # to the end
    screen = eve.wait_for(rf"move {steps} of {steps}")
    screen = eve.wait_for("The Reveal")  # what was played, and how it ended
    assert "deal verified" in eve.wait_for("deal verified")


def test_an_enter_as_the_reveal_closes_by_itself_commits_no_card(serve, players, tmp_path):
    """Over real ssh (issue 38, item 2): Fay leaves the Reveal open; it stays up to be read
    and closes by itself as the next deal begins. An Enter she presses just then was meant
    for it: it commits no card to the new Bid (a tester's Master went that way); a moment
    later Enter bids as ever."""
    fay = Player(serve, "Fay", key=ssh_keygen(tmp_path / "fay"))
    players.append(fay)
    fay.enter_lobby()
    fay.press("n")
    fay.wait_for("New table")
    fay.settle()
    fay.press("\x13")
    fay.wait_for(r"Table \d+ · stake")
    for n in (2, 3, 4):
        fay.press("b")
        fay.wait_for(rf"Bot {n}")
    fay.press("s")
    fay.wait_for("The Bid")
    play_until_result([fay])
    shown = time.monotonic()
    fay.wait_for("The next deal has started", timeout=20)
    assert time.monotonic() - shown > 7.0  # the result stayed up to be read
    fay.press("\r")  # meant for the Reveal, which has just gone
    time.sleep(1.5)
    screen = fay.settle()
    assert "Fay commits a card to the Bid." not in screen, screen
    assert "⏎ Bid" in fay.footer(), screen
    fay.press("\r")
    fay.wait_for("Fay commits a card to the Bid.")


def test_a_duplicate_table_over_ssh(serve, players, keys):
    """The new-table form's duplicate set field, typed over ssh: the table is told as the
    set's (whose cards Ed holds), its deal committed but not fair, and the lobby names the
    set and its game."""
    ed = Player(serve, "Ed", key=keys["ed"])
    players.append(ed)
    ed.enter_lobby()
    ed.press("n")
    ed.wait_for("New table")
    ed.settle()
    ed.press("\t" * 6)  # game, players, stake, timer, who may join, highest rating: the set
    ed.wait_for("Duplicate set \\(blank: none\\): tables with the same name")
    ed.press("club-7")
    ed.settle()
    ed.press("\x13")  # ctrl+s: create
    # The waiting room says whose cards Ed holds; the next deal's commitment is above.
    screen = ed.wait_for(r"Set club-7, game 1: you hold seat 1's cards")
    # ("waiting" is left out up there: the prompt says it, and the commitment must fit.)
    screen = ed.wait_for(r"Table \d+ · stake \d+ · deal \w{12} not fair")
    number = re.search(r"Table (\d+) · stake", screen).group(1)
    ed.press("\x1b")  # back to the lobby, the table kept
    screen = ed.wait_for(rf"│ {number}  Prophet")
    rows = [line for line in screen.splitlines() if re.match(r"│ \d+  ", line)]
    index = next(i for i, line in enumerate(rows) if line.startswith(f"│ {number}  "))
    ed.settle()
    ed.press("\x1b[B" * index)  # down to its row: its details name the set
    ed.wait_for(rf"Table {number}, opened by Ed(?s:.*)duplicate set club-7, game 1")


def test_ctrl_q_in_a_game_asks_first_over_ssh(serve, players):
    """Issue 38, item 6: Ctrl+Q (a byte the terminal's flow control could take) reaches the
    app over ssh, and during a game asks before quitting, as q at the table does."""
    guest = Player(serve)
    players.append(guest)
    guest.enter_lobby()
    guest.press("n")
    guest.wait_for("New table")
    guest.settle()
    guest.press("\x13")  # ctrl+s: create
    guest.wait_for(r"Table \d+ · stake")
    for n in (2, 3, 4):
        guest.press("b")
        guest.wait_for(rf"Bot {n}")
    guest.press("s")
    guest.wait_for("The Bid")
    guest.press("\x11")  # ctrl+q
    guest.wait_for("Quit during a game")
    guest.press("n")
    guest.wait_for(lambda screen: "Quit during a game" not in screen and "The Bid" in screen)
    guest.press("\x11")
    guest.wait_for("Quit during a game")
    guest.press("y")
    assert guest.term.wait_exit() == 0
