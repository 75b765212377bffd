"""Game nights driven by real hub clients: an event is made, players register, each round seats
everyone at once (bots in the seats left over), every table's game counts into the standings
as it ends, the next round follows, and the event survives a restart."""

from __future__ import annotations

import asyncio
import itertools
import signal
import time
from typing import Any

from server.hub import Hub
from server.nights.scoring import matchpoints, table_points
from server.store import Store
from server.store.store import player_account

from .conftest import fast_config
from .harness import Client, connect, play_to_end, table_with_bots

GAME = {"game": "prophets_gambit", "players": 3}


async def _players(hub: Hub, count: int) -> list[Client]:
    clients = []
    for i in range(count):
        client = await connect(hub)
        await client.hello(f"P{i}", identity=f"key-{i}")
        clients.append(client)
    return clients


async def _night(host: Client, **fields: Any) -> int:
    await host.send("night", op="create", name="Friday", **GAME, **fields)
    return int((await host.expect("night"))["night"]["id"])


async def _register(clients: list[Client], night: int) -> None:
    for client in clients:
        await client.send("night", op="register", night=night)
    await clients[-1].until(
        lambda m: m["t"] == "night" and m["night"]["registered"] == len(clients)
    )


async def _play_round(hub: Hub, clients: list[Client], night: int, number: int) -> list[int]:
    """Every client is told its table (it opens by itself) and plays it to the end."""
    mine: dict[int, list[Client]] = {}
    for client in clients:
        msg = await client.until(
            lambda m: (
                m["t"] == "notice" and m["code"] == "night_round" and m["args"]["round"] == number
            )
        )
        table = msg["args"]["table"]
        await client.until(lambda m, t=table: m["t"] == "table" and m["table"] == t)
        mine.setdefault(table, []).append(client)
    await asyncio.gather(
        *(play_to_end(dict(enumerate(group)), table) for table, group in mine.items())
    )
    return sorted(mine)


def _names(hub: Hub, table_id: int) -> list[str | None]:
    return [hub.names.get(s.player) if s.player else None for s in hub.tables[table_id].seats]


async def test_a_swiss_night_seats_everyone_counts_every_table_and_goes_round_after_round(
    store: Store,
):
    hub = Hub(store, fast_config())
    await hub.start()
    hub.nights.round_break = 0.05
    clients = await _players(hub, 7)
    night = await _night(clients[0], format="swiss", rounds=2, fill="bots")
    await _register(clients, night)
    watcher = clients[0]
    await watcher.send("night", op="start", night=night)

    met: set[frozenset[str]] = set()
    for number in (1, 2):
        # Every table seated at once: 7 players at threes, one table with two bots.
        await watcher.until(lambda m, n=number: m["t"] == "night" and m["night"]["round"] == n)
        event = hub.nights.nights[night]
        tables = event.rounds[-1].table_ids
        assert len(tables) == 3 and all(t in hub.tables for t in tables)
        seated = [_names(hub, t) for t in tables if t is not None]
        assert sorted(n for s in seated for n in s if n) == sorted(f"P{i}" for i in range(7))
        assert sum(n is None for s in seated for n in s) == 2
        pairs = {frozenset(p) for s in seated for p in itertools.combinations(filter(None, s), 2)}
        assert not pairs & met  # nobody meets anyone again (it can be avoided here)
        met |= pairs
        played = await _play_round(hub, clients, night, number)
        assert played == sorted(t for t in tables if t is not None)

    final = await watcher.until(lambda m: m["t"] == "night" and m["night"]["status"] == "finished")
    # The standings are the table points of each game as the store recorded it.
    expected: dict[str, float] = {}
    for client_id in range(7):
        for game in store.games_of(f"key-{client_id}", 9):
            seat = game["players"].index(f"key-{client_id}")
            points = table_points(game["outcome"]["scores"])
            expected[f"P{client_id}"] = expected.get(f"P{client_id}", 0.0) + points[seat]
    rows = final["night"]["standings"]
    assert {r["name"]: r["points"] for r in rows} == expected
    assert [r["points"] for r in rows] == sorted(expected.values(), reverse=True)
    assert all(r["games"] == 2 for r in rows)
    assert [r["name"] for r in rows if r["you"]] == ["P0"]  # the reader's own row, marked
    # Everyone still connected is told the final results, the podium first.
    podium = " · ".join(f"{r['place']}. {r['name']}" for r in rows if r["place"] <= 3)
    for client in clients:
        told = await client.until(lambda m: m["t"] == "notice" and m["code"] == "night_over")
        assert told["message"] == f"Friday is over: {podium}."
    assert store.ledger_total() == 0
    await asyncio.sleep(0.1)  # the last tables close after their result is on show
    assert not [t for t in hub.tables.values() if t.night is not None]
    await hub.stop()


