"""Guests who have gone leave no rows behind (issue 43): every keyless connection is a new
guest, and without a retention the database grew by a player row, a balance and four ledger
rows for each one, for ever. After ``--guest-retention`` a gone guest is forgotten: what stays
is the records of the games they played (their chips' part in those now the bank's, as a
bot's seat), and the ledger still balances.
"""

from __future__ import annotations

import asyncio

import pytest

from server.hub import Hub
from server.store import BANK, Store

from .conftest import fast_config
from .harness import Client, connect, play_to_end, table_with_bots

#: Tables that hold a row per player, per account or per chip transfer.
PER_PLAYER = ("players", "balances", "ledger", "ratings")


def rows(store: Store) -> dict[str, int]:
    return {t: store._conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in PER_PLAYER}


async def eventually(check, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, f"not true after {timeout} s"
        await asyncio.sleep(0.05)


@pytest.fixture
async def hub(store):
    h = Hub(store, fast_config(guest_retention=0.0))
    await h.start()
    yield h
    await h.stop()


async def guest(hub: Hub, name: str) -> tuple[Client, str]:
    """A guest and its id."""
    client = await connect(hub, trusted=False)
    welcome = await client.hello(name)
    assert welcome["you"]["guest"]
    return client, welcome["you"]["id"]


async def test_two_hundred_guests_come_and_go_and_leave_no_rows(hub, store):
    registered = await connect(hub)
    await registered.hello("Ada", identity="SHA256:ada")
    before = rows(store)
    for batch in range(10):
        clients = [(await guest(hub, f"Visitor{batch}x{n}"))[0] for n in range(20)]
        for client in clients:
            await client.close()
    await eventually(lambda: rows(store) == before)
    assert store.ledger_total() == 0 and store.audit() == []
    assert store.get_player("SHA256:ada") is not None, "registered players are kept"


async def test_a_guest_who_played_leaves_only_the_records_of_the_game(hub, store):
    visitor, pid = await guest(hub, "Visitor")
    table = await table_with_bots(visitor, "prophets_gambit", players=3, stake=10, timer=0)
    await visitor.send("start", table=table)
    await play_to_end({0: visitor}, table)
    await visitor.close()
    await eventually(lambda: store.get_player(pid) is None)
    games = store._conn.execute(
        "SELECT COUNT(*) FROM game_players WHERE player_id = ?", (pid,)
    ).fetchone()[0]
    assert games >= 1, "the game's record names the guest"
    account = f"player:{pid}"
    assert store.ledger(account) == [] and account not in store.balances("player:")
    assert store.ratings_of(pid) == {}
    # The antes and payouts of the game stay, the guest's side now the bank's.
    reasons = {r["reason"] for r in store.ledger(BANK, limit=1000)}
    assert "ante" in reasons
    assert "starting chips" not in reasons and "guest_left" not in reasons
    assert store.ledger_total() == 0 and store.audit() == []


async def test_an_online_guest_is_not_forgotten(hub, store):
    visitor, pid = await guest(hub, "Visitor")
    await asyncio.sleep(1.5)  # a sweep or more
    assert store.get_player(pid) is not None
    await visitor.close()
    await eventually(lambda: store.get_player(pid) is None)


async def test_within_the_retention_the_guest_is_kept(store):
    hub = Hub(store, fast_config())  # the default: a day
    await hub.start()
    try:
        visitor, pid = await guest(hub, "Visitor")
        await visitor.close()
        await asyncio.sleep(0.5)
        assert store.get_player(pid) is not None
        assert hub.guests.forget_gone_guests(86400.0) == (0, False)
        assert hub.guests.forget_gone_guests(0.0) == (1, False)
        assert store.get_player(pid) is None
    finally:
        await hub.stop()


async def test_a_backlog_of_gone_guests_is_forgotten_a_batch_at_a_time(store):
    """Each gone guest is a dozen statements on the hub's event loop, every player's: a
    backlog (a day's guests) is forgotten a batch of ten per turn, not all in one."""
    hub = Hub(store, fast_config())  # (a day's retention: nobody is forgotten meanwhile)
    await hub.start()
    try:
        ids = []
        for n in range(25):
            visitor, pid = await guest(hub, f"Visitor{n}")
            await visitor.close()
            ids.append(pid)
        await eventually(lambda: all(hub.guests.guest_is_gone(pid) for pid in ids))
        batches = [hub.guests.forget_gone_guests(0.0) for _ in range(4)]
        assert batches == [(10, True), (10, True), (5, False), (0, False)]  # (25 at once before)
        assert all(store.get_player(pid) is None for pid in ids)
    finally:
        await hub.stop()


def test_the_store_forgets_only_a_guest_with_no_chips():
    store = Store()
    store.ensure_player("guest:0001", starting_chips=100)
    assert store.forget_guest("guest:0001") is False
    assert store.get_player("guest:0001") is not None
    store.transfer("player:guest:0001", "pot:1", 10, "ante")
    store.transfer("pot:1", "player:guest:0001", 10, "payout")
    store.transfer("player:guest:0001", BANK, 100, "guest_left")
    assert store.forget_guest("guest:0001") is True
    assert store.get_player("guest:0001") is None
    kept = sorted((r["account"], r["reason"], r["amount"]) for r in store.ledger(limit=100))
    assert kept == [
        ("bank", "ante", -10),
        ("bank", "payout", 10),
        ("pot:1", "ante", 10),
        ("pot:1", "payout", -10),
    ]
    assert store.audit() == [] and store.balance(BANK) == 0
