"""The plain mode's settings against a real hub (issue 44): ``set`` lists them; ``set language``
switches the session's language at once and the key remembers it; ``set bell off`` silences
the turn's bell; ``set verbosity short`` says a trick in one sentence and leaves out a
spectator's chatter; each refusal is one sentence saying what is accepted."""

from __future__ import annotations

import re

from .plain_session import PlainSession, plain

#: Rounds of Prophet answered before giving up (each round's tricks are few).
PROMPTS = 40


async def test_set_alone_lists_the_settings(hub):
    ada = await plain(hub)
    said = await ada.type("set", "as in set verbosity short")
    assert said[-4:] == [
        "language: English.",
        "bell: on.",
        "verbosity: full.",
        "Type set, a setting and a value, as in set verbosity short.",
    ]
    await ada.close()


async def test_set_language_switches_at_once_and_the_key_keeps_it(hub):
    ada = await plain(hub)
    said = await ada.type("set language uk", "Українська")
    assert "мова: Українська." in said
    said = await ada.type("frobnicate", "frobnicate")
    assert "There is no command" not in said[-1]
    assert "довідка" in said[-1]  # (the Ukrainian word of help)
    await ada.close()
    again = PlainSession(hub)
    said = await again.heard("Gambit")
    assert "You are" not in said[0], said  # the welcome itself is Ukrainian
    said = await again.type("set l de", "Deutsch")  # English words are always understood
    assert "sprache: Deutsch." in said
    await again.close()


async def test_german_plain_mode_says_sie_like_the_full_screen(hub):
    ada = await plain(hub, "Ada", lang="de")
    assert "Gambit, Textmodus. Sie sind Ada." in ada.said
    at = ada.enter("frobnicate")
    line = await ada.line("frobnicate", at)
    assert line == "Es gibt keinen Befehl frobnicate: Tippen Sie hilfe für die Befehle."
    await ada.close()


async def test_set_refusals_say_what_is_accepted(hub):
    ada = await plain(hub)
    said = await ada.type("set colour red", "colour")
    assert said == ["There is no setting colour: type set and one of language, bell, verbosity."]
    said = await ada.type("set bell maybe", "takes")
    assert said == ["bell takes on, off."]
    said = await ada.type("set language fr", "takes")
    assert said == ["language takes en, uk, de."]
    said = await ada.type("set verb", "takes")
    assert said == ["verbosity takes full, short."]
    await ada.close()


async def _three_seats(session: PlainSession, game: str = "") -> None:
    await session.type(f"new {game}".strip(), "You sit at table")
    await session.type("bot", "takes seat 2")
    await session.type("bot", "takes seat 3")


async def test_bell_off_rings_no_bell_on_the_turn_and_is_kept(hub):
    ada = await plain(hub)
    await ada.type("set bell of", "bell: off.")
    start = len(ada.raw)
    await _three_seats(ada)
    await ada.type("start", "Choices:")
    assert b"\a" not in ada.raw[start:]
    await ada.close()
    again = await plain(hub)
    assert "bell: off." in await again.type("set", "as in set verbosity")
    await again.close()


async def test_the_bell_rings_on_the_turn_by_default(hub):
    ada = await plain(hub)
    await _three_seats(ada)
    start = len(ada.raw)
    await ada.type("start", "Choices:")
    assert b"\a" in ada.raw[start:]
    await ada.close()


async def _play_prophet(session: PlainSession, until: str) -> None:
    """Answer each prompt with its first choice until a line contains ``until`` (bounded)."""
    await _three_seats(session, "prophet")
    session.client.feed(b"start\r")
    for n in range(PROMPTS):
        await session.wait_for(
            lambda n=n: (
                sum("Choices:" in line for line in session.said) > n
                or any(until in line for line in session.said)
            )
        )
        if any(until in line for line in session.said):
            return
        session.client.feed(b"1\r")
    raise AssertionError(f"{until!r} never said")


async def test_short_verbosity_says_a_trick_in_one_sentence(hub):
    ada = await plain(hub)
    await ada.type("set verbosity short", "verbosity: short.")
    await _play_prophet(ada, "Trick 2 to ")
    said = "\n".join(ada.said)
    tricks = re.findall(r"^Trick (\d) to \w[^:]*: (.+)\.$", said, re.M)
    assert [n for n, _cards in tricks] == ["1", "1", "2"], tricks  # rounds of 1, then 2 cards
    # each trick names three cards, each with who played it
    assert all(len(cards.split(", ")) == 3 for _n, cards in tricks), tricks
    assert not re.search(r" plays .+\.$", said, re.M)  # no sentence per card
    await ada.close()
    again = await plain(hub)
    assert "verbosity: short." in await again.type("set", "as in set verbosity")
    await again.close()


async def test_full_verbosity_says_each_card(hub):
    ada = await plain(hub)
    await _play_prophet(ada, "wins the trick")
    said = "\n".join(ada.said)
    assert re.search(r" plays .+\.$", said, re.M)
    assert not re.search(r"^Trick \d to ", said, re.M)
    await ada.close()


async def test_short_verbosity_leaves_out_a_spectators_chat(hub):
    ada = await plain(hub)
    bob = await plain(hub, "Bob")
    await ada.type("new", "You sit at table 1")
    await bob.type("watch 1", "You watch table 1")
    await bob.type("say hello from the rail", "hello from the rail")
    await ada.heard("Bob says: hello from the rail")
    await ada.type("set verbosity short", "verbosity: short.")
    await bob.type("say second hello", "second hello")
    await ada.type("say mine", "Ada says: mine")  # (said after Bob's line, had it been said)
    assert not any("second hello" in line for line in ada.said)
    await ada.close()
    await bob.close()
