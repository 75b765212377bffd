"""What a player types before their app is ready to read it.

A session's keystrokes can arrive before its app's driver is attached (the app still
starting, in the SSH process or in a worker): they are kept, up to ``MAX_EARLY_INPUT`` bytes,
and given to the driver when it attaches, so the first keys a quick player types are not lost.
The SSH session (``server/ssh/session.py``) and a worker's session
(``server/apphost/app_worker.py``) keep them the same way, here.
"""

from __future__ import annotations

from typing import Any, Protocol

#: Input that arrives before the app is ready is kept, up to this much.
MAX_EARLY_INPUT = 4 * 1024


class Feedable(Protocol):
    def feed(self, data: bytes) -> None: ...


class EarlyInput:
    """A driver's terminal that keeps input until a driver attaches (``feed_input``,
    ``attach``, ``detach``); ``driver`` is whatever takes the keystrokes now."""

    driver: Any = None

    def __init__(self) -> None:
        self._early = bytearray()

    def feed_input(self, data: bytes) -> None:
        """Give ``data`` to the driver, or keep it for the driver to come."""
        if self.driver is not None:
            self.driver.feed(data)
        elif len(self._early) + len(data) <= MAX_EARLY_INPUT:
            self._early += data

    def hand_over_early_input(self, to: Feedable) -> None:
        """Give what was kept to ``to`` (once)."""
        if self._early:
            data, self._early = bytes(self._early), bytearray()
            to.feed(data)

    def attach(self, driver: Any) -> None:
        self.driver = driver
        self.hand_over_early_input(driver)

    def detach(self, driver: Any) -> None:
        if self.driver is driver:
            self.driver = None
