"""Duplicate tables: every table of a set is dealt the same cards, the deal is never called
fair, and each seat's result is shown beside the results of the others who held its cards."""

from __future__ import annotations

from server.hub import Hub
from server.records.verify import NOT_FAIR, verify

from .conftest import fast_config
from .harness import connect, play_to_end

SETUP = {"game": "prophets_gambit", "players": 3, "options": {}}


async def _open(client, name: str, **extra):
    await client.send("create_table", **SETUP, stake=10, duplicate=name, **extra)
    table = (await client.expect("table"))["table"]
    for seat in (1, 2):
        await client.send("add_bot", table=table, seat=seat, kind="heuristic")
    await client.until(
        lambda m: (
            m["t"] == "table"
            and m["table"] == table
            and all(s["bot"] or s["name"] for s in m["info"]["seats"])
        )
    )
    return table


async def test_tables_of_a_set_deal_the_same_cards_and_compare_results(hub, store):
    ada, bob = await connect(hub), await connect(hub)
    await ada.hello("Ada", identity="key-ada")
    await bob.hello("Bob", identity="key-bob")
    first = await _open(ada, "friday")
    second = await _open(bob, " friday ")  # the same set, however spaced
    assert hub.tables[first].dealer == hub.tables[second].dealer
    info = ada.tables[first]["info"]
    assert info["deal"]["fair"] is False and info["deal"]["reason"] == "duplicate"
    assert info["duplicate"] == {"set": "friday", "game": 1, "move": 0, "others": []}
    assert bob.tables[second]["info"]["duplicate"]["move"] == 1  # the set's second table

    await ada.send("start", table=first)
    await play_to_end({0: ada}, first)
    await bob.send("start", table=second)
    await play_to_end({0: bob}, second)
    # (The tables go on to their next games at once: their first ones are in the records.)
    mine = store.games_of("key-ada", 9)[-1]
    theirs = store.games_of("key-bob", 9)[-1]
    assert mine["deal"]["dealt"][0] == theirs["deal"]["dealt"][0]  # the same cards, seats

    # Bob's table ended second: each seat sees how the first table's holder of its cards did.
    msg = await bob.until(
        lambda m: (
            m["t"] == "table"
            and m["table"] == second
            and m["view"] is not None
            and m["view"]["over"]
            and (m["info"].get("duplicate") or {}).get("others")
        )
    )
    dup = msg["info"]["duplicate"]
    assert dup["set"] == "friday" and dup["game"] == 1 and dup["tables"] == 1
    ada_row = dup["others"][0][0]
    assert (ada_row["table"], ada_row["name"], ada_row["place"], ada_row["chips"]) == (
        first,
        "Ada",
        mine["place"],
        mine["chips"],
    )
    assert [row[0]["bot"] for row in dup["others"][1:]] == ["heuristic", "heuristic"]
    # The record says why the deal was not fair.
    assert theirs["deal"]["fair"] is False and "duplicate set" in theirs["deal"]["note"]
    report = verify(hub.replays.finished_record(theirs["id"]))  # what `gambit verify` checks
    assert report.verdict == NOT_FAIR and all(ok for ok, _ in report.checks[:-1]), report.lines()
    await ada.close()
    await bob.close()


async def test_a_set_keeps_its_game_and_seats(hub):
    ada = await connect(hub)
    await ada.hello("Ada", identity="key-ada")
    await _open(ada, "club")
    await ada.send("create_table", game="prophet", players=3, duplicate="club")
    error = await ada.expect("error")
    assert error["code"] == "bad_options" and "club" in error["message"]
    await ada.send("create_table", **SETUP, duplicate="   ")
    assert (await ada.expect("error"))["code"] == "bad_options"
    assert sum(1 for t in hub.tables.values() if t.duplicate) == 1
    await ada.close()


