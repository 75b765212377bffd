"""A move a bot makes in a player's seat (their time ran out, or they are away) is said to be
the bot's in the table's log, for everyone there, and the player is told when they are back."""

from __future__ import annotations

import asyncio
import itertools
import logging

import pytest

from server.hub import Hub

from .conftest import fast_config
from .harness import connect, play_to_end, table_with_bots


async def pg_table_watched(hub: Hub):
    """Ada at a Prophet's Gambit table with two bots, Eve watching it, the game started."""
    ada, eve = await connect(hub), await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    await eve.hello("Eve", identity="SHA256:eve")
    await ada.send("create_table", game="prophets_gambit", players=3, stake=10)
    table = (await ada.expect("table"))["table"]
    for seat in (1, 2):
        await ada.send("add_bot", table=table, seat=seat)
    await ada.until(lambda m: m["t"] == "table" and m["info"]["seats"][2]["bot"])
    await eve.send("spectate", table=table)
    await eve.expect("table", table=table)
    await ada.send("start", table=table)
    return ada, eve, table


def stood_in(message: dict, why: str) -> bool:
    """Whether the view's log says a bot moved for seat 0 (``why``), the move following."""
    events = (message.get("view") or {}).get("events") or []
    for ev, after in itertools.pairwise(events):
        if ev == {"e": "stand_in", "seat": 0, "why": why}:
            return after.get("seat") == 0
    return False


async def test_a_move_made_when_time_ran_out_is_the_bots_and_the_player_is_told(store, caplog):
    caplog.set_level(logging.INFO, logger="server.hub.turns")
    hub = Hub(store, fast_config(turn_timer=1.0, between_games=600.0))
    await hub.start()
    try:
        ada, eve, table = await pg_table_watched(hub)
        # Ada lets her time run out on her Bid: a bot commits a card for her, and says so.
        await ada.until(lambda m: m["t"] == "table" and stood_in(m, "time"), timeout=5)
        await eve.until(lambda m: m["t"] == "table" and stood_in(m, "time"))
        notices = [m for m in ada.log if m["t"] == "notice" and m["code"] == "stood_in"]
        assert notices == []  # (not yet: she is told when she is back)
        # She acts again: told once, in words the app translates.
        for _ in range(500):  # (her next decision, as the table shows it now)
            now = ada.tables[table]["view"]
            if now["legal"] and not now["over"]:
                break
            await asyncio.sleep(0.01)
        await ada.send("act", table=table, action=now["legal"][0])
        told = await ada.expect("notice", code="stood_in")
        assert told["args"] == {"table": table} and "{table}" in told["text"]
        # The server's log says whose decision a bot made, and why (the e2e tests read it).
        said = [r.getMessage() for r in caplog.records if "a stand-in moves" in r.getMessage()]
        assert said and set(said) == {f"table {table}: a stand-in moves in seat 0 (time)"}
        for c in (ada, eve):
            await c.close()
    finally:
        await hub.stop()


async def test_a_move_made_while_away_is_the_bots_and_the_player_is_told_on_return(store):
    hub = Hub(store, fast_config(grace=30.0, between_games=600.0))
    await hub.start()
    try:
        ada, eve, table = await pg_table_watched(hub)
        await ada.until(lambda m: m["t"] == "table" and m["view"] is not None)
        await ada.close()  # Ada drops: her seat is kept, a bot moves in it meanwhile
        await eve.until(lambda m: m["t"] == "table" and stood_in(m, "away"))
        back = await connect(hub)
        await back.hello("Ada", identity="SHA256:ada")
        told = await back.expect("notice", code="stood_in")
        assert told["args"] == {"table": table}
        await back.close()
        await eve.close()
    finally:
        await hub.stop()


