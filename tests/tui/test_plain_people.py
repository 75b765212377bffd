"""The plain mode's people against a real hub (issue 44): profiles, leaderboards, friends and
invitations, each said as lines; each refusal one sentence."""

from __future__ import annotations

from protocol.requests import Chat
from server.hub import history

from .plain_session import plain
from .test_profiles import seed_games


async def test_profile_says_ones_own_and_anothers(hub, store):
    seed_games(store)
    ada = await plain(hub)
    said = await ada.type("profile", "finished game")
    assert said[0].startswith("Ada, online. Plays here since ")
    assert said[0].endswith(" 1 finished game.")
    assert "You: 1000 chips." in said
    assert any(line.startswith("Prophet: rating ") and "1 game, 0 won" in line for line in said)
    said = await ada.type("prof bob", "finished games")
    assert said[0].startswith("Bob, offline. Plays here since ")
    assert not any(line.startswith("You:") for line in said)  # (another's chips are theirs)
    assert any(
        line.startswith("Prophet: rating ")
        and line.endswith("3 games, 2 won; best game: +35 chips.")
        for line in said
    ), said
    said = await ada.type("profile Nobody", "Nobody")
    assert said == ["There is no player called Nobody."]
    await ada.close()


async def test_top_says_the_leaderboard_as_numbered_lines(hub, store, monkeypatch):
    seed_games(store)
    monkeypatch.setattr(history, "MIN_GAMES", 2)
    ada = await plain(hub)
    said = await ada.type("top prophet", "1. ")
    assert said == [
        "Prophet: Players with at least 2 finished games, best rating first.",
        said[1],
    ]
    assert said[1].startswith("1. Bob, rating ") and said[1].endswith(", 3 games.")
    said = await ada.type("top", "enough games")  # no table: the first game's board
    assert said[0].startswith("Prophet's Gambit: ")
    assert said[1] == "No one has played enough games yet."
    said = await ada.type("top chess", "chess")
    assert said == [
        "There is no game chess: type top and one of Prophet's Gambit, Prophet, Fortunes."
    ]
    await ada.close()


async def test_friends_asked_accepted_listed_and_ended(hub):
    ada = await plain(hub)
    bob = await plain(hub, "Bob")
    said = await ada.type("friends", "No friends yet")
    assert said == ["No friends yet: type friend and a name to add one."]
    assert await ada.type("friend", "Whom?") == ["Whom? Type friend and a name, as in friend Anna."]
    since = len(bob.raw)
    said = await ada.type("friend Bob", "Bob: asked, no answer yet.")
    assert "Asked Bob to be friends." in said
    await bob.heard("Ada asks to be your friend: type friend Ada to accept.")
    assert b"\a" in bob.raw[since:]  # (with the bell)
    said = await bob.type("friend Ada", "Ada: online")
    await ada.heard("Bob accepted your friend request.")
    await ada.type("new", "You sit at table 1")
    await bob.wait_for(lambda: 1 in bob.client.model.tables)
    assert await bob.type("friends", "Ada:") == ["Ada: online, at table 1."]
    assert await bob.type("unfriend Ada", "No friends") == [
        "No friends yet: type friend and a name to add one."
    ]
    await ada.close()
    await bob.close()


async def test_an_invitation_is_said_with_the_bell_and_join_accepts_it(hub):
    ada = await plain(hub)
    bob = await plain(hub, "Bob")
    assert await ada.type("invite Bob", "not at a table") == [
        "You are not at a table: type tables, then join and its number."
    ]
    await ada.type("new", "You sit at table 1")
    since = len(bob.raw)
    assert "Invited Bob." in await ada.type("invite Bob", "Invited")
    await bob.heard("Ada invites you to table 1: type join 1.")
    assert b"\a" in bob.raw[since:]
    await bob.type("join 1", "You sit at table 1, seat 2")
    await ada.heard("Bob takes seat 2.")
    assert not bob.client.model.invites  # (answered: not said again at the next hello)
    await ada.close()
    await bob.close()


async def test_control_characters_in_anothers_words_never_reach_the_terminal(hub):
    """Chat is another player's text: in a terminal that is never redrawn an ESC or a C1 CSI
    in it would be a command to the reader's terminal (clear, retitle, set the clipboard)."""
    ada = await plain(hub)
    bob = await plain(hub, "Bob")
    since = len(bob.raw)
    # (sent as a hostile client would: Ada's own line editor drops what it typed as ESC [ 2 J)
    ada.client.send(Chat("lobby", "hi\x1b[2J there\x9b31m\x07 \u202eok"))
    said = await bob.heard("hi", since=len(bob.said))
    assert "hi[2J there31m ok" in next(x for x in said if "hi" in x)
    raw = bytes(bob.raw[since:])
    for control in (b"\x1b", "\x9b".encode(), b"\x07", "\u202e".encode()):
        assert control not in raw
    typed = len(ada.raw)
    ada.client.feed("x\x9by\u202e".encode())  # (typed: no control echoed either)
    await ada.wait_for(lambda: len(ada.raw) > typed)
    assert "\x9b".encode() not in bytes(ada.raw[typed:]) and ada.client.editor.text == "xy"
    await ada.close()
    await bob.close()


async def test_say_without_words_is_refused_in_one_sentence(hub):
    ada = await plain(hub)
    said = await ada.type("say", "say")
    assert said == ["Say what: type say and your words."]
    await ada.close()
