"""A session and its host through their interfaces: the frames' observers are one host's, the
door's verdict arrives on the connection it judged, and a player's backlog is read through
what the door gave the connection (no private attribute of asyncssh's)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from server.ssh.door import ADMITTED_ADDRESS, TRANSPORT
from server.ssh.host import GambitServer
from server.ssh.live_sessions import LiveSessions
from server.ssh.session import GameSession


class Host:
    """A stand-in :class:`~server.ssh.session_host.SessionHost` (only what these use)."""

    idle_timeout = 0.0

    def __init__(self) -> None:
        self.frame_observers: list[Any] = []


def session(host: Host, address: str = "192.0.2.1") -> GameSession:
    launcher: Any = None  # (never asked: no app is started)
    return GameSession(host, launcher, identity=None, username="play", address=address)  # type: ignore[arg-type]  # a stand-in host


def test_frames_are_told_to_their_own_hosts_observers_only():
    one, two = Host(), Host()
    seen: list[tuple[str, int]] = []
    one.frame_observers.append(lambda s, size: seen.append((s.address, size)))
    session(one, "192.0.2.1").output(b"abc")
    session(two, "192.0.2.2").output(b"defg")
    session(one, "192.0.2.1").output(b"")  # a frame the player's screen already shows
    assert seen == [("192.0.2.1", 3), ("192.0.2.1", 0)]


class Connection:
    def __init__(self, extra: dict[str, Any]) -> None:
        self.extra = extra

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.extra.get(name, default)


def test_the_backlog_counts_the_transport_the_door_gave_the_connection():
    transport = SimpleNamespace(get_write_buffer_size=lambda: 700)
    conn = Connection({TRANSPORT: transport})
    chan = SimpleNamespace(
        get_write_buffer_size=lambda: 50,
        get_extra_info=lambda name, default=None: conn if name == "connection" else default,
    )
    played = session(Host())
    played.chan = chan  # type: ignore[assignment]  # a stand-in channel
    assert played.pending_output() == 750
    conn.extra.clear()  # not through the door: the channel's own buffer only
    assert played.pending_output() == 50


class Admission:
    def __init__(self) -> None:
        self.opened_from: list[str] = []

    def opened(self, conn: Any, address: str) -> None:
        self.opened_from.append(address)


def test_the_doors_verdict_arrives_with_the_connection_it_judged():
    asked: list[str] = []
    host = SimpleNamespace(
        open_connections=set(),
        admission=Admission(),
        connection_refusal=lambda address: asked.append(address),
    )
    judged = Connection({ADMITTED_ADDRESS: "203.0.113.7", "peername": ("10.0.0.2", 4000)})
    server = GambitServer(host)  # type: ignore[arg-type]  # a stand-in host
    server.connection_made(judged)  # type: ignore[arg-type]  # a stand-in connection
    assert server.address == "203.0.113.7" and asked == []  # judged once, at the door
    assert host.admission.opened_from == ["203.0.113.7"]
    unjudged = Connection({"peername": ("10.0.0.3", 4000)})  # not through the door
    GambitServer(host).connection_made(unjudged)  # type: ignore[arg-type]  # stand-ins
    assert asked == ["10.0.0.3"]


def test_live_sessions_describe_a_hub_connection_by_its_session():
    sessions = LiveSessions()
    one, two = session(Host(), "192.0.2.1"), session(Host(), "192.0.2.1")
    one.hub_conn, two.hub_conn = object(), object()  # type: ignore[assignment]  # stand-ins
    sessions.add(one)
    sessions.add(two)
    assert sessions.from_address("192.0.2.1") == 2
    assert sessions.describe(two.hub_conn)["address"] == "192.0.2.1"
    assert sessions.discard(one) and not sessions.discard(one)
    assert sessions.from_address("192.0.2.1") == 1 and len(sessions) == 1
    assert sessions.describe(one.hub_conn) == {}


def test_live_sessions_know_a_session_by_its_hub_connection_until_it_ends():
    """The index the metrics ask at every action (issue 43): a session is known by the hub
    connection it is served on (``serving``: it had none when it opened), and forgotten when
    it ends, with whoever asked told (``ended``)."""
    sessions = LiveSessions()
    ended: list[Any] = []
    sessions.ended.append(ended.append)
    one = session(Host())
    sessions.add(one)
    conn = object()
    assert sessions.of_hub_conn(conn) is None
    one.hub_conn = conn  # type: ignore[assignment]  # a stand-in
    sessions.serving(one)
    assert sessions.of_hub_conn(conn) is one and sessions.describe(conn)["address"] == "192.0.2.1"
    one.hub_conn = None  # (as a session does, before the host is told it has ended)
    assert sessions.discard(one) and ended == [one]
    assert sessions.of_hub_conn(conn) is None and sessions.describe(conn) == {}
    assert sessions._by_hub_conn == {} and sessions._hub_conn_of == {}
    stray = session(Host())
    stray.hub_conn = object()  # type: ignore[assignment]  # a stand-in
    sessions.serving(stray)  # (not running here: not known)
    assert sessions.of_hub_conn(stray.hub_conn) is None


def test_no_private_attribute_of_asyncssh_is_read():
    """asyncssh's connection hid its transport (``_transport``); the session read it by name
    until the door gave it to the connection publicly (``TRANSPORT``)."""
    import re
    from pathlib import Path

    import server.ssh

    # getattr(x, "_name") and ._transport: how the old session read it.
    private = re.compile(r"""getattr\(.*["']_[a-z]\w*["']|\._transport\b""")
    found = [
        f"{path.name}:{number}"
        for path in sorted(Path(server.ssh.__file__).parent.glob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if private.search(line)
    ]
    assert found == []
