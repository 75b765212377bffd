"""End to end, plain mode (issue 44) for Fortunes and Prophet: a real ``ssh plain@127.0.0.1``
opens a table with options typed after ``new`` (``new fortunes betting ante``: one deal;
``new prophet cap 2``: two short rounds), seats bots, starts and plays the whole game by
typed numbers. The raw bytes hold no escape sequence; every event is said once, as a
sentence with the cards' names; every prompt asks its question and lists the choices.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from .conftest import needs_openssh
from .harness import ServeProcess, SSHTerminal, ssh_command
from .test_e2e_plain import BOXES, _lines, answer_prompts

pytestmark = needs_openssh

#: The last line of a result: the pot (with a stake) or the winner (without).
RESULT_END = r"(wins the pot of \d+ chips?|Winner: .+)\.\r\n"


def _play(tmp_path, new: str, bots: int) -> list[str]:
    """One whole game typed in plain mode; returns the lines said (raw bytes checked)."""
    server = ServeProcess(tmp_path, "--workers", "0", "--bot-delay", "0", seed=7)
    term = SSHTerminal(ssh_command(server.port, "plain"), cols=100, rows=40)
    try:
        term.wait_for("help for more")
        term.send(new + "\r")
        term.wait_for("You sit at table 1")
        for n in range(bots):
            term.send("bot\r")
            term.wait_for(f"takes seat {n + 2}")
        term.send("start\r")
        answer_prompts(term, lambda prompt: "1")
        term.wait_for(lambda s: re.search(RESULT_END, term.output()), timeout=20)
        term.send("quit\r")
        assert term.wait_exit() == 0
        raw = bytes(term.raw)
    finally:
        term.close()
        server.stop()
    assert b"\x1b" not in raw
    assert not BOXES.search(raw.decode())
    return _first_game(_lines(raw))


def _first_game(lines: list[str]) -> list[str]:
    """The lines up to the end of the first game's result (bots may begin another)."""
    end = lines.index("Game over.") + 1
    while end < len(lines) and re.match(r"Place \d: |.+ wins the pot|Winner:", lines[end]):
        end += 1
    return lines[:end]


def _once(lines: list[str], pattern: str) -> None:
    events = [line for line in lines if re.search(pattern, line) and "Choices:" not in line]
    assert events
    repeated = {line: n for line, n in Counter(events).items() if n > 1}
    assert not repeated, repeated


@pytest.fixture(scope="module")
def fortunes(tmp_path_factory) -> list[str]:
    return _play(tmp_path_factory.mktemp("fortunes"), "new fortunes betting ante", 3)


def test_fortunes_deal_in_sentences(fortunes):
    text = "\n".join(fortunes)
    assert re.search(r"\S+ deals \(East\)\.", text)
    # cards by name, never by sign: "Knight of Cups", "7 of Wands", "Star 3"
    assert re.search(r"plays (\w+ of (Wands|Cups|Swords|Pentacles)|Star \d+)\.", text)
    tricks = re.findall(r"wins trick (\d+) with .+, (well|ill)-disposed: -?\d+ points?\.", text)
    assert [int(n) for n, _ in tricks] == list(range(1, 20))
    assert "Deal 1 is over. Points:" in text
    assert "Game over." in text


def test_fortunes_events_said_once(fortunes):
    # (a trick's plays may read alike across tricks only with the same card: never)
    _once(fortunes, r"( plays | wins trick | deals \(East\)|Deal 1 is over)")


def test_fortunes_prompt_asks_the_question(fortunes):
    prompts = [line.lstrip("\a") for line in fortunes if "Choices:" in line]
    assert len(prompts) == 19  # one play for each trick, asked once
    assert "Decide." not in "\n".join(fortunes)
    assert all(re.match(r"(You lead trick \d+|Play to trick \d+)", p) for p in prompts)
    led = [p for p in prompts if p.startswith("You lead")]
    assert all(re.search(r": (HIGH|LOW) wins\. Play any card\.", p) for p in led), led
    follow = [p for p in prompts if p.startswith("Play to")]
    assert all(
        re.search(r"follow (Wands|Cups|Swords|Pentacles|Stars) if you can", p) for p in follow
    )


