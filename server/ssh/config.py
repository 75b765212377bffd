"""What the owner of a ``gambit serve`` (or ``gambit gateway``) can set; kept apart so the CLI
can read the defaults without importing asyncssh and Textual.

A setting an owner may choose on the command line declares its option here, beside it
(``server/options.py``); ``serve.py`` and ``gateway.py`` add them among their own options and
read them back (:func:`~.serve.host_config_from`). The password alone is read where it is used
(``serve.py``: a file, the environment or the flag, with a warning for the flag).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.options import Groups, option

#: The ``--help`` groups of the SSH side's options (the hub's limits join this one in serve).
GROUPS: Groups = {
    "limits": ("limits", "what one client may cost the server (see docs/operating.md: Limits)"),
}

#: The options of each part of a command line, in their ``--help`` order.
ADDRESS = ("host", "port")
LIMITS = (
    "max_sessions",
    "max_per_address",
    "login_timeout",
    "max_unauthenticated",
    "connections_per_second",
    "max_auth_failures",
    "idle_timeout",
)
FRONT = ("reuse_port", "proxy_protocol")
WORKERS = ("app_workers", "worker_max_rss")
LOGGING = ("log_file", "log_json")
VERBOSE = ("verbose",)


#: ``--worker-max-rss``'s default (MB): see docs/operating.md, "Recycling app workers".
WORKER_MAX_RSS_MB = 1024


class ConfigError(Exception):
    """A setting that cannot be used; the message says which and why."""


def default_workers() -> int:
    """One app worker per core this process may use; none on a single core (a worker there
    would only add the cost of the link)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return cores if cores and cores > 1 else 0


def _workers(value: int | None) -> int:
    return default_workers() if value is None else max(0, value)


def _keys_file(value: str | None) -> Path | None:
    keys = Path(value) if value else None
    if keys is not None and not keys.is_file():
        raise ConfigError(f"--authorized-keys: no such file: {keys}")
    return keys


def _rate_help(defaults: Any) -> str:
    burst = defaults.connection_burst
    return f"new connections a second from one address, after a burst of {burst}"


@dataclass(slots=True)
class HostConfig:
    """What the owner of a ``gambit serve`` can set (see ``gambit serve --help``)."""

    # (The options' order here is their order in ``--help``, within each part of LIMITS etc.)
    host: str = field(default="127.0.0.1", metadata=option("--host", "address to listen on"))
    port: int = field(default=2222, metadata=option("--port", "port (0: any free one)", type=int))
    #: Never in a repr: this config may appear in a log line or a traceback.
    password: str | None = field(default=None, repr=False)
    authorized_keys: Path | None = field(
        default=None,
        metadata=option(
            "--authorized-keys",
            "only these public keys (OpenSSH authorized_keys format)",
            to_setting=_keys_file,
            default=None,
        ),
    )
    #: Most game sessions at once, and from one address.
    max_sessions: int = field(
        default=200,
        metadata=option("--max-sessions", "players at once", type=int, group="limits"),
    )
    max_per_address: int = field(
        default=10,
        metadata=option(
            "--max-per-address",
            "connections (and players) from one address",
            type=int,
            group="limits",
        ),
    )
    #: Seconds a new connection has to authenticate.
    login_timeout: float = field(
        default=20.0,
        metadata=option(
            "--login-timeout",
            "seconds a new connection has to log in",
            type=float,
            group="limits",
        ),
    )
    #: Connections still logging in, at most (the oldest is dropped for a new one), and how
    #: fast one address may open new connections (a burst, then so many a second).
    max_unauthenticated: int = field(
        default=50,
        metadata=option(
            "--max-unauthenticated",
            "connections still logging in, at most (the oldest makes room for a new one)",
            type=int,
            group="limits",
        ),
    )
    connection_burst: int = 30
    connections_per_second: float = field(
        default=1.0,
        metadata=option("--connection-rate", _rate_help, type=float, group="limits"),
    )
    #: Failed logins from one address within 10 min before it is refused for 10 min.
    max_auth_failures: int = field(
        default=10,
        metadata=option(
            "--max-auth-failures",
            "failed logins from one address in 10 min before it is refused for 10 min",
            type=int,
            group="limits",
        ),
    )
    #: A session with no key pressed for this long is closed (its seat waits out the hub's
    #: grace period). 0 = never.
    idle_timeout: float = field(
        default=1800.0,
        metadata=option(
            "--idle-timeout",
            "seconds without a key press before a session is closed (0: never)",
            type=float,
        ),
    )
    #: Ping the client this often; a client that misses three in a row is gone.
    keepalive_interval: float = 30.0
    #: Freeze settled sessions out of the garbage collector's sight (server/gc_freeze.py). Off in
    #: tests that check that ended sessions are freed at once.
    freeze_sessions: bool = False
    #: Let other processes listen on the same port (SO_REUSEPORT: several gateways on one
    #: machine share it, the kernel spreads connections among them).
    reuse_port: bool = field(
        default=False,
        metadata=option(
            "--reuse-port",
            "share the port with other gateways on this machine (SO_REUSEPORT)",
            action="store_true",
        ),
    )
    #: Every connection starts with a PROXY protocol header (v2, or v1) from a balancer in
    #: front: the client's address is taken from it (see proxy_protocol.py).
    proxy_protocol: bool = field(
        default=False,
        metadata=option(
            "--proxy-protocol",
            "connections come from a balancer that sends a PROXY protocol header (v2 or v1) "
            "naming the client; connections without one are closed",
            action="store_true",
        ),
    )
    #: Run the players' apps in this many worker processes (see app_worker.py); 0: in this
    #: process. ``gambit serve`` starts one per core when there is more than one.
    app_workers: int = field(
        default=0,
        metadata=option(
            "--workers",
            "processes that run the players' apps (default: one per core, "
            "none on a single core; 0: all in the server process)",
            type=int,
            default=None,
            to_setting=_workers,
        ),
    )
    #: Recycle an app worker whose memory right after a sweep is above this many MB: its
    #: apps move to a fresh worker, which takes its place (see ``apphost/recycling.py``);
    #: 0: never.
    worker_max_rss: int = field(
        default=WORKER_MAX_RSS_MB,
        metadata=option(
            "--worker-max-rss",
            "recycle an app worker whose memory stays above this many MB after a "
            "collection: its players move to a fresh one, unseen (0: never)",
            type=int,
            metavar="MB",
        ),
    )
    #: Where workers log (None: stderr), and whether SSH details are logged too.
    log_file: str | None = field(
        default=None,
        metadata=option(
            "--log-file", "log here instead of stderr (it may be rotated under the server)"
        ),
    )
    log_json: bool = field(
        default=False,
        metadata=option(
            "--log-json",
            "log one JSON object per line (for collectors)",
            action="store_true",
        ),
    )
    verbose: bool = field(
        default=False,
        metadata=option("--verbose", "log SSH details too", action="store_true", short="-v"),
    )
