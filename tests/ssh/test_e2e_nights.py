"""A game night through the real OpenSSH client: the host makes an event from the lobby,
three players register with one key each, the round seats them all at once (each table opens
by itself) and everyone sees the standings."""

from __future__ import annotations

import re
import time

import pytest

from .conftest import needs_openssh
from .harness import ServeProcess, ssh_keygen
from .test_e2e import Player

pytestmark = needs_openssh

DOWN, LEFT = "\x1b[B", "\x1b[D"


@pytest.fixture
def serve(tmp_path):
    (tmp_path / "serve").mkdir()
    server = ServeProcess(tmp_path / "serve", "--bot-delay", "0.1")
    yield server
    assert server.stop() == 0, server.log()
    assert "Traceback" not in server.log(), server.log()


def test_register_from_the_lobby_be_seated_and_see_the_standings(serve, tmp_path):
    keys = {name: ssh_keygen(tmp_path / name) for name in ("ada", "bo", "cy")}
    people = {name: Player(serve, name.capitalize(), key=key) for name, key in keys.items()}
    try:
        for person in people.values():
            person.enter_lobby()
            assert "v Events" in person.settle()
        ada = people["ada"]
        ada.press("v")
        ada.wait_for("No events yet")
        ada.press("n")
        ada.wait_for("The event's name")
        ada.settle()
        ada.press("Friday\r")
        ada.wait_for("Players left over")
        ada.settle()
        ada.press(DOWN * 3 + LEFT * 2)  # one round
        ada.wait_for("Rounds: < 1 >")
        ada.press("\r")
        ada.wait_for("Registering")
        for person in people.values():
            if person is not ada:
                person.press("v")
                person.wait_for("Friday")
                person.settle()
            person.press("r")
            person.wait_for("you are registered")
        ada.wait_for(r"Cy\s")  # the standings, live: everyone registered
        ada.settle()
        ada.press("s")
        # Seated at once: the table opens by itself, with the round's notice (watched on all
        # three screens together: the notice goes after a while, and a loaded machine may
        # take longer than that to show one screen after another).
        told: set[str] = set()
        deadline = time.monotonic() + 30
        while len(told) < len(people) and time.monotonic() < deadline:
            for key, person in people.items():
                if key not in told:
                    person.term.pump(0.02)
                    if "Round 1 of Friday: your table is" in person.term.text():
                        told.add(key)
        assert told == set(people), {k: p.term.text() for k, p in people.items() if k not in told}
        for person in people.values():
            screen = person.wait_for(r"Table \d+ · stake 0")
            assert all(name in screen for name in ("Ada", "Bo", "Cy", "(you)"))
        bo = people["bo"]
        bo.settle()
        bo.press("\x1b")  # back from the table to the event
        # (the event's screen and its standings: the table below may come a frame later)
        screen = bo.wait_for(
            lambda text: (
                re.search(r"your table: \d+ \(o\)", text) is not None
                and "Standings" in text
                and all(name in text.split("Standings")[1] for name in ("Ada", "Bo", "Cy"))
            )
        )
        assert "Round 1 of 1" in screen
    finally:
        for person in people.values():
            person.close()
