"""Finished games opened in the app (``record``, ``replay``): only once a game has ended, every
hand open then, any moment of it as any seat saw it, and the verdict on its deal."""

from __future__ import annotations

from gambit_tui.result_text import _rating_line
from server.hub import Hub
from tests.hub.conftest import fast_config
from tests.hub.harness import connect, play_to_end


async def seat_table(hub, ada, options=None) -> int:
    await ada.send("create_table", game="prophet", players=3, options=options or {"cap": 1})
    table = (await ada.expect("table"))["table"]
    for seat in (1, 2):
        await ada.send("add_bot", table=table, seat=seat)
    await ada.until(
        lambda m: m["t"] == "table" and all(s["bot"] or s["name"] for s in m["info"]["seats"])
    )
    return table


async def test_a_running_game_has_no_record_and_a_finished_one_steps_to_its_end(store):
    hub = Hub(store, fast_config(between_games=60.0))
    await hub.start()
    try:
        ada = await connect(hub)
        await ada.hello("Ada", identity="SHA256:ada")
        bob = await connect(hub)
        await bob.hello("Bob", identity="SHA256:bob")
        table = await seat_table(hub, ada)
        await bob.send("spectate", table=table)
        await bob.expect("table", table=table)
        await ada.send("start", table=table)
        await ada.until(lambda m: m["t"] == "table" and m["view"] is not None)
        # While it runs, a spectator (or anyone) asking for the game it will be gets nothing.
        for game_id in (1, 2):
            await bob.send("record", game=game_id)
            refused = await bob.expect("error")
            assert refused["code"] == "no_game" and refused["ref"] == "record"
            await bob.send("replay", game=game_id, step=0)
            assert (await bob.expect("error"))["code"] == "no_game"
        await play_to_end({0: ada}, table)
        (game,) = store.games_of("SHA256:ada", 5)

        # Once ended, it opens: for the spectator too.
        await bob.send("record", game=game["id"])
        record = await bob.expect("record")
        stored = store.game(game["id"])
        assert record["kind"] == "prophet" and record["steps"] == len(stored["history"])
        assert record["seats"][0]["name"] == "Ada" and record["seats"][1]["bot"] is True
        assert record["deal"]["seed"] == stored["deal"]["hub_seed"]
        assert record["deal"]["commitment"] == stored["deal"]["commitment"]
        assert record["verify"]["verdict"] == "pass" and record["verify"]["detail"] == ""
        assert ["commitment", True] in record["verify"]["checks"]
        rounds = stored["params"]["options"]
        assert record["deals"][0] == 0 and len(record["deals"]) == len(
            [ev for ev in hub_events(stored) if ev == "deal"]
        ), rounds

        # Step 0: right after the deal, as seat 0 saw it; every hand open besides.
        await ada.send("replay", game=game["id"], step=0, seat=0)
        first = await ada.expect("replay")
        dealt = stored["deal"]["dealt"][0]
        assert first["view"]["hand"] == dealt["hand:0"]
        assert first["hands"] == [dealt[f"hand:{s}"] for s in range(3)]
        assert first["view"]["ask"] is None and first["view"]["legal"] == []
        assert first["info"]["status"] == "playing" and not first["view"]["over"]
        # Step by step: each frame has played one more recorded action.
        await ada.send("replay", game=game["id"], step=1, seat=None)
        second = await ada.expect("replay")
        seat, action = stored["history"][0]
        assert second["step"] == 1 and second["seat"] is None and second["view"]["hand"] is None
        if action["type"] == "play":
            assert action["card"] not in second["hands"][seat]
        # Past the end: the end, over, the result as recorded; back to the start again.
        await ada.send("replay", game=game["id"], step=10_000, seat=1)
        last = await ada.expect("replay")
        assert last["step"] == record["steps"] and last["view"]["over"]
        assert last["view"]["outcome"]["scores"] == stored["outcome"]["scores"]
        assert last["info"]["status"] == "between"
        await ada.send("replay", game=game["id"], step=0, seat=0)
        assert (await ada.expect("replay"))["view"]["hand"] == dealt["hand:0"]
        await ada.send("replay", game=game["id"], step=0, seat=5)
        assert (await ada.expect("error"))["code"] == "no_seat"
        await ada.close()
        await bob.close()
    finally:
        await hub.stop()


def hub_events(stored) -> list[str]:
    from server.engine import get_game

    state = get_game("prophet").replay(stored["params"], stored["history"])
    return [ev["e"] for ev in state.events]


async def test_a_replays_rating_line_is_the_live_results(store):
    """Regression: at the end of a player's first rated game the live result said "Place 1 of
    3: your first rating, 1043" and its replay "Place 1 of 3: rating +43" (the replay had no
    ``first_ratings``); a replay now says what the live result said, for a later game too."""
    hub = Hub(store, fast_config(between_games=60.0))
    await hub.start()
    try:
        ada = await connect(hub)
        await ada.hello("Ada", identity="SHA256:ada")
        live_lines = []
        for _ in range(2):
            table = await seat_table(hub, ada)
            await ada.send("start", table=table)
            await ada.until(lambda m, t=table: m["t"] == "table" and m["table"] == t)
            await play_to_end({0: ada}, table)
            live = await ada.until(
                lambda m, t=table: (
                    m["t"] == "table"
                    and m["table"] == t
                    and (m["view"] or {}).get("over")
                    and (m["info"].get("rating_changes") or [None])[0] is not None
                )
            )
            live_lines.append(rating_line(live))
        assert live_lines[0].startswith("Place ") and ": your first rating, " in live_lines[0]
        assert ": rating " in live_lines[1]
        replayed = []
        for game in reversed(store.games_of("SHA256:ada", 5)):  # (oldest first)
            await ada.send("replay", game=game["id"], step=10_000, seat=0)
            replayed.append(rating_line(await ada.expect("replay", game=game["id"])))
        assert replayed == live_lines
    finally:
        await hub.stop()


def rating_line(message: dict) -> str:
    """The player's rating line under a result, as the app says it (live or replayed)."""
    return " / ".join(str(line) for line in _rating_line(message, message["view"]["outcome"]))
