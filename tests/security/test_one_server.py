"""Hole 5 of issue 17: one server per data directory.

A second ``gambit serve`` or ``gambit hub`` on a data directory in use exits at once, naming
the one that runs, and the first one carries on (its SSH port, its socket) untouched. What a
SIGKILLed server leaves behind (its lock file, its socket) never blocks a restart.
"""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path

import pytest

from server.hub.listener import SocketInUse, remove_stale_socket
from server.store import DataDirInUse, lock_data_dir
from server.store.lock import LOCK_NAME
from tests.hub.harness import connect_unix

from .procs import Gambit, hub, serve

#: A refused second instance must be this quick (it is Python starting, and no more).
REFUSED_WITHIN = 10.0


def ssh_banner(port: int) -> bytes:
    """The first line an SSH server sends: proof that it accepts connections."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.settimeout(5)
        return conn.recv(64)


def say_hello(path: Path) -> dict:
    async def hello() -> dict:
        client = await connect_unix(str(path))
        try:
            return await client.hello("Ada", identity="SHA256:ada")
        finally:
            await client.close()

    return asyncio.run(asyncio.wait_for(hello(), 10))


def refused(proc: Gambit) -> str:
    started = time.monotonic()
    code = proc.wait(REFUSED_WITHIN)
    assert code != 0, proc.out
    assert time.monotonic() - started < REFUSED_WITHIN
    return proc.err


def test_a_second_serve_on_the_same_data_dir_exits_naming_the_first(tmp_path):
    data = tmp_path / "data"
    first, port = serve(data)
    try:
        message = refused(Gambit("serve", "--port", "0", "--data-dir", str(data)))
        assert f"pid {first.pid}: gambit serve on 127.0.0.1 port {port}" in message
        assert "Gambit is serving" not in message
        assert ssh_banner(port).startswith(b"SSH-2.0-")
        # A hub on that folder would drive the same ledger: refused too.
        assert f"pid {first.pid}: gambit serve" in refused(Gambit("hub", "--data-dir", str(data)))
        assert ssh_banner(port).startswith(b"SSH-2.0-")
    finally:
        first.stop()
    assert first.proc.returncode == 0


def test_a_second_hub_exits_and_leaves_the_first_ones_socket_alone(tmp_path):
    data = tmp_path / "data"
    sock = data / "hub.sock"
    first = hub(data)
    try:
        message = refused(Gambit("hub", "--data-dir", str(data)))
        assert f"pid {first.pid}: gambit hub on {sock}" in message
        # Another data directory, but the same socket path: the live socket stays.
        other = refused(Gambit("hub", "--data-dir", str(tmp_path / "other"), "--unix", str(sock)))
        assert "in use by a running hub" in other
        assert sock.is_socket()
        assert say_hello(sock)["t"] == "welcome"
    finally:
        first.stop()
    assert first.proc.returncode == 0
    assert "Traceback" not in first.err and "ERROR" not in first.err, first.err


def test_what_a_killed_hub_leaves_behind_does_not_block_a_restart(tmp_path):
    data = tmp_path / "data"
    first = hub(data)
    first.kill()
    assert (data / LOCK_NAME).exists() and (data / "hub.sock").is_socket()
    again = hub(data)
    try:
        assert f"pid {again.pid}: gambit hub" in (data / LOCK_NAME).read_text()
        assert say_hello(data / "hub.sock")["t"] == "welcome"
    finally:
        again.stop()


def test_what_a_killed_serve_leaves_behind_does_not_block_a_restart(tmp_path):
    data = tmp_path / "data"
    first, _ = serve(data)
    first.kill()
    again, port = serve(data)
    try:
        assert ssh_banner(port).startswith(b"SSH-2.0-")
    finally:
        again.stop()


def test_the_lock_is_held_until_released_and_says_who_holds_it(tmp_path):
    lock = lock_data_dir(tmp_path / "new", "gambit hub on x.sock")
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700
    with pytest.raises(DataDirInUse, match=r"is in use by pid \d+: gambit hub on x\.sock"):
        lock_data_dir(tmp_path / "new", "gambit serve")
    lock.release()
    with lock_data_dir(tmp_path / "new", "gambit serve") as again:
        assert "gambit serve" in again.path.read_text()


def test_only_a_stale_socket_is_removed(tmp_path):
    stale = tmp_path / "stale.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(stale))
    listener.close()  # bound, never listened on: what a killed hub leaves
    remove_stale_socket(str(stale))
    assert not stale.exists()
    remove_stale_socket(str(stale))  # nothing there: fine
    live = tmp_path / "live.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(live))
    listener.listen()
    try:
        with pytest.raises(SocketInUse, match="in use"):
            remove_stale_socket(str(live))
        assert live.is_socket()
    finally:
        listener.close()
    plain = tmp_path / "notes.txt"
    plain.write_text("keep me")
    with pytest.raises(SocketInUse, match="not a socket"):
        remove_stale_socket(str(plain))
    assert plain.read_text() == "keep me"
