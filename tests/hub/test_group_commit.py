"""Group commit (issue 17, hole 4): a burst of messages costs the hub's event loop one commit,
and nothing is shown before what it shows is committed."""

from __future__ import annotations

import asyncio
import math
import sqlite3
import threading
import time
from typing import Any

import msgpack
import pytest

from protocol.codec import encode
from protocol.event_log import expand
from server.hub import Hub
from server.hub.hooks import HubHooks
from server.hub.hub import TURN_MESSAGES
from server.store import Store, StoreError
from server.store.store import DB_NAME

from .conftest import fast_config
from .harness import connect


@pytest.fixture
async def file_hub(tmp_path):
    store = Store.open(tmp_path)
    hub = Hub(store, fast_config())
    await hub.start()
    yield hub, tmp_path / DB_NAME
    await hub.stop()
    store.close()


async def test_a_burst_of_writes_costs_one_commit(file_hub):
    hub, _ = file_hub
    ada = await connect(hub)
    await ada.hello("Ada")
    await ada.send("create_table", game="prophets_gambit", players=5)
    table = (await ada.expect("table"))["table"]
    await asyncio.sleep(0.05)
    before = hub.store.commits
    burst = []
    for _ in range(50):
        burst += [
            {"t": "add_bot", "table": table, "seat": 1},
            {"t": "remove_bot", "table": table, "seat": 1},
        ]
    ada.conn.write(b"".join(encode(m) for m in burst))  # one write: one burst
    await ada.until(
        lambda m: m["t"] == "table" and sum(1 for x in ada.log if x["t"] == "table") == 101
    )
    await asyncio.sleep(0.05)
    # 100 table saves: one commit per turn of the event loop, in which a connection has at
    # most TURN_MESSAGES messages handled (then others get their turn).
    assert hub.store.commits - before <= math.ceil(100 / TURN_MESSAGES) + 1


async def test_nothing_is_shown_before_it_is_committed(file_hub):
    """While writes are held (not yet committed), no byte goes to any client: every message
    leaves after the commit of what it shows. Checked where the hub writes to connections, and
    against the file through a second connection, which sees only committed data."""
    hub, db = file_hub
    reader = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    written_while_held = []
    seen = []
    last: dict[int, dict] = {}  # each table's last message, made whole (deltas, protocol 2)
    ada = await connect(hub)
    while not hub.sessions:  # its serve task starts
        await asyncio.sleep(0)
    session = next(iter(hub.sessions))
    write = session.conn.write

    def checked_write(data: bytes) -> None:
        # (A batch committed and on the disk goes out even while the next batch is held.)
        if hub.store.holding and not hub.outbox.releasing:
            written_while_held.append(data)
        message = msgpack.unpackb(data[4:], raw=False) if len(data) > 4 else {}
        if message.get("t") == "table":
            message = last[message["table"]] = expand(last.get(message["table"]), message)
            row = reader.execute(
                "SELECT info FROM live_tables WHERE id = ?", (message["table"],)
            ).fetchone()
            shown = [s["bot"] for s in message["info"]["seats"]]
            stored = [s["bot"] for s in msgpack.unpackb(row[0], raw=False)["seats"]] if row else []
            seen.append((shown, stored or [None] * len(shown)))
        write(data)

    session.conn.write = checked_write
    await ada.hello("Ada")
    await ada.send("create_table", game="prophets_gambit", players=5)
    table = (await ada.expect("table"))["table"]
    burst = [{"t": "add_bot", "table": table, "seat": s} for s in range(1, 5)]
    ada.conn.write(b"".join(encode(m) for m in burst))
    await ada.until(lambda m: m["t"] == "table" and all(s["bot"] for s in m["info"]["seats"][1:]))
    assert written_while_held == []
    # Every bot shown in a seat was in the file when it was shown (the file may be ahead).
    assert seen and all(
        stored_bot or not shown_bot
        for shown, stored in seen
        for shown_bot, stored_bot in zip(shown, stored, strict=True)
    ), seen
    reader.close()


