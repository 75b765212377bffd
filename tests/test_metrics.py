"""Metrics and health over HTTP (issue 21), from a running ``gambit serve`` with a real SSH
player at a table."""

from __future__ import annotations

import asyncio
import re
import time

import pytest

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

    def __init__(self) -> None:
        self.hub_conn = object()
        self.channel = None


def test_sessions_that_end_before_drawing_are_forgotten():
    """Issue 43: a player who left before drawing what an action waited for stayed in the
    metrics' maps (session, app and all) for as long as the server ran."""
    from types import SimpleNamespace

    from server.metrics import Metrics

    hub = SimpleNamespace(
        players={}, store=SimpleNamespace(on_commit=None), observe_actions=lambda hook: list
    )
    host = SimpleNamespace(sessions=set(), frame_observers=[])
    metrics = Metrics(hub, host)  # type: ignore[arg-type]  # the parts the metrics read
    table = SimpleNamespace(seats=[SimpleNamespace(player="ada")])

    def arrives() -> _Session:
        session = _Session()
        host.sessions.add(session)
        hub.players["ada"] = SimpleNamespace(sessions=[SimpleNamespace(conn=session.hub_conn)])
        return session

    for _ in range(200):
        session = arrives()
        metrics._action(table, 0, None)  # an action at her table ...
        host.sessions.discard(session)  # ... and she is gone before her screen drew it
    session = arrives()
    metrics._action(table, 0, None)
    assert set(metrics._waiting) == {session}
    assert len(metrics._open) == 1
    metrics._frame(session, 100)
    assert metrics._waiting == {} and metrics._open == {}
    samples = {s.name: s.value for s in metrics.action_latency.collect()[0].samples}
    assert samples["gambit_action_to_screens_seconds_count"] == 1
