"""``history`` and ``leaderboard``: a player's finished games (never a running one), paged and
filtered, and the best rated players per game."""

from __future__ import annotations

import asyncio

from server.engine.base import Outcome
from server.hub import history

from .harness import connect, play_to_end, table_with_bots


async def test_history_lists_a_game_once_it_has_ended_and_the_leaderboard_ranks(hub, monkeypatch):
    ada = await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    table = await table_with_bots(ada, "prophet", options={"cap": 1}, stake=10)
    await ada.send("start", table=table)
    await ada.until(lambda m: m["t"] == "table" and m["view"] is not None)
    await ada.send("history")
    running = await ada.expect("history")
    assert running["games"] == [] and running["total"] == 0  # a game in play has no record
    view = await play_to_end({0: ada}, table)
    await ada.send("history", game="prophet")
    page = await ada.expect("history")
    assert (page["total"], page["pages"], page["page"], page["game"]) == (1, 1, 0, "prophet")
    (entry,) = page["games"]
    assert entry["players"] == ["Ada", None, None] and entry["seat"] == 0
    assert entry["place"] == view["outcome"]["ranking"].index(0) + 1
    assert entry["chips"] == Outcome(**view["outcome"]).payouts(10)[0] - 10
    assert isinstance(entry["rating_change"], int)
    await ada.send("history", game="fortunes", page=5)
    assert (await ada.expect("history"))["games"] == []

    await ada.send("leaderboard", game="prophet")
    assert (await ada.expect("leaderboard"))["rows"] == []  # one game is not enough
    monkeypatch.setattr(history, "MIN_GAMES", 1)
    await ada.send("leaderboard", game="prophet")
    board = await ada.expect("leaderboard")
    assert board["min_games"] == 1
    assert [(r["name"], r["games"]) for r in board["rows"]] == [("Ada", 1)]
    await ada.close()


async def test_a_public_profile_shows_ratings_games_and_best_results_never_a_key(hub):
    ada = await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    table = await table_with_bots(ada, "prophet", options={"cap": 1}, stake=10)
    await ada.send("start", table=table)
    view = await play_to_end({0: ada}, table)
    bob = await connect(hub)
    await bob.hello("Bob", identity="SHA256:bob")
    await bob.send("player", name="ada")  # any case
    profile = await bob.expect("player")
    assert profile["name"] == "Ada" and profile["online"] is True and profile["games"] == 1
    won = view["outcome"]["ranking"].index(0) == 0
    prophet = profile["by_game"]["prophet"]
    assert (prophet["games"], prophet["wins"]) == (1, int(won))
    assert prophet["best_chips"] == Outcome(**view["outcome"]).payouts(10)[0] - 10
    assert prophet["rating"] == hub.you(hub.players["SHA256:ada"])["ratings"]["prophet"]
    assert isinstance(profile["since"], int) and "SHA256" not in str(profile)
    await bob.send("player", name="Zed")
    err = await bob.expect("error", ref="player")
    assert err["code"] == "no_player" and "Zed" in err["message"]
    await ada.close()
    await bob.close()


async def test_a_game_a_stand_in_finished_is_in_the_players_history(hub, store):
    """Ada leaves mid-game: a bot finishes it with her chips. It is her game all the same,
    in her list of games, with what it won or lost for her."""
    ada = await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    table = await table_with_bots(ada, "prophets_gambit", stake=10)
    await ada.send("start", table=table)
    await ada.until(lambda m: m["t"] == "table" and m["view"] is not None)
    await ada.send("leave", table=table)
    await ada.expect("left", table=table)
    for _ in range(500):  # the stand-in and the bots play it out (no bot delay here)
        if store.count_games_of("SHA256:ada", None):
            break
        await asyncio.sleep(0.02)
    await ada.send("history")
    page = await ada.expect("history")
    assert page["total"] == 1
    (entry,) = page["games"]
    assert entry["game"] == "prophets_gambit" and entry["seat"] == 0
    assert entry["players"] == ["Ada", None, None]
    record = store.game(entry["id"])
    outcome = Outcome(**record["outcome"])
    assert entry["chips"] == outcome.payouts(10)[0] - 10
    assert entry["rating_change"] is None  # a bot played it: her rating stays
    await ada.close()
