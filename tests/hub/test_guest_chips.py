"""A guest's chips go home however their last seat ends (issue 25), against a real hub process
with its own SQLite file, guests over TCP and registered players over the trusted socket.

Each test drives one path that can end a guest's last seat and then reads the store: the
guest's account is empty, its chips left in one ``guest_left`` transfer, and the ledger still
sums to zero. Registered players' chips are never touched by any of it.
"""

from __future__ import annotations

import asyncio
import re
import signal
from typing import Any

import pytest

from .harness import Client
from .hub_process import HubProcess

STAKE = 10


@pytest.fixture
async def hub(tmp_path):
    process = HubProcess(tmp_path / "data")
    yield process
    await process.close()


async def eventually(check, timeout: float = 20.0, step: float = 0.05) -> None:
    """Wait (bounded) until ``check()`` is true; the hub works on in its own process."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"not true after {timeout} s: {check.__doc__ or check}")
        await asyncio.sleep(step)


async def table_with_bots(
    owner: Client, players: int = 3, stake: int = STAKE, bots: int | None = None
) -> int:
    """``owner`` creates a Prophet's Gambit table with a stake and fills seats with bots."""
    await owner.send("create_table", game="prophets_gambit", players=players, stake=stake, timer=0)
    msg = await owner.until(lambda m: m["t"] == "table" and m["seat"] == 0)
    table = msg["table"]
    for seat in range(players - (bots if bots is not None else players - 1), players):
        await owner.send("add_bot", table=table, seat=seat, kind="heuristic")
    return table


async def start(owner: Client, table: int) -> dict[str, Any]:
    await owner.until(
        lambda m: (
            m["t"] == "table"
            and m["table"] == table
            and all(s["bot"] or s["name"] for s in m["info"]["seats"])
        )
    )
    await owner.send("start", table=table)
    return await owner.until(
        lambda m: m["t"] == "table" and m["table"] == table and m["view"] is not None
    )


def autoplay(client: Client, table: int) -> asyncio.Task:
    """The client answers every ask at ``table`` with its first legal action, until cancelled."""

    async def run() -> None:
        answered = None
        while True:
            msg = client.tables.get(table)
            view = msg and msg["view"]
            if view and view["legal"] and msg is not answered:
                answered = msg
                await client.send("act", table=table, action=view["legal"][0])
            await asyncio.sleep(0.01)

    return asyncio.get_running_loop().create_task(run())


def games_at(hub: HubProcess, table: int) -> int:
    return hub.read("SELECT COUNT(*) FROM games WHERE table_id = ?", table)[0][0]


def guest_id(client: Client) -> str:
    return client.welcome["you"]["id"]  # type: ignore[attr-defined]  # noted on the test's client


def assert_home(hub: HubProcess, pid: str) -> int:
    """The guest holds nothing, their chips left in exactly one transfer; returns it."""
    assert hub.balance(f"player:{pid}") == 0
    rows = hub.guest_left_rows(pid)
    assert len(rows) == 1 and rows[0] < 0, rows
    before = hub.read(
        "SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE account = ? AND reason != 'guest_left'",
        f"player:{pid}",
    )[0][0]
    assert -rows[0] == before, "everything the guest had, antes and payouts included"
    assert hub.ledger_total() == 0
    return -rows[0]


async def test_the_reproduction_a_guest_drops_mid_game_and_the_table_closes(hub):
    """The issue's reproduction: a guest starts a staked game with two bots and drops. Their
    grace period runs out, the stand-in finishes the game (its pot is paid to the guest, the
    game's own rule), the table closes, and the guest's whole balance is back in the bank."""
    await hub.start()
    watcher = await hub.guest("Watcher")
    guest = await hub.guest("Visitor")
    pid = guest_id(guest)
    table = await table_with_bots(guest)
    await start(guest, table)
    assert hub.balance(f"player:{pid}") == 1000 - STAKE
    await guest.close()
    await watcher.until(lambda m: m["t"] == "lobby_update" and table in m["removed"], 60)
    await eventually(lambda: hub.guest_left_rows(pid))
    moved = assert_home(hub, pid)
    # The game was played out and its pot paid (by its own rules) before the chips went home:
    # what left is all the guest had, antes and payouts included.
    rows = hub.read(
        "SELECT reason, amount FROM ledger WHERE account = ? AND reason != 'guest_left'",
        f"player:{pid}",
    )
    assert {reason for reason, _ in rows} >= {"starting chips", "ante"}, rows
    assert moved == sum(amount for _, amount in rows)
    assert games_at(hub, table) >= 1


async def test_a_stand_in_keeps_the_seat_for_good_while_others_play_on(hub):
    """A registered player plays on at the table; the guest's seat passes to its stand-in for
    good when the game whose pot holds the guest's ante is over, and the chips go home then,
    while the table goes on to its next deal."""
    await hub.start()
    ada = await hub.registered("SHA256:ada", "Ada")
    guest = await hub.guest("Visitor")
    pid = guest_id(guest)
    table = await table_with_bots(ada, players=3, bots=1)
    await guest.send("join", table=table)
    await start(ada, table)
    playing = autoplay(ada, table)
    try:
        await guest.close()
        await eventually(lambda: hub.guest_left_rows(pid), 60)
        moved = assert_home(hub, pid)
        assert games_at(hub, table) >= 1 and hub.live_tables() == 1
        await eventually(lambda: games_at(hub, table) >= 2, 60)  # the table plays on
    finally:
        playing.cancel()
    assert hub.guest_left_rows(pid) == [-moved]
    # Ada's own chips are hers: only her antes and what the games paid her moved them.
    reasons = {
        r for (r,) in hub.read("SELECT reason FROM ledger WHERE account = 'player:SHA256:ada'")
    }
    assert reasons <= {"starting chips", "ante", "payout", "refund"}, reasons


