"""A hub and its SSH host on a test's own event loop, and asyncssh clients of its ``gambit``
channel (issue 41)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncssh

from protocol.ssh_channel import open_channel
from tests.hub.harness import Client


class Guest(asyncssh.SSHClient):
    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(self, name, instructions, lang, prompts):
        return [""] * len(prompts)


class Server:
    """A hub and its SSH host on the test's own event loop."""

    def __init__(self, hub: Any, host: Any) -> None:
        self.hub = hub
        self.host = host
        self.port: int = host.port


@contextlib.asynccontextmanager
async def running(
    data_dir: Path, hello_timeout: float = 5.0, **host_options: Any
) -> AsyncIterator[Server]:
    from server.hub import Hub, HubConfig
    from server.ssh.config import HostConfig
    from server.ssh.host import SSHHost
    from server.ssh.keys import load_or_create_host_key
    from server.store import Store

    store = Store.open(data_dir)
    hub = Hub(
        store,
        HubConfig(bot_delay=0.0, hello_timeout=hello_timeout, bot_think_ms=5.0, bot_workers=0),
    )
    await hub.start()
    host = SSHHost(hub, HostConfig(port=0, **host_options), load_or_create_host_key(data_dir))
    await host.start()
    try:
        yield Server(hub, host)
    finally:
        await host.close()
        await hub.stop()
        store.close()


async def login(
    port: int, key: Path | None = None, user: str = "play"
) -> asyncssh.SSHClientConnection:
    if key is None:
        return await asyncssh.connect(
            "127.0.0.1",
            port,
            username=user,
            known_hosts=None,
            client_keys=None,
            agent_path=None,
            preferred_auth=["keyboard-interactive"],
            client_factory=Guest,
        )
    return await asyncssh.connect(
        "127.0.0.1",
        port,
        username=user,
        known_hosts=None,
        client_keys=[str(key)],
        agent_path=None,
        preferred_auth=["publickey"],
    )


async def channel_client(port: int, key: Path | None = None) -> tuple[Any, Client]:
    ssh = await login(port, key)
    return ssh, Client(await open_channel(ssh))


async def closed(client: Client) -> None:
    """Until the client's channel has ended."""
    while not client.closed:
        await asyncio.sleep(0.02)
