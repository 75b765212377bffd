"""The hiding audit looks for card codes in a frame's bytes before it walks the frame's strings
(tests/hub/hiding_audit.py, ``codes_in_bytes``): a frame none of whose hidden cards' bytes are
there is passed without the walk. That is sound only if the bytes hold every code the walk
finds, whatever the strings around it: checked here on messages of codes, words, separators,
letters beyond ASCII and numbers whose bytes look like a code's, nested at random."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import encode, packb
from tests.hub.hiding_audit import (
    ALL_CARDS,
    AuditedConnection,
    Auditor,
    codes_in_bytes,
    words,
)

CODES = sorted(ALL_CARDS)
PIECES = (
    st.sampled_from(CODES)
    | st.sampled_from([" ", "-", "*", "_", ":", "é", "Ж", "🂡", "1", "4", "A", "H", "S", "x"])
    | st.text(max_size=5)
)
STRINGS = st.lists(PIECES, max_size=6).map("".join)
# Integers whose msgpack bytes are ASCII digits and capitals (0x30-0x5a), and any others.
NUMBERS = st.integers(0x30, 0x5A) | st.integers(-(2**63), 2**64 - 1) | st.floats()
VALUES = st.recursive(
    st.none() | st.booleans() | NUMBERS | STRINGS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(STRINGS, inner, max_size=4),
    max_leaves=24,
)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_the_bytes_hold_every_code_the_walk_finds(value):
    message = {"t": "table", "value": value}
    assert words(message) & ALL_CARDS <= codes_in_bytes(packb(message))


def test_codes_are_found_inside_longer_runs_of_code_bytes():
    # "*21" holds "*2" (Fortunes' Stars 2 and 21); "HSE" is found beside digits and capitals.
    assert {"*2", "*21"} <= codes_in_bytes(packb({"t": "x", "a": "*21"}))
    assert "HSE" in codes_in_bytes(packb({"t": "x", "a": "9HSEQ", "n": 0x41}))
    assert codes_in_bytes(packb({"t": "lobby", "name": "p1234-5", "game": "fortunes"})) == set()


class NoHub:
    """A hub with no tables: every frame is checked only as one about none."""

    tables: dict = {}  # noqa: RUF012


async def test_a_card_in_a_lobby_frame_is_caught_through_its_bytes():
    """The frames written through AuditedConnection take the bytes' path; it still reports a
    card where none may be (and passes a frame with none)."""
    auditor = Auditor(NoHub(), own_tables=False)  # type: ignore[arg-type]  # no table needed
    conn = AuditedConnection(asyncio.Queue(), asyncio.Queue(), auditor, "key-0")
    conn.write(encode({"t": "lobby", "tables": [], "players": ["Ann", "p1234-5"]}))
    assert auditor.violations == []
    conn.write(encode({"t": "lobby_update", "tables": [{"name": "at S7: go"}]}))
    assert auditor.violations and "S7" in auditor.violations[0]
    assert auditor.checked_frames == 2
    # A frame written in two pieces is read from the decoder's buffer: walked, as before.
    data = encode({"t": "lobby", "players": ["GM"]})
    conn.write(data[:5])
    conn.write(data[5:])
    assert len(auditor.violations) == 2 and "GM" in auditor.violations[1]
