"""The link to an app worker writes a turn's frames in one go (server/apphost/worker_link.py):
a fan-out to a worker's apps (a lobby update, a chat line) is one write to its socket, not a
system call and a wake-up of the worker per app while the SSH process's event loop waits;
the frames keep their order, and closing the link writes what waits first."""

from __future__ import annotations

import asyncio

from protocol.codec import MAX_CLIENT_FRAME, encode
from server.apphost import worker_link as wl


class Socket:
    """Stands in for the link's transport: counts the writes."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


def frames_in(data: bytes) -> list[tuple[int, int, bytes]]:
    got: list[tuple[int, int, bytes]] = []
    reader = wl.Link(lambda session, kind, payload: got.append((session, kind, payload)))
    reader.connection_made(Socket())  # type: ignore[arg-type]  # a stand-in transport
    reader.data_received(data)
    return got


async def test_a_fan_out_to_a_workers_apps_is_one_write_to_its_socket_in_order():
    socket = Socket()
    link = wl.Link(lambda *frame: None)
    link.connection_made(socket)  # type: ignore[arg-type]  # a stand-in transport
    ends = [
        wl.LinkConnection(link, session, max_frame=MAX_CLIENT_FRAME, trusted=True)
        for session in range(1, 31)
    ]
    for n, end in enumerate(ends, 1):  # one callback of the hub's: a lobby update to 30 apps
        end.send_nowait({"t": "lobby", "n": n})
    link.send(2, wl.INPUT, b"x")
    assert socket.writes == []  # (nothing yet: the turn goes on)
    await asyncio.sleep(0)
    assert len(socket.writes) == 1  # (31 before: one per frame)
    expected = [(n, wl.HUB, encode({"t": "lobby", "n": n})) for n in range(1, 31)]
    assert frames_in(socket.writes[0]) == [*expected, (2, wl.INPUT, b"x")]
    link.send(3, wl.RESIZE, wl.pack([100, 30]))
    await asyncio.sleep(0)
    assert len(socket.writes) == 2  # (the next turn's frames: the next write)


async def test_closing_the_link_writes_what_waits_first():
    socket = Socket()
    link = wl.Link(lambda *frame: None)
    link.connection_made(socket)  # type: ignore[arg-type]  # a stand-in transport
    link.send(4, wl.HUB, b"last")
    link.send(0, wl.STOP)
    link.close()
    assert socket.closed
    assert frames_in(b"".join(socket.writes)) == [(4, wl.HUB, b"last"), (0, wl.STOP, b"")]
    link.send(5, wl.HUB, b"after")  # (nothing goes on a closed link)
    await asyncio.sleep(0)
    assert frames_in(b"".join(socket.writes)) == [(4, wl.HUB, b"last"), (0, wl.STOP, b"")]
