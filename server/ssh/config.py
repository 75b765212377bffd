"""What the owner of a ``gambit serve`` can set; kept apart so the CLI can read the defaults
without importing asyncssh and Textual."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(slots=True)
class HostConfig:
    """What the owner of a ``gambit serve`` can set (see ``gambit serve --help``)."""

    host: str = "127.0.0.1"
    port: int = 2222
    #: Never in a repr: this config may appear in a log line or a traceback.
    password: str | None = field(default=None, repr=False)
    authorized_keys: Path | None = None
    #: Most game sessions at once, and from one address.
    max_sessions: int = 200
    max_per_address: int = 10
    #: A session with no key pressed for this long is closed (its seat waits out the hub's
    #: grace period). 0 = never.
    idle_timeout: float = 1800.0
    #: Ping the client this often; a client that misses three in a row is gone.
    keepalive_interval: float = 30.0
    #: Seconds a new connection has to authenticate.
    login_timeout: float = 20.0
    #: Connections still logging in, at most (the oldest is dropped for a new one), and how
    #: fast one address may open new connections (a burst, then so many a second).
    max_unauthenticated: int = 50
    connection_burst: int = 30
    connections_per_second: float = 1.0
    #: Failed logins from one address within 10 min before it is refused for 10 min.
    max_auth_failures: int = 10
    #: Freeze settled sessions out of the garbage collector's sight (server/gc_freeze.py). Off in
    #: tests that check that ended sessions are freed at once.
    freeze_sessions: bool = False
    #: Run the players' apps in this many worker processes (see app_worker.py); 0: in this
    #: process. ``gambit serve`` starts one per core when there is more than one.
    app_workers: int = 0
    #: Where workers log (None: stderr), and whether SSH details are logged too.
    #: Let other processes listen on the same port (SO_REUSEPORT: several gateways on one
    #: machine share it, the kernel spreads connections among them).
    reuse_port: bool = False
    #: Every connection starts with a PROXY protocol header (v2, or v1) from a balancer in
    #: front: the client's address is taken from it (see proxy_protocol.py).
    proxy_protocol: bool = False
    log_file: str | None = None
    verbose: bool = False
    log_json: bool = False