async def test_a_duplicate_night_deals_the_same_cards_and_scores_matchpoints(store: Store):
    hub = Hub(store, fast_config())
    await hub.start()
    clients = await _players(hub, 6)
    night = await _night(clients[0], format="duplicate", rounds=1)
    await _register(clients, night)
    await clients[0].send("night", op="start", night=night)
    await _play_round(hub, clients, night, 1)
    final = await clients[0].until(
        lambda m: m["t"] == "night" and m["night"]["status"] == "finished"
    )
    games = {}
    for i in range(6):
        for game in store.games_of(f"key-{i}", 9):
            games[game["id"]] = game
    first, second = sorted(games.values(), key=lambda g: g["id"])
    assert first["deal"]["dealt"][0] == second["deal"]["dealt"][0]  # the same cards, seats
    scores = [first["outcome"]["scores"], second["outcome"]["scores"]]
    got = matchpoints(scores)
    expected = {}
    for game, row in zip((first, second), got, strict=True):
        for pid, mp in zip(game["players"], row, strict=True):
            expected[hub.names[pid]] = mp
    assert {r["name"]: r["points"] for r in final["night"]["standings"]} == expected
    await hub.stop()


async def test_late_registration_plays_from_the_next_round_and_an_absent_player_withdraws(
    store: Store,
):
    hub = Hub(store, fast_config())
    await hub.start()
    hub.nights.round_break = 0.3
    clients = await _players(hub, 4)
    night = await _night(clients[0], format="round_robin", rounds=2)
    await _register(clients[:3], night)
    await clients[0].send("night", op="start", night=night)
    late = clients[3]
    await late.send("night", op="register", night=night)
    msg = await late.until(lambda m: m["t"] == "night" and m["night"]["you"])
    assert msg["night"]["table"] is None  # not in the round under way
    await clients[2].close()  # gone before the next round: played by a stand-in now
    await _play_round(hub, clients[:2], night, 1)
    await _play_round(hub, [clients[0], clients[1], late], night, 2)
    event = hub.nights.nights[night]
    assert event.entrants["key-2"].withdrawn
    second = [p for t in event.rounds[1].tables for p in t]
    assert "key-3" in second and "key-2" not in second
    await hub.stop()


async def test_an_event_survives_a_restart_mid_round(tmp_path):
    store = Store.open(tmp_path / "data")
    hub = Hub(store, fast_config())
    await hub.start()
    clients = await _players(hub, 3)
    night = await _night(clients[0], format="swiss", rounds=1)
    await _register(clients, night)
    await clients[0].send("night", op="start", night=night)
    msg = await clients[0].until(lambda m: m["t"] == "notice" and m["code"] == "night_round")
    table = msg["args"]["table"]
    await clients[0].until(lambda m: m["t"] == "table" and m["table"] == table)
    await hub.stop()
    store.close()

    store = Store.open(tmp_path / "data")
    hub = Hub(store, fast_config(grace=30.0))
    await hub.start()
    assert hub.nights.nights[night].status == "playing"
    assert hub.tables[table].night == {"id": night, "round": 1, "index": 0}
    again = []
    for i in range(3):
        client = await connect(hub)
        await client.hello(f"P{i}", identity=f"key-{i}")
        await client.send("night", op="watch", night=night)
        again.append(client)
    await asyncio.gather(*(c.until(lambda m: m["t"] == "table") for c in again))
    await play_to_end(dict(enumerate(again)), table)
    final = await again[0].until(lambda m: m["t"] == "night" and m["night"]["status"] == "finished")
    assert sum(r["games"] for r in final["night"]["standings"]) == 3
    assert store.ledger_total() == 0
    await hub.stop()
    store.close()


