"""Seats, options and limits, through the protocol: what the hub allows and refuses."""

from __future__ import annotations

import asyncio

import pytest

from protocol.messages import PROTOCOL_VERSION
from server.hub import Hub

from .conftest import fast_config
from .harness import connect, play_to_end


async def new_table(client, **fields) -> int:
    fields.setdefault("game", "prophets_gambit")
    fields.setdefault("players", 3)
    known = set(client.tables)
    await client.send("create_table", **fields)
    msg = await client.until(lambda m: m["t"] == "table" and m["table"] not in known)
    return msg["table"]


async def fill_with_bots(client, table: int, seats) -> None:
    for seat in seats:
        await client.send("add_bot", table=table, seat=seat)
    last = max(seats)
    await client.until(lambda m: m["t"] == "table" and m["info"]["seats"][last]["bot"])


async def test_version_mismatch_gets_a_clear_error_then_bye(hub):
    c = await connect(hub)
    await c.send("hello", v=PROTOCOL_VERSION + 1)
    bye = await c.expect("bye")
    assert bye["code"] == "version" and "version" in bye["message"]
    await asyncio.sleep(0.05)
    assert c.closed


async def test_untrusted_transport_cannot_claim_an_identity(hub):
    c = await connect(hub, trusted=False)
    welcome = await c.hello("Mallory", identity="SHA256:someone-else")
    assert welcome["you"]["guest"] and welcome["you"]["id"].startswith("guest:")


async def test_names_unique_online_and_registered_names_kept_for_their_key(hub):
    a = await connect(hub)
    assert (await a.hello("Ada", identity="key-a"))["you"]["name"] == "Ada"
    b = await connect(hub)
    welcome = await b.hello("ada", identity="key-b")
    assert welcome["you"]["name"] != "Ada"
    assert (await b.expect("error"))["code"] == "name_taken"
    await a.close()
    await asyncio.sleep(0.05)
    c = await connect(hub)
    await c.hello("Ada", identity="key-c")  # Ada is offline, but the name is registered
    assert (await c.expect("error"))["code"] == "name_taken"


async def test_one_identity_two_connections_both_see_the_table(hub):
    a1, a2 = await connect(hub), await connect(hub)
    await a1.hello("Ada", identity="key-a")
    w2 = await a2.hello(identity="key-a")
    assert w2["you"]["name"] == "Ada"
    table = await new_table(a1)
    msg = await a2.expect("table", table=table)
    assert msg["seat"] == 0


async def test_friends_only_and_invited_only_tables(hub):
    owner, friend, stranger = [await connect(hub) for _ in range(3)]
    await owner.hello("Olga", identity="key-o")
    await friend.hello("Fred", identity="key-f")
    await stranger.hello("Sam", identity="key-s")
    await owner.send("friend", op="add", name="Fred")  # asked; a friend once Fred accepts
    await friend.expect("friend_request")
    await friend.send("friend", op="accept", name="Olga")
    await owner.expect("notice", code="friend_accepted")
    assert (await owner.expect("friends"))["friends"] == [{"name": "Fred", "online": True}]
    table = await new_table(owner, access="friends")
    await stranger.send("join", table=table)
    assert (await stranger.expect("error"))["code"] == "not_allowed"
    await friend.send("join", table=table)
    assert (await friend.expect("table", table=table))["seat"] == 1

    private = await new_table(owner, access="invited")
    await stranger.send("join", table=private)
    assert (await stranger.expect("error"))["code"] == "not_allowed"
    await stranger.send("spectate", table=private)
    assert (await stranger.expect("error"))["code"] == "not_allowed"
    await owner.send("invite", op="send", table=private, name="Sam")
    invite = await stranger.expect("invite")
    assert invite["table"] == private and invite["from"] == "Olga"
    await stranger.send("invite", op="accept", table=private)
    assert (await stranger.expect("table", table=private))["seat"] == 1


async def test_max_rating_refuses_stronger_players(hub, store):
    strong, weak = await connect(hub), await connect(hub)
    await strong.hello("Strong", identity="key-strong")
    await weak.hello("Weak", identity="key-weak")
    store.set_ratings("prophets_gambit", {"key-strong": (40.0, 2.0)})
    table = await new_table(weak, max_rating=1000)
    await strong.send("join", table=table)
    err = await strong.expect("error")
    assert err["code"] == "rating_too_high" and "1000" in err["message"]