async def test_the_next_deal_starting_as_time_runs_out_is_no_move_of_a_stand_in(store):
    """Fortunes asks every seat to go on to the next deal; a player still reading the deal
    when their time runs out is not told that a bot moved for them."""
    hub = Hub(store, fast_config(turn_timer=1.0, between_games=600.0))
    await hub.start()
    try:
        ada = await connect(hub)
        await ada.hello("Ada", identity="SHA256:ada")
        table = await table_with_bots(ada, "fortunes", players=4)
        await ada.send("start", table=table)
        deal = None
        for _ in range(3000):  # Ada plays her own cards, in time, to the deal's end
            view = (ada.tables.get(table) or {}).get("view") or {}
            # (any view of the deal's end she was sent: on a loaded machine the next deal
            # may have begun before this loop looked again)
            ended = [
                m["view"]["deal"]
                for m in ada.log
                if m["t"] == "table" and (m.get("view") or {}).get("phase") == "next_deal"
            ]
            if ended:
                deal = ended[0]
                break
            if view.get("legal") and view.get("phase") != "next_deal":
                await ada.send("act", table=table, action=view["legal"][0])
                await ada.until(lambda m, seen=view: m["t"] == "table" and m["view"] is not seen)
            else:
                await asyncio.sleep(0.01)
        assert deal is not None
        # She reads; her time runs out; the next deal starts without her.
        await ada.until(
            lambda m: m["t"] == "table" and (m["view"] or {}).get("deal", deal) != deal, timeout=5
        )
        for _ in range(500):  # her first decision of the new deal, made in time
            view = ada.tables[table]["view"]
            if view["legal"]:
                break
            await asyncio.sleep(0.01)
        await ada.send("act", table=table, action=view["legal"][0])
        await ada.until(lambda m: m["t"] == "table" and m["view"] is not view)
        await asyncio.sleep(0.2)
        assert [m for m in ada.log if m["t"] == "notice" and m["code"] == "stood_in"] == []
        await ada.close()
    finally:
        await hub.stop()


async def test_after_a_restart_no_stand_in_moves_before_the_players_can_be_back(store):
    """A hub that starts on a store with a game in play (restarted, or a standby taking
    over) has none of the players connected yet: their sessions come back within seconds
    (the gateways move them to it, their apps reconnect). A stand-in must not decide for
    them meanwhile, as it would for a player who left (chaos run, issue 43: every player
    whose turn it was at a hub failover had a bot move for them)."""
    first = Hub(store, fast_config(grace=30.0, between_games=600.0))
    await first.start()
    ada, eve, table = await pg_table_watched(first)
    await ada.until(lambda m: m["t"] == "table" and (m["view"] or {}).get("legal"))
    await first.stop()  # (its timers first: nothing moves for Ada as her connection ends)
    moves = len(first.tables[table].state.history)
    for c in (ada, eve):
        await c.close()
    hub = Hub(store, fast_config(grace=30.0, between_games=600.0))
    await hub.start()
    try:
        await asyncio.sleep(0.5)  # (bots move at once here: a stand-in would have)
        assert len(hub.tables[table].state.history) == moves
        back = await connect(hub)
        await back.hello("Ada", identity="SHA256:ada")
        view = (await back.until(lambda m: m["t"] == "table" and m["table"] == table))["view"]
        await back.send("act", table=table, action=view["legal"][0])
        history = hub.tables[table].state.history
        for _ in range(200):
            if len(history) > moves:
                break
            await asyncio.sleep(0.01)
        assert history[moves] == [0, view["legal"][0]]  # her own decision, not a bot's
        assert [m for m in back.log if m["t"] == "notice" and m["code"] == "stood_in"] == []
        await back.close()
    finally:
        await hub.stop()


@pytest.mark.parametrize("status", ["playing", "between"])
async def test_a_player_straight_back_after_a_restart_has_their_seat_whatever_the_grace(
    store, status
):
    """The grace of the players away at a start runs from before the hub listens: a grace
    shorter than their way back (a test's 0.5 s, a busy machine) gave their seat to a
    stand-in, and a player who came straight back got no table at all (the restored server
    in tests/store/test_backup.py did so under load). Kept at least until they can be back."""
    config = fast_config(grace=0.1, between_games=600.0)
    first = Hub(store, config)
    await first.start()
    ada, eve, table = await pg_table_watched(first)
    if status == "between":
        await play_to_end({0: ada}, table)
    await ada.until(lambda m: m["t"] == "table" and m["info"]["status"] == status)
    await first.stop()
    for c in (ada, eve):
        await c.close()
    hub = Hub(store, fast_config(grace=0.1, between_games=600.0))
    await hub.start()
    try:
        assert hub.tables[table].status == status
        await asyncio.sleep(0.5)  # past the grace, well within RETURN_AFTER_START
        back = await connect(hub)
        await back.hello("Ada", identity="SHA256:ada")
        msg = await back.until(lambda m: m["t"] == "table" and m["table"] == table, timeout=5)
        assert msg["seat"] == 0 and msg["info"]["status"] == status
        assert hub.tables[table].seats[0].player == "SHA256:ada"
        await back.close()
    finally:
        await hub.stop()
