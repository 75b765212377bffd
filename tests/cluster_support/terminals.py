"""Real terminal players in the chaos run: OpenSSH ``ssh`` in a pseudo-terminal (80x24),
running the app through a gateway, as a person at a terminal does.

Each is a registered player (a key of its own, made by ``ssh-keygen``), seated at a table with
light clients (it accepts the table owner's invitation: Ctrl+R, then y), pressing Enter now
and then while its table is on screen (a move, or a result closed; the table's turn timer
plays what Enter does not). Its screen is kept with pyte (:class:`tests.ssh.harness.SSHTerminal`,
read here from the event loop instead of by polling).

When its SSH session ends (its gateway was killed), the player does what a person does: types
``ssh`` again a few seconds later, to any gateway that is up (counted: ``reconnects``). Through
a hub failover, a NATS or a PostgreSQL restart the session stays up.

Whether it is back after a fault is read off its screen: its table's screen, showing a line
said at the table once the fault was healed (a light client at the table says it: see
``tests/cluster_support/chaos.py``), so the line went through the hub and back to this
terminal since (at a Fortunes table of four at 80x24, on the line under the won tricks while a
card is to be played); or the lobby, if its table has closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.ssh.harness import SSHTerminal, ssh_command
from tests.ssh.screens import LOBBY, PAST_WELCOME, WELCOME, table_title

#: Seconds between a player's presses of Enter at its table (uniform).
ENTER_EVERY = (1.0, 3.0)
#: Seconds a player takes to notice its session ended and to type ``ssh`` again (uniform).
COME_BACK_AFTER = (1.0, 3.0)


@dataclass
class Terminal:
    """One player at a real terminal."""

    index: int
    key: Path
    rng: random.Random
    term: SSHTerminal | None = None
    #: The table it sits at, and its seat (once seated).
    table: int | None = None
    seat: int | None = None
    #: The gateway's port it last connected to.
    port: int = 0
    #: SSH sessions opened, and those opened again after one ended under the player.
    connects: int = 0
    reconnects: int = 0
    #: (monotonic) when output last arrived.
    output_at: float = 0.0
    #: What the screen must show to be back after a fault (see :meth:`expect`), and when it
    #: first did (monotonic; None: not yet).
    _expected: Callable[[str], bool] | None = None
    back_at: float | None = None
    #: (monotonic) when this session's screen last showed its table's title (chat lines
    #: shown as notices, at a Fortunes table, can cover it for a while).
    title_at: float = 0.0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    ended: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def name(self) -> str:
        return f"chaost{self.index:02d}"

    # --- the session ------------------------------------------------------------------------

    def open(self, port: int) -> None:
        """``ssh`` to the gateway on ``port``, its output read as it comes."""
        self.close()
        self.ended.clear()
        self.term = SSHTerminal(ssh_command(port, self.name, key=self.key))
        self.port = port
        self.title_at = 0.0
        self.connects += 1
        asyncio.get_running_loop().add_reader(self.term.master, self._readable)

    def _readable(self) -> None:
        term = self.term
        assert term is not None
        try:
            data = os.read(term.master, 65536)
        except OSError:  # (the pty's other end closed: ssh has exited)
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(term.master)
            self.ended.set()
            self.changed.set()
            return
        term.stream.feed(data)  # (not term.raw: a run's output would pile up there)
        self.output_at = time.monotonic()
        if self.table is not None:
            screen = self.text()
            if table_title(self.table) in screen:
                self.title_at = self.output_at
            if self._expected is not None and self.back_at is None and self._expected(screen):
                self.back_at = self.output_at
        self.changed.set()

    def close(self) -> None:
        term, self.term = self.term, None
        if term is not None:
            with contextlib.suppress(ValueError, OSError):
                asyncio.get_running_loop().remove_reader(term.master)
            term.close()

    @property
    def up(self) -> bool:
        return self.term is not None and not self.ended.is_set()

    def text(self) -> str:
        return self.term.text() if self.term is not None else ""

    def press(self, keys: str) -> None:
        if self.up:
            assert self.term is not None
            with contextlib.suppress(OSError):
                self.term.send(keys)

    async def wait_for(self, texts: tuple[str, ...], timeout: float) -> str:
        """Wait until the screen shows one of ``texts``; returns it."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.text()
            for text in texts:
                if text in screen:
                    return text
            left = deadline - time.monotonic()
            if left <= 0 or not self.up:
                raise AssertionError(f"{self.name}: none of {texts!r} on screen:\n{screen}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 1.0))

    def at_table(self) -> bool:
        return self.table is not None and table_title(self.table) in self.text()

    # --- after a fault ----------------------------------------------------------------------

    def expect(self, marker: str | None, since: float) -> None:
        """From now on, note when the screen first shows the player back: its table (its title
        shown by this session since ``since``, the fault: a notice may cover it now) with a
        line that starts with ``marker`` (said there after the fault was healed), or
        (``marker`` None: its table has closed) the lobby, with output that came after
        ``since``."""
        if marker is None:

            def back(screen: str) -> bool:
                return LOBBY in screen and self.output_at > since

        else:
            said = re.compile(re.escape(marker) + r"\d")
            title = table_title(self.table or 0)

            def back(screen: str) -> bool:
                # (its table's title on this session's screen since the fault, if covered now)
                if title in screen:
                    self.title_at = time.monotonic()
                if self.title_at <= since:
                    return False
                return said.search(screen) is not None

        self.back_at = None
        self._expected = back
        if self.up and back(self.text()):
            self.back_at = time.monotonic()

    def stop_expecting(self) -> None:
        self._expected = None


async def terminal_life(
    terminal: Terminal, ports: Callable[[], list[int]], stop: asyncio.Event
) -> None:
    """Connect (to a gateway up), press Enter now and then at its table; when the session
    ends under the player, ``ssh`` again a few seconds later (to any gateway up)."""
    rng = terminal.rng
    while not stop.is_set():
        choices = ports()
        if not choices:
            await asyncio.sleep(0.5)
            continue
        try:
            # (the first time, the terminals spread over the gateways in turn)
            first = terminal.connects == 0
            terminal.open(choices[terminal.index % len(choices)] if first else rng.choice(choices))
            # A new key sees the welcome screen; a known one goes straight back.
            if await terminal.wait_for((WELCOME, *PAST_WELCOME), 60) == WELCOME:
                terminal.press("\r")
            while not stop.is_set() and terminal.up:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(terminal.ended.wait(), rng.uniform(*ENTER_EVERY))
                if terminal.at_table():
                    terminal.press("\r")  # a move, or a result closed
        except Exception:  # (its gateway killed while it connected: as below)
            pass
        finally:
            terminal.close()
        if stop.is_set():
            break
        terminal.reconnects += 1
        await asyncio.sleep(rng.uniform(*COME_BACK_AFTER))