async def test_a_restarted_server_keeps_its_sets(store):
    config = fast_config(between_games=600.0)  # the finished game stays on show
    hub = Hub(store, config)
    await hub.start()
    ada = await connect(hub)
    await ada.hello("Ada", identity="key-ada")
    table = await _open(ada, "late")
    await ada.send("start", table=table)
    await play_to_end({0: ada}, table)
    seed = hub.duplicate.sets["late"]["seed"]
    commitment = hub.tables[table].deal["commitment"]  # of the set's next game
    await hub.stop()
    again = Hub(store, config)
    await again.start()
    try:
        found = again.duplicate.sets["late"]
        assert found["seed"] == seed and found["dealer"] == hub.duplicate.sets["late"]["dealer"]
        assert again.tables[table].deal["commitment"] == commitment
        assert found["results"]["0"][table]["seats"][0]["name"] == "Ada"
        # Who has seen which game stays known: Ada may not hold game 1's cards elsewhere.
        assert found["seen"] == {"key-ada": 0} and found["tables"] == 1
        assert again.tables[table].duplicate["seen"] is found["seen"]
    finally:
        await ada.close()
        await again.stop()


async def test_a_duplicate_deal_takes_no_players_entropy(hub):
    """This hub deals at random, so its other tables mix in their players' values; a duplicate
    table takes none (its tables would no longer share their cards), and says so."""
    ada, bob = await connect(hub), await connect(hub)
    await ada.hello("Ada", identity="key-ada")
    await bob.hello("Bob", identity="key-bob")
    first = await _open(ada, "saturday")
    second = await _open(bob, "saturday")
    deal = ada.tables[first]["info"]["deal"]
    assert deal["phase"] == "off"
    await ada.send("entropy", table=first, deal=deal["commitment"], commit="0" * 64)
    assert (await ada.expect("error", ref="entropy"))["code"].startswith("entropy_")
    for client, table in ((ada, first), (bob, second)):
        await client.send("start", table=table)
        await client.until(lambda m, t=table: m["t"] == "table" and m["table"] == t and m["view"])
    seeds = [hub.tables[t].state.params["seed"] for t in (first, second)]
    assert seeds[0] == seeds[1]
    await ada.close()
    await bob.close()


async def _game(client, table: int, game: int) -> dict:
    """The client's table message once game ``game`` of the set is under way there."""
    return await client.until(
        lambda m: (
            m["t"] == "table"
            and m["table"] == table
            and m["view"] is not None
            and not m["view"]["over"]
            and m["info"]["duplicate"]["game"] == game
        )
    )


