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
