"""Protocol 2's deltas: a view that follows on carries only its new events, and the reader
puts the log together again exactly; anything else goes whole."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.codec import ProtocolError
from protocol.event_log import EVENTS_FROM, SentLogs, expand


def table(events, table_id=1):
    return {"t": "table", "table": table_id, "info": {}, "seat": 0, "view": {"events": events}}


def test_a_view_that_follows_on_carries_only_the_new_events():
    sent = SentLogs()
    first = sent.shrink(table([{"e": "deal"}]))
    assert EVENTS_FROM not in first["view"]
    second = table([{"e": "deal"}, {"e": "play", "seat": 0}])
    out = sent.shrink(second)
    assert out["view"] == {"events": [{"e": "play", "seat": 0}], EVENTS_FROM: 1}
    assert second["view"]["events"] == [{"e": "deal"}, {"e": "play", "seat": 0}]  # untouched
    assert expand(first, out) == second


def test_a_new_deal_a_left_table_or_no_view_goes_whole():
    sent = SentLogs()
    sent.shrink(table([{"e": "deal", "dealer": 0}, {"e": "play"}]))
    new_deal = table([{"e": "deal", "dealer": 1}, {"e": "play"}, {"e": "play"}])
    assert EVENTS_FROM not in sent.shrink(new_deal)["view"]
    sent.shrink({"t": "left", "table": 1})
    again = table([{"e": "deal", "dealer": 1}, {"e": "play"}, {"e": "play"}, {"e": "x"}])
    assert EVENTS_FROM not in sent.shrink(again)["view"]
    sent.shrink({"t": "table", "table": 1, "info": {}, "seat": 0, "view": None})
    assert EVENTS_FROM not in sent.shrink(again)["view"]
    assert EVENTS_FROM in sent.shrink(table([*again["view"]["events"], {"e": "y"}]))["view"]


def test_a_delta_without_its_start_is_refused():
    delta = {"t": "table", "table": 1, "view": {"events": [{"e": "x"}], EVENTS_FROM: 2}}
    with pytest.raises(ProtocolError):
        expand(None, delta)
    with pytest.raises(ProtocolError):
        expand(table([{"e": "a"}]), delta)


EVENT = st.fixed_dictionaries({"e": st.sampled_from("abc"), "n": st.integers(0, 3)})


@given(st.lists(st.tuples(st.integers(1, 2), st.lists(EVENT, max_size=6)), max_size=25))
def test_the_reader_always_has_the_senders_views(steps):
    """Any sequence of views, of two tables, growing or starting again: shrunk, then expanded
    by the reader, each is the view that was sent."""
    sent = SentLogs()
    logs: dict[int, list] = {}
    last: dict[int, dict] = {}
    for table_id, more in steps:
        # Mostly follow on; now and then start again (a new deal).
        logs[table_id] = more if len(more) % 3 == 0 else logs.get(table_id, []) + more
        message = table(list(logs[table_id]), table_id)
        got = expand(last.get(table_id), sent.shrink(message))
        assert got == message
        last[table_id] = got
