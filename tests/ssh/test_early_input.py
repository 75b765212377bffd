"""Keys typed while a session's app is still starting reach it once its driver attaches (up to
a cap), in the SSH process and in an app worker alike (both keep them with EarlyInput)."""

from __future__ import annotations

from server.apphost.in_process import LocalApp
from server.ssh.session import GameSession
from server.terminal.early_input import MAX_EARLY_INPUT, EarlyInput


class Driver:
    def __init__(self) -> None:
        self.fed: list[bytes] = []

    def feed(self, data: bytes) -> None:
        self.fed.append(data)


def test_keys_before_the_driver_are_kept_and_handed_over_once():
    term = EarlyInput()
    term.feed_input(b"ab")
    term.feed_input(b"c")
    driver = Driver()
    term.attach(driver)
    assert driver.fed == [b"abc"]
    term.feed_input(b"d")  # now straight through
    assert driver.fed == [b"abc", b"d"]
    term.detach(Driver())  # another driver's detach leaves ours
    term.feed_input(b"e")
    assert driver.fed[-1] == b"e"
    term.detach(driver)
    term.feed_input(b"f")
    again = Driver()
    term.attach(again)
    assert again.fed == [b"f"] and driver.fed[-1] == b"e"


def test_no_more_than_the_cap_is_kept():
    term = EarlyInput()
    term.feed_input(b"x" * (MAX_EARLY_INPUT - 1))
    term.feed_input(b"yy")  # over the cap: dropped whole, as a paste cut short
    term.feed_input(b"z")
    driver = Driver()
    term.attach(driver)
    assert driver.fed == [b"x" * (MAX_EARLY_INPUT - 1) + b"z"]


def test_both_kinds_of_session_keep_early_keys_this_way():
    assert issubclass(GameSession, EarlyInput) and issubclass(LocalApp, EarlyInput)
