"""Welcome back, friend requests and invitations, as the hub tells them (issue 18, items 9
and 11)."""

from __future__ import annotations

from .harness import connect


async def test_welcome_says_whether_the_key_is_known(hub):
    ada = await connect(hub)
    first = await ada.hello("Ada", identity="SHA256:ada")
    assert first["returning"] is False  # a new key: the client shows its welcome screen
    await ada.close()
    again = await connect(hub)
    assert (await again.hello(identity="SHA256:ada"))["returning"] is True
    guest = await connect(hub)
    assert (await guest.hello("Gus"))["returning"] is False
    # A key that never kept a name (no name wished, a made-up one given) is asked again.
    nameless = await connect(hub)
    assert (await nameless.hello(identity="SHA256:anon"))["returning"] is False
    await nameless.close()
    nameless = await connect(hub)
    assert (await nameless.hello(identity="SHA256:anon"))["returning"] is False


async def friends_pair(hub):
    ada = await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    bob = await connect(hub)
    await bob.hello("Bob", identity="SHA256:bob")
    return ada, bob


async def test_a_friendship_is_asked_shown_at_once_and_accepted_by_the_other(hub):
    ada, bob = await friends_pair(hub)
    await ada.send("friend", op="add", name="Bob")
    await ada.expect("notice", code="friend_asked")
    mine = await ada.expect("friends")
    assert mine["friends"] == [] and mine["sent"] == [{"name": "Bob"}]
    assert (await bob.expect("friend_request"))["from"] == "Ada"
    # Not friends yet: Ada's "friends" table is closed to Bob.
    await ada.send("create_table", game="prophet", players=3, access="friends")
    table = (await ada.expect("table"))["table"]
    await bob.send("join", table=table)
    await bob.expect("error", code="not_allowed")
    await bob.send("friend", op="list")
    assert (await bob.expect("friends"))["requests"] == [{"name": "Ada"}]
    await bob.send("friend", op="accept", name="Ada")
    theirs = await bob.expect("friends")
    assert theirs["friends"] == [{"name": "Ada", "online": True}] and theirs["requests"] == []
    await ada.expect("notice", code="friend_accepted")
    assert (await ada.expect("friends"))["friends"] == [{"name": "Bob", "online": True}]
    await bob.send("join", table=table)
    assert (await bob.expect("table", table=table))["seat"] is not None


async def test_declined_answered_twice_and_removed(hub):
    ada, bob = await friends_pair(hub)
    await ada.send("friend", op="add", name="Bob")
    await bob.expect("friend_request")
    await bob.send("friend", op="decline", name="Ada")
    assert (await bob.expect("friends"))["requests"] == []
    assert (await ada.until(lambda m: m["t"] == "friends" and not m["sent"]))["friends"] == []
    await bob.send("friend", op="accept", name="Ada")  # nothing left to accept
    await bob.expect("error", code="no_request")
    assert hub.store.friends("SHA256:bob") == []
    # Asked both ways: the second ask is a yes.
    await ada.send("friend", op="add", name="Bob")
    await ada.expect("friends", sent=[{"name": "Bob"}])
    await bob.expect("friend_request")
    await bob.send("friend", op="add", name="Ada")
    assert (await bob.expect("friends"))["friends"] == [{"name": "Ada", "online": True}]
    await ada.expect("notice", code="friend_accepted")
    await ada.expect("friends")
    await bob.send("friend", op="add", name="Ada")
    await bob.expect("error", code="already_friends")
    await ada.send("friend", op="remove", name="Bob")
    assert (await ada.expect("friends")) == {
        "t": "friends",
        "friends": [],
        "requests": [],
        "sent": [],
    }
    await bob.until(lambda m: m["t"] == "friends" and m["friends"] == [])
    assert hub.store.friends("SHA256:bob") == [] and hub.store.friends("SHA256:ada") == []


async def test_a_request_made_while_away_comes_with_hello(hub):
    ada = await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    bob = await connect(hub)
    await bob.hello("Bob", identity="SHA256:bob")
    await bob.close()
    await ada.send("friend", op="add", name="Bob")
    await ada.expect("notice", code="friend_asked")
    bob = await connect(hub)
    await bob.hello(identity="SHA256:bob")
    assert (await bob.expect("friends"))["requests"] == [{"name": "Ada"}]
    guest = await connect(hub)
    await guest.hello("Gus")
    await guest.send("friend", op="accept", name="Ada")
    await guest.expect("error", code="guest")
