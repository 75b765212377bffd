"""Real clients for the attacks and for the bystanders who must not notice them: asyncssh
sessions with a PTY (any size, any source address on loopback) and plain sockets."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import asyncssh
import pyte

WELCOME = "Enter the lobby"
LOBBY = "Lobby chat"


class Guest(asyncssh.SSHClient):
    """Keyboard-interactive with no prompts: how a player without a key comes in."""

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(self, name, instructions, lang, prompts):
        return [""] * len(prompts)


class Screen(asyncssh.SSHClientSession):
    """What the server sent, on a pyte screen of the client's size, plus a byte count."""

    def __init__(self, cols: int, rows: int) -> None:
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.bytes = 0
        self.raw = bytearray()
        self.changed = asyncio.Event()
        self.closed = False

    def data_received(self, data: bytes, datatype: Any) -> None:
        self.bytes += len(data)
        if len(self.raw) < 1 << 20:
            self.raw += data[: (1 << 20) - len(self.raw)]
        self.stream.feed(data)
        self.changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.changed.set()

    def text(self) -> str:
        return "\n".join(self.screen.display)


async def connect(
    port: int,
    name: str = "play",
    *,
    size: tuple[int, int] = (80, 24),
    source: str | None = None,
    screen_size: tuple[int, int] | None = None,
) -> tuple[asyncssh.SSHClientConnection, asyncssh.SSHClientChannel, Screen]:
    """A guest session with a PTY of ``size`` (what the client claims), from ``source``."""
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=name,
        known_hosts=None,
        client_keys=None,
        agent_path=None,
        preferred_auth=["keyboard-interactive"],
        client_factory=Guest,
        local_addr=(source, 0) if source else None,
    )
    cols, rows = screen_size or (min(size[0], 300), min(size[1], 100))
    chan, session = await conn.create_session(
        lambda: Screen(cols, rows), term_type="xterm-256color", term_size=size, encoding=None
    )
    return conn, chan, session


async def shows(session: Screen, text: str, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while text not in session.text():
        left = deadline - time.monotonic()
        if left <= 0 or session.closed:
            return False
        session.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(session.changed.wait(), left)
    return True


async def reaches_lobby(port: int, name: str = "Bystander", timeout: float = 30.0) -> float:
    """A normal player connects, passes the welcome screen and sees the lobby; returns how
    long that took (s). Raises if they cannot."""
    started = time.monotonic()
    conn, chan, session = await connect(port, name)
    try:
        assert await shows(session, WELCOME, timeout), session.text()
        chan.write(b"\r")
        assert await shows(session, LOBBY, timeout), session.text()
        return time.monotonic() - started
    finally:
        conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(conn.wait_closed(), 5)


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0
