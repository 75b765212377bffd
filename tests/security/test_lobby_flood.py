"""Holes 3 and 4 of issue 17, against a real ``gambit hub`` process with its default limits:
one player cannot make the lobby unreadable for everyone (3,000 ``create_table``), nor stall
the hub with ordinary messages (3,000 ``add_bot``/``remove_bot`` pairs). A bystander's lobby
stays small and their pings quick; the attacker is refused, then cut off.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time

import pytest

from protocol.codec import encode
from protocol.connection import ConnectionClosed, open_tcp
from protocol.messages import PROTOCOL_VERSION
from tests.hub.harness import Client
from tests.hub.hub_process import HubProcess

#: A lobby of 50 tables of 6 seats with long names, 50 players and the totals is ~35 KiB.
LOBBY_BOUND = 64 * 1024


@pytest.fixture
async def hub(tmp_path):
    process = HubProcess(tmp_path / "data", **{"bot-delay": 600})
    await process.start()
    yield process
    await process.close()


async def flood(client: Client, messages: list[dict]) -> None:
    """Write every message at once, as fast as the socket takes them."""
    data = b"".join(encode(m) for m in messages)
    client.conn.write(data)
    await asyncio.sleep(0)


async def pings(client: Client, stop: asyncio.Event, every: float = 0.1) -> list[float]:
    """Round trips (ms) of pings sent every ``every`` seconds until ``stop``."""
    times = []
    n = 0
    while not stop.is_set():
        n += 1
        started = time.perf_counter()
        await client.send("ping", n=n)
        await client.expect("pong", n=n, timeout=10)
        times.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(every)
    return times


def p99(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, int(len(values) * 0.99))]


async def test_3000_create_table_from_one_guest(hub):
    attacker = await hub.guest("Spam")
    await flood(
        attacker,
        [{"t": "create_table", "game": "prophets_gambit", "players": 5} for _ in range(3000)],
    )
    await attacker.until(lambda m: m["t"] == "bye", timeout=20)  # cut off
    # Its tables were few (three), and went with it: it was their only human.
    created = sum(1 for m in attacker.log if m["t"] == "table")
    refused = sum(1 for m in attacker.log if m["t"] == "error")
    assert created == 3 and refused > 40
    newcomer = Client(await open_tcp("127.0.0.1", hub.tcp_port))
    await newcomer.hello("Newcomer")
    lobby = await newcomer.expect("lobby")
    assert len(encode(lobby)) < LOBBY_BOUND
    assert lobby["tables_total"] <= 3


async def test_many_players_with_many_tables_still_give_a_small_lobby(hub):
    # Each from an address of their own: the listener lets one address hold ten connections.
    owners = [
        await hub.guest(f"Owner {i:02d} with a long name"[:24], source=f"127.0.2.{i + 1}")
        for i in range(25)
    ]
    for owner in owners:
        for _ in range(5):  # three are allowed each
            await owner.send("create_table", game="prophet", players=6)
    await asyncio.gather(
        *(o.until(lambda m, o=o: sum(1 for x in o.log if x["t"] == "table") == 3) for o in owners)
    )
    newcomer = await hub.guest("Newcomer")
    await newcomer.send("create_table", game="fortunes", players=4)
    mine = (await newcomer.until(lambda m: m["t"] == "table"))["table"]
    await asyncio.sleep(0.5)
    late = Client(await open_tcp("127.0.0.1", hub.tcp_port, "127.0.2.200"))
    await late.hello("Late")
    lobby = await late.expect("lobby")
    assert lobby["tables_total"] == 76 and len(lobby["tables"]) == 50
    assert lobby["online"] == 27 and lobby["players"][0]["name"] == "Late"
    assert len(encode(lobby)) < LOBBY_BOUND
    # The newcomer's own table is in their lobby, first, whatever the others opened.
    updates = [m for m in newcomer.log if m["t"] in ("lobby", "lobby_update")]
    shown: set[int] = set()
    for m in updates:
        shown.update(t["id"] for t in m["tables"])
        shown.difference_update(m.get("removed") or [])
    assert mine in shown and len(shown) <= 50


async def test_3000_add_and_remove_bot_pairs_do_not_stall_the_hub(hub):
    bystander = await hub.guest("Bystander")
    stop = asyncio.Event()
    quiet = asyncio.get_running_loop().create_task(pings(bystander, stop))
    await asyncio.sleep(1.0)
    stop.set()
    baseline = await quiet
    attacker = await hub.guest("Flood")
    await attacker.send("create_table", game="prophets_gambit", players=5)
    table = (await attacker.until(lambda m: m["t"] == "table"))["table"]
    stop = asyncio.Event()
    measured = asyncio.get_running_loop().create_task(pings(bystander, stop))
    messages = []
    for _ in range(3000):
        messages.append({"t": "add_bot", "table": table, "seat": 1})
        messages.append({"t": "remove_bot", "table": table, "seat": 1})
    await flood(attacker, messages)
    await attacker.until(lambda m: m["t"] == "bye", timeout=30)
    await asyncio.sleep(1.0)
    stop.set()
    during = await measured
    assert len(during) >= 5
    assert p99(during) < 50, (statistics.median(baseline), during)
    # The flood's table changes were refused past the budget: only a few dozen were made.
    accepted = sum(1 for m in attacker.log if m["t"] == "table") - 1
    assert accepted <= 15, accepted


async def test_a_client_cannot_come_back_as_a_new_guest_at_will(hub):
    """Every TCP connection is a new guest with a fresh budget; the listener lets an address
    hold ten and open new ones at one a second after a burst of thirty."""
    held = [await hub.guest(f"Held {n}", source="127.0.3.1") for n in range(10)]
    extra = Client(await open_tcp("127.0.0.1", hub.tcp_port, "127.0.3.1"))
    bye = await extra.expect("bye")
    assert bye["code"] == "refused" and "Too many connections" in bye["message"]
    for client in held:
        await client.close()
    answers = []
    for _ in range(40):  # hang up and come back, at once, again and again
        client = Client(await open_tcp("127.0.0.1", hub.tcp_port, "127.0.3.2"))
        with contextlib.suppress(ConnectionClosed):
            await client.send("hello", v=PROTOCOL_VERSION)
        try:
            first = await client.until(lambda m: m["t"] in ("welcome", "bye"))
            answers.append(first["t"])
        except AssertionError:  # closed without a word (past the first few refusals)
            answers.append("closed")
        await client.close()
    assert answers[:30] == ["welcome"] * 30
    refused = answers[30:]
    assert refused.count("welcome") <= 2, refused
    assert refused.count("bye") >= 1  # the first refusals say why
    # Others are not affected.
    other = await hub.guest("Other", source="127.0.3.3")
    assert other.welcome["you"]["guest"]  # type: ignore[attr-defined]  # noted on the test's client
