"""Plain mode's history and replays against a real hub (no SSH): a Prophet game played to its
end by typed numbers, then ``history``, ``replay 1``, ``next``, ``next 5``, ``back`` and
``stop``; each move of the replay is said as the live game said it. A long history is said
ten games a page (``history 2``), and ``replay N`` opens a game of any page. Refusals in one
sentence; the same in Ukrainian."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest

from server.hub import Hub
from tests.hub.conftest import fast_config

from .plain_session import PlainSession, plain, play


@pytest.fixture
async def hub(store) -> AsyncIterator[Hub]:
    h = Hub(store, fast_config(seed=3, between_games=60.0))
    await h.start()
    yield h
    await h.stop()


async def play_prophet(session: PlainSession, over: str = "Game over.") -> list[str]:
    """A one-round Prophet game against two bots; the lines said from its start to its end."""
    return await play(session, "new prophet cap 1", 2, over)


def moves(lines: list[str]) -> list[str]:
    """The sentences of the moves (bids, plays, tricks): what a replay says again."""
    return [x for x in lines if re.search(r" (bids|plays|wins the trick|takes the trick)", x)]


async def test_history_and_replay_said_as_played(hub):
    ada = await plain(hub, "Ada")
    live = await play_prophet(ada)
    assert moves(live), live

    at = ada.enter("history")
    header = await ada.line("newest first", at)
    assert header == "Your last games, newest first:"
    first = await ada.line(r"^1\. ", at)
    assert re.fullmatch(
        r"1\. Prophet, \d{4}-\d\d-\d\d \d\d:\d\d: place [1-3] of 3; chips [+-]\d+\.", first
    )
    await ada.line("Type replay and a number", at)

    at = ada.enter("replay 1")
    opening = await ada.line("Replay of game", at)
    game_id = ada.client.replay.game_id if ada.client.replay else None
    steps = ada.client.replay.steps if ada.client.replay else None
    assert steps and steps > 5
    # (a seeded hub's deals are not random: "not fair", as the replay screen says)
    assert opening == (
        f"Replay of game {game_id}: Prophet, {steps} moves, deal not fair. "
        "Type next to step on, back to step back, stop to leave."
    )
    # its start: the deal, as the live game said it
    await ada.settle()
    deal = [x for x in live if x.startswith("Round 1:")]
    assert deal and deal[0] in ada.said[at:]

    # step by step to the end: each move said as it was at the table, once
    steps_said: list[list[str]] = []
    for _ in range(steps):
        at = ada.enter("next")
        await ada.settle()
        assert len(ada.said) > at
        steps_said.append(ada.said[at:])
    replayed = [line for said in steps_said for line in said]
    assert moves(replayed) == moves(live)
    assert replayed.count("Game over.") == 1 and "Game over." in steps_said[-1]
    results = [x for x in live if re.match(r"Place \d: ", x)]
    assert results and all(x in steps_said[-1] for x in results)
    at = ada.enter("next")
    assert await ada.line("end of the game", at) == (
        "This is the end of the game: type back to step back, or stop to leave."
    )

    # back one move: where it is, and that move's sentences again
    at = ada.enter("back")
    await ada.line("Back to move", at)
    await ada.settle()
    assert ada.said[at:] == [f"Back to move {steps - 1} of {steps}.", *steps_said[-2]]

    # back to the start (its start said again), then next 5: five moves at once
    at = ada.enter(f"back {steps}")
    await ada.line("Back to move 0 of", at)
    await ada.settle()
    assert deal[0] in ada.said[at:]
    at = ada.enter("next 5")
    await ada.settle()
    assert ada.client.replay and ada.client.replay.asked == 5
    assert ada.said[at:] == [line for said in steps_said[:5] for line in said]
    at = ada.enter("back 99")
    await ada.line("Back to move 0 of", at)
    at = ada.enter("back")
    assert await ada.line("start of the game", at) == (
        "This is the start of the game: type next to step on."
    )

    at = ada.enter("stop")
    assert await ada.line("left the replay", at) == f"You left the replay of game {game_id}."
    assert ada.client.replay is None and -int(game_id or 0) not in ada.client.model.views
    at = ada.enter("next")
    assert await ada.line("No replay", at) == (
        "No replay is open. Type history, then replay and a number."
    )
    await ada.close()


async def test_refusals_in_one_sentence(hub):
    bob = await plain(hub, "Bob")
    at = bob.enter("replay 1")
    assert await bob.line("finished games", at) == "No finished games yet."
    for typed, said in [
        ("back", "No replay is open. Type history, then replay and a number."),
        ("stop", "No replay is open. Type history, then replay and a number."),
        ("replay", "Which game? Type replay and its number in your history, as in replay 1."),
        ("history", "No finished games yet."),
        (
            "help history",
            "history: Lists your finished games, newest first, ten a page (history 2: the "
            "second page); replay and a number opens one.",
        ),
    ]:
        at = bob.enter(typed)
        await bob.wait_for(lambda at=at: len(bob.said) > at)
        await bob.settle()
        assert bob.said[at:] == [said]
    await bob.close()


async def test_history_and_replay_in_ukrainian(hub):
    ada = await plain(hub, "Ada", lang="uk")
    live = await play_prophet(ada, over="Гру закінчено.")
    assert live
    # typed in Ukrainian: history, replay 1, next, back, stop
    at = ada.enter("історія")
    assert await ada.line(r"^1\. ", at)
    assert ada.said[at] == "Ваші останні ігри, від найновішої:"
    at = ada.enter("перегляд 1")
    assert await ada.line(r"^Перегляд гри \d+: ", at)
    await ada.settle()
    ada.enter("далі")
    ada.enter("назад")
    await ada.line(r"^Назад до ходу 0 з \d+\.$", at)
    at = ada.enter("далі 99")
    await ada.line("Гру закінчено.", at)
    at = ada.enter("далі")
    assert await ada.line("^Це кінець гри", at)
    at = ada.enter("стоп")
    assert await ada.line("^Ви закрили перегляд гри", at)
    assert not any(re.search(r"[A-Za-z]{4}", x) for x in ada.said[at:])
    await ada.close()


async def test_a_long_history_is_said_a_page_at_a_time_and_any_game_opens(hub, store):
    """Regression: ``history`` said the newest ten games and no more: the 490 others of a
    player with 500 could not be listed or opened."""
    ada = await plain(hub, "Ada", identity="SHA256:Ada")
    await play_prophet(ada)  # the oldest game, played: it can be replayed
    played = ada.client.model.history  # (none asked for yet)
    assert played is None
    for _ in range(500):
        store.record_game(
            1,
            {"game": "prophet"},
            [],
            {},
            ["SHA256:Ada", None, None],
            results=[{"place": 2, "chips": -10, "rating_change": 4}, {}, {}],
        )

    at = ada.enter("history")
    await ada.line("older games", at)
    said = ada.said[at:]
    assert said[0] == "Your games 1 to 10 of 501, newest first:"
    assert [line.split(".")[0] for line in said[1:11]] == [str(n) for n in range(1, 11)]
    assert said[1].endswith(": place 2 of 3; chips -10.")
    assert said[11:] == [
        "Type replay and a number to step through a game.",
        "Type history 2 for older games.",
    ]
    at = ada.enter("history 2")
    assert await ada.line("newest first", at) == "Your games 11 to 20 of 501, newest first:"
    assert await ada.line("^11\\. ", at)
    await ada.line("Type history 3 for older games.", at)
    for typed in ("history 51", "history 999"):  # (past the last page: the last page)
        at = ada.enter(typed)
        await ada.line("step through a game", at)
        said = ada.said[at:]
        assert said[0] == "Your games 501 to 501 of 501, newest first:"
        assert re.fullmatch(r"501\. Prophet, .*: place [1-3] of 3; chips [+-]\d+\.", said[1])
        assert said[2:] == ["Type replay and a number to step through a game."]
    at = ada.enter("history older")
    assert await ada.line("page number", at) == (
        "Type history, or history and a page number, as in history 2."
    )

    # A game of another page than the one held opens by its number: its page is asked for.
    at = ada.enter("history")
    await ada.line("older games", at)
    at = ada.enter("replay 501")
    opening = await ada.line("Replay of game", at)
    oldest = min(g["id"] for g in store.games_of("SHA256:Ada", 1000))
    assert opening.startswith(f"Replay of game {oldest}: Prophet, ")
    at = ada.enter("replay 502")
    assert await ada.line("no game", at) == (
        "There is no game 502 in your history: type a number from 1 to 501."
    )
    await ada.close()
