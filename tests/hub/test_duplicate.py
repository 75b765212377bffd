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
    assert info["duplicate"] == {"set": "friday", "game": 1, "others": []}

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
    report = verify(hub._finished_record(theirs["id"]))  # what `gambit verify` checks
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
    seed = hub.duplicate_sets["late"]["seed"]
    commitment = hub.tables[table].deal["commitment"]  # of the set's next game
    await hub.stop()
    again = Hub(store, config)
    await again.start()
    try:
        found = again.duplicate_sets["late"]
        assert found["seed"] == seed and found["dealer"] == hub.duplicate_sets["late"]["dealer"]
        assert again.tables[table].deal["commitment"] == commitment
        assert found["results"]["0"][table]["seats"][0]["name"] == "Ada"
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
