"""Players' apps in app worker processes: real OpenSSH clients, the real Gambit app, a
worker that dies, and the link between the processes."""

from __future__ import annotations

import asyncio
import os
import signal
import time

from server.apphost import worker_link as wl
from server.apphost.launcher import AppResult
from server.apphost.move_pacing import MovePacer
from server.apphost.workers import PENDING_STEP, RemoteApp

from .conftest import needs_openssh
from .harness import SSHTerminal, ssh_command


def worker_sessions(server) -> list[int]:
    return server.sync(lambda: [len(w.sessions) for w in server.host.workers.workers])


@needs_openssh
def test_a_players_app_runs_on_a_worker_and_ends_with_their_session(standin_server):
    server = standin_server(app_workers=2)
    pids = server.sync(lambda: server.host.workers.pids)
    assert len(pids) == 2 and os.getpid() not in pids
    term = SSHTerminal(ssh_command(server.port, "Ada"), cols=80, rows=24)
    try:
        term.wait_for("Enter the lobby", timeout=30)  # the Gambit app, not the stand-in
        assert sorted(worker_sessions(server)) == [0, 1]
        assert server.sync(lambda: [p.name for p in server.hub.players.values()]) == ["Ada"]
        term.send("\r")
        term.wait_for("Lobby chat")
        term.resize(100, 30)
        # The lobby is drawn again at the new size: its panels reach the 100th column.
        term.wait_for(lambda t: any(len(line) == 100 for line in t.splitlines()))
        term.send("\x11")  # Ctrl+Q
        assert term.wait_exit() == 0
    finally:
        term.close()
    deadline = time.monotonic() + 10
    while sum(worker_sessions(server)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert worker_sessions(server) == [0, 0]
    assert server.sync(lambda: len(server.host.sessions)) == 0


@needs_openssh
def test_a_worker_that_dies_ends_its_sessions_with_a_word_and_is_replaced(standin_server):
    server = standin_server(app_workers=1)
    (pid,) = server.sync(lambda: server.host.workers.pids)
    term = SSHTerminal(ssh_command(server.port, "Ada"))
    try:
        term.wait_for("Enter the lobby", timeout=30)
        os.kill(pid, signal.SIGKILL)
        assert term.wait_exit() == 1
        assert "the server could not run your session" in term.output()
    finally:
        term.close()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        pids = server.sync(lambda: server.host.workers.pids)
        ready = server.sync(lambda: [w.ready.done() for w in server.host.workers.workers])
        if pids and pids != [pid] and all(ready):
            break
        time.sleep(0.2)
    assert pids and pid not in pids
    again = SSHTerminal(ssh_command(server.port, "Bo"))
    try:
        again.wait_for("Enter the lobby", timeout=30)
    finally:
        again.close()


# --- the link --------------------------------------------------------------------------------


class FakeTransport:
    def __init__(self) -> None:
        self.out = bytearray()
        self.closed = False

    def write(self, data: bytes) -> None:
        self.out += data

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


async def test_frames_arrive_whole_however_the_bytes_are_cut():
    sent = FakeTransport()
    sender = wl.Link(lambda *frame: None)
    sender.connection_made(sent)
    frames = [(7, wl.OUTPUT, b"\x1b[H" + bytes(range(256)) * 3), (1, wl.STOP, b""), (9, 6, b"x")]
    for frame in frames:
        sender.send(*frame)
    await asyncio.sleep(0)  # (written at the end of the turn)
    data = bytes(sent.out)
    for step in (1, 2, 5, 17, len(data)):
        got: list[tuple[int, int, bytes]] = []
        receiver = wl.Link(lambda s, k, p, got=got: got.append((s, k, p)))
        receiver.connection_made(FakeTransport())
        for start in range(0, len(data), step):
            receiver.data_received(data[start : start + step])
        assert got == frames, step


async def test_a_frame_too_large_closes_the_link():
    got: list[object] = []
    receiver = wl.Link(lambda *frame: got.append(frame))
    transport = FakeTransport()
    receiver.connection_made(transport)
    receiver.data_received(wl.HEADER.pack(wl.MAX_FRAME + 1, 1, wl.OUTPUT) + b"x")
    assert transport.closed and not got


async def test_hub_messages_cross_the_link_as_they_are():
    """Both ends of a LinkConnection, wired back to back: messages and the end arrive."""
    from protocol.codec import MAX_CLIENT_FRAME, MAX_SERVER_FRAME

    ends: dict[str, wl.LinkConnection] = {}

    def deliver(to: str):
        def handler(session: int, kind: int, payload: bytes) -> None:
            ends[to].received(payload if kind == wl.HUB else None)

        return handler

    class Wire(FakeTransport):
        def __init__(self, link: wl.Link) -> None:
            super().__init__()
            self.link = link

        def write(self, data: bytes) -> None:
            self.link.data_received(data)

    app_side = wl.Link(deliver("app"))
    hub_side = wl.Link(deliver("hub"))
    app_side.connection_made(Wire(hub_side))  # what the app's link sends reaches the hub's
    hub_side.connection_made(Wire(app_side))
    ends["app"] = wl.LinkConnection(app_side, 3, max_frame=MAX_SERVER_FRAME)
    ends["hub"] = wl.LinkConnection(hub_side, 3, max_frame=MAX_CLIENT_FRAME, trusted=True)
    await ends["app"].send({"t": "hello", "v": 1, "name": "Ada"})
    assert await ends["hub"].recv() == {"t": "hello", "v": 1, "name": "Ada"}
    ends["hub"].send_nowait({"t": "welcome"})
    assert await ends["app"].recv() == {"t": "welcome"}
    await ends["app"].close()
    try:
        await asyncio.wait_for(ends["hub"].recv(), 1)
    except Exception as err:
        assert type(err).__name__ == "ConnectionClosed"
    else:
        raise AssertionError("the hub's end did not see the app's end close")


async def test_a_slow_players_backlog_reaches_their_worker_and_so_does_the_catch_up():
    """The worker's driver decides to skip frames on what the SSH process tells it."""
    sent: list[tuple[int, int, bytes]] = []

    class Link:
        transport = FakeTransport()

        def send(self, session: int, kind: int, payload: bytes = b"") -> None:
            sent.append((session, kind, payload))

    class Pool:
        pacer = MovePacer(lambda app: False)  # (no moves here)

    class Worker:
        link = Link()
        pool = Pool()

    class Sink:
        pending = 0

        def output(self, data: bytes) -> None:
            pass

        def pending_output(self) -> int:
            return self.pending

    session = Sink()
    remote = RemoteApp(Worker(), 5, "ssh 127.0.0.1", session)  # type: ignore[arg-type]  # a stand-in worker

    def reports() -> list[int]:
        return [wl.unpack(p) for s, k, p in sent if k == wl.PENDING]

    remote.output_written()
    assert reports() == []  # keeping up: nothing to say
    session.pending = PENDING_STEP + 10
    remote.output_written()
    assert reports() == [PENDING_STEP + 10]
    session.pending = PENDING_STEP + 20
    remote.output_written()  # a small change is not worth a message
    assert reports() == [PENDING_STEP + 10]
    session.pending = 0
    await asyncio.sleep(0.12)  # no output meanwhile: the poll tells the worker it drained
    assert reports()[-1] == 0
    remote.ended(AppResult(failed=False))


async def test_a_worker_runs_the_same_app_class_as_in_process_drawing_into_its_link():
    """Issue 40: a worker's session is the in-process ``LocalApp`` with a sink that writes to
    the link (no copy of it): its frames go out as OUTPUT, the SSH process's PENDING reaches
    the app's driver, and STOP ends it with an EXITED that says how."""
    from dataclasses import asdict

    from protocol.term import TermInfo
    from server.apphost.app_worker import LinkSink, Worker
    from server.apphost.in_process import LocalApp

    worker = Worker()
    sent: list[tuple[int, int, bytes]] = []
    worker.link.send = lambda session, kind, payload=b"": sent.append((session, kind, payload))  # type: ignore[method-assign]  # a recording link
    spec = {"term": asdict(TermInfo(width=80, height=24)), "identity": None, "name": "Ada"}
    worker.on_frame(3, wl.OPEN, wl.pack(spec))
    app, _, sink = worker.sessions[3]
    assert type(app) is LocalApp and isinstance(sink, LinkSink) and app.sink is sink
    for _ in range(200):
        if any(k == wl.OUTPUT and p for s, k, p in sent):
            break
        await asyncio.sleep(0.05)
    assert all(s == 3 for s, _, _ in sent)
    assert any(k == wl.OUTPUT and p for _, k, p in sent)  # the app drew, into the link
    worker.on_frame(3, wl.PENDING, wl.pack(12345))
    assert app.pending_output() == 12345
    worker.on_frame(3, wl.STOP, b"")
    for _ in range(200):
        if 3 not in worker.sessions:
            break
        await asyncio.sleep(0.05)
    (exited,) = [wl.unpack(p) for _, k, p in sent if k == wl.EXITED]
    assert exited["failed"] is False
    worker.memory.close()