async def test_joining_needs_the_stake(hub):
    rich, poor = await connect(hub), await connect(hub)
    await rich.hello("Rich", identity="key-rich")
    await poor.hello("Poor", identity="key-poor")
    table = await new_table(rich, stake=900)
    hub.store.transfer("player:key-poor", "bank", 200, "test")
    await poor.send("join", table=table)
    assert (await poor.expect("error"))["code"] == "chips"
    await rich.send("create_table", game="prophet", players=3, stake=5000)
    assert (await rich.expect("error"))["code"] == "chips"


async def test_bad_options_and_player_counts_are_refused(hub):
    c = await connect(hub)
    await c.hello("Ada")
    await c.send("create_table", game="fortunes", players=3)
    assert (await c.expect("error"))["code"] == "bad_options"
    await c.send("create_table", game="prophet", players=4, options={"deck": 40})
    assert (await c.expect("error"))["code"] == "bad_options"
    await c.send("create_table", game="prophet", players=4, options={"nope": 1})
    assert (await c.expect("error"))["code"] == "bad_options"
    assert not hub.tables


async def test_cannot_act_for_another_seat_or_out_of_turn(hub):
    a, b = await connect(hub), await connect(hub)
    await a.hello("Ada")
    await b.hello("Bob")
    table = await new_table(a)
    await b.send("join", table=table)
    await b.expect("table", table=table)
    await fill_with_bots(a, table, [2])
    await a.send("start", table=table)
    msg = await a.until(lambda m: m["t"] == "table" and m["view"] and m["view"]["legal"])
    before = hub.tables[table].state.snapshot()
    # Bob tries Ada's card: the engine refuses it (it is not in Bob's hand)
    await b.send("act", table=table, action=msg["view"]["legal"][0])
    err = await b.expect("error")
    assert err["code"] in ("illegal", "out_of_turn")
    await b.send("act", table=table, action={"type": "bid"})
    assert (await b.expect("error"))["code"] == "malformed"
    assert hub.tables[table].state.snapshot() == before


async def test_spectator_sees_no_hand_and_reads_table_chat(hub):
    a, s = await connect(hub), await connect(hub)
    await a.hello("Ada")
    await s.hello("Spec")
    table = await new_table(a)
    await fill_with_bots(a, table, [1, 2])
    await a.send("start", table=table)
    await s.send("spectate", table=table)
    watched = await s.until(lambda m: m["t"] == "table" and m["view"] is not None)
    assert watched["seat"] is None and "hand" not in watched["view"]
    await a.send("chat", channel="table", table=table, text="good luck")
    line = await s.expect("chat")
    assert line["from"] == "Ada" and line["text"] == "good luck"


async def test_chat_length_and_rate_limits(hub):
    a = await connect(hub)
    await a.hello("Ada")
    await a.send("chat", channel="lobby", text="x" * 501)
    assert (await a.expect("error"))["code"] == "too_long"
    for i in range(hub.config.chat_burst):
        await a.send("chat", channel="lobby", text=f"hi {i}")
        await a.expect("chat")
    await a.send("chat", channel="lobby", text="one too many")
    assert (await a.expect("error"))["code"] == "slow_down"


async def test_chat_rate_limit_can_be_switched_off(store):
    hub = Hub(store, fast_config(chat_limit=False))
    await hub.start()
    try:
        a = await connect(hub)
        await a.hello("Ada")
        for i in range(20):
            await a.send("chat", channel="lobby", text=f"hi {i}")
            await a.expect("chat")
    finally:
        await hub.stop()


async def test_turn_timer_lets_the_bot_act_for_a_slow_player(store):
    hub = Hub(store, fast_config())
    await hub.start()
    try:
        a = await connect(hub)
        await a.hello("Ada")
        table = await new_table(a, timer=1)
        await fill_with_bots(a, table, [1, 2])
        await a.send("start", table=table)
        first = await a.until(lambda m: m["t"] == "table" and m["view"] and m["view"]["legal"])
        assert first["info"]["deadlines"].get("0", 0) > 0
        # Ada never answers: within about a second the bot acts for her
        moved = await a.until(
            lambda m: m["t"] == "table" and m["view"] and m["view"]["phase"] != "bid", timeout=5
        )
        assert moved["seat"] == 0
        assert hub.tables[table].state.history[0][0] in (0, 1, 2)
        assert any(seat == 0 for seat, _ in hub.tables[table].state.history)
    finally:
        await hub.stop()


async def start_then_drop(hub) -> int:
    """Ada (key-a) starts a deal with two bots, then her only connection drops."""
    a = await connect(hub)
    await a.hello("Ada", identity="key-a")
    table = await new_table(a)
    await fill_with_bots(a, table, [1, 2])
    await a.send("start", table=table)
    await a.until(lambda m: m["t"] == "table" and m["view"] is not None)
    await a.close()
    return table


