"""What travels on the bus, on which subjects, and how it is sent in order.

Gateways publish to one subject the hub listens on (:data:`HUB_SUBJECT`); each message is
``[gateway id, hub id, number, [[kind, session, data], …], reset]``: a tick's worth of
events, in order, for the hub instance named, numbered for the link's replay (replay.py; 0:
not numbered, a heartbeat or a request to send again; ``reset``: the numbers go on from this
one, forget the gap). ``[gateway id, events]`` alone is taken too, not numbered (stand-in
gateways of tests and benchmarks). ``data`` of
a :data:`FRAMES` event is the app's bytes exactly as it wrote them (the protocol's own
length-prefixed msgpack frames), so the hub decodes and checks them exactly as it checks an
in-process app's.

The hub answers each session on a subject of its own (:func:`session_subject`) with the
session's frames (empty: the hub hung up). When one tick has output for several sessions of a
gateway (a lobby update to everyone, say), the gateway gets one message instead
(:func:`gateway_subject`): ``[[session, data or None], …]``. Both subjects carry the
message's number on the link (0: not numbered), and :func:`sync_subject` the hub's heartbeat
for that gateway's link (``{"hub", "last", "got"}``, or ``"want"``: send again from there,
or ``"reset"``: the hub's numbers go on from there). A gateway reads all three through one
wildcard subscription, so they arrive in the order they were published.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar, overload

import msgpack

from protocol.codec import packb

log = logging.getLogger(__name__)

PREFIX = "gambit"
HUB_SUBJECT = f"{PREFIX}.hub"
#: The active hub says it is alive here, once a second: ``{"hub": its instance id}``.
HUB_ALIVE_SUBJECT = f"{PREFIX}.hubinfo"
#: And the bans in force, every few seconds (gateways refuse banned keys and addresses
#: themselves, as ``gambit serve`` does): ``[{"fingerprint", "address", "until", "reason"}]``.
BANS_SUBJECT = f"{PREFIX}.bans"
BANS_EVERY = 3

# Event kinds, gateway → hub.
OPEN = 1  # data: msgpack {"peer": address, "token": the gateway's shared token or ""}
FRAMES = 2  # data: the app's bytes
END = 3  # the session has ended at the gateway
ALIVE = 4  # session 0; data: msgpack {"sessions": [live ids], "last": sent, "got": received}
RESEND = 5  # session 0; data: msgpack {"from": the first number the gateway is missing}

#: The most one NATS message carries here (NATS refuses more than its max_payload, 1 MiB by
#: default): bigger output is split, which a byte stream allows anywhere.
MAX_MESSAGE = 256 * 1024

#: Seconds between heartbeats, and of silence after which the other side is given up.
HEARTBEAT = 1.0
SILENCE = 8.0


def session_subject(gateway: str, session: int, seq: int = 0) -> str:
    return f"{PREFIX}.gw.{gateway}.{seq}.s.{session}"


def gateway_subject(gateway: str, seq: int = 0) -> str:
    return f"{PREFIX}.gw.{gateway}.{seq}.all"


def sync_subject(gateway: str) -> str:
    return f"{PREFIX}.gw.{gateway}.sync"


def gateway_wildcard(gateway: str) -> str:
    return f"{PREFIX}.gw.{gateway}.>"


pack = packb


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


class ResponsiveClock:
    """Time that passes only while this process's event loop keeps up: a heartbeat that
    waits unread behind a burst of work must not make its sender look dead. ``tick`` is
    called every :data:`HEARTBEAT`; whatever a tick comes late by is not counted."""

    def __init__(self) -> None:
        self._lag = 0.0
        self._last = time.monotonic()

    def tick(self) -> None:
        now = time.monotonic()
        self._lag += max(0.0, now - self._last - HEARTBEAT - 0.25)
        self._last = now

    def now(self) -> float:
        return time.monotonic() - self._lag


_Bytes = TypeVar("_Bytes", bytes, bytearray)


@overload
def chunks(data: bytes, size: int = MAX_MESSAGE) -> list[bytes]: ...
@overload
def chunks(data: bytearray, size: int = MAX_MESSAGE) -> list[bytearray]: ...
def chunks(data: _Bytes, size: int = MAX_MESSAGE) -> list[_Bytes]:
    """``data`` in pieces of at most ``size`` bytes (at least one piece, never empty ones
    unless ``data`` is)."""
    if len(data) <= size:
        return [data]
    return [data[i : i + size] for i in range(0, len(data), size)]


def packed_batches(items: list[list[Any]], size: int = MAX_MESSAGE) -> list[list[list[Any]]]:
    """``items`` (``[…, bytes or None]`` each, the last field the payload) in consecutive
    groups whose payloads add up to at most about ``size``; a bigger payload is split over
    several items of its own first."""
    groups: list[list[list[Any]]] = [[]]
    total = 0
    for item in items:
        data = item[-1]
        pieces = chunks(data, size) if isinstance(data, bytes | bytearray) else [data]
        for piece in pieces:
            length = len(piece) if piece is not None else 0
            if groups[-1] and total + length > size:
                groups.append([])
                total = 0
            groups[-1].append([*item[:-1], piece])
            total += length + 16
    return groups


class Sender:
    """Publishes in the order given, from synchronous code: one task drains the queue, so a
    publish that waits (a full buffer) never lets a later one overtake it."""

    def __init__(self, publish: Callable[[str, bytes], Any]) -> None:
        self._publish = publish
        self._queue: deque[tuple[str, bytes]] = deque()
        self._task: asyncio.Task[None] | None = None
        self.dropped = 0

    def send(self, subject: str, payload: bytes) -> None:
        self._queue.append((subject, payload))
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self._queue:
                subject, payload = self._queue.popleft()
                try:
                    await self._publish(subject, payload)
                except Exception as err:  # closed, or the reconnect buffer is full
                    self.dropped += 1
                    log.warning("bus: could not publish on %s: %s", subject, err)
        finally:
            self._task = None

    async def flushed(self) -> None:
        """Wait until everything sent so far has been handed to the client."""
        while self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._task)


class Coalescer:
    """Collects a tick's output by key and calls ``flush(items)`` once, soon after: a burst
    (a lobby update to every session) becomes one publish instead of many."""

    def __init__(self, flush: Callable[[dict[Any, list[Any]]], None]) -> None:
        self._flush = flush
        self._items: dict[Any, list[Any]] = {}
        self._scheduled = False

    def add(self, key: Any, item: Any) -> None:
        items = self._items.get(key)  # (not setdefault: no new list per item)
        if items is None:
            items = self._items[key] = []
        items.append(item)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._run)

    def _run(self) -> None:
        self._scheduled = False
        items, self._items = self._items, {}
        if items:
            self._flush(items)


RECONNECT_WAIT = 0.5
ERROR_EVERY = 60.0


async def connect(url: str, name: str, **callbacks: Any) -> Any:
    """A NATS client that connects (and reconnects) by itself, for ever, every half second:
    a hub or gateway started before its NATS server waits for it.

    ``url`` may carry ``user:password@``; nats-py is imported here, so only bus commands
    need it.
    """
    import nats

    said: dict[str, float] = {}

    async def on_error(err: Exception) -> None:
        # While NATS is away this comes every half second: each kind once a minute is enough.
        text = str(err) or type(err).__name__
        now = time.monotonic()
        if now - said.get(text, -ERROR_EVERY) >= ERROR_EVERY:
            said[text] = now
            log.warning("bus: %s (retrying every %.1f s)", text, RECONNECT_WAIT)

    return await nats.connect(
        url,
        name=name,
        allow_reconnect=True,
        max_reconnect_attempts=-1,
        reconnect_time_wait=RECONNECT_WAIT,
        connect_timeout=2,
        ping_interval=5,
        max_outstanding_pings=2,
        error_cb=on_error,
        **callbacks,
    )
