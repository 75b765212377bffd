"""A game night's messages joined from parts encoded once are the very bytes ``encode`` makes
of each reader's whole message."""

from __future__ import annotations

from protocol.codec import decode_body, encode
from server.hub.night_frames import SharedList, SharedNight

COMMON = {"id": 3, "name": "Friday", "status": "playing", "registered": 2, "next_in": None}
ROWS = [
    {"place": 1, "name": "Ada", "points": 3.0, "tiebreak": 1.5, "games": 1, "id": "key-a"},
    {"place": 2, "name": "Bob", "points": 0.0, "tiebreak": 3.0, "games": 1, "id": "key-b"},
]


def test_each_readers_night_frame_is_the_encoding_of_their_own_message():
    shared = SharedNight({**COMMON, "you": True, "hosting": True}, ROWS)
    for pid, table in (("key-b", 7), ("key-z", None)):
        message = shared.message(pid, you=pid == "key-b", hosting=False, table=table, bye=False)
        assert message.frame == encode(dict(message))
        info = decode_body(message.frame[4:])["night"]
        assert "id" not in info["standings"][0]  # (a player's key is never sent)
        assert [r["you"] for r in info["standings"]] == [False, pid == "key-b"]
        assert (info["you"], info["hosting"], info["table"]) == (pid == "key-b", False, table)
    assert shared.rows[1]["you"] is False  # (one reader's mark is not another's)


def test_each_readers_list_frame_is_the_encoding_of_their_own_list():
    shared = SharedList([{**COMMON, "you": False, "hosting": False}, {**COMMON, "id": 4}])
    for reading in ([(True, False), (False, False)], [(False, True), (True, True)]):
        message = shared.message(reading)
        assert message.frame == encode(dict(message))
        listed = decode_body(message.frame[4:])["nights"]
        assert [(n["you"], n["hosting"]) for n in listed] == reading


def test_readers_without_a_row_of_their_own_share_one_message_per_way_of_reading_it():
    """At a big night most followers have no row shown: their message is made once for each
    table (their own fields), not once each; it is still the encoding of their message."""
    shared = SharedNight(COMMON, ROWS)
    first = shared.message("key-y", you=True, hosting=False, table=7, bye=False)
    again = shared.message("key-z", you=True, hosting=False, table=7, bye=False)
    other = shared.message("key-x", you=True, hosting=False, table=8, bye=False)
    assert again is first and other is not first
    for message, table in ((first, 7), (other, 8)):
        assert message.frame == encode(dict(message))
        assert decode_body(message.frame[4:])["night"]["table"] == table
    own = shared.message("key-a", you=True, hosting=False, table=7, bye=False)
    assert own is not first and [r["you"] for r in own["night"]["standings"]] == [True, False]
