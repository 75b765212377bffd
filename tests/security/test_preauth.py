"""Hole 2 of issue 17: connections that never log in must not lock anyone out.

Attackers open plain TCP sockets that send nothing, from one loopback address (127.0.0.2) or
from many (127.0.0.2-41); others keep failing a password, or connect and hang up in a tight
loop. Every time, a normal player from 127.0.0.1 still comes in and reaches the lobby.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time

import asyncssh
import pytest

from .clients import reaches_lobby
from .procs import serve, serve_log


def idle_sockets(port: int, sources: list[str], count: int) -> list[socket.socket]:
    """``count`` TCP connections that never send a byte, spread over ``sources``."""
    socks = []
    for i in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((sources[i % len(sources)], 0))
        sock.settimeout(5)
        sock.connect(("127.0.0.1", port))
        socks.append(sock)
    return socks


def closed_by_server(socks: list[socket.socket], within: float) -> int:
    """How many of ``socks`` the server closed (after at most its version and a goodbye)."""
    deadline = time.monotonic() + within
    closed: set[int] = set()
    while time.monotonic() < deadline and len(closed) < len(socks):
        for i, sock in enumerate(socks):
            if i in closed:
                continue
            sock.setblocking(False)
            try:
                while data := sock.recv(65536):
                    del data
                else:
                    closed.add(i)
            except BlockingIOError:
                pass
            except OSError:
                closed.add(i)
        time.sleep(0.05)
    return len(closed)


@pytest.fixture
def server(tmp_path):
    proc, port = serve(tmp_path / "data", "--login-timeout", "3")
    yield proc, port, tmp_path / "data"
    proc.stop()


async def test_500_idle_sockets_from_one_address(server):
    _proc, port, data = server
    socks = idle_sockets(port, ["127.0.0.2"], 500)
    try:
        # All but the ten the address may hold are closed at once.
        assert closed_by_server(socks, within=5) >= 490
        took = await reaches_lobby(port, "Ada")
        assert took < 10
    finally:
        for sock in socks:
            sock.close()
    assert "from your address" in serve_log(data)  # refused, and why, in the log


async def test_idle_sockets_from_many_addresses_make_room_for_players(server):
    _proc, port, _data = server
    sources = [f"127.0.0.{n}" for n in range(2, 42)]  # 40 addresses, 5 sockets each
    socks = idle_sockets(port, sources, 200)
    try:
        # At most 50 may be logging in at once: the oldest are dropped for newer ones.
        assert closed_by_server(socks, within=3) >= 150
        await reaches_lobby(port, "Ada")
        await reaches_lobby(port, "Bo")
    finally:
        for sock in socks:
            sock.close()


async def test_the_login_timeout_closes_an_idle_connection(server):
    _proc, port, _data = server
    (sock,) = idle_sockets(port, ["127.0.0.3"], 1)
    try:
        started = time.monotonic()
        assert closed_by_server([sock], within=8) == 1
        assert 2.5 < time.monotonic() - started < 8
    finally:
        sock.close()


def hello_and_hang_up(port: int, source: str) -> bytes:
    """Connect, read what the server says in the first moments, hang up."""
    (sock,) = idle_sockets(port, [source], 1)
    said = b""
    with contextlib.suppress(OSError):
        sock.settimeout(0.1)
        while chunk := sock.recv(4096):
            said += chunk
    sock.close()
    return said


async def test_connection_churn_is_slowed_and_players_still_come_in(server):
    _proc, port, _data = server
    # A burst of 30 connections is allowed (made here one after another, each hung up) ...
    for _ in range(30):
        idle_sockets(port, ["127.0.0.4"], 1)[0].close()
        await asyncio.sleep(0.01)  # the server sees it go before the next comes
    # ... and a client refused after it is told why ...
    with pytest.raises(asyncssh.DisconnectError, match="Too many new connections"):
        await login(port, "", "127.0.0.4")
    # ... the first few times a minute; after that the door just closes (it costs the server
    # least): no SSH banner, nothing built for the connection.
    said = [hello_and_hang_up(port, "127.0.0.4") for _ in range(30)]
    dropped = sum(not s.startswith(b"SSH-2.0-") for s in said)
    assert dropped >= 20, said
    await reaches_lobby(port, "Ada")


class Password(asyncssh.SSHClient):
    """Gives its password once per connection, as a person typing it would."""

    def __init__(self, password: str) -> None:
        self.password: str | None = password

    def password_auth_requested(self) -> str | None:
        password, self.password = self.password, None
        return password


async def login(port: int, password: str, source: str) -> float:
    """Try ``password``; returns how long the answer took. Raises PermissionDenied."""
    started = time.monotonic()
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username="play",
        known_hosts=None,
        client_keys=None,
        agent_path=None,
        preferred_auth=["password"],
        client_factory=lambda: Password(password),
        local_addr=(source, 0),
    )
    conn.close()
    return time.monotonic() - started


async def test_password_guessing_is_slowed_then_refused(tmp_path):
    secret = tmp_path / "password"
    secret.write_text("s3cret\n")
    proc, port = serve(
        tmp_path / "data", "--password-file", str(secret), "--max-auth-failures", "4"
    )
    try:
        times = []
        for _ in range(3):
            started = time.monotonic()
            with pytest.raises((asyncssh.PermissionDenied, asyncssh.DisconnectError)):
                await login(port, "guess", "127.0.0.5")
            times.append(time.monotonic() - started)
        assert times[2] > times[0] + 0.3, times  # each failure answers later than the last
        with pytest.raises((asyncssh.PermissionDenied, asyncssh.DisconnectError)):
            await login(port, "guess", "127.0.0.5")  # the fourth: the address is refused
        # Now even the right password is refused from that address, with a reason ...
        with pytest.raises(asyncssh.DisconnectError, match="failed logins"):
            await login(port, "s3cret", "127.0.0.5")
        # ... and another address logs in as usual.
        assert await asyncio.wait_for(login(port, "s3cret", "127.0.0.6"), 10) < 2
    finally:
        proc.stop()
