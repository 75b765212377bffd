"""Typed actions (protocol/actions.py): every play and bid the engines offer is one of these
values, read and written back unchanged; anything else is refused with a clear error."""

from __future__ import annotations

import random

import pytest

from protocol.actions import ACTIONS, Bid, Draw, Play
from protocol.codec import ProtocolError
from server.engine import get_game

#: Which typed actions each game's vocabulary has (Prophet's Gambit bids with a card).
TYPED = {"prophet": (Play, Bid), "fortunes": (Play, Bid), "prophets_gambit": (Play,)}


@pytest.mark.parametrize(("name", "players", "options"), [
    ("prophet", 4, {"cap": 3}),
    ("fortunes", 4, {"betting": "bid"}),
    ("prophets_gambit", 4, {}),
])  # fmt: skip
def test_every_legal_play_and_bid_is_a_typed_action(name, players, options):
    """The engines' legal actions in whole random games, as the views carry them: each play
    and trick bid reads as its typed value and writes back to the very same map."""
    rng = random.Random(5)
    state = get_game(name).new_state(players, options, seed=5)
    seen: dict[str, int] = {}
    while not state.is_over:
        seat = rng.choice(sorted(state.pending()))
        for action in state.view(seat)["legal"]:
            for kind in TYPED[name]:
                if action["type"] == kind.TYPE:
                    value = kind.from_wire(action)
                    assert value.to_wire() == action
                    seen[kind.TYPE] = seen.get(kind.TYPE, 0) + 1
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert set(seen) == {kind.TYPE for kind in TYPED[name]}


def test_values_are_frozen_and_equal_by_content():
    assert Play("W7") == Play.from_wire({"type": "play", "card": "W7"})
    assert Bid(3).to_wire() == {"type": "bid", "tricks": 3}
    with pytest.raises(AttributeError):
        Play("W7").card = "W8"  # type: ignore[misc]  # frozen: the test shows it
    assert len({Play("W7"), Play("W7"), Bid(0)}) == 2


def test_the_engines_hand_out_each_value_once_made():
    """``of``/``made`` give one shared value per class and field: equal to a fresh one, never
    another class's (a Risk of a card is no Play of it), and every class has its own."""
    assert Play.of("W7") is Play.made["W7"] is Play.of("W7") == Play("W7")
    assert Draw.of() is Draw.of() == Draw()
    assert Bid.of(3) == Bid(3) and Bid.of(3) != Play.of("W7")
    assert len({id(cls.made) for cls in ACTIONS.values()}) == len(ACTIONS)
    state = get_game("prophets_gambit").new_state(4, seed=3)
    seat = min(state.pending())
    assert all(a is type(a).made[a.card] for a in state.legal_actions(seat))


@pytest.mark.parametrize(
    ("kind", "wire"),
    [
        (Play, {"type": "play"}),
        (Play, {"type": "play", "card": 7}),
        (Play, {"type": "play", "card": ""}),
        (Play, {"type": "play", "card": "W7W7"}),
        (Play, {"type": "play", "card": "W7", "extra": 1}),
        (Play, {"type": "bid", "card": "W7"}),
        (Play, ["play", "W7"]),
        (Bid, {"type": "bid", "tricks": True}),
        (Bid, {"type": "bid", "tricks": -1}),
        (Bid, {"type": "bid", "tricks": 53}),
        (Bid, {"type": "bid", "tricks": "3"}),
        (Bid, {"type": "bid", "card": "HSE"}),  # Prophet's Gambit's bid is not this one
        (Bid, None),
    ],
)
def test_anything_else_is_refused_clearly(kind, wire):
    with pytest.raises(ProtocolError) as err:
        kind.from_wire(wire)
    assert err.value.code == "invalid" and err.value.message
