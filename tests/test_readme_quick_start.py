"""The README's Quick start says which command prints how to connect (issue 38: "run the
second command, from another terminal: it prints how to connect" read as if the test command
printed it). What the server prints is tested in tests/ssh/test_banner.py."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
COMMANDS = [
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/gambit serve",
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest",
]


def quick_start() -> str:
    text = README.read_text()
    return text.split("## Quick start", 1)[1].split("\n## ", 1)[0]


def test_the_quick_start_keeps_its_two_commands():
    block = re.search(r"```sh\n(.*?)```", quick_start(), re.S)
    assert block is not None
    assert block.group(1).splitlines() == COMMANDS


def test_the_server_not_the_test_command_is_said_to_print_how_to_connect():
    prose = " ".join(quick_start().split("```")[2].split())
    sentences = re.split(r"(?<=[.;:])\s+", prose)
    says = [s for s in sentences if "prints how to connect" in s]
    assert says, prose
    for sentence in says:
        assert "server" in sentence and "second" not in sentence, sentence
    # The sentence before it is about the first command (the server), not the second.
    before = prose.split("prints how to connect")[0]
    assert "The second" not in before and "second command" not in before, before
