"""The hub's bus flush (one pass per tick over everything the hub sends) publishes exactly
what the plain form of it publishes: a session's consecutive frames joined, one message per
gateway for many sessions (split when bigger than a NATS message), a hang-up kept apart."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from server.bus import wire
from server.hub.bus import HubBus


class Sent:
    def __init__(self) -> None:
        self.out: list[tuple[str, bytes]] = []

    def send(self, subject: str, payload: bytes) -> None:
        self.out.append((subject, payload))


def plain_flush(sender: Sent, items: dict[str, list[tuple[int, bytes | None]]]) -> None:
    """The flush as it was first written (the reference)."""
    for gateway, pairs in items.items():
        merged: list[list[Any]] = []
        last: list[Any] | None = None
        for session, data in pairs:
            if last is not None and last[0] == session and last[1] is not None and data:
                last[1].append(data)
            else:
                last = [session, [data] if data is not None else None]
                merged.append(last)
        batch = [[s, b"".join(d) if d is not None else None] for s, d in merged]
        if len(batch) == 1 or all(s == batch[0][0] for s, _ in batch):
            subject = wire.session_subject(gateway, batch[0][0])
            for _, data in batch:
                for piece in wire.chunks(data or b""):
                    sender.send(subject, piece)
        else:
            for group in wire.packed_batches(batch):
                sender.send(wire.gateway_subject(gateway), wire.pack(group))


def test_the_flush_publishes_what_the_plain_flush_does():
    rng = random.Random(5)
    for _ in range(300):
        items: dict[str, list[tuple[int, bytes | None]]] = {}
        for gateway in ("g1", "g2")[: rng.randint(1, 2)]:
            sessions = rng.sample(range(1, 9), rng.randint(1, 3))
            pairs = []
            for _ in range(rng.randint(1, 12)):
                session = rng.choice(sessions)
                roll = rng.random()
                if roll < 0.1:
                    data = None  # a hang-up
                elif roll < 0.15:
                    data = b""
                elif roll < 0.2:
                    data = bytes(rng.randrange(256) for _ in range(8)) * (wire.MAX_MESSAGE // 24)
                else:
                    data = bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
                pairs.append((session, data))
            items[gateway] = pairs
        bus = HubBus(None, "nats://bench.invalid")
        bus._sender = Sent()  # type: ignore[assignment]  # a fake sender
        bus._flush({g: list(p) for g, p in items.items()})
        reference = Sent()
        plain_flush(reference, items)
        assert bus._sender.out == reference.out  # type: ignore[attr-defined]  # (the fake's)


class _Store:
    def __init__(self) -> None:
        self.reads = 0

    def bans(self) -> list[dict[str, Any]]:
        self.reads += 1
        return []


async def test_a_detached_hub_says_it_is_alive_no_more_and_reads_no_bans():
    """A stopping hub detaches from the bus and then closes its store while the heartbeat
    still runs: it must neither tell the gateways it is alive nor read the bans from a store
    that may be closed ("Cannot operate on a closed database" under load)."""
    import asyncio
    from types import SimpleNamespace

    store = _Store()
    bus = HubBus(SimpleNamespace(store=store), "nats://bench.invalid")  # type: ignore[arg-type]  # a stand-in
    bus._sender = Sent()  # type: ignore[assignment]  # a fake sender
    beat = asyncio.create_task(bus._heartbeat())
    await asyncio.sleep(0.05)
    beat.cancel()
    subjects = [subject for subject, _ in bus._sender.out]  # type: ignore[attr-defined]  # (the fake's)
    assert wire.HUB_ALIVE_SUBJECT in subjects and wire.BANS_SUBJECT in subjects
    assert store.reads == 1

    bus.detach()
    bus._sender = Sent()  # type: ignore[assignment]  # a fake sender
    beat = asyncio.create_task(bus._heartbeat())
    await asyncio.sleep(0.05)
    beat.cancel()
    assert bus._sender.out == [] and store.reads == 1  # type: ignore[attr-defined]  # (the fake's)


class _Nats:
    async def publish(self, subject: str, payload: bytes) -> None:
        pass


class _Msg:
    def __init__(self, data: bytes) -> None:
        self.data = data


async def test_a_sessions_frames_are_handled_in_the_bus_callback_in_order(hub):
    """Once a bus session said hello, its frames are handled as the bus hands them over (no
    task woken per frame); frames that come while earlier ones still wait in its queue wait
    behind them; a session told goodbye ends."""
    from protocol.codec import encode
    from protocol.messages import PROTOCOL_VERSION

    bus = HubBus(hub, "nats://test.invalid", "token")
    bus.nc = _Nats()
    bus._sender = wire.Sender(bus.nc.publish)
    sent: list[tuple[int, bytes | None]] = []
    bus._out.add = lambda gateway, item: sent.append(item)  # type: ignore[method-assign]  # a stand-in that counts or records

    async def deliver(*events: list[Any]) -> None:
        # (a coroutine that never waits: awaited, it runs through without a turn of the loop)
        await bus._on_message(_Msg(wire.pack(["gw", list(events)])))

    def pongs() -> list[int]:
        from protocol.codec import FrameDecoder

        decoder = FrameDecoder(1 << 20)
        frames = [m for _, data in sent if data for m in decoder.feed(data)]
        return [m["n"] for m in frames if m.get("t") == "pong"]

    info = wire.pack({"peer": "test", "token": "token"})
    hello = {"t": "hello", "v": PROTOCOL_VERSION, "identity": "SHA256:ada", "name": "Ada"}
    # The hello and a ping in one message: both wait for the session's task; another ping
    # comes before that task ran, so it waits behind them.
    await deliver(
        [wire.OPEN, 1, info], [wire.FRAMES, 1, encode(hello) + encode({"t": "ping", "n": 1})]
    )
    await deliver([wire.FRAMES, 1, encode({"t": "ping", "n": 2})])
    assert pongs() == []
    for _ in range(200):  # (the hello's writes are shown once on the disk: a thread's fsync)
        await asyncio.sleep(0.01)
        if pongs() == [1, 2]:
            break
    assert pongs() == [1, 2]
    conn = bus.conns[("gw", 1)]
    assert conn.on_message is not None
    # Now a frame is answered within the callback that hands it over, split or not.
    frame = encode({"t": "ping", "n": 3})
    await deliver([wire.FRAMES, 1, frame[:3]])
    await deliver([wire.FRAMES, 1, frame[3:] + encode({"t": "ping", "n": 4})])
    assert pongs() == [1, 2, 3, 4]
    # Bad frames until the hub says goodbye: the session ends.
    bad = b"\x00\x00\x00\x01\xc1"
    await deliver(*([wire.FRAMES, 1, bad] for _ in range(hub.config.max_bad_frames + 2)))
    for _ in range(200):
        await asyncio.sleep(0.01)
        if ("gw", 1) not in bus.conns:
            break
    assert ("gw", 1) not in bus.conns
    assert conn.on_message is None
    assert any(data is None for _, data in sent)  # hung up


class _Msg:
    def __init__(self, data: bytes) -> None:
        self.data = data


async def _burst(monkeypatch, slice_s: float, per_message: int = 1) -> tuple[int, int]:
    """Twenty frames in messages of ``per_message`` handed over one after another, as a NATS
    subscription does, each taking 4 ms to handle: how many were handled when a callback made
    ready by the first (as the hub's commit is) ran, and in all."""
    import time

    import server.hub.bus as hub_bus

    monkeypatch.setattr(hub_bus, "SLICE", slice_s)
    bus = HubBus(None, "nats://bench.invalid")
    handled: list[int] = []
    ran_after: list[int] = []

    def event(gateway: str, kind: int, session: int, data: Any) -> None:
        if not handled:
            asyncio.get_running_loop().call_soon(lambda: ran_after.append(len(handled)))
        time.sleep(0.004)
        handled.append(session)

    bus._event = event  # type: ignore[method-assign]  # a stand-in that counts or records
    for i in range(0, 20, per_message):
        frames = [[wire.FRAMES, i + j, b""] for j in range(per_message)]
        await bus._on_message(_Msg(wire.pack(["g1", frames])))
    await asyncio.sleep(0)
    return ran_after[0], len(handled)


@pytest.mark.parametrize("per_message", [1, 20])
async def test_a_burst_from_the_bus_is_handled_in_slices(monkeypatch, per_message):
    ran_after, handled = await _burst(monkeypatch, 0.01, per_message)
    assert handled == 20
    assert ran_after <= 5  # what the first frames made ready ran within the burst
    ran_after, handled = await _burst(monkeypatch, float("inf"), per_message)
    assert ran_after == 20  # (unsliced: only once the whole burst was handled)


async def test_a_slices_answers_are_published_before_the_next_slice(monkeypatch):
    """Each slice's answers go out (committed, the tick's output sent, handed to NATS) before
    the next slice is handled: else every move waited a slice more than it had to."""
    import server.hub.bus as hub_bus

    monkeypatch.setattr(hub_bus, "SLICE", 0.0)  # (a slice of two frames: see _on_message)
    bus = HubBus(None, "nats://bench.invalid")
    log: list[str] = []

    async def publish(subject: str, payload: bytes) -> None:
        log.append("published")

    bus._sender = wire.Sender(publish)

    def event(gateway: str, kind: int, session: int, data: Any) -> None:
        log.append("handled")
        bus.out(gateway, session, b"answer")  # as the hub answers a move

    bus._event = event  # type: ignore[method-assign]  # a stand-in that counts or records
    frames = [[wire.FRAMES, i, b""] for i in range(8)]
    await bus._on_message(_Msg(wire.pack(["g1", frames])))
    await asyncio.sleep(0)
    await bus._sender.flushed()
    assert log.count("handled") == 8
    assert log[:3] == ["handled", "handled", "published"]
    assert log.count("published") >= 4


async def test_after_nats_came_back_a_gateways_sessions_get_their_tables_whole(hub):
    """What the hub published while NATS was away may be lost, the view that made it a
    player's turn among them (the table then waits for a player who never saw it was theirs:
    found by bench/chaos.py). Once NATS is back and the gateway is heard again, its sessions
    get their tables again, whole (not as deltas of views they may never have had)."""
    from protocol.codec import FrameDecoder, encode
    from protocol.messages import PROTOCOL_VERSION

    bus = HubBus(hub, "nats://test.invalid", "token")
    bus.nc = _Nats()
    bus._sender = wire.Sender(bus.nc.publish)
    sent: list[tuple[int, bytes | None]] = []
    bus._out.add = lambda gateway, item: sent.append(item)  # type: ignore[method-assign]  # a stand-in that records
    decoder = FrameDecoder(1 << 20)

    def received() -> list[dict[str, Any]]:
        frames = [m for _, data in sent if data for m in decoder.feed(data)]
        sent.clear()
        return frames

    async def deliver(*events: list[Any]) -> None:
        await bus._on_message(_Msg(wire.pack(["gw", list(events)])))

    async def until(kind: str) -> list[dict[str, Any]]:
        got: list[dict[str, Any]] = []
        for _ in range(200):
            await asyncio.sleep(0.01)
            got += received()
            if any(m.get("t") == kind for m in got):
                return got
        raise AssertionError(f"no {kind}: {[m.get('t') for m in got]}")

    hello = {"t": "hello", "v": PROTOCOL_VERSION, "identity": "SHA256:ada", "name": "Ada"}
    await deliver([wire.OPEN, 1, wire.pack({"peer": "test", "token": "token"})])
    await deliver([wire.FRAMES, 1, encode(hello)])
    await until("welcome")
    create = {"t": "create_table", "game": "prophet", "players": 3, "timer": 0}
    await deliver([wire.FRAMES, 1, encode(create)])
    table_id = next(m for m in await until("table") if m.get("t") == "table")["table"]
    await asyncio.sleep(0.05)
    received()
    # NATS went away and came back: nothing moved at the table meanwhile.
    await bus._reconnected()
    await asyncio.sleep(0.05)
    assert not [m for m in received() if m.get("t") == "table"]  # (the gateway is not back yet)
    await deliver([wire.ALIVE, 0, wire.pack({"sessions": [1]})])
    tables = [m for m in await until("table") if m.get("t") == "table"]
    assert tables[0]["table"] == table_id
    assert "info" in tables[0] and "delta" not in tables[0]  # whole
    assert not bus.tables_owed
