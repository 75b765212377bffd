"""Issue 39: a Prophet table's log keeps its earlier rounds when the player's app moves to
another worker. The hub sends only the round under way; the earlier rounds' lines are the
screen's own, and a move (a fresh app from the old one's state) must carry them over.

A real OpenSSH client, the real Gambit app in two real worker processes; every wait bounded.
"""

from __future__ import annotations

import re
import time

from .conftest import needs_openssh
from .test_app_moves import remotes, workers_of
from .test_e2e import Player
from .test_e2e_prophet import ENGLISH, log_lines, open_table

pytestmark = needs_openssh


def ada_has_turn(screen: str) -> bool:
    return re.search(r"^│ ▶ Ada\b(?! \d)", screen, re.M) is not None


def test_a_moved_prophet_table_keeps_the_log_of_its_earlier_rounds(standin_server, tmp_path):
    from .harness import ssh_keygen

    server = standin_server(app_workers=2)
    ada = Player(server, "Ada", key=ssh_keygen(tmp_path / "ada"), rows=44)
    try:
        ada.enter_lobby()
        open_table(ada)  # three seats, a cap of 2: a round of 1 card, then one of 2
        for bot in ("Bot 2", "Bot 3"):
            ada.settle()
            ada.press("b")
            ada.wait_for(bot)
        ada.settle()
        ada.press("s")
        # Ada presses what the footer offers until round 2 is dealt and it is her turn
        # (the bots then wait for her): round 1 is only in the log the screen kept.
        deadline = time.monotonic() + 60
        pressed = ""
        while True:
            assert time.monotonic() < deadline, ada.term.text()
            screen = ada.settle(quiet=0.3)
            lines = log_lines(screen, ENGLISH)
            if any(line.startswith("Round 2: ") for line in lines) and ada_has_turn(screen):
                break
            footer = screen.splitlines()[-1]
            if ada_has_turn(screen) and screen != pressed:
                ada.press("\r" if "⏎" in footer else "\x1b[C")
                pressed = screen
        before = log_lines(screen, ENGLISH)
        assert before[0].startswith("Round 1: ") and any(
            line.startswith("Round 1 scored: ") for line in before
        ), before

        remote = remotes(server)["Ada"]

        def move_ada() -> int:
            pool = server.host.workers
            other = next(w for w in pool.ready_workers() if w is not remote.worker)
            pool.placement.home = lambda app, workers: other  # (the rule agrees once moved)
            remote.move_to(other)
            return other.number

        moved_to = server.sync(move_ada)
        ada.term.wait_for(lambda t: workers_of(server)["Ada"] == moved_to, timeout=20)
        after = ada.settle(quiet=0.5)
        assert log_lines(after, ENGLISH) == before, (before, after)
    finally:
        ada.close()