async def test_dropped_player_keeps_the_seat_and_gets_it_back(store):
    # between_games is long so the deal checked below is still the one the player left
    hub = Hub(store, fast_config(grace=30.0, between_games=30.0))
    await hub.start()
    try:
        table = await start_then_drop(hub)
        # the bot plays for the absent player while the seat stays hers
        await asyncio.sleep(0.3)
        assert hub.tables[table].seats[0].player == "key-a"
        assert any(seat == 0 for seat, _ in hub.tables[table].state.history)
        back = await connect(hub)
        await back.hello(identity="key-a")
        msg = await back.expect("table", table=table)
        assert msg["seat"] == 0 and msg["view"]["hand"] is not None
    finally:
        await hub.stop()


async def test_after_the_grace_period_the_bot_keeps_the_seat_until_reclaimed(store):
    hub = Hub(store, fast_config(grace=0.2, bot_delay=0.05))
    await hub.start()
    try:
        table = await start_then_drop(hub)
        await asyncio.sleep(0.5)
        seat = hub.tables[table].seats[0]
        assert (
            seat.player is None and seat.bot == hub.config.standin_bot and seat.reserved == "key-a"
        )
        back = await connect(hub)
        await back.hello(identity="key-a")
        await back.send("join", table=table)
        msg = await back.until(lambda m: m["t"] == "table" and m["seat"] == 0)
        assert hub.tables[table].seats[0].player == "key-a"
        assert msg["info"]["seats"][0]["name"] == "Ada"
    finally:
        await hub.stop()


@pytest.mark.parametrize("game", ["prophet", "fortunes"])
async def test_two_humans_finish_a_game(hub, game):
    a, b = await connect(hub), await connect(hub)
    await a.hello("Ada")
    await b.hello("Bob")
    players = 4
    table = await new_table(
        a, game=game, players=players, options={"cap": 2} if game == "prophet" else {}
    )
    await b.send("join", table=table)
    await b.expect("table", table=table)
    await fill_with_bots(a, table, [2, 3])
    await b.send("start", table=table)
    view = await play_to_end({0: a, 1: b}, table, timeout=60)
    assert view["over"]


async def test_a_guest_leaving_without_a_seat_returns_their_chips_to_the_bank(hub, store):
    bank = store.balance("bank")
    guest = await connect(hub, trusted=False)
    welcome = await guest.hello("Visitor")
    assert welcome["you"]["chips"] == 1000 and store.balance("bank") == bank - 1000
    await guest.close()
    for _ in range(100):
        if store.balance("bank") == bank:
            break
        await asyncio.sleep(0.01)
    assert store.balance("bank") == bank
    assert store.balance(f"player:{welcome['you']['id']}") == 0
    assert store.ledger_total() == 0


@pytest.mark.parametrize("game", ["prophet", "fortunes"])
async def test_what_a_stand_in_won_or_lost_is_told_when_the_player_sits_down_again(store, game):
    """Ada stands up mid-game: a bot finishes it with her chips (antes, and in Fortunes stays
    and raises), then plays on with the bank's. When she takes her seat back she is told
    what it won or lost for her: exactly how her balance moved meanwhile, one game."""
    # Bo stays seated (a table with no human closes); his turn timer plays for him.
    hub = Hub(store, fast_config(bot_delay=0.0, between_games=0.05, turn_timer=0.01))
    await hub.start()
    try:
        a = await connect(hub)
        await a.hello("Ada", identity="key-a")
        players = 4 if game == "fortunes" else 3
        table = await new_table(a, game=game, players=players, stake=10)
        b = await connect(hub)
        await b.hello("Bo", identity="key-b")
        await b.send("join", table=table, seat=1)
        await b.until(lambda m: m["t"] == "table" and m["seat"] == 1)
        await fill_with_bots(a, table, list(range(2, players)))
        start = store.balance("player:key-a")
        await a.send("start", table=table)
        await a.until(lambda m: m["t"] == "table" and m["view"] is not None)
        await a.send("leave", table=table)
        await a.expect("left", table=table)
        # Three games of bots (a busy machine plays a Fortunes game in several seconds).
        deadline = asyncio.get_running_loop().time() + 40
        while hub.tables[table].games_played < 3:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.02)
        moved = store.balance("player:key-a") - start
        await a.send("join", table=table)
        told = await a.expect("stand_in", table=table)
        assert told == {"t": "stand_in", "table": table, "games": 1, "chips": moved}
        assert hub.tables[table].away == {}  # told once
    finally:
        await hub.stop()
