"""The ``gambit`` channel through a gateway (issue 41): the same SSH host code, with the hub
across NATS. The identity the hub takes is the SSH key's, not the one the client's hello
claims, and a client plays at a table with bots."""

from __future__ import annotations

import pytest

from protocol.messages import PROTOCOL_VERSION
from tests.hub.harness import table_with_bots
from tests.ssh.channel_harness import channel_client
from tests.ssh.harness import key_fingerprint, ssh_keygen

from .harness import Gateway, start_hub

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def gateway(nats, tmp_path_factory):
    folder = tmp_path_factory.mktemp("channel")
    hub = start_hub(folder, nats.url, "--bot-delay", "0")
    try:
        gateway = Gateway("gw-channel", folder, nats.url, folder / "host_key", "--workers", "0")
    except BaseException:
        hub.stop()
        raise
    yield gateway
    gateway.stop()
    hub.stop()
    for process in (gateway, hub):
        assert "Traceback" not in process.log(), process.log()


async def test_a_key_over_the_gateways_channel_is_that_key(gateway, tmp_path):
    key = ssh_keygen(tmp_path / "ada")
    ssh, client = await channel_client(gateway.port, key)
    try:
        await client.send("hello", v=PROTOCOL_VERSION, name="Ada", identity="SHA256:someone")
        welcome = await client.expect("welcome", timeout=15)
        assert welcome["you"]["id"] == key_fingerprint(key) and not welcome["you"]["guest"]
        table = await table_with_bots(client, "prophets_gambit", 3)
        assert client.tables[table]["seat"] == 0
    finally:
        await client.close()
        ssh.close()


async def test_a_guest_over_the_gateways_channel_stays_a_guest(gateway, tmp_path):
    ssh, client = await channel_client(gateway.port)
    try:
        await client.send("hello", v=PROTOCOL_VERSION, identity="SHA256:someone")
        welcome = await client.expect("welcome", timeout=15)
        assert welcome["you"]["guest"] and welcome["you"]["id"] != "SHA256:someone"
    finally:
        await client.close()
        ssh.close()
