"""The hub's ends of ``gambit`` channels, and terminals' sessions (the frames their apps draw),
write through the loop's pacer (server/write_pacer.py): a fan-out to every client holds the
event loop a few milliseconds a turn, not the sum of every channel's packet, and each
channel's messages of a turn go out as one write, in order."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from server.ssh.session import GameSession
from server.ssh.subsystem import HubChannel


class SlowChannel:
    """Stands in for an asyncssh channel whose every write (a packet encrypted and sent)
    costs a millisecond of the loop."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closing = False

    def is_closing(self) -> bool:
        return self.closing

    def get_write_buffer_size(self) -> int:
        return 0

    def write(self, data: bytes) -> None:
        time.sleep(0.001)
        self.writes.append(data)

    def close(self) -> None:
        self.closing = True


def channels(count: int) -> list[tuple[HubChannel, SlowChannel]]:
    made = []
    for i in range(count):
        conn = HubChannel(None, peer=f"test {i}")
        chan = SlowChannel()
        conn.attach(chan)  # type: ignore[arg-type]  # a stand-in for asyncssh's channel
        made.append((conn, chan))
    return made


async def loop_late_while(fan_out: Callable[[], None], chans: list[Any]) -> float:
    """How late the loop got (s, at worst) while ``fan_out`` ran in one callback and until
    every one of ``chans`` was written to."""
    loop = asyncio.get_running_loop()
    worst = 0.0
    stop = False

    async def probe() -> None:
        nonlocal worst
        while not stop:
            asked = loop.time()
            await asyncio.sleep(0.001)
            worst = max(worst, loop.time() - asked - 0.001)

    task = loop.create_task(probe())
    await asyncio.sleep(0.01)
    fan_out()
    for _ in range(200):
        await asyncio.sleep(0.005)
        if all(chan.writes for chan in chans):
            break
    stop = True
    await task
    return worst


async def test_a_fan_out_to_many_channels_does_not_hold_the_loop():
    made = channels(80)

    def fan_out() -> None:
        for conn, _ in made:  # one callback writes to every client (a lobby update, say)
            conn.write(b"update")

    worst = await loop_late_while(fan_out, [chan for _, chan in made])
    assert all(chan.writes == [b"update"] for _, chan in made)
    assert worst < 0.04  # (80 writes in one go: 80 ms and more)


async def test_a_channels_messages_of_a_turn_go_as_one_write_in_order_before_its_last_word():
    ((conn, chan),) = channels(1)
    conn.write(b"one")
    conn.write(b"two")
    await asyncio.sleep(0.01)
    assert chan.writes == [b"onetwo"]
    conn.write(b"three")
    conn.last_word({"t": "bye", "code": "server", "message": "bye"})
    assert chan.writes[1] == b"three" and len(chan.writes) == 3
    await asyncio.sleep(0.01)
    assert len(chan.writes) == 3  # (nothing after the last word)


class Host:
    """A stand-in :class:`~server.ssh.session_host.SessionHost` (only what these use)."""

    idle_timeout = 0.0

    def __init__(self) -> None:
        self.frame_observers: list[Any] = []


def terminals(count: int, host: Host | None = None) -> list[tuple[GameSession, SlowChannel]]:
    made = []
    for i in range(count):
        launcher: Any = None  # (never asked: no app is started here)
        session = GameSession(
            host or Host(), launcher, identity=None, username="play", address=f"192.0.2.{i}"
        )
        chan = SlowChannel()
        session.chan = chan  # type: ignore[assignment]  # a stand-in for asyncssh's channel
        made.append((session, chan))
    return made


async def test_a_workers_frames_for_many_terminals_do_not_hold_the_loop():
    """A worker's frames for its players arrive together (every app draws after a lobby
    update) and are handled in one callback (the link's read): each terminal's write is an
    SSH packet, so they go through the pacer as the ``gambit`` channels' do."""
    made = terminals(80)

    def fan_out() -> None:
        for session, _ in made:  # one callback: the link's read, every app's frame in it
            session.output(b"frame")

    worst = await loop_late_while(fan_out, [chan for _, chan in made])
    assert all(chan.writes == [b"frame"] for _, chan in made)
    assert worst < 0.04  # (80 writes in one go: 80 ms and more)


async def test_a_terminals_frames_of_a_turn_go_as_one_write_told_to_the_observers_then():
    host = Host()
    seen: list[int] = []
    host.frame_observers.append(lambda session, size: seen.append(size))
    ((session, chan),) = terminals(1, host)
    session.output(b"one")
    session.output(b"")  # (a frame already on the screen: told at once, nothing to write)
    session.output(b"two")
    assert chan.writes == [] and seen == [0]
    await asyncio.sleep(0.01)
    assert chan.writes == [b"onetwo"] and seen == [0, 6]
    session.output(b"three")
    session.flush_now()  # (as the session does before its goodbye)
    assert chan.writes == [b"onetwo", b"three"]
    await asyncio.sleep(0.01)
    assert len(chan.writes) == 2
