"""End to end (issue 44): a player in plain mode and a player on the full screen at one table
see the same moves. Over real ``ssh``, Ada (``Ada+plain``) opens a table of Prophet, Bo joins
it from the full-screen lobby, a bot takes the third seat, and they play the game through:
Ada by typed numbers, Bo by the keys his footer offers. Every event Ada hears, in order, is
a line of Bo's log (his cards by sign, hers by name), and the result's places agree.
"""

from __future__ import annotations

import re
import time

from .conftest import needs_openssh
from .harness import ServeProcess, SSHTerminal, ssh_command
from .screens import decision_key
from .test_e2e import Player, join
from .test_e2e_plain import _lines

pytestmark = needs_openssh

RANKS = {"A": "Ace", "K": "King", "Q": "Queen", "J": "Jack"}
SUITS = {"♠": "Spades", "♥": "Hearts", "♦": "Diamonds", "♣": "Clubs"}


def named(line: str) -> str:
    """A full-screen line with its cards as the plain mode names them ("Q♣": "Queen of Clubs")."""
    return re.sub(
        r"\b([AKQJ]|\d+)([♠♥♦♣])",
        lambda m: f"{RANKS.get(m[1], m[1])} of {SUITS[m[2]]}",
        line,
    )


def log_lines(screen: str) -> list[str]:
    """The lines of the full screen's Log box, as far as a box drawn over it leaves them."""
    rows = screen.splitlines()
    top = next(i for i, row in enumerate(rows) if row.startswith("╭─ Log"))
    out = []
    for row in rows[top + 1 :]:
        if row.startswith("╰"):
            break
        out.append(re.split(r"[│╭╰]", row[1:])[0].strip())
    return out


def plain_events(raw: bytes) -> list[str]:
    """What the plain session said from the first deal to the end, prompts and typing left out."""
    lines = [line.lstrip("\a") for line in _lines(raw)]
    start = next(i for i, line in enumerate(lines) if line.startswith("Round 1:"))
    end = lines.index("Game over.")
    return [x for x in lines[start:end] if "Choices:" not in x and not x.isdigit()]


def test_plain_and_full_screen_see_the_same_moves(tmp_path):
    server = ServeProcess(tmp_path, "--workers", "0", "--bot-delay", "0", seed=7)
    ada = SSHTerminal(ssh_command(server.port, "Ada+plain"), cols=100, rows=40)
    bo = Player(server, "Bo", cols=120, rows=60)  # (a log tall enough for the whole game)
    try:
        ada.wait_for("help for more")
        ada.send("new prophet cap 2\r")
        ada.wait_for("You sit at table 1")
        bo.enter_lobby()
        join(bo, "1", owner="Ada")
        ada.wait_for("Bo takes seat 2")
        ada.send("bot\r")
        ada.wait_for("Bot 3 takes seat 3")
        ada.send("start\r")

        # The log only grows during the game: keep each of its lines at its fullest.
        log: list[str] = []
        answered, pressed, result = 0, ("", 0.0), ""
        deadline = time.monotonic() + 120
        while "Game over." not in ada.output() or not result:
            assert time.monotonic() < deadline, (ada.output()[-800:], bo.term.text())
            ada.pump(0.02)
            bo.term.pump(0.02)
            screen = bo.term.text()
            if "╭─ Log" in screen:
                for i, line in enumerate(log_lines(screen)):
                    if i == len(log):
                        log.append(line)
                    elif len(line) > len(log[i]):
                        log[i] = line
            if ada.output().count("Choices:") > answered:
                answered += 1
                ada.send("1\r")
            if "─ Result" in screen:
                result = screen  # (left open: Enter would close it)
                continue
            footer = bo.footer()
            key = decision_key(footer)
            now = time.monotonic()
            if key and not (pressed[0] == footer and now - pressed[1] < 1.0):
                if pressed[0] == footer:
                    bo.press("\x1b[C")  # the same question again: that card was refused
                bo.press(key)
                pressed = (footer, now)
        ada.wait_for(lambda s: "Winner:" in ada.output())
        raw = bytes(ada.raw)
    finally:
        ada.close()
        bo.close()
        server.stop()

    said = plain_events(raw)
    shown = [named(line) for line in log if line]
    assert log[-1] == "", "the log scrolled: make the terminal taller"
    assert answered >= 4 and sum(" plays " in x for x in said) == 9  # 3 cards each
    # Every event Ada heard is Bo's log line in the same place (his cut short by the
    # result's box at most); his last line says the end, which her result says.
    assert len(shown) == len(said) + 1, (shown, said)
    for heard, seen in zip(said, shown, strict=False):
        assert heard.startswith(seen) and len(seen) >= min(len(heard), 16), (heard, seen)
    assert shown[-1].startswith("The game is over.")
    assert "Bo plays" in "\n".join(shown) and "Ada plays" in "\n".join(shown)

    # The same places, names and points on both.
    heard_places = re.findall(r"Place (\d): (.+?)(?: \(you\))?, (-?\d+) points?;", ada_text(raw))
    seen_places = re.findall(r"│ (\d)  (.+?)(?: \(you\))?\s+(-?\d+)\s+[+-]\d+ ", result)
    assert len(heard_places) == 3 and heard_places == seen_places, (heard_places, result)


def ada_text(raw: bytes) -> str:
    return "\n".join(_lines(raw))
