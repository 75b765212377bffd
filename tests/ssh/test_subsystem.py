"""The ``gambit`` subsystem (issue 41): the protocol over an SSH channel on the game's port.

A real asyncssh client on loopback talks to a real SSH host and hub: the hello's identity is
the SSH key's whatever the client wrote, a guest has none, a banned key is refused at login,
another protocol version is refused with both versions named, other subsystems and commands
are still refused, and OpenSSH's own ``ssh -s`` reaches the channel without a terminal.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest

from protocol.codec import FrameDecoder, encode
from protocol.messages import PROTOCOL_VERSION
from tests.hub.harness import play_to_end, table_with_bots

from .channel_harness import Server, channel_client, closed, login, running
from .conftest import needs_openssh
from .harness import key_fingerprint, ssh_command


@pytest.fixture
async def server(tmp_path) -> AsyncIterator[Server]:
    async with running(tmp_path) as running_server:
        yield running_server


async def test_a_key_plays_a_deal_against_bots_over_the_channel(server, client_key):
    ssh, client = await channel_client(server.port, client_key)
    try:
        # The client claims another identity: the SSH key's is the one the hub takes.
        await client.send("hello", v=PROTOCOL_VERSION, name="Ada", lang="en", identity="admin:x")
        welcome = await client.expect("welcome")
        assert welcome["you"]["id"] == key_fingerprint(client_key)
        assert welcome["you"]["name"] == "Ada" and not welcome["you"]["guest"]
        await client.expect("lobby")
        table = await table_with_bots(client, "prophets_gambit", 3)
        await client.send("start", table=table)
        view = await play_to_end({0: client}, table, timeout=60)
        assert view["over"] and view["outcome"]
    finally:
        await client.close()
        ssh.close()


async def test_a_client_without_a_key_is_a_guest_whatever_its_hello_says(server, client_key):
    ssh, client = await channel_client(server.port)
    try:
        fingerprint = key_fingerprint(client_key)
        await client.send("hello", v=PROTOCOL_VERSION, lang="en", identity=fingerprint)
        welcome = await client.expect("welcome")
        assert welcome["you"]["guest"] and welcome["you"]["id"] != fingerprint
    finally:
        await client.close()
        ssh.close()


async def test_another_protocol_version_is_refused_naming_both(server):
    ssh, client = await channel_client(server.port)
    try:
        await client.send("hello", v=PROTOCOL_VERSION + 1, lang="en")
        bye = await client.expect("bye")
        assert bye["code"] == "version"
        assert f"version {PROTOCOL_VERSION};" in bye["message"]
        assert f"version {PROTOCOL_VERSION + 1}." in bye["message"]
        await asyncio.wait_for(closed(client), 5)
    finally:
        await client.close()
        ssh.close()


async def test_a_banned_key_is_refused(server, client_key):
    server.hub.store.add_ban(
        fingerprint=key_fingerprint(client_key), address=None, until=None, reason="cheating", by="t"
    )
    with pytest.raises(asyncssh.DisconnectError, match="cheating"):
        await login(server.port, client_key)


async def test_other_subsystems_and_commands_are_still_refused(server):
    ssh = await login(server.port)
    try:
        result = await ssh.run(subsystem="sftp", encoding="utf-8", timeout=10)
        assert result.exit_status == 1 and "no file transfer" in result.stderr
        result = await ssh.run("cat /etc/passwd", encoding="utf-8", timeout=10)
        assert result.exit_status == 1 and "runs no commands" in result.stderr
    finally:
        ssh.close()


async def test_an_oversized_frame_before_the_hello_ends_the_channel(server):
    ssh, client = await channel_client(server.port)
    try:
        await client.conn.send_raw((1 << 20).to_bytes(4, "big") + b"x" * 100)
        bye = await client.expect("bye")
        assert bye["code"] == "frame_too_large"
        await asyncio.wait_for(closed(client), 5)
    finally:
        await client.close()
        ssh.close()


async def test_stopping_the_server_says_goodbye_on_the_channel(tmp_path):
    async with running(tmp_path) as server:
        ssh, client = await channel_client(server.port)
        await client.send("hello", v=PROTOCOL_VERSION, lang="de")
        await client.expect("welcome")
        await server.host.close()
        bye = await client.expect("bye")
        # In the player's language, as the hub knows it from their hello.
        assert (
            bye["message"] == "Der Gambit-Server wird beendet. Ihr Platz bleibt Ihnen eine Weile."
        )
        await asyncio.wait_for(closed(client), 5)
        await client.close()
        ssh.close()


async def test_an_idle_channel_is_closed_with_a_goodbye(tmp_path):
    async with running(tmp_path, idle_timeout=0.5) as server:
        ssh, client = await channel_client(server.port)
        await client.send("hello", v=PROTOCOL_VERSION, lang="en")
        await client.expect("welcome")
        bye = await client.expect("bye", timeout=5)
        assert bye["code"] == "idle" and "without a key press" in bye["message"]
        await asyncio.wait_for(closed(client), 5)
        assert await asyncio.wait_for(_sessions_gone(server), 5) == 0
        ssh.close()


async def _sessions_gone(server: Server) -> int:
    while server.host.sessions:
        await asyncio.sleep(0.02)
    return len(server.host.sessions)


@needs_openssh
async def test_openssh_reaches_the_channel_without_a_terminal(server, client_key):
    hello = encode({"t": "hello", "v": PROTOCOL_VERSION, "lang": "en", "name": "Cy"})
    cmd = ssh_command(server.port, key=client_key, extra=["-T", "-s"], remote=["gambit"])

    def run() -> bytes:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(hello)
        proc.stdin.flush()
        got = b""
        decoder = FrameDecoder(1 << 20)
        seen: list[str] = []
        while "lobby" not in seen:
            chunk = proc.stdout.read1(65536)
            if not chunk:
                break
            got += chunk
            seen += [m["t"] for m in decoder.feed(chunk) if isinstance(m, dict)]
        proc.stdin.close()  # EOF: the session ends
        proc.wait(timeout=10)
        return got

    got = await asyncio.to_thread(run)
    messages = [m for m in FrameDecoder(1 << 20).feed(got) if isinstance(m, dict)]
    welcome = next(m for m in messages if m["t"] == "welcome")
    assert welcome["you"]["id"] == key_fingerprint(client_key) and welcome["you"]["name"] == "Cy"
    assert any(m["t"] == "lobby" for m in messages)


@needs_openssh
async def test_the_documented_one_liner_gets_a_welcome(server):
    """docs/protocol.md's ``printf … | ssh -s … gambit``: one hello frame, then EOF."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    frame = re.search(r"printf '([^']+)' \| ssh -s -p 2222 play@host gambit", doc).group(1)
    data = frame.encode().decode("unicode_escape").encode("latin-1")
    cmd = ssh_command(server.port, extra=["-s"], remote=["gambit"])
    result = await asyncio.to_thread(
        subprocess.run, cmd, input=data, capture_output=True, timeout=20
    )
    messages = [m for m in FrameDecoder(1 << 20).feed(result.stdout) if isinstance(m, dict)]
    assert [m["t"] for m in messages[:2]] == ["welcome", "lobby"], result
    assert messages[0]["you"]["guest"] and result.returncode == 0


async def test_actions_at_a_channels_table_wait_for_no_frame_in_the_metrics(server):
    """A channel's player draws their own screen: the server's action-to-screens metric
    waits for no frame of theirs (it would wait forever, and never count the action)."""
    from server.metrics import Metrics

    metrics = Metrics(server.hub, server.host)
    ssh, client = await channel_client(server.port)
    try:
        await client.hello("Cy")
        table = await table_with_bots(client, "prophets_gambit", 3)
        await client.send("start", table=table)
        await play_to_end({0: client}, table, timeout=60)
        assert metrics.actions > 0 and not metrics._open
    finally:
        await metrics.close()
        await client.close()
        ssh.close()
