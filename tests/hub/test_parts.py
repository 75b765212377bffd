"""The hub's parts: each client message has one handler, on the part that owns its concern,
and a part's state is its own (two hubs share none of it)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import server.hub
from protocol.messages import CLIENT_MESSAGES
from server.hub import Hub
from tests.import_circles import assert_no_circle

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
    assert one.turns.deadlines is not two.turns.deadlines
    assert one.nights.nights is not two.nights.nights
    # Each part works on its own hub's tables and players.
    assert one.seating.tables is one.tables and two.lobby.players is two.players


HUB_DIR = Path(server.hub.__file__).parent
#: The files that wire the parts and run the connections: the only ones holding the hub.
WIRING = {"hub.py", "main.py", "listener.py", "__init__.py"}


def _runtime_imports(path: Path) -> set[str]:
    """The server/hub modules ``path`` imports when it runs (not those it imports for type
    hints only, under ``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text())
    hints = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for node in ast.walk(block)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or id(node) in hints:
            continue
        if node.level == 1:
            names = [node.module] if node.module else [a.name for a in node.names]
        elif (node.module or "").startswith("server.hub."):
            names = [(node.module or "")[len("server.hub.") :]]
        else:
            continue
        found.update(name.split(".")[0] for name in names if name)
    return found


def test_no_part_holds_the_hub():
    holding = [
        f"{path.name}:{number}"
        for path in sorted(HUB_DIR.glob("*.py"))
        if path.name not in WIRING
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "self.hub" in line or re.search(r"from \.hub import|server\.hub\.hub import", line)
    ]
    assert holding == []


def test_the_hub_files_import_each_other_in_no_circle():
    graph = {path.stem: _runtime_imports(path) for path in HUB_DIR.glob("*.py")}
    assert_no_circle(graph)
