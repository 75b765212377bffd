"""End to end, plain mode (issue 44): a real ``ssh plain@127.0.0.1`` opens a Prophet's
Gambit table, seats two bots, starts, and plays the whole game by typed commands (a number
from the listed choices, ``play`` and a card, ``keep``...). The raw bytes the terminal got
contain no escape sequence at all and no box drawing; every event line is said once; every
turn prompt lists choices; a refusal is one sentence. A second session in German
(``NAME+plain`` with ``LANG=de_DE.UTF-8``) speaks the German catalog.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable

import pytest

from .conftest import needs_openssh
from .harness import ServeProcess, SSHTerminal, ssh_command

pytestmark = needs_openssh

#: Box drawing and block characters (U+2500 to U+259F).
BOXES = re.compile("[\u2500-\u259f]")
TURNS = 40


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One whole game in plain mode; yields the raw bytes and the lines said."""
    server = ServeProcess(
        tmp_path_factory.mktemp("plain"), "--workers", "0", "--bot-delay", "0.1", seed=5
    )
    term = SSHTerminal(ssh_command(server.port, "plain"), cols=100, rows=40)
    try:
        term.wait_for("help for more")
        term.send("frobnicate\r")
        term.wait_for("type help to hear the commands")
        term.send("new\r")
        term.wait_for("You sit at table 1")
        term.send("bot\r")
        term.wait_for("Bot 2 takes seat 2")
        term.send("bo\r")
        term.wait_for("Bot 3 takes seat 3")
        term.send("start\r")
        answer_prompts(term, _answer)
        term.wait_for(lambda s: "Winner:" in term.output(), timeout=20)
        term.send("quit\r")
        assert term.wait_exit() == 0
        yield bytes(term.raw)
    finally:
        term.close()
        server.stop()


def answer_prompts(term: SSHTerminal, answer: Callable[[str], str]) -> None:
    """Answer each prompt (``answer`` of its line) until the game is over (bounded)."""
    for turn in range(TURNS):
        term.wait_for(
            lambda s, n=turn: term.output().count("Choices:") > n or "Game over." in term.output(),
            timeout=20,
        )
        if "Game over." in term.output():
            break
        term.send(answer(_last_prompt(term)) + "\r")


def _last_prompt(term: SSHTerminal) -> str:
    return [line for line in term.output().split("\r\n") if "Choices:" in line][-1]


def _answer(prompt: str) -> str:
    """What a player types: ``play`` and the first card's short name, ``keep``, else the
    number of the first choice."""
    if "play: 1 " in prompt:
        card = re.search(r"play: 1 (.+?)(,|;)", prompt)[1]  # type: ignore[index]  # (always there)
        return f"play {card.replace(' of ', ' ')}"
    if " keep" in prompt:
        return "ke"
    return "1"


def _lines(raw: bytes) -> list[str]:
    """The lines said, without the prompt and echoes."""
    out = []
    for line in raw.decode().split("\r\n"):
        line = line.split("\r")[-1].strip().removeprefix(">").strip()
        if line:
            out.append(line)
    return out


def test_no_escape_no_boxes(played):
    assert b"\x1b" not in played
    assert not BOXES.search(played.decode())


def test_whole_game_in_sentences(played):
    lines = _lines(played)
    text = "\n".join(lines)
    assert re.search(r"Bot \d deals\. The Focus is \S+ of \w+\.", text)
    assert "The Bid is shown:" in text
    assert re.search(r"Ada|You sit at table 1, seat 1", text)
    assert re.search(r"The Reveal: .+ wins the deal\.", text)
    assert "Game over." in text and "Winner:" in text
    # the result in full: each place's best hand by name, Fate and chips
    places = [line for line in lines if re.match(r"Place \d: ", line)]
    assert len(places) == 3, places
    assert all(re.match(r"Place \d: .+, .+: .+; Fate .+; chips [+-]\d+\.$", p) for p in places)
    assert re.search(r"plays \S+ of \w+\.", text)  # cards said by name, not symbol
    assert "There is no command frobnicate: type help to hear the commands." in lines


def test_every_event_said_once(played):
    lines = [line for line in _lines(played) if not line.startswith(("Choices", "play"))]
    events = [
        line
        for line in lines
        if re.search(r"(deals\.|commits a card|plays |The Bid is shown|The Reveal)", line)
    ]
    repeated = {line: n for line, n in Counter(events).items() if n > 1}
    assert not repeated, repeated


def test_ones_own_turn_is_said_by_the_prompt_alone(played):
    lines = _lines(played)
    me = re.search(r"You are (.+?)\.", "\n".join(lines))[1]  # type: ignore[index]  # (said first)
    assert any("Choices:" in line for line in lines)
    assert f"{me}'s turn." not in lines
    assert "Bot 2's turn." in lines  # (others' turns are still said)


def test_every_prompt_lists_choices(played):
    prompts = [line for line in _lines(played) if "Choices:" in line]
    assert len(prompts) >= 3
    for prompt in prompts:
        assert re.search(r"Choices: .*1 \S", prompt), prompt
        assert prompt.endswith("or type hand.")


@pytest.fixture
def server(tmp_path):
    server = ServeProcess(tmp_path, "--workers", "0")
    yield server
    server.stop()


def test_german_plain_session(server):
    term = SSHTerminal(
        ssh_command(server.port, "Bo+plain", extra=["-o", "SendEnv=LANG"]),
        env={"LANG": "de_DE.UTF-8"},
    )
    try:
        term.wait_for(lambda s: "Bo" in term.output() and "\r\n" in term.output())
        time.sleep(0.3)
        term.send("tische\r")
        term.wait_for(lambda s: "new" in term.output() or "neu" in term.output())
        out = term.output()
        assert "Gambit, plain mode" not in out  # said in German
        assert b"\x1b" not in bytes(term.raw)
        term.send("\x03")
        assert term.wait_exit() == 0
    finally:
        term.close()
