"""Ratings, friends and invites."""

from __future__ import annotations

import pytest

from server.store import Store, StoreError
from server.store.schema import CURRENT_VERSION


def test_ratings_set_read_and_overwrite(store: Store, reopen):
    assert store.rating("a", "prophet") is None
    assert store.ratings_of("a") == {}
    store.set_ratings("prophet", {"a": (27.1, 7.9), "b": (22.0, 8.1)})
    store.set_ratings("fortunes", {"a": (25, 8)})
    store.set_ratings("prophet", {"a": (29.5, 7.0)})
    assert store.rating("a", "prophet") == (29.5, 7.0)
    assert store.rating("b", "prophet") == (22.0, 8.1)
    assert store.rating("b", "fortunes") is None
    again = reopen()
    try:
        assert again.ratings_of("a") == {"fortunes": (25.0, 8.0), "prophet": (29.5, 7.0)}
        assert again.ratings_for("prophet") == {"a": (29.5, 7.0), "b": (22.0, 8.1)}
    finally:
        again.close()


def test_ratings_update_is_all_or_nothing(store: Store):
    store.set_ratings("prophet", {"a": (20.0, 5.0)})
    with pytest.raises(ValueError):
        store.set_ratings("prophet", {"a": (30.0, 4.0), "": (1.0, 1.0)})
    assert store.rating("a", "prophet") == (20.0, 5.0)


def test_friends_are_directed_ordered_and_idempotent(store: Store):
    store.add_friend("a", "c")
    store.add_friend("a", "b")
    store.add_friend("a", "c")
    assert store.friends("a") == ["c", "b"]
    assert store.friends("b") == []  # one-way
    store.remove_friend("a", "c")
    store.remove_friend("a", "zzz")  # not there: fine
    assert store.friends("a") == ["b"]
    with pytest.raises(ValueError):
        store.add_friend("a", "a")


def test_invites_lifecycle(store: Store):
    store.add_invite(5, "owner", "b")
    store.add_invite(5, "owner", "c")
    store.add_invite(6, "other", "b")
    open_b = store.invites_for("b")
    assert [(i["table_id"], i["sender"], i["status"]) for i in open_b] == [
        (5, "owner", "open"),
        (6, "other", "open"),
    ]
    assert store.invited(5) == {"b", "c"}
    store.set_invite(5, "b", "accepted")
    store.set_invite(5, "c", "declined")
    assert [i["table_id"] for i in store.invites_for("b")] == [6]  # only open ones
    assert store.invites_for("c") == []
    assert store.invited(5) == {"b"}  # accepted counts, declined does not
    # Inviting again re-opens it, with the new sender.
    store.add_invite(5, "friend", "c")
    assert [(i["table_id"], i["sender"]) for i in store.invites_for("c")] == [(5, "friend")]
    assert store.invited(5) == {"b", "c"}


def test_answering_a_missing_invite_or_with_a_bad_status_fails(store: Store):
    with pytest.raises(StoreError):
        store.set_invite(1, "b", "accepted")
    store.add_invite(1, "a", "b")
    with pytest.raises(ValueError):
        store.set_invite(1, "b", "maybe")
    assert store.invites_for("b")[0]["status"] == "open"


def test_deleting_a_table_drops_its_invites(store: Store):
    table = store.next_table_id()
    store.save_table(table, {"owner": "a"})
    store.add_invite(table, "a", "b")
    store.add_invite(table + 1, "a", "b")
    store.delete_table(table)
    assert store.invited(table) == set()
    assert [i["table_id"] for i in store.invites_for("b")] == [table + 1]


def test_a_friendship_is_asked_then_accepted_both_ways(store: Store):
    assert store.request_friend("a", "b") is True
    assert store.request_friend("a", "b") is False  # asked again: the first one waits
    store.request_friend("c", "b")
    assert store.friend_requests_to("b") == ["a", "c"]
    assert store.friend_requests_from("a") == ["b"]
    assert store.friends("a") == [] and store.friends("b") == []  # nothing until answered
    store.answer_friend_request("a", "b", accept=True)
    assert store.friends("a") == ["b"] and store.friends("b") == ["a"]
    store.answer_friend_request("c", "b", accept=False)
    assert store.friend_requests_to("b") == [] and store.friends("c") == []
    with pytest.raises(StoreError):  # no request left to answer
        store.answer_friend_request("c", "b", accept=True)
    assert store.friends("c") == []
    with pytest.raises(ValueError):
        store.request_friend("a", "a")


def test_unfriending_ends_it_both_ways_with_any_request(store: Store):
    store.request_friend("a", "b")
    store.answer_friend_request("a", "b", accept=True)
    store.request_friend("c", "a")
    store.unfriend("b", "a")
    store.unfriend("a", "c")
    assert store.friends("a") == [] and store.friends("b") == []
    assert store.friend_requests_to("a") == []


def test_version_4_file_gains_friend_requests_with_its_friends_kept(tmp_path):
    import sqlite3

    from server.store import schema

    path = tmp_path / "gambit.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    assert schema.migrate(conn, target=4) == 4
    conn.execute("INSERT INTO friends VALUES ('a', 'b', 1.0)")
    conn.close()
    with Store.open(tmp_path) as store:
        assert store.schema_version == CURRENT_VERSION
        assert store.friends("a") == ["b"]  # a one-way friend of old stays on the list
        store.request_friend("b", "a")
        assert store.friend_requests_to("a") == ["b"]