def test_prophet_game_in_sentences(tmp_path):
    lines = _play(tmp_path, "new prophet cap 2 stake 10", 2)
    text = "\n".join(lines)
    assert re.search(r"Round 1: \S+ deals 1 card each\. Trump: .+\.", text)
    assert re.search(r"Round 2: Bot \d deals 2 cards each\.", text)
    assert re.search(r"plays (Ace|King|Queen|Jack|\d+|\w+) of \w+\.", text)
    assert "Round 3" not in text  # (the cap the options set)
    # each round deals a fresh deck: within a round a play or a bid is said once
    rounds = re.split(r"\nRound \d: .*\n", text)
    assert len(rounds) == 3
    for part in rounds[1:]:
        _once(part.split("\n"), r"( plays | bids \d)")
    _once(lines, r"(Round \d|Highest total)")
    prompts = [line for line in lines if "Choices:" in line]
    assert len(prompts) >= 4 and "Decide." not in text
    # the result in full: each place's points and chips, the pot of three stakes of 10
    places = [line for line in lines if re.match(r"Place \d: ", line)]
    assert len(places) == 3, places
    assert all(re.match(r"Place \d: .+, -?\d+ points?; chips [+-]\d+\.$", p) for p in places)
    assert sum(int(p.rsplit(" ", 1)[1].rstrip(".")) for p in places) == 0
    assert re.search(r"wins the pot of 30 chips\.", text)


def test_new_refuses_in_one_sentence(tmp_path):
    server = ServeProcess(tmp_path, "--workers", "0")
    term = SSHTerminal(ssh_command(server.port, "plain"), cols=100, rows=40)
    try:
        term.wait_for("help for more")
        term.send("new prophet colour red\r")
        term.wait_for("has no option colour")
        term.send("new prophet schedule sideways\r")
        term.wait_for("schedule takes")
        term.send("new fortunes 3\r")
        term.wait_for("seats 4 to 4 players")
        lines = _lines(bytes(term.raw))
        assert (
            "Prophet has no option colour: it takes players, stake, timer, deck, schedule, cap."
            in lines
        )
        assert "schedule takes ascending, fixed, descending, down_up, up_down." in lines
        assert "You sit at table" not in "\n".join(lines)
        term.send("quit\r")
        assert term.wait_exit() == 0
    finally:
        term.close()
        server.stop()


def test_time_says_the_turn_timer(tmp_path):
    """``new ... timer 90`` sets the table's turn timer; ``time`` says what is left of it."""
    server = ServeProcess(tmp_path, "--workers", "0", "--bot-delay", "0", seed=7)
    term = SSHTerminal(ssh_command(server.port, "plain"), cols=100, rows=40)
    try:
        term.wait_for("help for more")
        term.send("time\r")
        term.wait_for("You are not at a table")
        term.send("new prophet timer 90\r")
        term.wait_for("You sit at table 1")
        term.send("ti\r")
        term.wait_for("No turn timer is running at this table.")
        for n in range(2):
            term.send("bot\r")
            term.wait_for(f"takes seat {n + 2}")
        term.send("start\r")
        term.wait_for("Choices:")
        term.send("time\r")
        term.wait_for("left on your turn.")
        said = re.search(r"You have (\d+) seconds left on your turn\.", term.output())
        assert said and 80 <= int(said[1]) <= 90, term.output()[-300:]
        term.send("quit\r")
        assert term.wait_exit() == 0
    finally:
        term.close()
        server.stop()


def test_mode_plain_is_remembered_with_the_key(tmp_path, client_key):
    """``mode plain`` keeps the plain mode with the key: the next ``ssh play@`` with that key
    starts it; ``NAME+screen`` asks for the full screen once; ``mode screen`` undoes it."""
    server = ServeProcess(tmp_path, "--workers", "0")

    def session(user: str, typed: str | None, until: str) -> bytes:
        term = SSHTerminal(ssh_command(server.port, user, key=client_key), cols=100, rows=40)
        try:
            if typed is None:  # the full screen: its lobby, then Ctrl+Q
                term.wait_for("Lobby", timeout=20)
                raw = bytes(term.raw)
                term.send("\x11")
            else:
                term.wait_for("help for more")
                term.send(typed + "\r")
                term.wait_for(until)
                raw = bytes(term.raw)
                term.send("quit\r")
            term.wait_exit()
            return raw
        finally:
            term.close()

    try:
        session("Ada+plain", "mode", "Type mode plain")  # (a refusal says what is accepted)
        session("Ada+plain", "mode pl", "Saved: the plain mode starts whenever you connect")
        again = session("play", "hand", "You are not at a table")
        assert b"Gambit, plain mode. You are Ada." in again and b"\x1b" not in again
        assert b"\x1b[" in session("Ada+screen", None, "")
        session("play", "mode screen", "Saved: the full screen starts")
        assert b"\x1b[" in session("play", None, "")
    finally:
        server.stop()
