"""The database away when no request is there to refuse: what a timer does (a stand-in's move
when a turn clock runs out, the next game, a game night's round) and what a guest who leaves
takes home. Each is refused before anything changes, says so in one line (no traceback: the
database restarting is expected), and happens once the database is back (server/hub/timers.py
``Timers.refused``, ``Hub.database_back``)."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import logging
import secrets
import time
from collections.abc import Iterator

import pytest

from server.hub import Hub
from server.store import StoreError

from .conftest import fast_config
from .harness import Client, connect, play_to_end, table_with_bots
from .test_database_away import stored, stored_beyond

AWAY = "the test's database restarts"
#: A game night of two rounds at tables of three, its start time far off (the test sets its
#: timer).
NIGHT = {
    "game": "prophets_gambit",
    "players": 3,
    "format": "swiss",
    "rounds": 2,
    "starts_at": int(time.time()) + 3600,
}


def failures(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What was logged as a failure (an error, or anything with a traceback)."""
    return [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def waits_for_the_database(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The one-line warnings that something waits for the database."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and AWAY in r.getMessage() and not r.exc_info
    ]


def lost_as_it_writes(hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next move's write finds the database's connection gone (as a PostgreSQL killed
    before the lock's check notices: ``Store.connection_lost``, which fences the store)."""

    def gone(*args: object) -> None:
        hub.store.fence(AWAY)
        raise StoreError(f"Database error: the connection is gone ({AWAY})")

    monkeypatch.setattr(hub.store, "append_action", gone)


@pytest.mark.parametrize("when", ["away", "lost_as_it_writes"])
async def test_a_stand_in_whose_move_is_refused_changes_nothing_and_moves_once_back(
    store, caplog, monkeypatch, when
):
    """Ada's turn clock runs out while the database is away (or its write finds the
    connection gone): the stand-in's move is refused in one line; the table's log says no
    stand-in moved, nobody is told one did, and once the database is back her clock (run
    out) makes the stand-in move, stored."""
    caplog.set_level(logging.WARNING)
    hub = Hub(store, fast_config(bot_delay=0.02, turn_timer=0.3))
    await hub.start()
    try:
        ada = await connect(hub)
        await ada.hello("Ada", identity="SHA256:ada")
        table = await table_with_bots(ada, "prophet", players=3)
        await ada.send("start", table=table)
        await ada.until(lambda m: m["t"] == "table" and (m["view"] or {}).get("ask"))
        state = hub.tables[table].state
        assert state is not None
        moves, events = stored(hub, table), list(state.events)
        if when == "away":
            hub.database_away(AWAY)
        else:
            lost_as_it_writes(hub, monkeypatch)
        await asyncio.sleep(0.6)  # (her clock ran out: the stand-in's move is refused)
        assert hub.store.fenced
        assert stored(hub, table) == moves and len(state.history) == moves
        assert state.events == events and hub.turns.stood_in == {}
        assert failures(caplog) == [] and waits_for_the_database(caplog)

        monkeypatch.undo()
        assert await hub.database_back()
        await stored_beyond(hub, table, moves)
        assert state.history[moves][0] == 0  # (her seat: the stand-in moved for her)
        assert {"e": "stand_in", "seat": 0, "why": "time"} in state.events
        assert failures(caplog) == []
    finally:
        await hub.stop()


async def test_the_next_game_due_while_the_database_is_away_starts_once_back(store, caplog):
    """The pause after a game runs out while the database is away: no deal is drawn or
    closed, no seat turns, the table still shows the last result; in one line, and the next
    game starts once the database is back."""
    caplog.set_level(logging.WARNING)
    hub = Hub(store, fast_config(between_games=0.3))
    await hub.start()
    try:
        ada = await connect(hub)
        await ada.hello("Ada", identity="SHA256:ada")
        table = await table_with_bots(ada, "prophet", players=3)
        await ada.send("start", table=table)
        await play_to_end({0: ada}, table)
        hub.database_away(AWAY)
        at = hub.tables[table]
        before = (at.status, copy.deepcopy(at.deal), at.deal_log, at.state, list(at.seats))
        assert before[0] == "between"
        await asyncio.sleep(0.5)  # (the next game is due: refused)
        assert (at.status, at.deal, at.deal_log, at.state, at.seats) == before
        assert failures(caplog) == [] and waits_for_the_database(caplog)

        assert await hub.database_back()
        for _ in range(50):
            if at.status == "playing" and at.state is not before[3]:
                break
            await asyncio.sleep(0.02)
        assert at.status == "playing" and at.state is not before[3]
        assert store.live_tables()[0]["info"]["status"] == "playing"
        assert failures(caplog) == []
    finally:
        await hub.stop()


async def test_a_next_game_whose_second_balance_read_finds_the_connection_gone_stands_nobody_up(
    store, caplog, monkeypatch
):
    """Before a deal each player's balance is read; a seat short of the stake is stood up.
    The first read says Ada is short, the second (Bo's) finds the database's connection gone
    (as a PostgreSQL killed before the lock's check notices: ``Store.connection_lost``):
    the deal is refused with nothing changed (Ada keeps her seat and is told nothing), and
    dealt once the database is back (both can pay: both play)."""
    caplog.set_level(logging.WARNING)
    hub = Hub(store, fast_config(between_games=60.0, entropy_wait=0.0))
    await hub.start()
    try:
        ada, bo = await connect(hub), await connect(hub)
        await ada.hello("Ada", identity="SHA256:ada")
        await bo.hello("Bo", identity="SHA256:bo")
        await ada.send("create_table", game="prophets_gambit", players=3, stake=1, timer=0)
        table = (await ada.expect("table"))["table"]
        await bo.send("join", table=table, seat=1)
        await ada.send("add_bot", table=table, seat=2)
        await ada.until(
            lambda m: m["t"] == "table" and all(s["bot"] or s["name"] for s in m["info"]["seats"])
        )
        await ada.send("start", table=table)
        await play_to_end({0: ada, 1: bo}, table)
        at = hub.tables[table]
        for _ in range(50):
            if at.status == "between":
                break
            await asyncio.sleep(0.02)
        assert at.status == "between"
        seats = [copy.deepcopy(seat) for seat in at.seats]
        reads: list[str] = []

        def balance(account: str) -> int:
            reads.append(account)
            if len(reads) == 1:
                return 0  # (Ada's: short of the stake)
            hub.store.fence(AWAY)
            raise StoreError(f"Database error: the connection is gone ({AWAY})")

        monkeypatch.setattr(hub.store, "balance", balance)
        timers = hub.runtime.timers
        timers.later(("next", table), 0.0, hub.play.next_game, table)
        await asyncio.sleep(0.1)
        assert len(reads) == 2 and ("next", table) in timers.refused
        assert at.status == "between" and list(at.seats) == seats
        assert not [m for m in ada.log if m["t"] == "notice" and m.get("code") == "chips"]
        assert failures(caplog) == [] and waits_for_the_database(caplog)

        monkeypatch.undo()
        assert await hub.database_back()
        for _ in range(50):
            if at.status == "playing":
                break
            await asyncio.sleep(0.02)
        assert at.status == "playing" and at.seats[0].player == seats[0].player
        assert failures(caplog) == []
    finally:
        await hub.stop()


def lost_at_the_next_transaction(hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next transaction finds the database's connection gone as it begins (as a
    PostgreSQL killed before the lock's check notices: ``Store.connection_lost``)."""

    @contextlib.contextmanager
    def gone() -> Iterator[None]:
        hub.store.fence(AWAY)
        raise StoreError(f"Cannot start a transaction: the connection is gone ({AWAY})")
        yield

    monkeypatch.setattr(hub.store, "transaction", gone)


@pytest.mark.parametrize("when", ["away", "lost_as_it_writes"])
async def test_a_night_round_due_while_the_database_is_away_is_seated_whole_once_back(
    store, caplog, monkeypatch, when
):
    """An event's round is due (its start time) while the database is away (or its first
    write finds the connection gone): no table of it opens, nobody is withdrawn or moved
    from the table they sit at, in one line (the host's own start is refused with
    ``not_saved``, as any request then); once the database is back the whole round is
    seated, every table at once."""
    caplog.set_level(logging.WARNING)
    hub = Hub(store, fast_config())
    await hub.start()
    try:
        players = []
        for i in range(6):
            client = await connect(hub)
            await client.hello(f"P{i}", identity=f"key-{i}")
            players.append(client)
        await players[0].send("night", op="create", name="Friday", **NIGHT)
        night_id = int((await players[0].expect("night"))["night"]["id"])
        for client in players:
            await client.send("night", op="register", night=night_id)
        await players[0].until(lambda m: m["t"] == "night" and m["night"]["registered"] == 6)
        other = await table_with_bots(players[5], "prophet", players=3)  # (P5 sits elsewhere)
        night = hub.nights.nights[night_id]
        before = (night.to_record(), sorted(hub.tables), store.nights())

        if when == "away":
            hub.database_away(AWAY)
        else:
            lost_at_the_next_transaction(hub, monkeypatch)
        hub.nights.next_round_after(night, 0.05)  # (as its start time does)
        await asyncio.sleep(0.3)
        assert (night.to_record(), sorted(hub.tables), store.nights()) == before
        assert hub.tables[other].seat_of("key-5") == 0
        assert failures(caplog) == [] and waits_for_the_database(caplog)
        # The host's own start is refused as any request is then, and changes nothing.
        await players[0].send("night", op="start", night=night_id)
        refused = await players[0].expect("error")
        assert (refused["code"], refused["ref"]) == ("not_saved", "night")
        assert (night.to_record(), sorted(hub.tables), store.nights()) == before

        monkeypatch.undo()
        assert await hub.database_back()
        for client in players:
            await client.until(
                lambda m: m["t"] == "notice" and m["code"] == "night_round", timeout=2
            )
        tables = night.rounds[0].table_ids
        assert len(tables) == 2 and all(t in hub.tables for t in tables)
        seated = sorted(p for t in tables for p in hub.tables[t].humans())
        assert seated == [f"key-{i}" for i in range(6)]
        assert other not in hub.tables or hub.tables[other].seat_of("key-5") is None
        assert failures(caplog) == []
    finally:
        await hub.stop()


async def guest_at_a_table(hub: Hub) -> tuple[Client, str, int]:
    """A guest (no key) at a waiting table of theirs with two bots: the guest, their id and
    the table."""
    guest = await connect(hub)
    await guest.hello("Gus")
    pid = next(p for p in hub.players if p.startswith("guest:"))
    return guest, pid, await table_with_bots(guest, "prophet", players=3)


@pytest.mark.parametrize("when", ["away", "lost_as_it_writes"])
async def test_a_guest_who_leaves_while_the_database_is_away_has_their_chips_sent_home_after(
    store, caplog, monkeypatch, when
):
    """The guest's connection ends cleanly (nothing escapes the hub's end of it), their table
    closes (its removal from the store the write that finds the connection gone, if it is
    lost), nothing moves in the ledger meanwhile, in one line; once the database is back
    their chips go home in one transfer and the closed table is forgotten."""
    caplog.set_level(logging.WARNING)
    hub = Hub(store, fast_config())
    await hub.start()
    try:
        guest, pid, table = await guest_at_a_table(hub)
        chips = store.balance(f"player:{pid}")
        assert chips > 0
        if when == "away":
            hub.database_away(AWAY)
        else:
            lost_at_the_next_transaction(hub, monkeypatch)
        await guest.close()
        assert await asyncio.wait_for(guest.hub_task, 2) is None  # (nothing escaped)
        assert pid not in hub.players and table not in hub.tables and hub.store.fenced
        assert store.balance(f"player:{pid}") == chips
        assert failures(caplog) == [] and waits_for_the_database(caplog)

        monkeypatch.undo()
        assert await hub.database_back()
        assert store.balance(f"player:{pid}") == 0
        assert hub.guests.owed == set()
        assert store.ledger_total() == 0 and store.audit() == []
        assert [row["id"] for row in store.live_tables()] == []
        assert failures(caplog) == []
    finally:
        await hub.stop()


async def test_a_stop_while_the_database_is_away_says_so_and_the_next_start_sends_guests_home(
    store, caplog
):
    """As ``gambit serve`` stops: the players' connections end first (a guest leaves), then
    the hub stops. Nothing escapes, the log says whose chips were not sent home, and the next
    start sends them home."""
    caplog.set_level(logging.WARNING)
    hub = Hub(store, fast_config())
    await hub.start()
    guest, pid, _ = await guest_at_a_table(hub)
    chips = store.balance(f"player:{pid}")
    hub.database_away(AWAY)
    await guest.close()
    assert await asyncio.wait_for(guest.hub_task, 2) is None
    await hub.stop()
    assert failures(caplog) == []
    said = " ".join(waits_for_the_database(caplog))
    assert pid in said and "1 guest(s) left while the database was away" in said
    assert store.balance(f"player:{pid}") == chips

    store.fence(None)  # (the database is back for the next start)
    again = Hub(store, fast_config())
    await again.start()
    try:
        assert store.balance(f"player:{pid}") == 0
        assert store.ledger_total() == 0 and store.audit() == []
    finally:
        await again.stop()


async def test_a_deal_whose_wait_for_reveals_ends_while_the_database_is_away_is_dealt_once_back(
    store, caplog
):
    """The table is full and started; its deal waits (briefly) for Bo's app to reveal. That
    wait ends while the database is away: nothing is dealt, the deal is as it was, in one
    line; once the database is back the game starts, without Bo's value."""
    caplog.set_level(logging.WARNING)
    hub = Hub(store, fast_config(entropy_wait=0.3))
    await hub.start()
    try:
        ada, bo = await connect(hub), await connect(hub)
        await ada.hello("Ada", identity="SHA256:ada")
        await bo.hello("Bo", identity="SHA256:bo")
        await ada.send("create_table", game="prophet", players=3)
        table = (await ada.expect("table"))["table"]
        await bo.send("join", table=table, seat=1)
        await ada.send("add_bot", table=table, seat=2)
        deal = (
            await ada.until(
                lambda m: (
                    m["t"] == "table" and all(s["bot"] or s["name"] for s in m["info"]["seats"])
                )
            )
        )["info"]["deal"]
        values = {ada: secrets.token_hex(32), bo: secrets.token_hex(32)}
        for client, value in values.items():
            digest = hashlib.sha256(value.encode()).hexdigest()
            await client.send("entropy", table=table, deal=deal["commitment"], commit=digest)
        await ada.until(lambda m: m["t"] == "table" and m["info"]["deal"]["phase"] == "reveal")
        await ada.send("entropy", table=table, deal=deal["commitment"], reveal=values[ada])
        await ada.until(lambda m: m["t"] == "table" and m["info"]["deal"]["revealed"] == [0])
        await ada.send("start", table=table)  # (Bo's app never reveals: the deal waits)
        at = hub.tables[table]
        await ada.until(lambda m: table in hub.entropy.waiting)
        hub.database_away(AWAY)
        before = (at.status, copy.deepcopy(at.deal), at.state, list(at.seats))
        await asyncio.sleep(0.5)  # (the wait is over: the deal is refused)
        assert (at.status, at.deal, at.state, at.seats) == before
        assert failures(caplog) == [] and waits_for_the_database(caplog)

        assert await hub.database_back()
        await ada.until(lambda m: m["t"] == "table" and m["view"] is not None, timeout=2)
        assert at.status == "playing" and at.deal is not None and at.deal["left_out"] == [1]
        assert store.live_tables()[0]["info"]["status"] == "playing"
        assert failures(caplog) == []
    finally:
        await hub.stop()


async def test_the_guest_sweep_while_the_database_is_away_says_so_in_one_line(store, caplog):
    """The guest retention's sweep (a timer) meets the database away: one line, no
    traceback; the guest is forgotten by a sweep once it is back."""
    caplog.set_level(logging.WARNING)
    hub = Hub(store, fast_config(guest_retention=0.0))
    await hub.start()
    try:
        guest = await connect(hub)
        await guest.hello("Gus")
        pid = next(iter(hub.players))
        await guest.close()
        await asyncio.wait_for(guest.hub_task, 2)
        assert store.get_player(pid) is not None
        hub.database_away(AWAY)
        hub._forget_gone_guests()
        assert failures(caplog) == [] and waits_for_the_database(caplog)
        assert store.get_player(pid) is not None

        assert await hub.database_back()
        hub._forget_gone_guests()
        assert store.get_player(pid) is None
    finally:
        await hub.stop()