async def test_a_sigkill_mid_round_loses_nothing_of_the_event(tmp_path):
    """The hub is killed while one table of the round has finished and the other is in play:
    restarted, it has the finished table's result, the other table where it was; played to
    its end, the event finishes with every game counted and the ledger at zero."""
    import msgpack

    from .hub_process import HubProcess

    hub = HubProcess(tmp_path / "data", grace=30)
    await hub.start()
    try:
        clients = [await hub.registered(f"key-{i}", f"P{i}") for i in range(6)]
        night = await _night(clients[0], format="swiss", rounds=1)
        await _register(clients, night)
        await clients[0].send("night", op="start", night=night)
        by_table: dict[int, list[tuple[int, Client]]] = {}
        for i, client in enumerate(clients):
            msg = await client.until(lambda m: m["t"] == "notice" and m["code"] == "night_round")
            table = msg["args"]["table"]
            await client.until(lambda m, t=table: m["t"] == "table" and m["table"] == t)
            by_table.setdefault(table, []).append((i, client))
        first, second = sorted(by_table)
        await play_to_end(dict(by_table[first]), first)
        await clients[0].until(
            lambda m: m["t"] == "night" and sum(r["games"] for r in m["night"]["standings"]) == 3
        )
        # One move at the other table, then the kill.
        mover = next(c for _, c in by_table[second] if c.tables[second]["view"]["legal"])
        await mover.send("act", table=second, action=mover.tables[second]["view"]["legal"][0])
        for _ in range(200):  # (bounded: until the move is stored)
            stored = hub.read("SELECT COUNT(*) FROM live_actions WHERE table_id = ?", second)
            if stored[0][0]:
                break
            await asyncio.sleep(0.02)
        assert stored[0][0] == 1
        await hub.stop(signal.SIGKILL)

        (info,) = hub.read("SELECT info FROM nights WHERE id = ?", night)
        kept = msgpack.unpackb(info[0], raw=False, strict_map_key=False)
        scores = dict(zip(kept["rounds"][0]["table_ids"], kept["rounds"][0]["scores"], strict=True))
        assert kept["status"] == "playing" and scores[first] is not None and scores[second] is None

        await hub.start()
        players = dict(by_table[second])
        again = {i: await hub.registered(f"key-{i}", f"P{i}") for i in players}
        await asyncio.gather(
            *(c.until(lambda m: m["t"] == "table" and m["table"] == second) for c in again.values())
        )
        watcher = again[min(again)]
        await watcher.send("night", op="watch", night=night)
        await play_to_end(again, second)
        final = await watcher.until(
            lambda m: m["t"] == "night" and m["night"]["status"] == "finished"
        )
        assert sorted(r["games"] for r in final["night"]["standings"]) == [1] * 6
        assert hub.ledger_total() == 0
    finally:
        await hub.close()


async def test_a_table_lost_with_the_restart_counts_as_a_draw_and_the_event_goes_on(tmp_path):
    store = Store.open(tmp_path / "data")
    hub = Hub(store, fast_config())
    await hub.start()
    clients = await _players(hub, 3)
    night = await _night(clients[0], format="swiss", rounds=2)
    await _register(clients, night)
    await clients[0].send("night", op="start", night=night)
    await clients[0].until(lambda m: m["t"] == "notice" and m["code"] == "night_round")
    table = hub.nights.nights[night].rounds[0].table_ids[0]
    await hub.stop()
    store.delete_table(table)  # (what a damaged or hand-edited store could leave)
    store.close()

    store = Store.open(tmp_path / "data")
    hub = Hub(store, fast_config())
    await hub.start()
    event = hub.nights.nights[night]
    assert event.status == "between" and event.rounds[0].scores == [[0.0, 0.0, 0.0]]
    assert hub.nights.next_at.get(night) is not None  # the next round is on its way
    assert [r.points for r in event.standings()] == [1.0, 1.0, 1.0]
    await hub.stop()
    store.close()


