"""``gambit connect``'s connection (issue 41): the host key checked against known_hosts as
OpenSSH checks it, and a link that comes back by itself to the player's seat.

Against a real SSH host and hub on loopback, with the launcher's own :class:`Dialer` (a
scripted answer at the keyboard) and the protocol client of the hub tests on its connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import socket
from collections.abc import AsyncIterator

import asyncssh
import pytest

from gambit_connect.known_hosts import KnownHosts
from gambit_connect.lasting import LastingConnection
from gambit_connect.launcher import Dialer, HostKeyProblem, Target, connect_lasting
from protocol.connection import ConnectionClosed
from protocol.messages import PROTOCOL_VERSION
from protocol.ssh_channel import ChannelConnection, open_channel
from tests.hub.harness import Client, table_with_bots

from .channel_harness import Server, login, running
from .harness import key_fingerprint


@pytest.fixture
async def server(tmp_path, monkeypatch) -> AsyncIterator[Server]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/.ssh keys but the test's
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    async with running(tmp_path / "server") as running_server:
        yield running_server


def dialer(
    server: Server, tmp_path, key=None, answers=("yes",)
) -> tuple[Dialer, list[str], io.StringIO]:
    asked: list[str] = []
    replies = iter(answers)

    def ask(question: str) -> str:
        asked.append(question)
        return next(replies)

    out = io.StringIO()
    made = Dialer(
        Target.parse("Ada@127.0.0.1", server.port, str(key) if key else None),
        "en",
        known=KnownHosts(tmp_path / "known_hosts"),
        ask=ask,
        out=out,
    )
    return made, asked, out


async def test_a_first_visit_asks_and_remembers_the_host_key(server, tmp_path, client_key):
    first, asked, out = dialer(server, tmp_path, client_key)
    conn = await first.dial(interactive=True)
    fingerprint = server.host.host_key.get_fingerprint()
    assert asked == ["Are you sure you want to continue connecting (yes/no)? "]
    assert f"The authenticity of host [127.0.0.1]:{server.port} can't be established." in (
        out.getvalue()
    )
    assert f"ED25519 key fingerprint is {fingerprint}." in out.getvalue()
    line = (tmp_path / "known_hosts").read_text()
    assert line.startswith(f"[127.0.0.1]:{server.port} ssh-ed25519 ")
    # The channel works: the hub knows the key.
    client = Client(conn)
    welcome = await client.hello("Ada")
    assert welcome["you"]["id"] == key_fingerprint(client_key)
    await client.close()
    first.close()
    # Next time nothing is asked, and OpenSSH itself trusts the line written.
    again, asked_again, _ = dialer(server, tmp_path, client_key, answers=())
    await again.dial(interactive=True)
    assert asked_again == []
    again.close()


async def test_no_to_a_new_host_key_connects_nowhere(server, tmp_path):
    refused, asked, _ = dialer(server, tmp_path, answers=("no",))
    with pytest.raises(HostKeyProblem, match="not accepted"):
        await refused.dial(interactive=True)
    assert len(asked) == 1 and not (tmp_path / "known_hosts").exists()


async def test_a_changed_host_key_is_refused_loudly(server, tmp_path, client_key):
    other = asyncssh.generate_private_key("ssh-ed25519").export_public_key("openssh").decode()
    (tmp_path / "known_hosts").write_text(f"[127.0.0.1]:{server.port} {other}")
    changed, asked, _ = dialer(server, tmp_path, client_key)
    with pytest.raises(HostKeyProblem) as refusal:
        await changed.dial(interactive=True)
    words = str(refusal.value)
    assert f"WARNING: THE HOST KEY OF [127.0.0.1]:{server.port} HAS CHANGED!" in words
    assert server.host.host_key.get_fingerprint() in words
    assert f"ssh-keygen -R [127.0.0.1]:{server.port}" in words
    assert asked == []  # nothing asked: refused
    assert not server.hub.players  # and nothing reached the hub


async def test_a_killed_socket_comes_back_to_the_seat(server, tmp_path, client_key):
    made, _, _ = dialer(server, tmp_path, client_key)
    conn, _first = await connect_lasting(made)
    client = Client(conn)
    await client.hello("Ada")
    table = await table_with_bots(client, "prophets_gambit", 3)
    await client.send("start", table=table)  # (a table not started frees a dropped seat)
    await client.until(lambda m: m["t"] == "table" and (m["view"] or {}).get("legal"))
    assert client.tables[table]["seat"] == 0
    assert made.ssh is not None
    sock = made.ssh.get_extra_info("socket")
    sock.shutdown(socket.SHUT_RDWR)  # the link dies under the client, no goodbye
    notice = await client.expect("notice", timeout=10)
    assert notice["code"] == "reconnecting"
    welcome = await client.expect("welcome", timeout=15)
    assert welcome["you"]["id"] == key_fingerprint(client_key)
    view = await client.expect("table", timeout=10, table=table)
    assert view["seat"] == 0  # the same seat, on a new link
    assert conn.reconnects == 1
    await client.send("ping", n=7)
    await client.expect("pong", n=7)
    await client.close()
    made.close()


async def test_a_goodbye_from_the_server_is_not_redialled(server, tmp_path):
    made, _, _ = dialer(server, tmp_path)
    conn, _first = await connect_lasting(made)
    client = Client(conn)
    await client.send("hello", v=PROTOCOL_VERSION + 1)
    bye = await client.expect("bye")
    assert bye["code"] == "version"
    await asyncio.wait_for(_closed(client), 5)
    assert conn.reconnects == 0
    made.close()


async def _closed(client: Client) -> None:
    while not client.closed:
        await asyncio.sleep(0.02)


async def test_a_channel_the_server_refuses_is_not_redialled(server, tmp_path):
    """A server that offers no such channel says so on stderr and ends it: that is no drop,
    and the app is not kept dialling for the grace period."""
    ssh = await login(server.port)
    dials: list[int] = []

    async def dial() -> ChannelConnection:
        dials.append(1)
        return await open_channel(ssh, subsystem="sftp")

    first = await open_channel(ssh, subsystem="sftp")
    conn = LastingConnection(first, dial)
    client = Client(conn)
    with contextlib.suppress(ConnectionClosed):  # (the server may have ended it already)
        await conn.send({"t": "hello", "v": PROTOCOL_VERSION})
    await asyncio.wait_for(_closed(client), 5)
    assert dials == [] and b"no file transfer" in bytes(first.stderr)
    ssh.close()
