"""The bus in one process: a hub and gateways (``RemoteHub``) meeting on a real NATS server,
with scripted protocol clients where the SSH sessions' apps would be."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from protocol.connection import queue_pair
from server.bus import wire
from server.bus.gateway import RemoteHub
from server.hub import Hub
from server.hub.bus import HubBus
from server.hub.errors import said
from server.hub.hooks import HubHooks
from server.store import StoreError
from tests.hub.conftest import fast_config
from tests.hub.harness import Client, play_to_end

from .harness import TOKEN

pytestmark = pytest.mark.cluster


@pytest.fixture
async def hub(store, nats):
    hub = Hub(store, fast_config(), HubHooks(describe_connection=HubBus.describe))
    await hub.start()
    bus = HubBus(hub, nats.url, TOKEN)
    await bus.start()
    hub.bus = bus
    yield hub
    await bus.stop()
    await hub.stop()


@pytest.fixture
async def gateways(nats):
    made: list[RemoteHub] = []

    async def make(token: str | None = TOKEN) -> RemoteHub:
        gateway = RemoteHub(nats.url, token)
        await gateway.start()
        made.append(gateway)
        return gateway

    yield make
    for gateway in made:
        await gateway.stop()


def connect(gateway: RemoteHub, address: str = "192.0.2.1") -> Client:
    """A session on ``gateway``, as its SSH host opens one for an app."""
    client_end, hub_end = queue_pair(trusted=True, peer=f"ssh {address}")
    gateway.spawn(gateway.serve(hub_end))
    return Client(client_end)


async def test_a_gateway_with_the_token_vouches_for_keys(hub, gateways):
    ada = connect(await gateways())
    welcome = await ada.hello("Ada", identity="SHA256:ada")
    assert welcome["you"]["id"] == "SHA256:ada" and not welcome["you"]["guest"]
    (session,) = hub.sessions
    assert session.conn.trusted and session.conn.peer.endswith("192.0.2.1")


async def test_the_hub_knows_each_players_address_from_the_gateway(hub, gateways):
    """What the SSH host knows of a session (its player's address) reaches the hub: admins
    see it, and a guest is banned by it."""
    gateway = await gateways()
    gateway.admin.describe_connection = lambda conn: {"address": "198.51.100.23", "idle": 0}
    guest = connect(gateway)
    await guest.hello()
    (session,) = hub.sessions
    assert hub.admin.describe_connection(session.conn) == {"address": "198.51.100.23"}
    assert hub.admin._address_of(session.player.id) == "198.51.100.23"


@pytest.mark.parametrize("token", [None, "a guess"])
async def test_without_the_token_every_player_is_a_guest(hub, gateways, token):
    mallory = connect(await gateways(token))
    welcome = await mallory.hello("Ada", identity="SHA256:ada")
    assert welcome["you"]["guest"] and welcome["you"]["id"].startswith("guest:")
    assert hub.store.get_player("SHA256:ada") is None


async def test_frames_are_checked_by_the_hub_as_ever(hub, gateways):
    client = connect(await gateways())
    await client.conn.send_raw(b"\x00\x00\x00\x03abc")  # not msgpack
    error = await client.expect("error")
    assert error["code"] == "bad_frame"
    await client.send("sit_on_the_table")
    assert (await client.expect("error"))["code"]
    await client.hello("Bo", identity="SHA256:bo")  # and it carries on as usual


async def test_players_on_two_gateways_share_a_table_and_a_chat(hub, gateways):
    one, two = await gateways(), await gateways()
    ada, bo = connect(one), connect(two)
    await ada.hello("Ada", identity="SHA256:ada")
    await bo.hello("Bo", identity="SHA256:bo")
    await ada.send("chat", channel="lobby", text="hello from gateway one")
    said = await bo.expect("chat")
    assert said["text"] == "hello from gateway one"
    await ada.send("create_table", game="prophets_gambit", players=3)
    table = (await ada.expect("table"))["table"]
    await bo.send("join", table=table)
    await bo.expect("table", table=table)
    await ada.send("add_bot", table=table, seat=2)
    await ada.until(lambda m: m["t"] == "table" and m["info"]["seats"][2]["bot"])
    await bo.send("start", table=table)
    view = await play_to_end({0: ada, 1: bo}, table)
    assert view["over"] and len(view["reveal"]) == 3
    assert hub.store.ledger_total() == 0


async def test_a_silent_gateway_has_its_sessions_ended(hub, gateways):
    gateway = await gateways()
    cy = connect(gateway)
    await cy.hello("Cy", identity="SHA256:cy")
    assert "SHA256:cy" in hub.players
    for task in list(gateway._tasks):  # the gateway dies: no goodbye, no heartbeat
        task.cancel()
    await gateway.nc.close()
    deadline = time.monotonic() + 10
    while "SHA256:cy" in hub.players and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert "SHA256:cy" not in hub.players
    assert hub.bus.dropped_by_silence == 1


async def test_a_gateway_silent_past_the_bound_keeps_its_players_when_heard_again(
    hub, gateways, monkeypatch
):
    """A gateway the hub has not heard for the bound (its process held up, or cut off from
    NATS alone) may only have been slow: the hub gives its sessions up (their seats wait, as
    for any dropped connection) but says no goodbye to them, and when the gateway is heard
    again it opens them there again. Before, the hub's goodbyes reached the gateway once it
    was back, and every player's SSH session on it ended."""
    monkeypatch.setattr(wire, "SILENCE", 2.0)  # (8 s in production: the same path)
    gateway = await gateways()
    ada = connect(gateway)
    await ada.hello("Ada", identity="SHA256:ada")
    await ada.send("create_table", game="prophets_gambit", players=3)
    table = (await ada.until(lambda m: m["t"] == "table" and m.get("seat") == 0))["table"]
    beating = [t for t in gateway._tasks if t.get_coro().__name__ == "_heartbeat"]
    for task in beating:  # the gateway falls silent (its sessions too) but still listens
        task.cancel()
    deadline = time.monotonic() + 10
    while hub.bus.dropped_by_silence == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert hub.bus.dropped_by_silence == 1
    await asyncio.sleep(1.0)  # (what the hub said meanwhile has arrived)
    assert not ada.closed and gateway.conns
    gateway.spawn(gateway._heartbeat())  # heard again
    assert (await ada.expect("notice", timeout=10))["code"] == "reconnecting"
    again = await ada.expect("welcome", timeout=10)
    assert again["you"]["id"] == "SHA256:ada" and not ada.closed
    back = await ada.until(lambda m: m["t"] == "table" and m["table"] == table)
    assert back["seat"] == 0  # the seat waited for her
    await ada.send("chat", channel="lobby", text="still here")
    assert (await ada.expect("chat"))["text"] == "still here"


async def test_a_session_the_hub_hangs_up_ends_at_the_gateway(hub, gateways):
    gateway = await gateways()
    di = connect(gateway)
    await di.hello("Di", identity="SHA256:di")
    (session,) = hub.sessions
    hub.bye(session, "kicked", said("Goodbye."))
    bye = await di.expect("bye")
    assert bye["code"] == "kicked"
    deadline = time.monotonic() + 5
    while not di.closed and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert di.closed and not gateway.conns


async def test_gateways_learn_the_hubs_bans(hub, gateways):
    gateway = await gateways()
    hub.store.add_ban(fingerprint="SHA256:eve", address=None, until=None, reason="spam", by="x")
    hub.store.add_ban(fingerprint=None, address="198.51.100.9", until=1.0, reason="old", by="x")
    deadline = time.monotonic() + 8
    while not gateway.admin.bans and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    said = gateway.admin.banned(fingerprint="SHA256:eve")
    assert said is not None and "banned from this server for good: spam" in said
    assert gateway.admin.banned(fingerprint="SHA256:ada") is None
    assert gateway.admin.banned(address="198.51.100.9") is None  # that one has run out


async def test_gateways_keep_the_bans_while_the_hub_cannot_read_them(hub, gateways):
    """The database away (a PostgreSQL restart): the hub cannot read the bans, and says
    nothing about them; before, it published none, and gateways let banned keys in."""
    gateway = await gateways()
    hub.store.add_ban(fingerprint="SHA256:eve", address=None, until=None, reason="spam", by="x")
    deadline = time.monotonic() + 8
    while not gateway.admin.bans and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert gateway.admin.banned(fingerprint="SHA256:eve") is not None

    def away() -> list[Any]:
        raise StoreError("The database takes no writes now")

    hub.store.bans = away
    await asyncio.sleep(wire.BANS_EVERY * wire.HEARTBEAT + 1.5)  # (a publication missed)
    assert gateway.admin.banned(fingerprint="SHA256:eve") is not None


async def test_output_bigger_than_a_nats_message_arrives_whole(hub, gateways):
    gateway = await gateways()
    ada, bo = connect(gateway), connect(gateway)
    await ada.hello("Ada", identity="SHA256:ada")
    await bo.hello("Bo", identity="SHA256:bo")
    text = "x" * 700_000  # over NATS' 1 MiB when two go out in one tick
    for session in hub.sessions:  # both in one tick: one batch for the gateway, split
        session.deliver({"t": "notice", "code": "big", "message": text})
    for client in (ada, bo):
        assert (await client.expect("notice", code="big"))["message"] == text
    (one,) = [s for s in hub.sessions if s.player and s.player.id == "SHA256:ada"]
    one.deliver({"t": "notice", "code": "alone", "message": text})  # one session's subject
    assert (await ada.expect("notice", code="alone"))["message"] == text


async def test_sessions_move_to_the_next_hub_with_their_hello(store, nats, gateways):
    """The hub stops (as a standby's takeover looks to a gateway): its sessions are opened
    on the next hub with each app's own hello, and the app is told meanwhile."""
    first = Hub(store, fast_config())
    await first.start()
    bus = HubBus(first, nats.url, TOKEN)
    await bus.start()
    gateway = await gateways()
    ada = connect(gateway)
    await ada.hello("Ada", identity="SHA256:ada")
    bus.detach()  # as `gambit hub` stops: no goodbye on the bus
    await first.stop()
    await bus.stop()
    second = Hub(store, fast_config())
    await second.start()
    bus = HubBus(second, nats.url, TOKEN)
    await bus.start()
    try:
        told = await ada.expect("notice", timeout=10)
        assert told["code"] == "reconnecting"
        again = await ada.expect("welcome", timeout=10)
        assert again["you"]["id"] == "SHA256:ada" and not ada.closed
        assert "SHA256:ada" in second.players
        await ada.send("chat", channel="lobby", text="still here")
        assert (await ada.expect("chat"))["text"] == "still here"
    finally:
        await bus.stop()
        await second.stop()


async def test_a_session_opened_again_on_the_same_hub_replaces_itself(hub, gateways):
    """A gateway that wrongly thought the hub gone (its own loop held up) opens its
    sessions again: the hub swaps each for the new one, and nobody is cut off."""
    gateway = await gateways()
    ada = connect(gateway)
    await ada.hello("Ada", identity="SHA256:ada")
    gateway._rehome_all()
    assert (await ada.expect("notice"))["code"] == "reconnecting"
    await ada.expect("welcome")
    deadline = time.monotonic() + 5
    while len(hub.sessions) != 1 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert len(hub.sessions) == 1 and not ada.closed
    assert len(hub.players["SHA256:ada"].sessions) == 1
    await ada.send("chat", channel="lobby", text="no harm done")
    assert (await ada.expect("chat"))["text"] == "no harm done"
