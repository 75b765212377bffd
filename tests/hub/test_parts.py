"""The hub's parts: each client message has one handler, on the part that owns its concern,
and a part's state is its own (two hubs share none of it)."""

from __future__ import annotations

from protocol.messages import CLIENT_MESSAGES
from server.hub import Hub

from .conftest import fast_config

OWNERS = {
    "lobby": {"lobby_watch"},
    "seating": {"create_table", "join", "leave", "stand", "spectate", "add_bot", "remove_bot"}
    | {"start"},
    "social": {"chat", "ignore", "report", "friend", "invite"},
    "history": {"history", "leaderboard", "player"},
    "replays": {"record", "replay"},
    "entropy": {"entropy"},
    "play": {"act", "result_read"},
    "nights": {"night"},
}


async def test_each_client_message_is_answered_by_the_part_that_owns_it(hub):
    assert set(hub.handlers) == set(CLIENT_MESSAGES)
    for part, kinds in OWNERS.items():
        for kind in kinds:
            assert hub.handlers[kind].__self__ is getattr(hub, part), kind
    on_hub = set(CLIENT_MESSAGES).difference(*OWNERS.values())
    assert on_hub == {"hello", "profile", "ping", "admin"}
    assert all(hub.handlers[kind].__self__ is hub for kind in on_hub)


async def test_two_hubs_share_no_state_of_their_parts(store):
    one, two = Hub(store, fast_config()), Hub(store, fast_config())
    assert one.watchers.by_table is not two.watchers.by_table
    assert one.duplicate.sets is not two.duplicate.sets
    assert one.entropy.waiting is not two.entropy.waiting
    assert one.replays.cursors is not two.replays.cursors
    assert one.social.recent_chat is not two.social.recent_chat
    assert one.play.deadlines is not two.play.deadlines
    assert one.nights.nights is not two.nights.nights
    # Each part works on its own hub's tables and players.
    assert one.seating.tables is one.tables and two.lobby.players is two.players
