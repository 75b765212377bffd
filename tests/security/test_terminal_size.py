"""Hole 1 of issue 17: a huge terminal size must not exhaust an app worker's memory.

The attacker is a keyless guest who claims 65535×65535 in the PTY request, in window changes
and in band (an xterm's own size report, once the server asked for them). The app worker that
runs its session must grow by less than 50 MB, and a bystander on the same worker plays on.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from server.terminal.term_size import MAX_HEIGHT, MAX_WIDTH, clamp_size

from .clients import LOBBY, WELCOME, connect, reaches_lobby, rss_mb, shows
from .procs import children, serve

HUGE = (65535, 65535)


def test_clamp_size_keeps_real_sizes_and_clamps_claims():
    assert clamp_size(80, 24) == (80, 24)
    assert clamp_size(*HUGE) == (MAX_WIDTH, MAX_HEIGHT)
    assert clamp_size(0, 0) == (80, 24)
    assert clamp_size(0, 50, fallback=(120, 40)) == (120, 50)
    assert clamp_size(-5, 1) == (80, 1)


@pytest.fixture
def server(tmp_path):
    proc, port = serve(tmp_path / "data", "--workers", "1")
    yield proc, port
    proc.stop()


async def test_huge_sizes_in_the_pty_request_window_changes_and_in_band(server):
    proc, port = server
    (worker,) = children(proc.pid)
    # A bystander on the same (only) worker, already in the lobby.
    b_conn, b_chan, bystander = await connect(port, "Bea")
    assert await shows(bystander, WELCOME)
    b_chan.write(b"\r")
    assert await shows(bystander, LOBBY)
    await asyncio.sleep(0.5)
    before = rss_mb(worker)
    peak = before
    conn, chan, attacker = await connect(port, "Mallory", size=HUGE, screen_size=(100, 30))
    try:
        for _ in range(20):  # the first screen, at whatever size was accepted
            await asyncio.sleep(0.1)
            peak = max(peak, rss_mb(worker))
        for width, height in [(65535, 65535), (1, 1), (65535, 2), (0, 0), (65535, 65535)]:
            chan.change_terminal_size(width, height)
            for _ in range(5):
                await asyncio.sleep(0.1)
                peak = max(peak, rss_mb(worker))
        # In band: say the terminal has mode 2048 (reset), then report a huge size.
        chan.write(b"\x1b[?2048;2$y")
        await asyncio.sleep(0.2)
        chan.write(b"\x1b[48;65535;65535;0;0t")
        for _ in range(10):
            await asyncio.sleep(0.1)
            peak = max(peak, rss_mb(worker))
        assert not attacker.closed
        # The bystander is unharmed: the lobby answers their keys, a new player comes in.
        await reaches_lobby(port, "Cy")
        assert not bystander.closed
    finally:
        conn.close()
        b_conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(conn.wait_closed(), 5)
    assert peak - before < 50, f"the worker grew from {before:.0f} to {peak:.0f} MB"
