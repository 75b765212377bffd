"""Protocol 2's deltas: a table message carries only what changed since the last one on its
connection, and the reader puts the whole message together again exactly; a first message, one
for another seat, or one after a ``left`` goes whole."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.codec import ProtocolError
from protocol.event_log import DELTA, SentLogs, expand


def table(view, table_id=1, seat=0, info=None):
    return {
        "t": "table",
        "table": table_id,
        "info": info if info is not None else {"game": "x", "seats": [{"name": "Ada"}]},
        "seat": seat,
        "view": view,
    }


def test_a_message_that_follows_on_carries_only_what_changed():
    sent = SentLogs()
    first = table({"events": [{"e": "deal"}], "turn": 0, "seats": [{"cards": 5}, {"cards": 5}]})
    assert sent.shrink(first) is first  # the first goes whole
    second = table(
        {
            "events": [{"e": "deal"}, {"e": "play", "seat": 0}],
            "turn": 1,
            "seats": [{"cards": 4}, {"cards": 5}],
        }
    )
    kept = copy.deepcopy(second)
    out = sent.shrink(second)
    assert "view" not in out and "info" not in out
    assert out[DELTA] == {
        "set": [[["view", "turn"], 1], [["view", "seats", 0, "cards"], 4]],
        "add": [[["view", "events"], [{"e": "play", "seat": 0}]]],
    }
    assert second == kept  # untouched: it may go to other connections too
    whole = expand(first, out)
    assert whole == second
    assert first["view"]["events"] == [{"e": "deal"}]  # the previous message keeps its own
    assert whole["info"] is first["info"]  # what did not change is shared, not copied
    assert sent.shrink(copy.deepcopy(second))[DELTA] == {}  # nothing changed


def test_a_new_deal_is_a_set_and_a_left_table_another_seat_or_a_new_connection_go_whole():
    sent = SentLogs()
    sent.shrink(table({"events": [{"e": "deal", "dealer": 0}, {"e": "play"}]}))
    new_deal = table({"events": [{"e": "deal", "dealer": 1}]})
    events = new_deal["view"]["events"]
    assert sent.shrink(new_deal)[DELTA] == {"set": [[["view", "events"], events]]}
    sent.shrink({"t": "left", "table": 1})
    again = table({"events": [{"e": "deal", "dealer": 1}, {"e": "play"}]})
    assert sent.shrink(again) is again
    as_spectator = table(again["view"], seat=None)
    assert sent.shrink(as_spectator) is as_spectator
    assert SentLogs().shrink(as_spectator) is as_spectator  # a reconnect: a new connection
    no_game = table(None, seat=None)
    assert sent.shrink(no_game)[DELTA] == {"set": [[["view"], None]]}
    sent.shrink(table({"a": 1, "b": 2}, seat=None))
    gone = sent.shrink(table({"a": 1}, seat=None))  # a key gone: the map is set whole
    assert gone[DELTA] == {"set": [[["view"], {"a": 1}]]}


def test_a_delta_without_its_start_or_out_of_shape_is_refused():
    delta = {"t": "table", "table": 1, "seat": 0, DELTA: {"add": [[["view", "events"], [1]]]}}
    with pytest.raises(ProtocolError):
        expand(None, delta)
    with pytest.raises(ProtocolError):
        expand(table({"events": []}, seat=2), delta)  # another seat's
    base = table({"events": [], "n": 1})
    for bad in (
        {"set": [[["view", "nowhere", "deeper"], 1]]},
        {"set": [[["hand"], 1]]},
        {"set": [[[], 1]]},
        {"set": [["view", 1]]},
        {"add": [[["view", "n"], [1]]]},
        {"set": [[["view", "events", 3, "x"], 1]]},
        [],
    ):
        with pytest.raises(ProtocolError):
            expand(base, {"t": "table", "table": 1, "seat": 0, DELTA: bad})
    assert base == table({"events": [], "n": 1})  # a refused delta changes nothing


SCALAR = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b", "W7"]), st.none(), st.booleans())
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from("abcd"), inner, max_size=4)
    ),
    max_leaves=12,
)
VIEW = st.dictionaries(st.sampled_from(["events", "seats", "trick", "turn", "hand"]), VALUE)


@given(st.lists(st.tuples(st.integers(1, 2), st.sampled_from([0, 1, None]), VIEW), max_size=20))
def test_the_reader_always_has_the_senders_messages(steps):
    """Any sequence of messages, of two tables and any seats, each view following on from the
    last or not: shrunk, then expanded by the reader, each is exactly the message sent, and the
    messages the reader kept are never changed by a later one."""
    sent = SentLogs()
    last: dict[int, dict] = {}
    kept: dict[int, dict] = {}
    for table_id, seat, view in steps:
        prior = last.get(table_id)
        if prior is not None and prior["view"] and len(view) % 2:  # follow on: grow a list
            view = {**prior["view"], **view}
            for key, value in prior["view"].items():
                if isinstance(value, list):
                    view[key] = [*value, *(view[key] if isinstance(view[key], list) else [])]
        message = table(view, table_id, seat)
        got = expand(prior, sent.shrink(message))
        assert got == message
        if prior is not None:
            assert prior == kept[table_id]
        last[table_id] = got
        kept[table_id] = copy.deepcopy(got)
