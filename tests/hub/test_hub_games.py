"""Whole games through the protocol: clients and bots, each game type, both transports."""

from __future__ import annotations

import asyncio

import pytest

from server.hub.listener import serve_unix

from .harness import connect, connect_unix, play_to_end

GAMES = [("prophets_gambit", 3, {}), ("prophet", 3, {"cap": 2}), ("fortunes", 4, {})]


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
async def test_one_client_plays_a_full_game_against_bots(hub, store, game, players, options):
    ada = await connect(hub)
    welcome = await ada.hello("Ada", identity="SHA256:ada")
    assert welcome["you"]["name"] == "Ada" and welcome["you"]["chips"] == 1000
    await ada.send("create_table", game=game, players=players, options=options, stake=10)
    created = await ada.expect("table")
    table = created["table"]
    assert created["seat"] == 0 and created["view"] is None
    for seat in range(1, players):
        await ada.send("add_bot", table=table, seat=seat)
    await ada.until(
        lambda m: m["t"] == "table" and all(s["bot"] or s["name"] for s in m["info"]["seats"])
    )
    await ada.send("start", table=table)
    view = await play_to_end({0: ada}, table)
    outcome = view["outcome"]
    assert sorted(outcome["ranking"]) == list(range(players))
    # the pot moved: Ada's balance is 1000 - 10 + her share, and the ledger still sums to 0
    share = outcome_share(outcome, 0, 10, players)
    # two balances: after the ante, then after the payout
    await ada.until(lambda m: m["t"] == "you" and sum(x["t"] == "you" for x in ada.log) >= 2)
    ante, payout = [m["chips"] for m in ada.log if m["t"] == "you"][:2]
    assert (ante, payout) == (1000 - 10, 1000 - 10 + share)
    assert store.ledger_total() == 0
    games = store.games_of("SHA256:ada", 5)
    assert len(games) == 1
    await ada.close()


def outcome_share(outcome: dict, seat: int, stake: int, players: int) -> int:
    from server.engine.base import Outcome

    return Outcome(**outcome).payouts(stake)[seat]


async def test_three_clients_over_a_unix_socket(hub, tmp_path):
    server = await serve_unix(hub, tmp_path / "hub.sock")
    try:
        clients = [await connect_unix(str(tmp_path / "hub.sock")) for _ in range(3)]
        for i, c in enumerate(clients):
            await c.hello(f"P{i}", identity=f"key-{i}")
        await clients[0].send("create_table", game="prophets_gambit", players=4)
        table = (await clients[0].expect("table"))["table"]
        for c in clients[1:]:
            await c.send("join", table=table)
            await c.expect("table", table=table)
        await clients[0].send("add_bot", table=table, seat=3)
        await clients[0].until(
            lambda m: m["t"] == "table" and m["info"]["seats"][3]["bot"] == "heuristic"
        )
        await clients[1].send("start", table=table)
        view = await play_to_end(dict(enumerate(clients)), table)
        assert view["over"] and len(view["reveal"]) == 4
        for c in clients:
            await c.close()
    finally:
        server.close()
        await server.wait_closed()


async def test_deal_after_deal_moves_the_dealer(hub):
    ada = await connect(hub)
    await ada.hello("Ada")
    await ada.send("create_table", game="prophets_gambit", players=3)
    table = (await ada.expect("table"))["table"]
    for seat in (1, 2):
        await ada.send("add_bot", table=table, seat=seat)
    await ada.until(lambda m: m["t"] == "table" and m["info"]["seats"][2]["bot"])
    await ada.send("start", table=table)
    first = await play_to_end({0: ada}, table)
    dealer = first["dealer"]
    second = await ada.until(
        lambda m: (
            m["t"] == "table"
            and m["view"] is not None
            and not m["view"]["over"]
            and m["info"]["games_played"] == 1
        )
    )
    assert second["view"]["dealer"] == (dealer + 1) % 3
    await ada.close()
    await asyncio.sleep(0)