class SlowDisk:
    """Stands in for ``Store.sync`` (the WAL's fsync): a disk that takes ``seconds``, or
    until ``release`` is set, noting the thread it ran on."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds
        self.release = threading.Event()
        self.threads: list[int] = []

    def __call__(self) -> None:
        self.threads.append(threading.get_ident())
        if self.seconds:
            time.sleep(self.seconds)
        else:
            self.release.wait(5)


async def loop_lateness(stop: asyncio.Event, every: float = 0.005) -> float:
    """How late the event loop ran a short timer, at most, until ``stop``."""
    loop = asyncio.get_running_loop()
    worst = 0.0
    while not stop.is_set():
        asked = loop.time()
        await asyncio.sleep(every)
        worst = max(worst, loop.time() - asked - every)
    return worst


async def test_a_commit_waits_for_the_disk_off_the_event_loop(file_hub, monkeypatch):
    """The WAL's fsync (200 ms here, as a busy disk's worst) runs on a thread: the loop keeps
    time meanwhile, and the table is shown once its commit is on the disk."""
    hub, _ = file_hub
    assert hub.store.pragma("synchronous") == 1  # NORMAL: COMMIT itself does not fsync
    disk = SlowDisk(0.2)
    monkeypatch.setattr(hub.store, "sync", disk)
    ada = await connect(hub)
    await ada.hello("Ada")
    stop = asyncio.Event()
    probe = asyncio.get_running_loop().create_task(loop_lateness(stop))
    await asyncio.sleep(0.02)
    began = time.perf_counter()
    await ada.send("create_table", game="prophets_gambit", players=5)
    await ada.expect("table")
    shown_after = time.perf_counter() - began
    stop.set()
    assert await probe < 0.1
    assert disk.threads and threading.get_ident() not in disk.threads
    assert shown_after >= 0.2  # (it waited for the disk)


async def test_nothing_is_shown_before_it_is_on_the_disk_and_order_is_kept(file_hub, monkeypatch):
    """Batches committed while the disk is busy wait for it, all of them, and go out in
    order, with what was sent after them."""
    hub, _ = file_hub
    ada = await connect(hub)
    await ada.hello("Ada")
    disk = SlowDisk()
    monkeypatch.setattr(hub.store, "sync", disk)
    await ada.send("create_table", game="prophets_gambit", players=5)
    for _ in range(50):
        await asyncio.sleep(0.01)
        if disk.threads:
            break
    assert disk.threads  # its commit waits for the disk
    await ada.send("chat", channel="lobby", text="first")
    await ada.send("create_table", game="prophet", players=3)
    await asyncio.sleep(0.2)
    assert not [m for m in ada.log if m["t"] == "table"]  # nothing shown yet
    assert not hub.outbox.on_disk
    disk.release.set()
    second = await ada.until(lambda m: m["t"] == "table" and m["info"]["game"] == "prophet")
    games = [m["info"]["game"] for m in ada.log if m["t"] == "table"]
    assert games.index("prophets_gambit") < games.index("prophet")
    chat = next(i for i, m in enumerate(ada.log) if m["t"] == "chat")
    first = next(i for i, m in enumerate(ada.log) if m["t"] == "table")
    assert first < chat < ada.log.index(second)  # in the order they were sent
    assert len(disk.threads) >= 2  # (the second batch's own fsync, after the first)


def test_held_writes_commit_once_and_a_failing_call_undoes_only_itself(tmp_path):
    store = Store.open(tmp_path)
    opened = []
    store.hold_commits(lambda: opened.append(True))
    store.ensure_player("a", starting_chips=10)
    store.ensure_player("b", starting_chips=10)
    assert opened == [True] and store.holding
    with pytest.raises(StoreError):
        store.transfer("player:a", "player:b", 50, "too much")  # a failing call ...
    assert store.balance("player:a") == 10  # ... undoes itself only
    other = Store.open(tmp_path)
    assert other.balance("player:a") == 0  # not committed yet: another connection sees none
    before = store.commits
    store.commit_held()
    assert store.commits == before + 1 and not store.holding
    assert other.balance("player:a") == 10 and other.balance("player:b") == 10
    store.transfer("player:a", "player:b", 5, "later")
    store.close()  # commits what is held
    assert other.balance("player:b") == 15
    other.close()


async def test_one_clients_burst_does_not_keep_the_others_waiting(file_hub):
    """A connection's buffered messages are handled TURN_MESSAGES at a time: another client's
    ping is answered while a burst of 2,000 is still being worked through."""
    hub, _ = file_hub
    ada, bea = await connect(hub), await connect(hub)
    await ada.hello("Ada")
    await bea.hello("Bea")
    await ada.send("create_table", game="prophets_gambit", players=5)
    table = (await ada.expect("table"))["table"]
    burst = []
    for _ in range(1000):
        burst += [
            {"t": "add_bot", "table": table, "seat": 1},
            {"t": "remove_bot", "table": table, "seat": 1},
        ]
    ada.conn.write(b"".join(encode(m) for m in burst))
    await asyncio.sleep(0)
    await bea.send("ping", n=7)
    await bea.expect("pong", n=7, timeout=10)
    answered = sum(1 for m in ada.log if m["t"] == "table")
    assert answered < 1000, answered  # Bea was answered early in Ada's burst
    await ada.until(
        lambda m: m["t"] == "table" and sum(1 for x in ada.log if x["t"] == "table") == 2001,
        timeout=60,
    )


class RefusingActions:
    """A SQLite connection whose inserts of actions fail as a failing disk's would."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.startswith("INSERT INTO live_actions"):
            raise sqlite3.OperationalError("disk I/O error")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