async def test_a_table_an_admin_closes_mid_game_counts_as_a_draw(store: Store):
    hub = Hub(store, fast_config(admins=frozenset({"key-0"})))
    await hub.start()
    hub.nights.round_break = 0.05
    clients = await _players(hub, 3)
    night = await _night(clients[0], format="swiss", rounds=2)
    await _register(clients, night)
    await clients[0].send("night", op="start", night=night)
    msg = await clients[0].until(lambda m: m["t"] == "notice" and m["code"] == "night_round")
    await clients[0].send("admin", op="close_table", table=msg["args"]["table"])
    # The round ends with the draw, and the next is seated after the break.
    await _play_round(hub, clients, night, 2)
    final = await clients[0].until(
        lambda m: m["t"] == "night" and m["night"]["status"] == "finished"
    )
    assert sorted(r["games"] for r in final["night"]["standings"]) == [2, 2, 2]
    assert hub.nights.nights[night].rounds[0].scores == [[0.0, 0.0, 0.0]]
    await hub.stop()


async def test_an_event_table_plays_one_game_even_when_every_player_has_read_the_result(
    store: Store,
):
    hub = Hub(store, fast_config(between_games=5.0))
    await hub.start()
    clients = await _players(hub, 3)
    night = await _night(clients[0], format="swiss", rounds=2)
    await _register(clients, night)
    await clients[0].send("night", op="start", night=night)
    (table,) = await _play_round(hub, clients, night, 1)
    for client in clients:  # (without a game night, the next game is dealt at once now)
        await client.send("result_read", table=table)
    await asyncio.sleep(0.3)
    assert hub.tables[table].games_played == 1 and hub.tables[table].status == "between"
    await hub.stop()


async def test_a_player_seated_elsewhere_when_a_round_starts_is_moved_to_their_event_table(
    store: Store,
):
    """A registered player at another table leaves it by its rules for leaving (waiting: the
    seat is freed, and a table with no one left closes; mid-game: a bot plays the seat, kept
    for them), is told so, and plays the round at their event table."""
    hub = Hub(store, fast_config())
    await hub.start()
    clients = await _players(hub, 3)
    night = await _night(clients[0], format="swiss", rounds=1)
    await _register(clients, night)
    await clients[0].send("create_table", game="prophets_gambit", players=3)
    waiting = int((await clients[0].expect("table"))["table"])
    playing = await table_with_bots(clients[1], "prophets_gambit")
    await clients[1].send("start", table=playing)
    await clients[1].until(
        lambda m: m["t"] == "table" and m["table"] == playing and m["info"]["status"] == "playing"
    )
    await clients[0].send("night", op="start", night=night)

    told = await clients[0].until(lambda m: m["t"] == "notice" and m["code"] == "night_moved")
    assert told["message"] == f"Round 1 of Friday has begun: you left table {waiting}."
    assert waiting not in hub.tables  # nobody left at it: closed
    told = await clients[1].until(lambda m: m["t"] == "notice" and m["code"] == "night_moved")
    assert told["message"] == (
        f"Round 1 of Friday has begun: you left table {playing}, where a bot plays your seat "
        "until its game ends."
    )
    other = hub.tables.get(playing)
    assert other is None or (
        other.seat_of("key-1") is None and other.reserved_seat_of("key-1") is not None
    )
    (event_table,) = hub.nights.nights[night].rounds[0].table_ids
    assert event_table is not None
    assert sorted(hub.tables[event_table].humans()) == ["key-0", "key-1", "key-2"]
    assert not [t for t in hub.tables.values() if t.id != event_table and "key-0" in t.humans()]
    await _play_round(hub, clients, night, 1)
    final = await clients[2].until(
        lambda m: m["t"] == "night" and m["night"]["status"] == "finished"
    )
    assert [r["games"] for r in final["night"]["standings"]] == [1, 1, 1]
    assert store.ledger_total() == 0
    await hub.stop()


