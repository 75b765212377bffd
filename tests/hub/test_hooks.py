"""The hub's owner gives it its hooks when it makes it (``HubHooks``), typed: told when the
store cannot commit, asked how a connection looks from the front end."""

from __future__ import annotations

from typing import Any

from server.hub import Hub
from server.hub.hooks import HubHooks

from .conftest import fast_config


async def test_the_owners_hooks_are_given_when_the_hub_is_made(store, monkeypatch):
    stopped: list[bool] = []

    def described(conn: Any) -> dict[str, Any]:
        return {"address": "192.0.2.9", "idle": 3}

    hub = Hub(
        store,
        fast_config(),
        HubHooks(on_fatal=lambda: stopped.append(True), describe_connection=described),
    )
    assert hub.admin.describe_connection is described

    def cannot_commit() -> None:
        raise OSError("the disk is gone")

    monkeypatch.setattr(store, "commit_held", cannot_commit)
    hub.commit()
    assert stopped == [True]


async def test_two_hubs_share_no_action_hooks(store):
    one, two = Hub(store, fast_config()), Hub(store, fast_config())
    one.action_hooks.append(lambda table, seat, action: None)
    assert two.action_hooks == []


class _Nats:
    """A stand-in for NATS: the bus subscribes and publishes into nothing."""

    is_closed = True

    async def subscribe(self, subject: str, cb: Any) -> None:
        pass

    async def flush(self) -> None:
        pass

    async def publish(self, subject: str, payload: bytes) -> None:
        pass


async def test_the_bus_leaves_the_owners_describe_alone(store):
    """The bus no longer replaces the admin's ``describe_connection`` when it starts: the
    owner gives the hub the bus's (``HubBus.describe``) with the rest of its hooks."""
    from protocol.connection import queue_pair
    from server.hub.bus import BusConnection, HubBus

    hub = Hub(store, fast_config(), HubHooks(describe_connection=HubBus.describe))
    await hub.start()
    bus = HubBus(hub, "nats://test.invalid", "token")
    bus.nc = _Nats()
    await bus.start()
    try:
        assert hub.admin.describe_connection is HubBus.describe
        conn = BusConnection(bus, "gw", 1, trusted=True, peer="ssh 192.0.2.4")
        conn.address = "192.0.2.4"
        assert hub.admin.describe_connection(conn) == {"address": "192.0.2.4"}
        assert hub.admin.describe_connection(queue_pair()[1]) == {}
    finally:
        await bus.stop()
        await hub.stop()


async def test_metrics_come_in_through_the_hubs_way_in_and_leave_when_closed(store):
    """``Metrics`` is made after the hub (it reads it): its action hook comes in through
    ``Hub.observe_actions``, and goes when the metrics close (it stayed, before)."""
    from server.metrics import Metrics

    hub = Hub(store, fast_config())
    metrics = Metrics(hub)
    assert hub.action_hooks == [metrics._action]
    await metrics.close()
    assert hub.action_hooks == []