async def test_an_action_that_cannot_be_stored_is_shown_to_nobody(tmp_path):
    """A turn's actions are inserted as its batch commits (one statement for them all): one
    the database refuses then loses the batch, so the hub shows nothing of it (the player's
    move is never seen, as if never made) and stops, its memory ahead of the database."""
    store = Store.open(tmp_path)
    stopped: list[bool] = []
    hub = Hub(store, fast_config(), HubHooks(on_fatal=lambda: stopped.append(True)))
    await hub.start()
    try:
        ada = await connect(hub)
        await ada.hello("Ada")
        await ada.send("create_table", game="prophets_gambit", players=3)
        table = (await ada.expect("table"))["table"]
        for seat in (1, 2):
            await ada.send("add_bot", table=table, seat=seat)
        await ada.until(
            lambda m: m["t"] == "table" and all(s["bot"] for s in m["info"]["seats"][1:])
        )
        await ada.send("start", table=table)
        asked = await ada.until(  # (the bots have bid: only Ada is waited for)
            lambda m: m["t"] == "table" and bool(m.get("view") and m["view"]["waiting"] == [0])
        )
        await asyncio.sleep(0.05)  # (nothing else on its way)
        stored = len(store.live_tables()[0]["actions"])
        seen = len(ada.log)
        store._conn = RefusingActions(store._conn)  # type: ignore[assignment]  # (the fault)
        await ada.send("act", table=table, action=asked["view"]["legal"][0])
        for _ in range(100):
            if stopped:
                break
            await asyncio.sleep(0.01)
        assert stopped  # (the server stops here; this hub goes on, each batch refused alike)
        await asyncio.sleep(0.05)
        assert [m for m in ada.log[seen:] if m["t"] == "table"] == []  # nothing shown
    finally:
        await hub.stop()
        store.close()
    again = Store.open(tmp_path)
    assert len(again.live_tables()[0]["actions"]) == stored  # and nothing of it stored
    again.close()
