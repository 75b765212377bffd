"""The plain mode's events (game nights) against a real hub (issue 44): ``events`` lists them
as numbered lines, ``register N`` and ``withdraw N`` enter and leave one, ``standings N`` says
its standings; a refusal is one sentence."""

from __future__ import annotations

from protocol.requests import Night

from .plain_session import plain


async def test_events_listed_registered_standings_withdrawn(hub):
    ada = await plain(hub)
    assert await ada.type("events", "No events") == ["No events yet."]
    ada.client.send(
        Night("create", name="Friday", game="prophets_gambit", players=3, format="swiss", rounds=1)
    )
    await ada.wait_for(lambda: 1 in ada.client.model.night)
    said = await ada.type("events", "Event 1")
    assert said == [
        "Event 1: Friday, Prophet's Gambit, Swiss, host Ada; Registering; 0 registered."
    ]
    assert await ada.type("register 1", "registered for") == ["You are registered for event 1."]
    said = await ada.type("ev", "Event 1")
    assert said == [
        "Event 1: Friday, Prophet's Gambit, Swiss, host Ada; Registering; 1 registered. "
        "You are registered."
    ]
    said = await ada.type("standings 1", "0 games")
    assert said == ["Standings of event 1, Friday: Registering.", "1. Ada: 0 points, 0 games."]
    said = await ada.type("withdraw 1", "no longer")
    assert said == ["You are no longer registered for event 1."]
    assert await ada.type("register next", "Which event") == [
        "Which event? Type its number, as in register 1; events lists them."
    ]
    await ada.close()
