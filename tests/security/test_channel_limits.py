"""The limits hold on the ``gambit`` channel too (issue 41): a player's own program speaks the
protocol straight to the hub, so nothing an app would never send may cost more there.

Against a real ``gambit serve``: a flood of seat changes is refused past the budget and cut
off while a bystander's pings stay quick; many channels on one SSH connection count against
the address's sessions; an oversized frame is refused and the channel carries on. On a hub in
the test's loop: a channel that never says hello is closed at the hello's deadline.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from protocol.messages import PROTOCOL_VERSION
from tests.hub.harness import Client
from tests.ssh.channel_harness import channel_client, closed, login, running

from .procs import serve
from .test_lobby_flood import flood, p99, pings


@pytest.fixture
def server(tmp_path):
    proc, port = serve(tmp_path / "data", "--bot-delay", "600")
    yield port
    proc.stop()


async def guest(port: int, name: str) -> tuple[object, Client]:
    ssh, client = await channel_client(port)
    await client.hello(name)
    await client.expect("lobby")
    return ssh, client


async def test_a_flood_of_seat_changes_is_cut_off_and_others_play_on(server):
    ssh_b, bystander = await guest(server, "Bystander")
    ssh_a, attacker = await guest(server, "Flood")
    try:
        await attacker.send("create_table", game="prophets_gambit", players=5)
        table = (await attacker.until(lambda m: m["t"] == "table"))["table"]
        stop = asyncio.Event()
        measured = asyncio.get_running_loop().create_task(pings(bystander, stop))
        messages = []
        for _ in range(1500):
            messages.append({"t": "add_bot", "table": table, "seat": 1})
            messages.append({"t": "remove_bot", "table": table, "seat": 1})
        await flood(attacker, messages)
        bye = await attacker.until(lambda m: m["t"] == "bye", timeout=30)
        assert bye["code"] == "too_fast"
        await asyncio.wait_for(closed(attacker), 10)
        await asyncio.sleep(0.5)
        stop.set()
        during = await measured
        assert len(during) >= 3 and p99(during) < 100, during
        accepted = sum(1 for m in attacker.log if m["t"] == "table") - 1
        assert accepted <= 15, accepted
    finally:
        for client, ssh in ((attacker, ssh_a), (bystander, ssh_b)):
            with contextlib.suppress(Exception):
                await client.close()
            ssh.close()  # type: ignore[attr-defined]


async def test_channels_on_one_connection_count_against_the_address(server):
    ssh = await login(server)
    from protocol.ssh_channel import open_channel

    clients = []
    try:
        for _ in range(10):  # gambit serve's default: ten sessions from one address
            client = Client(await open_channel(ssh))
            clients.append(client)
            await client.hello()
        extra = Client(await open_channel(ssh))
        clients.append(extra)
        bye = await extra.expect("bye")
        assert bye["code"] == "refused" and "Too many sessions" in bye["message"]
        await asyncio.wait_for(closed(extra), 5)
    finally:
        for client in clients:
            with contextlib.suppress(Exception):
                await client.close()
        ssh.close()


async def test_an_oversized_frame_is_refused_and_the_channel_carries_on(server):
    ssh, client = await guest(server, "Big")
    try:
        client.conn.write((64 * 1024).to_bytes(4, "big") + b"\0" * (64 * 1024))
        error = await client.expect("error")
        assert error["code"] == "frame_too_large"
        await client.send("ping", n=1)
        await client.expect("pong", n=1)
    finally:
        await client.close()
        ssh.close()


async def test_a_channel_that_never_says_hello_is_closed_at_the_deadline(tmp_path):
    async with running(tmp_path, hello_timeout=1.0) as local:
        ssh, silent = await channel_client(local.port)
        try:
            await asyncio.wait_for(closed(silent), 5)
            assert not local.host.sessions
            # A hello after the deadline: the channel is gone.
            with contextlib.suppress(Exception):
                await silent.send("hello", v=PROTOCOL_VERSION)
            assert silent.closed
        finally:
            ssh.close()