async def test_nobody_holds_cards_of_a_set_they_have_seen(store):
    """Ada played game 1 at one table: she may not sit for game 1 at another of the set, nor
    watch another while she sits; Cy, who watched her game, may not sit for it either. Bots
    sit at both tables; a newcomer may."""
    hub = Hub(store, fast_config(between_games=600.0))  # the finished game stays on show
    await hub.start()
    ada, bob, cy, dee = [await connect(hub) for _ in range(4)]
    try:
        for client, name in ((ada, "Ada"), (bob, "Bob"), (cy, "Cy"), (dee, "Dee")):
            await client.hello(name, identity=f"key-{name.lower()}")
        await bob.send("create_table", **SETUP, duplicate="night")
        waiting = (await bob.expect("table"))["table"]  # seats 1 and 2 free, game 1 next
        played = await _open(ada, "night")
        await ada.send("start", table=played)
        await play_to_end({0: ada}, played)

        await ada.send("join", table=waiting)
        error = await ada.expect("error", ref="join")
        assert (error["code"], error["args"]["set"], error["args"]["table"]) == (
            "duplicate_seated",
            "night",
            played,
        )
        await ada.send("spectate", table=waiting)
        assert (await ada.expect("error", ref="spectate"))["code"] == "duplicate_seated"

        # Bob's table has yet to play game 1: its record (seed, hands) is not for him yet.
        game_id = store.games_of("key-ada", 9)[0]["id"]
        await bob.send("record", game=game_id)
        error = await bob.expect("error", ref="record")
        assert error["code"] == "duplicate_unplayed"
        assert (error["args"]["table"], error["args"]["game"]) == (waiting, 1)
        await bob.send("replay", game=game_id, step=0)
        assert (await bob.expect("error", ref="replay"))["code"] == "duplicate_unplayed"
        await ada.send("record", game=game_id)  # her own game, played
        assert (await ada.expect("record"))["game"] == game_id

        await cy.send("spectate", table=played)  # the finished game 1 is on show
        await cy.expect("table")
        await cy.send("join", table=waiting)
        error = await cy.expect("error", ref="join")
        assert (error["code"], error["args"]["table"]) == ("duplicate_watching", played)
        await cy.send("leave", table=played)
        await cy.expect("left")
        await cy.send("join", table=waiting)
        error = await cy.expect("error", ref="join")
        assert error["code"] == "duplicate_seen"
        assert (error["args"]["set"], error["args"]["game"]) == ("night", 1)

        await ada.send("leave", table=played)  # her table closes; the set lives on at Bob's
        await ada.expect("left")
        assert played not in hub.tables
        # What Ada and Cy have seen is saved with the set's table that is left (for a restart).
        (row,) = [r for r in store.live_tables() if r["info"]["id"] == waiting]
        assert row["info"]["duplicate"]["seen"] == {"key-ada": 0, "key-cy": 0}
        await ada.send("join", table=waiting)
        error = await ada.expect("error", ref="join")
        assert (error["code"], error["args"]["game"]) == ("duplicate_seen", 1)
        await ada.send("create_table", **SETUP, duplicate="night")  # a new table: game 1 again
        assert (await ada.expect("error", ref="create_table"))["code"] == "duplicate_seen"
        assert [t.id for t in hub.tables.values()] == [waiting]  # nothing changed

        await dee.send("join", table=waiting)
        msg = await dee.until(
            lambda m: m["t"] == "table" and m["table"] == waiting and m["seat"] is not None
        )
        assert msg["info"]["seats"][1]["name"] == "Dee"
        seen = hub.duplicate.sets["night"]["seen"]
        assert seen == {"key-ada": 0, "key-cy": 0}  # (Bob and Dee have seen nothing yet)
    finally:
        for client in (ada, bob, cy, dee):
            await client.close()
        await hub.stop()


async def test_people_move_seats_at_a_sets_later_tables(hub, store):
    """The set's first table keeps its seats; at its second everyone moves one seat back
    after each game, so Bob meets each seat's cards of the deals Ada holds at the first."""
    ada, bob = await connect(hub), await connect(hub)
    await ada.hello("Ada", identity="key-ada")
    await bob.hello("Bob", identity="key-bob")
    first = await _open(ada, "rota")
    await bob.send("create_table", **SETUP, stake=10, duplicate="rota")
    second = (await bob.expect("table"))["table"]
    await bob.send("add_bot", table=second, seat=1, kind="random")
    await bob.send("add_bot", table=second, seat=2, kind="heuristic")
    await bob.until(
        lambda m: m["t"] == "table" and m["table"] == second and m["info"]["seats"][2]["bot"]
    )
    chips = store.balance("player:key-bob")
    for client, table in ((ada, first), (bob, second)):
        await client.send("start", table=table)
        await play_to_end({0: client}, table)
    msg = await _game(bob, second, 2)
    assert msg["seat"] == 2
    assert [s["bot"] for s in msg["info"]["seats"]] == ["random", "heuristic", None]
    assert hub.tables[second].seats[2].player == "key-bob"
    assert (await _game(ada, first, 2))["seat"] == 0  # the first table keeps its seats
    # Game 2 is dealt alike at both tables, whoever now holds which seat.
    seeds = [hub.tables[t].state.params["seed"] for t in (first, second)]
    assert seeds[0] == seeds[1]
    # Bob's chips: the first game's result and the second's ante, from his own account.
    row = store.games_of("key-bob", 9)[-1]
    assert store.balance("player:key-bob") == chips + row["chips"] - 10
    assert store.ledger_total() == 0
    await ada.close()
    await bob.close()
