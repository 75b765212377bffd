"""Bytes on the wire per action of a plain session (``ssh plain@host``, issue 44): a seeded
Prophet's Gambit game against two bots, over real ``ssh``.

The session opens a table, seats two bots, starts, and answers every decision with its first
choice until the game is over; the bytes ``ssh`` wrote to its terminal are counted. Also: the
words of the longest turn prompt, and the escape sequences in the plain stream (target 0).
The full-screen side is not driven here yet: compare with ``terminal_bytes_per_action`` of
bench/native_load.py (docs/benchmarks.md), which counts per action of any seat, as
``plain_bytes_per_table_action`` does (a table action: a line said of a move).
Not a timed test; run ``python bench/plain.py``. Last line JSON.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.ssh.harness import ServeProcess, SSHTerminal, ssh_command

SEED = 5
TURNS = 60


def plain_game(port: int) -> tuple[int, int, list[str], bytes]:
    """(bytes, actions, prompts, raw stream) of a plain game."""
    term = SSHTerminal(ssh_command(port, "plain"), cols=100, rows=40)
    try:
        term.wait_for("help for more")
        term.send("new\r")
        term.wait_for("You sit at table 1")
        term.send("bot\r")
        term.wait_for("Bot 2 takes seat 2")
        term.send("bot\r")
        term.wait_for("Bot 3 takes seat 3")
        start = len(term.raw)
        term.send("start\r")
        actions = 0
        for turn in range(TURNS):
            term.wait_for(
                lambda s, n=turn: term.output().count("Choices:") > n or "Winner:" in term.output(),
                timeout=30,
            )
            if "Winner:" in term.output():
                break
            term.send("1\r")
            actions += 1
        term.wait_for(lambda s: "Winner:" in term.output(), timeout=30)
        time.sleep(0.5)
        term.pump(0.3)
        prompts = [line for line in term.output().split("\r\n") if "Choices:" in line]
        return len(term.raw) - start, actions, prompts, bytes(term.raw)
    finally:
        term.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServeProcess(Path(tmp), "--workers", "0", seed=SEED)
        try:
            plain_bytes, actions, prompts, raw = plain_game(server.port)
        finally:
            server.stop()
    words = max(len(p.split()) for p in prompts) if prompts else 0
    escapes = len(re.findall(rb"\x1b", raw))
    moves = len(
        re.findall(rb"(plays |commits |keeps |discards |draws |does not draw|saves |kills )", raw)
    )
    result = {
        "plain_bytes": plain_bytes,
        "plain_actions": actions,
        "plain_bytes_per_action": round(plain_bytes / max(1, actions)),
        "table_actions": moves,
        "plain_bytes_per_table_action": round(plain_bytes / max(1, moves)),
        "prompt_words_max": words,
        "cursor_moves": escapes,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
