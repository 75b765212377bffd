"""Typed client messages and actions (``protocol/requests.py``, ``protocol/actions.py``): each
class matches the schema that holds the limits, any well-formed message becomes its value and
back unchanged, a malformed one is refused as the hub's validation refuses it, every action
the engines offer is a typed value, and the app sends only typed values."""

from __future__ import annotations

import ast
import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.actions import ACTIONS, Action, Bid, BidCard, Kill, Play, Target, action_from_wire
from protocol.codec import ProtocolError
from protocol.messages import (
    CLIENT_MESSAGES,
    SERVER_MESSAGES,
    Field,
    validate_client,
    validate_server,
)
from protocol.requests import (
    REQUESTS,
    Act,
    Chat,
    Report,
    Request,
    request_from_wire,
    request_of,
)
from server.engine import all_games

ROOT = Path(__file__).resolve().parent.parent


def test_every_client_message_has_one_class_with_the_schemas_fields():
    assert set(REQUESTS) == set(CLIENT_MESSAGES)
    for kind, cls in REQUESTS.items():
        wire_names = {cls.WIRE_NAMES.get(f.name, f.name) for f in dataclasses.fields(cls)}
        assert wire_names == set(CLIENT_MESSAGES[kind]), kind
        for field in dataclasses.fields(cls):
            rule = CLIENT_MESSAGES[kind][cls.WIRE_NAMES.get(field.name, field.name)]
            # A field the schema requires has no default here, and an optional one has None.
            has_default = field.default is not dataclasses.MISSING
            assert has_default != rule.required, (kind, field.name)
            assert field.default in (None, dataclasses.MISSING), (kind, field.name)


def test_the_schema_is_read_from_the_request_classes():
    """One declaration: a limit changed on a request class is the limit the hub checks."""
    for kind, cls in REQUESTS.items():
        assert CLIENT_MESSAGES[kind] == cls.schema(), kind
    # A field without a rule in its annotation is refused when the schema is read.

    @dataclasses.dataclass(frozen=True, slots=True)
    class Unruled(Request):
        TYPE = "unruled"
        table: int

    with pytest.raises(AssertionError, match="needs one rule"):
        Unruled.schema()


def _value(rule: Field) -> st.SearchStrategy[Any]:
    if rule.choices is not None:
        return st.sampled_from(rule.choices)
    kind = rule.types[0]
    if kind is bool:
        return st.booleans()
    if kind is int:
        return st.integers(rule.minimum, rule.maximum)
    if kind is str:
        return st.text(max_size=rule.max_len or 8)
    return st.dictionaries(st.text(max_size=8), st.integers(-5, 5), max_size=3)


ACTION_MAPS = st.sampled_from(
    [
        {"type": "play", "card": "W7"},
        {"type": "bid", "tricks": 3},
        {"type": "bid", "card": "C1"},
        {"type": "target", "seat": 2},
        {"type": "next_deal"},
        {"type": "kill"},
    ]
)


@st.composite
def well_formed(draw) -> dict[str, Any]:
    kind = draw(st.sampled_from(sorted(CLIENT_MESSAGES)))
    message: dict[str, Any] = {"t": kind}
    for name, rule in CLIENT_MESSAGES[kind].items():
        if not rule.required and draw(st.booleans()):
            continue
        message[name] = draw(ACTION_MAPS) if name == "action" else draw(_value(rule))
    return message


@settings(max_examples=300, deadline=None)
@given(well_formed())
def test_any_well_formed_message_is_a_value_and_back(message):
    validate_client(message)
    request = request_from_wire(message)
    assert type(request) is REQUESTS[message["t"]]
    assert request.to_wire() == {k: v for k, v in message.items() if v is not None}
    assert request_from_wire(request.to_wire()) == request
    assert request_of(message) == request  # as the hub reads a frame it has checked


def test_malformed_messages_are_refused_as_the_hub_refuses_them():
    cases = [
        {"t": "nope"},
        {"t": "ping"},
        {"t": "ping", "n": "3"},
        {"t": "ping", "n": 1, "extra": 1},
        {"t": "chat", "channel": "lobby", "text": "x" * 501},
        {"t": "create_table", "game": "chess", "players": 4},
        {"t": "act", "table": 1, "action": {"type": "play", "card": [1, 2]}},
    ]
    for message in cases:
        with pytest.raises(ProtocolError) as expected:
            validate_client(message)
        with pytest.raises(ProtocolError) as got:
            request_from_wire(message)
        assert got.value.code == expected.value.code, message
    # An action map the schema lets through but no game knows: refused here, by name.
    with pytest.raises(ProtocolError, match="Unknown action type 'fly'"):
        request_from_wire({"t": "act", "table": 1, "action": {"type": "fly"}})


def test_values_read_as_their_meaning():
    act = request_from_wire({"t": "act", "table": 4, "action": {"type": "bid", "card": "C3"}})
    assert act == Act(4, BidCard("C3"))
    assert Act(4, Bid(2)).to_wire() == {
        "t": "act",
        "table": 4,
        "action": {"type": "bid", "tricks": 2},
    }
    # "from" is a Python keyword: the attribute is ``sender``, the wire name stays.
    report = Report("lobby", "Zed", "hi")
    assert report.to_wire() == {"t": "report", "channel": "lobby", "from": "Zed", "text": "hi"}
    assert Chat("table", "hi", table=3).to_wire()["table"] == 3
    assert Kill().to_wire() == {"type": "kill"} and Kill() != action_from_wire({"type": "save"})
    with pytest.raises(ProtocolError):
        Target(9)
    with pytest.raises(ProtocolError):
        Play("")


@pytest.mark.parametrize("game", ["fortunes", "prophet", "prophets_gambit"])
def test_every_action_an_engine_offers_is_a_typed_value(game):
    """Random games of each engine: every legal action of every decision round-trips."""
    engine = all_games()[game]
    rng = random.Random(7)
    seen: set[type[Action]] = set()
    for deal in range(30):
        players = rng.randint(engine.min_players, engine.max_players)
        state = engine.new_state(players, seed=deal)
        for _ in range(2000):
            if state.is_over:
                break
            seat = rng.choice(sorted(state.pending()))
            legal = state.legal_actions(seat)
            for action in legal:
                wire = action.to_wire()
                assert action_from_wire(wire) == action
                assert wire in state.view(seat)["legal"]
                seen.add(type(action))
            state.apply(seat, rng.choice(legal))
    assert seen <= set(ACTIONS.values()) and len(seen) >= 2, seen


def test_the_app_sends_only_typed_values():
    """No message map is spelled out in the app: every ``send`` takes a request value."""
    spelled = []
    for path in sorted((ROOT / "gambit_tui").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("send", "send_nowait")
                and any(isinstance(arg, ast.Dict) for arg in node.args)
            ):
                spelled.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert spelled == []


def test_what_the_hub_may_send_is_checked_as_what_clients_send():
    """The hub's tests (``tests/hub/harness.py``) and debug runs of the app check every
    message from the hub: a type or field the protocol does not list is refused."""
    for kind, fields in SERVER_MESSAGES.items():
        assert validate_server({"t": kind, **dict.fromkeys(fields, 1)})
    with pytest.raises(ProtocolError, match="unknown type 'gossip'"):
        validate_server({"t": "gossip"})
    with pytest.raises(ProtocolError, match="unlisted field 'secret' in table"):
        validate_server({"t": "table", "table": 1, "secret": "the deck"})