async def test_grace_running_out_between_games_closes_the_table(hub):
    """The guest drops just after a game ended, while the next deal waits: the grace period
    runs out with no pot at stake, the stand-in takes the seat for good, the table (with no
    human left) closes, and the chips go home."""
    hub.options["between-games"] = 30
    await hub.start()
    guest = await hub.guest("Visitor")
    pid = guest_id(guest)
    table = await table_with_bots(guest)
    await start(guest, table)
    playing = autoplay(guest, table)
    try:
        await eventually(lambda: games_at(hub, table) >= 1, 60)
    finally:
        playing.cancel()
    assert hub.balance(f"player:{pid}") > 0, "the guest is still online: their chips stay"
    await guest.close()
    await eventually(lambda: hub.guest_left_rows(pid), 10)
    assert_home(hub, pid)
    await eventually(lambda: hub.live_tables() == 0, 10)


async def test_a_guest_who_leaves_from_the_table_screen_then_quits(hub):
    """Leaving a running game (the app's table screen sends ``leave``) keeps the seat reserved
    while the guest is online; once they quit and that game is over, the chips go home."""
    await hub.start()
    guest = await hub.guest("Visitor")
    pid = guest_id(guest)
    table = await table_with_bots(guest)
    await start(guest, table)
    await guest.send("leave", table=table)
    await guest.expect("left", table=table)
    assert hub.balance(f"player:{pid}") == 1000 - STAKE
    await guest.close()
    await eventually(lambda: hub.guest_left_rows(pid), 60)
    assert_home(hub, pid)


async def test_a_guest_at_a_table_that_has_not_started(hub):
    """A guest who drops from a waiting table frees the seat at once; the table, with no human
    left, is abandoned, and the chips go home."""
    await hub.start()
    guest = await hub.guest("Visitor")
    pid = guest_id(guest)
    await table_with_bots(guest)
    await guest.close()
    await eventually(lambda: hub.guest_left_rows(pid), 10)
    assert_home(hub, pid)
    assert hub.live_tables() == 0


@pytest.mark.parametrize("seated", [True, False], ids=["seated", "in-the-lobby"])
async def test_sigterm_sends_every_guests_chips_home(hub, seated):
    """A clean stop ends every guest for good: mid-game seats pass to stand-ins whose pot goes
    to the bank, and every guest balance goes home; a registered player's chips stay."""
    hub.options["bot-delay"] = 600  # the game stands still while the hub stops
    await hub.start()
    ada = await hub.registered("SHA256:ada", "Ada")
    guest = await hub.guest("Visitor")
    pid = guest_id(guest)
    if seated:
        table = await table_with_bots(guest)
        await start(guest, table)
    ada_before = hub.balance("player:SHA256:ada")
    assert await hub.stop(signal.SIGTERM) == 0
    assert hub.guest_chips() == 0
    moved = assert_home(hub, pid)
    assert moved == 1000 - (STAKE if seated else 0)
    assert hub.balance("player:SHA256:ada") == ada_before
    del ada
    # A restart finds nothing more to send home; a seated guest's game goes on with its
    # stand-in, paying the bank.
    hub.options["bot-delay"] = 0.01
    await hub.start()
    assert re.search(r"0 chip\(s\) of 0 guest\(s\) went back", hub.log.read_text())
    if seated:
        await eventually(lambda: games_at(hub, table) >= 1, 60)
    assert hub.guest_chips() == 0 and hub.ledger_total() == 0


async def test_a_restart_after_sigkill_sends_guests_chips_home_and_says_so(hub):
    hub.options["bot-delay"] = 600
    await hub.start()
    lobby_guest = await hub.guest("Idle")
    seated = await hub.guest("Visitor")
    table = await table_with_bots(seated)
    await start(seated, table)
    ids = [guest_id(lobby_guest), guest_id(seated)]
    assert await hub.stop(signal.SIGKILL) == -signal.SIGKILL
    assert hub.balance(f"player:{ids[0]}") == 1000
    assert hub.balance(f"player:{ids[1]}") == 1000 - STAKE
    hub.options["bot-delay"] = 0.01
    await hub.start()
    log = hub.log.read_text()
    assert f"{2000 - STAKE} chip(s) of 2 guest(s) went back to the bank" in log, log
    for pid in ids:
        assert_home(hub, pid)
    # The stand-in plays the guest's game to its end; its pot goes to the bank, not the
    # guest's empty account.
    await eventually(lambda: games_at(hub, table) >= 1, 60)
    assert hub.guest_chips() == 0 and hub.ledger_total() == 0


async def test_registered_players_keep_their_chips_across_drops_and_restarts(hub):
    hub.options["bot-delay"] = 600
    await hub.start()
    ada = await hub.registered("SHA256:ada", "Ada")
    table = await table_with_bots(ada)
    await start(ada, table)
    await ada.close()
    await asyncio.sleep(1.0)  # past the grace period
    assert await hub.stop(signal.SIGTERM) == 0
    assert hub.balance("player:SHA256:ada") == 1000 - STAKE
    assert hub.read("SELECT COUNT(*) FROM ledger WHERE reason = 'guest_left'")[0][0] == 0
    await hub.start()
    ada = await hub.registered("SHA256:ada", "Ada")
    assert ada.welcome["you"]["chips"] == 1000 - STAKE  # type: ignore[attr-defined]  # noted on the test's client
