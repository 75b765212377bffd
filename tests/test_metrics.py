"""Metrics and health over HTTP (issue 21), from a running ``gambit serve`` with a real SSH
player at a table."""

from __future__ import annotations

import asyncio
import random
import re
import time
from types import SimpleNamespace
from typing import Any

import pytest

from server.ssh.live_sessions import LiveSessions
from tests.security.clients import LOBBY, WELCOME, connect, shows
from tests.security.procs import serve


async def get(port: int, path: str) -> tuple[int, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.0\r\n\r\n".encode())
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = data.decode().partition("\r\n\r\n")
    return int(head.split()[1]), body


def value(text: str, name: str) -> float:
    """A sample's value (the first line of that name and labels)."""
    match = re.search(rf"^{re.escape(name)} ([0-9.e+-]+)$", text, re.MULTILINE)
    assert match, f"no {name} in the metrics"
    return float(match.group(1))


@pytest.fixture
def server(tmp_path):
    proc, port = serve(
        tmp_path / "data",
        "--metrics",
        "127.0.0.1:0",
        "--bot-delay",
        "0.05",
        "--max-per-address",
        "1",
    )
    metrics_port = int(re.search(r"Metrics: http://127.0.0.1:(\d+)/metrics", proc.out).group(1))
    yield port, metrics_port
    proc.stop()


async def test_metrics_count_what_happens_and_health_answers(server):
    port, metrics_port = server
    status, body = await get(metrics_port, "/healthz")
    assert (status, body) == (200, "ok\n")
    conn, chan, screen = await connect(port, "Ada")
    try:
        assert await shows(screen, WELCOME)
        chan.write(b"\r")
        assert await shows(screen, LOBBY)
        with pytest.raises(Exception, match="Too many connections"):
            await connect(port, "Bo")  # one connection per address here: refused
        chan.write(b"n")
        assert await shows(screen, "New table")
        await asyncio.sleep(0.3)  # the form settles before it takes keys
        chan.write(b"\x13")  # Ctrl+S: a Prophet's Gambit table
        assert await shows(screen, "Table 1 ·")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            _, text = await get(metrics_port, "/metrics")
            if not re.search(r'gambit_tables\{[^}]*status="(playing|between)"\} 1', text):
                # bots in every free seat (the form offers up to five), then start; again
                # if a key came before the screen could take it
                chan.write(b"bbbbs")
            elif value(text, "gambit_action_to_screens_seconds_count") >= 3:
                break
            else:
                chan.write(b"\r")  # the player plays what is offered
            await asyncio.sleep(0.3)
        assert value(text, "gambit_sessions") == 1
        assert value(text, "gambit_players_online") == 1
        tables = [line for line in text.splitlines() if line.startswith("gambit_tables{")]
        assert any(
            re.fullmatch(
                r'gambit_tables\{game="prophets_gambit",status="(playing|between)"\} 1.0', t
            )
            for t in tables
        ), tables
        assert value(text, "gambit_actions_total") >= 3
        assert value(text, "gambit_action_to_screens_seconds_count") >= 3
        assert value(text, "gambit_store_commit_seconds_count") > 0
        assert value(text, "gambit_event_loop_lag_seconds_count") > 0
        assert value(text, 'gambit_refusals_total{reason="per_address"}') >= 1
        assert value(text, "gambit_worker_restarts_total") == 0
    finally:
        conn.close()
    status, _ = await get(metrics_port, "/nowhere")
    assert status == 404


class _Session:
    """An SSH session as the metrics see it: its hub connection, no ``gambit`` channel."""

    def __init__(self, channel: object = None) -> None:
        self.address = "192.0.2.1"
        self.hub_conn: object = object()
        self.channel = channel


def _metrics(hub: Any) -> tuple[Any, LiveSessions]:
    """Metrics over a stand-in hub and an SSH host with real ``LiveSessions``."""
    from server.metrics import Metrics

    live = LiveSessions()
    host = SimpleNamespace(sessions=live, frame_observers=[])
    return Metrics(hub, host), live  # type: ignore[arg-type]  # the parts the metrics read


def _hub() -> Any:
    return SimpleNamespace(
        players={}, store=SimpleNamespace(on_commit=None), observe_actions=lambda hook: list
    )


def test_sessions_that_end_before_drawing_are_forgotten():
    """Issue 43: a player who left before drawing what an action waited for stayed in the
    metrics' maps (session, app and all) for as long as the server ran."""
    hub = _hub()
    metrics, live = _metrics(hub)
    table = SimpleNamespace(seats=[SimpleNamespace(player="ada")])

    def arrives() -> _Session:
        session = _Session()
        live.add(session)
        hub.players["ada"] = SimpleNamespace(sessions=[SimpleNamespace(conn=session.hub_conn)])
        return session

    for _ in range(200):
        session = arrives()
        metrics._action(table, 0, None)  # an action at her table ...
        live.discard(session)  # ... and she is gone before her screen drew it
    session = arrives()
    metrics._action(table, 0, None)
    assert set(metrics._waiting) == {session}
    assert len(metrics._open) == 1
    metrics._frame(session, 100)
    assert metrics._waiting == {} and metrics._open == {}
    samples = {s.name: s.value for s in metrics.action_latency.collect()[0].samples}
    assert samples["gambit_action_to_screens_seconds_count"] == 1


class _OldWay:
    """The metrics' hooks as they were before the index (server/metrics.py before issue 43's
    fix): a map of every session built at every action, and sessions gone forgotten by a
    sweep (run here as each session ends: as soon as it could run)."""

    def __init__(self, hub: Any, live: LiveSessions, clock: Any) -> None:
        self.hub, self.live, self.clock = hub, live, clock
        self._open: dict[int, tuple[float, set[Any]]] = {}
        self._waiting: dict[Any, set[int]] = {}
        self._ids = 0
        self.observed: list[float] = []

    def action(self, table: Any) -> None:
        if len(self._waiting) > len(self.live):
            self.forget_gone_sessions()
        by_conn = {s.hub_conn: s for s in self.live if s.hub_conn is not None}
        sessions = set()
        for held in table.seats:
            player = self.hub.players.get(held.player) if held.player else None
            for hub_session in player.sessions if player else ():
                ours = by_conn.get(hub_session.conn)
                if ours is not None and getattr(ours, "channel", None) is None:
                    sessions.add(ours)
        if not sessions:
            return
        self._ids += 1
        self._open[self._ids] = (self.clock(), sessions)
        for session in sessions:
            self._waiting.setdefault(session, set()).add(self._ids)

    def frame(self, session: Any) -> None:
        waiting = self._waiting.pop(session, None)
        if not waiting:
            return
        now = self.clock()
        for action in waiting:
            entry = self._open.get(action)
            if entry is None:
                continue
            entry[1].discard(session)
            if not entry[1]:
                del self._open[action]
                self.observed.append(now - entry[0])

    def forget_gone_sessions(self) -> None:
        for session in [s for s in self._waiting if s not in self.live]:
            for action in self._waiting.pop(session):
                entry = self._open.get(action)
                if entry is not None:
                    entry[1].discard(session)
                    if not entry[1]:
                        del self._open[action]


async def test_the_index_gives_the_figures_of_the_map_and_forgets_sessions_that_end(monkeypatch):
    """Issue 43: ``Metrics._action`` built a map of every session at every action (the loop
    held at 500 sessions). The host's index (``LiveSessions.of_hub_conn``) gives the same
    figures as that map did, through players arriving, leaving before their screens drew,
    playing on several screens or a gambit channel, and clients that are no SSH sessions;
    and once everyone has gone, neither the metrics nor the index hold anyone."""
    import server.metrics

    now = [100.0]
    monkeypatch.setattr(
        server.metrics,
        "time",
        SimpleNamespace(perf_counter=lambda: now[0], monotonic=time.monotonic),
    )
    hub = _hub()
    metrics, live = _metrics(hub)
    observed: list[float] = []
    metrics.action_latency = SimpleNamespace(observe=observed.append)
    old = _OldWay(hub, live, lambda: now[0])
    rng = random.Random(43)
    names = [f"p{n}" for n in range(12)]
    for name in names:
        hub.players[name] = SimpleNamespace(sessions=[])
    tables = [
        SimpleNamespace(seats=[SimpleNamespace(player=rng.choice([*names, None])) for _ in "1234"])
        for _ in range(4)
    ]
    running: dict[_Session, tuple[str, Any]] = {}

    def leaves(session: _Session) -> None:
        name, hub_session = running.pop(session)
        if rng.random() < 0.8:  # (else the hub drops its session a little later)
            hub.players[name].sessions.remove(hub_session)
        session.hub_conn = None  # (as the session does, before the host is told)
        live.discard(session)
        old.forget_gone_sessions()

    for _ in range(4000):
        now[0] += rng.random() / 100
        step = rng.random()
        if step < 0.15 or not running:
            session = _Session(channel=object() if rng.random() < 0.1 else None)
            conn, session.hub_conn = session.hub_conn, None
            live.add(session)
            session.hub_conn = conn  # (its app launched: the host serves it)
            live.serving(session)
            name = rng.choice(names)
            hub_session = SimpleNamespace(conn=conn)
            hub.players[name].sessions.append(hub_session)
            running[session] = (name, hub_session)
            if rng.random() < 0.1:  # a client that is none of the SSH sessions (TCP, the bus)
                hub.players[name].sessions.append(SimpleNamespace(conn=object()))
        elif step < 0.25:
            leaves(rng.choice(list(running)))
        elif step < 0.3:
            rng.choice(tables).seats[rng.randrange(4)].player = rng.choice([*names, None])
        elif step < 0.65:
            table = rng.choice(tables)
            metrics._action(table, 0, None)
            old.action(table)
        else:
            session = rng.choice(list(running))
            metrics._frame(session, 100)
            old.frame(session)
    assert len(observed) > 500 and observed == old.observed
    assert metrics._open.keys() == old._open.keys() and metrics._waiting == old._waiting
    for session in list(running):
        leaves(session)
    assert metrics._waiting == {} and metrics._open == {}
    assert len(live) == 0 and live._by_hub_conn == {} and live._hub_conn_of == {}
    await metrics.close()
    assert live.ended == []