async def test_the_host_pauses_between_rounds_resumes_extends_and_removes_a_player(
    store: Store,
):
    hub = Hub(store, fast_config())
    await hub.start()
    hub.nights.round_break = 0.05
    clients = await _players(hub, 4)
    host = clients[0]
    night = await _night(host, format="round_robin", rounds=1, fill="bots")
    await _register(clients[1:], night)
    await clients[1].send("night", op="pause", night=night)  # not the host
    assert (await clients[1].expect("error"))["code"] == "not_host"
    await host.send("night", op="extend", night=night, rounds=2)
    await host.until(lambda m: m["t"] == "night" and m["night"]["rounds"] == 3)
    await host.send("night", op="pause", night=night)
    await host.until(lambda m: m["t"] == "night" and m["night"]["paused"])
    await host.send("night", op="start", night=night)  # the host may still start early
    await _play_round(hub, clients[1:], night, 1)
    event = hub.nights.nights[night]
    await asyncio.sleep(0.3)  # paused: the next round waits
    assert event.status == "between" and len(event.rounds) == 1
    assert hub.nights.summary(event, hub.players["key-0"])["next_in"] is None
    await host.send("night", op="remove", night=night, player="P3")
    told = await clients[3].until(lambda m: m["t"] == "notice" and m["code"] == "night_removed")
    assert told["message"] == "The host removed you from Friday."
    await host.send("night", op="resume", night=night)
    await _play_round(hub, clients[1:3], night, 2)
    assert event.entrants["key-3"].withdrawn
    assert all("key-3" not in seats for seats in event.rounds[1].tables)
    assert len(event.rounds) >= 2 and event.rules.rounds == 3
    await hub.stop()


async def test_cancelling_mid_round_closes_the_tables_returns_the_stakes_and_tells_everyone(
    store: Store,
):
    hub = Hub(store, fast_config())
    await hub.start()
    clients = await _players(hub, 3)
    night = await _night(clients[0], format="swiss", rounds=2)
    await _register(clients, night)
    await clients[0].send("night", op="start", night=night)
    msg = await clients[1].until(lambda m: m["t"] == "notice" and m["code"] == "night_round")
    table = msg["args"]["table"]
    before = {f"key-{i}": store.balance(player_account(f"key-{i}")) for i in range(3)}
    await clients[0].send("night", op="cancel", night=night)
    for client in clients:
        told = await client.until(lambda m: m["t"] == "notice" and m["code"] == "night_cancelled")
        assert told["message"] == "Friday was cancelled by its host."
    await clients[1].until(lambda m: m["t"] == "left" and m["table"] == table)
    assert table not in hub.tables
    assert hub.nights.nights[night].status == "cancelled"
    assert {p: store.balance(player_account(p)) for p in before} == before
    assert store.ledger_total() == 0
    await clients[0].send("night", op="start", night=night)
    assert (await clients[0].expect("error"))["code"] == "event_over"
    await hub.stop()


async def test_an_event_with_a_start_time_seats_its_first_round_by_itself(store: Store):
    hub = Hub(store, fast_config())
    await hub.start()
    clients = await _players(hub, 3)
    starts = int(time.time()) + 2
    night = await _night(clients[0], format="swiss", rounds=1, starts_at=starts)
    listed = hub.nights.summary(hub.nights.nights[night], hub.players["key-0"])
    assert listed["status"] == "registering" and 0 < listed["next_in"] <= 2
    await _register(clients, night)
    msg = await clients[2].until(
        lambda m: m["t"] == "notice" and m["code"] == "night_round", timeout=5
    )
    assert time.time() >= starts - 0.05
    assert msg["args"]["round"] == 1
    await hub.stop()


async def test_after_the_closing_time_no_next_round_is_seated_and_the_event_finishes(
    store: Store,
):
    hub = Hub(store, fast_config())
    await hub.start()
    hub.nights.round_break = 0.05
    clients = await _players(hub, 3)
    night = await _night(clients[0], format="swiss", rounds=3, closes_at=int(time.time()))
    await _register(clients, night)
    await clients[0].send("night", op="start", night=night)  # the first round is played
    await _play_round(hub, clients, night, 1)
    final = await clients[0].until(
        lambda m: m["t"] == "night" and m["night"]["status"] == "finished"
    )
    assert final["night"]["round"] == 1
    await hub.stop()


async def test_a_player_removed_mid_round_is_played_by_a_stand_in_and_the_game_counts(
    store: Store,
):
    hub = Hub(store, fast_config())
    await hub.start()
    clients = await _players(hub, 3)
    night = await _night(clients[0], format="swiss", rounds=1)
    await _register(clients, night)
    await clients[0].send("night", op="start", night=night)
    msg = await clients[2].until(lambda m: m["t"] == "notice" and m["code"] == "night_round")
    table = msg["args"]["table"]
    await clients[2].until(lambda m: m["t"] == "table" and m["table"] == table)
    await clients[0].send("night", op="remove", night=night, player="P2")
    await clients[2].until(lambda m: m["t"] == "left" and m["table"] == table)
    seat = hub.tables[table].reserved_seat_of("key-2")
    assert seat is not None and hub.tables[table].seats[seat].bot is not None
    await play_to_end({0: clients[0], 1: clients[1]}, table)
    final = await clients[0].until(
        lambda m: m["t"] == "night" and m["night"]["status"] == "finished"
    )
    rows = {r["name"]: r for r in final["night"]["standings"]}
    assert rows["P2"]["withdrawn"] and rows["P2"]["games"] == 1
    await hub.stop()


