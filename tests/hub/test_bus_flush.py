"""The hub's bus flush (one pass per tick over everything the hub sends) publishes exactly
what the plain form of it publishes: a session's consecutive frames joined, one message per
gateway for many sessions (split when bigger than a NATS message), a hang-up kept apart."""

from __future__ import annotations

import random
from typing import Any

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
        bus._sender = Sent()  # type: ignore[assignment]
        bus._flush({g: list(p) for g, p in items.items()})
        reference = Sent()
        plain_flush(reference, items)
        assert bus._sender.out == reference.out  # type: ignore[attr-defined]


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
    bus = HubBus(SimpleNamespace(store=store), "nats://bench.invalid")  # type: ignore[arg-type]
    bus._sender = Sent()  # type: ignore[assignment]
    beat = asyncio.create_task(bus._heartbeat())
    await asyncio.sleep(0.05)
    beat.cancel()
    subjects = [subject for subject, _ in bus._sender.out]  # type: ignore[attr-defined]
    assert wire.HUB_ALIVE_SUBJECT in subjects and wire.BANS_SUBJECT in subjects
    assert store.reads == 1

    bus.detach()
    bus._sender = Sent()  # type: ignore[assignment]
    beat = asyncio.create_task(bus._heartbeat())
    await asyncio.sleep(0.05)
    beat.cancel()
    assert bus._sender.out == [] and store.reads == 1  # type: ignore[attr-defined]
