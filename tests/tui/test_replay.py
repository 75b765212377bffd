"""A finished game opened from Your games and stepped through on its own table screen: to the
end (every card played, the result as recorded), back to the start, by deal, by seat, played at
a chosen speed; the verdict on its deal in words."""

from __future__ import annotations

import re
from typing import Any

from gambit_tui.cards import FRENCH_FACES
from gambit_tui.screens.history import HistoryScreen
from gambit_tui.screens.prophet_table import ProphetTableScreen
from gambit_tui.screens.replay import PGReplayScreen, ProphetReplayScreen, VerdictScreen
from server.engine.base import Outcome
from tests.hub.harness import connect, play_to_end, table_with_bots

from .conftest import enter_lobby, make_app, screen_text, wait_for


async def finish_a_game(hub, store) -> dict:
    """Ada (not through the app) plays a short Prophet game against two bots; its record."""
    ada = await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    table = await table_with_bots(ada, "prophet", options={"cap": 2})
    await ada.send("start", table=table)
    await play_to_end({0: ada}, table)
    await ada.send("leave", table=table)
    await ada.close()
    (game,) = store.games_of("SHA256:ada", 5)
    return store.game(game["id"])


async def open_first_replay(pilot, screen_type: type) -> Any:
    """From the lobby's Your games (``h``), the replay of the player's one game."""
    app = pilot.app
    await enter_lobby(pilot)
    await pilot.press("h")
    await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
    await wait_for(pilot, lambda: "page 1 of 1" in screen_text(app))
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, screen_type))
    return app.screen


async def test_open_a_finished_game_from_history_and_step_through_it(hub, store):
    stored = await finish_a_game(hub, store)
    steps = len(stored["history"])
    app = make_app(hub)
    async with app.run_test(size=(100, 30)) as pilot:
        replay = await open_first_replay(pilot, ProphetReplayScreen)
        assert isinstance(replay, ProphetTableScreen)  # the table screen itself
        await wait_for(pilot, lambda: replay.message is not None and replay.record is not None)
        # The start: Ada's own hand as the deal gave it, and the verdict in words.
        dealt = stored["deal"]["dealt"][0]["hand:0"]
        assert replay.seat == 0 and replay.view["hand"] == dealt
        top = screen_text(app).splitlines()[0]
        assert f"move 0 of {steps}" in top and "deal not fair" in top  # the tests' fixed seed
        # Step on: one recorded move more each time.
        await pilot.press("right")
        await wait_for(pilot, lambda: replay.step == 1)
        assert f"move 1 of {steps}" in screen_text(app)
        await pilot.press("left")
        await wait_for(pilot, lambda: replay.step == 0)
        # To the end: the result as recorded, every card played.
        await pilot.press("end")
        await wait_for(pilot, lambda: replay.step == steps)
        assert (
            replay.view["over"] and replay.view["outcome"]["scores"] == stored["outcome"]["scores"]
        )
        await wait_for(pilot, lambda: replay.result_open)
        await pilot.press("enter")
        await wait_for(pilot, lambda: not replay.result_open)
        # Back to the start, then deal by deal.
        await pilot.press("home")
        await wait_for(pilot, lambda: replay.step == 0)
        deals = replay.record["deals"]
        assert len(deals) >= 2
        await pilot.press("d")
        await wait_for(pilot, lambda: replay.step == deals[1])
        # Every hand at once, after each seat's view.
        await pilot.press("s", "s", "s")
        await wait_for(pilot, lambda: replay.replay_seat is None and replay.seat is None)
        await wait_for(pilot, lambda: "Every hand" in screen_text(app))
        hands = replay.message["hands"]
        shown = screen_text(app)
        for seat, hand in enumerate(hands):
            line = next(row for row in shown.splitlines() if f"{replay.name_of(seat)}: " in row)
            assert line.count("♠") + line.count("♥") + line.count("♣") + line.count("♦") == len(
                hand
            ), shown
            for card in hand:
                assert FRENCH_FACES.text(card, app.card_style).plain in line
        # Played at the fastest speed, it reaches the end by itself.
        await pilot.press(*["plus"] * 4, "space")
        await wait_for(pilot, lambda: replay.step == steps, timeout=10)
        assert not replay.playing
        await pilot.press("enter")  # the result
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, VerdictScreen))
        text = screen_text(app)
        assert stored["deal"]["commitment"][:40] in text
        assert "The revealed seed hashes to the commitment shown before the deal." in text
        assert "The deal was not random: not fair." in text
        await pilot.press("escape")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        assert -stored["id"] not in app.model.views


async def test_a_replay_shows_the_pot_and_chips_as_played_and_nothing_to_come(hub, store):
    """A Prophet's Gambit game for a stake of 10 at a table of three, replayed to its end: the
    Reveal names the pot of 30 and each seat's chips as they moved (a replay once said "the
    pot of 0 chips", +0 on every row, "Pot 0"), and says nothing of a next deal."""
    ada = await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    table = await table_with_bots(ada, "prophets_gambit", stake=10)
    await ada.send("start", table=table)
    await play_to_end({0: ada}, table)
    await ada.send("leave", table=table)
    await ada.close()
    (game,) = store.games_of("SHA256:ada", 5)
    stored = store.game(game["id"])
    outcome = Outcome(**stored["outcome"])
    paid = outcome.payouts(10)
    winner = stored["outcome"]["winners"][0]
    app = make_app(hub)
    async with app.run_test(size=(100, 30)) as pilot:
        replay = await open_first_replay(pilot, PGReplayScreen)
        await wait_for(pilot, lambda: replay.message is not None and replay.record is not None)
        await pilot.press("end")
        await wait_for(pilot, lambda: replay.step == len(stored["history"]))
        await wait_for(pilot, lambda: replay.result_open)
        text = screen_text(app)
        assert f"{replay.name_of(winner)} wins the pot of 30 chips." in text, text
        for seat in range(3):
            name = replay.name_of(seat)
            place = outcome.ranking.index(seat) + 1
            row = re.search(rf"\b{place}  {re.escape(name)}\b.*? ([+-]\d+) ", text)
            assert row is not None and int(row.group(1)) == paid[seat] - 10, text
        await pilot.press("enter")
        await wait_for(pilot, lambda: not replay.result_open)
        text = screen_text(app)
        assert re.search(r"Pot\s+30\b", text), text
        assert "soon" not in text and "next deal" not in text.lower()