async def test_one_change_of_the_standings_is_encoded_once_for_all_its_followers(
    store: Store, monkeypatch
):
    """Many followers of one event (players and spectators, some also following the list):
    at a change the standings' rows are encoded once (and a player's own row once more, with
    its mark), not once per follower; and each still reads the event as it is to them."""
    from protocol import codec

    hub = Hub(store, fast_config())
    await hub.start()
    clients = await _players(hub, 15)
    players, watchers = clients[:3], clients[3:]
    night = await _night(players[0], format="swiss", rounds=1)
    await _register(players, night)
    for client in watchers:
        await client.send("night", op="watch", night=night)
        await client.send("night", op="list")
    await watchers[-1].expect("nights")
    for client in clients:
        client._seen = len(client.log)  # (what came before is read)
    row_encodes = 0

    def rows_in(value: Any) -> int:
        if isinstance(value, dict):
            own = 1 if "tiebreak" in value else 0
            return own + sum(rows_in(v) for v in value.values())
        if isinstance(value, list):
            return sum(rows_in(v) for v in value)
        return 0

    pack = codec._packers.pack

    def counting(value: Any) -> bytes:
        nonlocal row_encodes
        row_encodes += rows_in(value)
        return pack(value)

    assert not store.holding  # (every message goes out at once, encoded here)
    monkeypatch.setattr(codec._packers, "pack", counting)
    hub.nights.tell_now(night)
    monkeypatch.setattr(codec._packers, "pack", pack)
    # Three rows, once each, and each player's own row once more: not 3 x 15.
    assert row_encodes <= 3 + 3
    for index, client in enumerate(clients):
        msg = await client.expect("night")
        info = msg["night"]
        mine = [r["name"] for r in info["standings"] if r["you"]]
        assert info["you"] == (index < 3) and info["hosting"] == (index == 0)
        assert mine == ([f"P{index}"] if index < 3 else [])
        assert [r["name"] for r in info["standings"]] == ["P0", "P1", "P2"]
        assert info["registered"] == 3 and info["table"] is None and info["bye"] is False
    for client in watchers:
        (entry,) = (await client.expect("nights"))["nights"]
        assert entry["id"] == night and entry["registered"] == 3 and entry["you"] is False
    await hub.stop()


async def test_an_events_changes_in_one_batch_of_writes_are_written_once_as_it_commits(
    store: Store, monkeypatch
):
    """A round's tables end in bursts: the event (every round's seats and scores) is written
    once per batch of writes, as it stands when the batch commits, not once per change."""
    hub = Hub(store, fast_config())
    await hub.start()
    (host,) = await _players(hub, 1)
    night_id = await _night(host, format="swiss", rounds=1)
    night = hub.nights.nights[night_id]
    written: list[dict[str, Any]] = []
    save_night = store.save_night

    def counted(ident: int, info: dict[str, Any]) -> None:
        written.append(info)
        save_night(ident, info)

    monkeypatch.setattr(store, "save_night", counted)
    with store.transaction():  # (a game's record, say: the batch is open)
        pass
    assert store.holding
    for pid in ("key-a", "key-b", "key-c"):
        night.register(pid)
        hub.nights.save(night)
    assert written == []
    hub.commit()
    assert len(written) == 1 and not store.holding
    (kept,) = [n for n in store.nights() if n["id"] == night_id]
    assert [e[0] for e in kept["entrants"]] == ["key-a", "key-b", "key-c"]
    await hub.stop()


