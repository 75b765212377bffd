"""Bytes on the wire per action of a plain session (``ssh plain@host``, issue 44) against a
full-screen session on the same game: a seeded Prophet's Gambit game against two bots, over
real ``ssh``, once in each mode.

Each session opens a table of three seats and no stake on a fresh server with the same seed,
seats two bots, starts, and answers every decision with its first choice (the plain session
types ``1``; the full screen presses its footer's first decision key, Enter for the card
under the cursor: the same moves, so the same game) until the game is over; the bytes
``ssh`` wrote to its terminal (100 x 40) from the start to the result are counted and
divided by the player's own actions. Also: the words of the longest turn prompt, and the
escape sequences in the plain stream (target 0); and ``plain_bytes_per_table_action`` (a
table action: a line said of a move, any seat's).
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
from tests.ssh.test_e2e import Player, decision_key

SEED = 5
TURNS = 60
COLS, ROWS = 100, 40


def plain_game(port: int) -> tuple[int, int, list[str], bytes]:
    """(bytes, actions, prompts, raw stream) of a plain game."""
    term = SSHTerminal(ssh_command(port, "plain"), cols=COLS, rows=ROWS)
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


def screen_game(port: int) -> tuple[int, int]:
    """(bytes, actions) of the same game on the full screen: a table of three seats and no
    stake (as the plain ``new`` opens), two bots, the first choice each time."""
    player = Player(_Server(port), "play", cols=COLS, rows=ROWS)
    try:
        player.enter_lobby()
        player.press("n")
        player.wait_for("New table")
        player.settle()
        player.press("\t")  # players: open the list, one up (from 4 to 3)
        player.settle()
        player.press("\r")
        player.settle()
        player.press("\x1b[A\r")
        player.settle()
        player.press("\t")  # stake 0
        player.settle()
        player.press("\x7f\x7f")
        player.settle()
        player.press("0")
        player.wait_for(r"Players\s+3(?s:.*)Stake \(chips each game\)\s+0\s")
        player.press("\x13")  # ctrl+s: create
        player.wait_for(r"Table 1 · stake 0")
        for n in (2, 3):
            player.press("b")
            player.wait_for(rf"Bot {n}")
        player.settle()
        term = player.term
        start = len(term.raw)
        player.press("s")
        actions = 0
        for _turn in range(TURNS):
            footer = _decision(player)
            if footer is None:
                break
            player.press(first_choice(footer))
            if _answered(player, footer):
                actions += 1
            else:  # refused (a card that may not be played): the next card
                player.press("\x1b[C")
        player.wait_for("The Reveal", timeout=30)
        time.sleep(0.5)
        term.pump(0.3)
        return len(term.raw) - start, actions
    finally:
        player.close()


class _Server:
    """What :class:`~tests.ssh.test_e2e.Player` needs of a server: its port."""

    def __init__(self, port: int) -> None:
        self.port = port


def _decision(player: Player) -> str | None:
    """The footer once it offers a decision; None once the game is over (bounded)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        player.term.pump(0.02)
        if "The Reveal" in player.term.text():
            return None
        footer = player.footer()
        if decision_key(footer) is not None:
            return footer
    raise AssertionError(f"no decision and no result:\n{player.term.text()}")


def first_choice(footer: str) -> str:
    """The key of the footer's first decision: the plain session's choice 1 (the footer says
    the decisions in the hub's order: "p Play  x Risk", "r Replace Fate  k Keep Fate"), Enter
    for the card under the cursor ("⏎ Bid")."""
    return "\r" if footer.startswith("⏎") else footer[0]


def _answered(player: Player, footer: str, wait: float = 1.5) -> bool:
    """Whether the decision was taken: the footer changes (bots take about a second to move,
    so the next decision's footer, even the same, comes after another)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        player.term.pump(0.02)
        if player.footer() != footer:
            return True
    return False


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServeProcess(Path(tmp), "--workers", "0", seed=SEED)
        try:
            plain_bytes, actions, prompts, raw = plain_game(server.port)
        finally:
            server.stop()
    with tempfile.TemporaryDirectory() as tmp:
        server = ServeProcess(Path(tmp), "--workers", "0", seed=SEED)
        try:
            screen_bytes, screen_actions = screen_game(server.port)
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
        "screen_bytes": screen_bytes,
        "screen_actions": screen_actions,
        "screen_bytes_per_action": round(screen_bytes / max(1, screen_actions)),
        "plain_to_screen": round(
            (plain_bytes / max(1, actions)) / max(1, screen_bytes / max(1, screen_actions)), 3
        ),
        "prompt_words_max": words,
        "cursor_moves": escapes,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