async def test_standings_that_show_only_what_is_committed_go_out_without_waiting_for_a_batch(
    store: Store,
):
    """Other tables' moves keep a batch of writes open nearly all the time at a busy night:
    the standings, when the event has not changed in that batch, go out at once; when it has,
    they wait for its commit like any message (stored before shown)."""
    hub = Hub(store, fast_config())
    await hub.start()
    clients = await _players(hub, 3)
    night_id = await _night(clients[0], format="swiss", rounds=1)
    await _register(clients, night_id)
    night = hub.nights.nights[night_id]
    await asyncio.sleep(0.2)  # (the registrations' standings are out)
    for client in clients:
        client._seen = len(client.log)  # (what came before is read)
    with store.transaction():  # (another table's move, say: a batch is open)
        pass
    assert store.holding
    held = len(hub.outbox)
    hub.nights.tell_now(night_id)
    assert len(hub.outbox) == held  # (sent, not held)
    night.withdraw("key-2")
    hub.nights.save(night)  # (a change of the event in the open batch)
    hub.nights.tell_now(night_id)
    assert len(hub.outbox) == held + 3
    hub.commit()
    for client in clients:
        first = await client.expect("night")
        assert first["night"]["registered"] == 3
        assert (await client.expect("night"))["night"]["registered"] == 2
    await hub.stop()


async def _refused(client: Client, night: int) -> dict[str, Any]:
    await client.send("night", op="register", night=night)
    return await client.expect("error")


async def test_an_event_for_invited_players_takes_those_the_host_invites_even_after_a_restart(
    tmp_path,
):
    store = Store.open(tmp_path / "data")
    hub = Hub(store, fast_config())
    await hub.start()
    host, ada, bob = await _players(hub, 3)
    night = await _night(host, format="swiss", access="invited")
    refused = await _refused(ada, night)
    assert (refused["code"], refused["message"]) == (
        "not_allowed",
        "Only invited players may register for this event.",
    )
    await host.send("night", op="invite", night=night, player="p1")  # (any case)
    assert (await host.expect("notice", code="invited"))["message"] == "Invited P1."
    told = await ada.expect("notice", code="night_invited")
    assert told["message"] == "P0 invites you to Friday: register in Events (v in the lobby)."
    await ada.send("night", op="register", night=night)
    await ada.until(lambda m: m["t"] == "night" and m["night"]["you"])
    assert hub.nights.nights[night].active() == ["key-1"]
    # Taken back, the invitation lets nobody in; the host names only players that exist.
    await host.send("night", op="invite", night=night, player="P2")
    await host.expect("notice", code="invited")
    await host.send("night", op="uninvite", night=night, player="P2")
    gone = await host.expect("notice", code="night_uninvited")
    assert gone["message"] == "P2 is no longer invited to Friday."
    assert (await _refused(bob, night))["code"] == "not_allowed"
    await host.send("night", op="uninvite", night=night, player="P2")
    assert (await host.expect("error"))["code"] == "event_not_invited"
    await host.send("night", op="invite", night=night, player="Nobody")
    assert (await host.expect("error"))["code"] == "no_player"
    await ada.send("night", op="invite", night=night, player="P2")  # not the host
    assert (await ada.expect("error"))["code"] == "not_host"
    # An invitation is kept with the event: after a restart it still lets its player in.
    await host.send("night", op="invite", night=night, player="P2")
    await host.expect("notice", code="invited")
    await hub.stop()
    store.close()

    store = Store.open(tmp_path / "data")
    hub = Hub(store, fast_config())
    await hub.start()
    assert hub.nights.nights[night].invited == ["key-1", "key-2"]
    bob = await connect(hub)
    await bob.hello("P2", identity="key-2")
    await bob.send("night", op="register", night=night)
    await bob.until(lambda m: m["t"] == "night" and m["night"]["registered"] == 2)
    await hub.stop()
    store.close()


async def test_a_friends_event_keeps_its_own_refusal_and_lets_in_who_the_host_invites(
    store: Store,
):
    hub = Hub(store, fast_config())
    await hub.start()
    host, ada = await _players(hub, 2)
    night = await _night(host, format="swiss", access="friends")
    refused = await _refused(ada, night)
    assert refused["message"] == "Only the host's friends may register for this event."
    await host.send("night", op="invite", night=night, player="P1")
    await ada.expect("notice", code="night_invited")
    await ada.send("night", op="register", night=night)
    await ada.until(lambda m: m["t"] == "night" and m["night"]["registered"] == 1)
    await hub.stop()
