"""``gambit serve``: one process holding the store, the hub and the SSH server, and the
players' apps in app workers, one process per core (``--workers``; see app_worker.py).

With ``--workers 0`` everything runs on one event loop: the hub's handlers, every player's
Textual app and the SSH transport. Nothing here prints once players are in: the start banner
goes to stdout, and everything after it to the log (a file, or stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from server.hub.cli_options import add_hub_options, hub_config_from
from server.metrics import parse_address

from .config import HostConfig

#: The exit code after an admin's restart (EX_TEMPFAIL): not 0, so that systemd's
#: Restart=on-failure (deploy/gambit.service) starts the server again.
RESTART_EXIT = 75

if TYPE_CHECKING:  # for type hints only
    from server.hub.config import HubConfig
    from server.store import DataDirLock
    from server.store.pg_lock import DatabaseLock

    from .host import SSHHost

log = logging.getLogger(__name__)

#: The environment variable that may hold the password (not shown by ``ps``, unlike argv).
PASSWORD_ENV = "GAMBIT_PASSWORD"
PASSWORD_WARNING = (
    "--password is visible to every user of this machine (ps, /proc); "
    f"use --password-file FILE or the {PASSWORD_ENV} environment variable instead"
)
#: On SIGTERM or Ctrl+C, everything is stopped within about this many seconds: players are
#: told, their apps end, workers that hang are killed.
STOP_TIMEOUT = 10.0
#: Seconds ``gambit serve`` waits for a PostgreSQL database another server holds.
DB_LOCK_WAIT = 10.0


class ConfigError(Exception):
    """A setting that cannot be used; the message says which and why."""


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = HostConfig()
    parser.add_argument("--host", default=defaults.host, help="address to listen on")
    parser.add_argument("--port", type=int, default=defaults.port, help="port (0: any free one)")
    parser.add_argument(
        "--data-dir", help="database and host key folder (default: per-user data folder)"
    )
    add_login_arguments(parser)
    limits = add_limit_arguments(parser)
    add_hub_options(parser, limits)
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes that run the players' apps (default: one per core, "
        "none on a single core; 0: all in the server process)",
    )
    parser.add_argument(
        "--log-file", help="log here instead of stderr (it may be rotated under the server)"
    )
    parser.add_argument(
        "--log-json", action="store_true", help="log one JSON object per line (for collectors)"
    )
    add_metrics_argument(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="log SSH details too")


def add_login_arguments(parser: argparse.ArgumentParser) -> None:
    """Who may log in to an SSH front door (``gambit serve`` and ``gambit gateway``
    alike; read back by :func:`login_from`)."""
    secret = parser.add_mutually_exclusive_group()
    secret.add_argument(
        "--password-file",
        metavar="FILE",
        help=f"players without a listed key must give the password on this file's first line "
        f"(or set {PASSWORD_ENV})",
    )
    secret.add_argument(
        "--password",
        help="the same, on the command line (visible to every local user: prefer the above)",
    )
    parser.add_argument(
        "--authorized-keys", help="only these public keys (OpenSSH authorized_keys format)"
    )


def login_from(args: argparse.Namespace, command: str) -> dict[str, Any]:
    """The :class:`HostConfig` fields :func:`add_login_arguments`' options set; warns (on
    stderr, and in the log file) about a password given on the command line. Raises
    :class:`ConfigError` for a password that cannot be used."""
    password = read_password(args)
    if args.password is not None:
        sys.stderr.write(f"gambit {command}: warning: {PASSWORD_WARNING}\n")
        if args.log_file:
            log.warning(PASSWORD_WARNING)
    keys = Path(args.authorized_keys) if args.authorized_keys else None
    if keys is not None and not keys.is_file():
        raise ConfigError(f"--authorized-keys: no such file: {keys}")
    return {"password": password, "authorized_keys": keys}


def add_metrics_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--metrics",
        metavar="HOST:PORT",
        help="serve Prometheus metrics (/metrics) and a health check (/healthz) here",
    )


def add_limit_arguments(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """What one client may cost an SSH front door (``gambit serve`` and ``gambit gateway``
    alike), and the idle timeout; returns the "limits" group for more of them."""
    defaults = HostConfig()
    limits = parser.add_argument_group(
        "limits", "what one client may cost the server (see docs/operating.md: Limits)"
    )
    limits.add_argument(
        "--max-sessions", type=int, default=defaults.max_sessions, help="players at once"
    )
    limits.add_argument(
        "--max-per-address",
        type=int,
        default=defaults.max_per_address,
        help="connections (and players) from one address",
    )
    limits.add_argument(
        "--login-timeout",
        type=float,
        default=defaults.login_timeout,
        help="seconds a new connection has to log in",
    )
    limits.add_argument(
        "--max-unauthenticated",
        type=int,
        default=defaults.max_unauthenticated,
        help="connections still logging in, at most (the oldest makes room for a new one)",
    )
    limits.add_argument(
        "--connection-rate",
        type=float,
        default=defaults.connections_per_second,
        help=f"new connections a second from one address, after a burst of "
        f"{defaults.connection_burst}",
    )
    limits.add_argument(
        "--max-auth-failures",
        type=int,
        default=defaults.max_auth_failures,
        help="failed logins from one address in 10 min before it is refused for 10 min",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=defaults.idle_timeout,
        help="seconds without a key press before a session is closed (0: never)",
    )
    return limits


def limits_from(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`HostConfig` fields :func:`add_limit_arguments`' options set."""
    return {
        "max_sessions": args.max_sessions,
        "max_per_address": args.max_per_address,
        "login_timeout": args.login_timeout,
        "max_unauthenticated": args.max_unauthenticated,
        "connections_per_second": args.connection_rate,
        "max_auth_failures": args.max_auth_failures,
        "idle_timeout": args.idle_timeout,
    }


#: Textual repaints a changed screen at its next frame, 60 a second by default: up to 17 ms
#: after a move before any player's screen starts to change. A table changes a few times a
#: second at most, so the apps here may draw as soon as 4 ms later (``TEXTUAL_FPS``, read
#: once when Textual is imported; an owner's own setting wins).
APP_FPS = "250"


def use_app_fps() -> None:
    os.environ.setdefault("TEXTUAL_FPS", APP_FPS)


def default_workers() -> int:
    """One app worker per core this process may use; none on a single core (a worker there
    would only add the cost of the link)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return cores if cores and cores > 1 else 0


def read_password(args: argparse.Namespace) -> str | None:
    """The password for a private night: ``--password-file``, ``--password``, else
    ``GAMBIT_PASSWORD``. An empty one is an error, never "no password" (which would open
    the server to everyone)."""
    value = os.environ.pop(PASSWORD_ENV, None)  # the workers need not inherit it
    source = f"the {PASSWORD_ENV} environment variable"
    if args.password_file:
        source = f"the password file {args.password_file}"
        try:
            with open(args.password_file, encoding="utf-8") as file:
                value = file.readline()
        except (OSError, UnicodeDecodeError) as err:
            raise ConfigError(f"cannot read the password file: {err}") from None
    elif args.password is not None:
        source, value = "--password", args.password
    if value is None:
        return None
    value = value.strip()
    if not value:
        raise ConfigError(f"{source} gives an empty password")
    return value


async def run_serve(
    data_dir: Path,
    hub_config: HubConfig,
    host_config: HostConfig,
    out: TextIO,
    lock: DataDirLock | None = None,
    metrics_at: tuple[str, int] | None = None,
) -> bool:
    """Serve until stopped; True if an admin's restart stopped it (the caller exits with
    :data:`RESTART_EXIT` so that a service manager starts it again)."""
    from server.store.pg_lock import lock_database

    # One server per PostgreSQL database (server/store/pg_lock.py): a restarted server's
    # last session may still be closing, so wait a little, then refuse.
    db_lock = await lock_database(hub_config.db, "gambit serve", timeout=DB_LOCK_WAIT)
    try:
        return await _run_serve(data_dir, hub_config, host_config, out, lock, metrics_at, db_lock)
    finally:
        if db_lock is not None:
            await db_lock.release()


async def _run_serve(
    data_dir: Path,
    hub_config: HubConfig,
    host_config: HostConfig,
    out: TextIO,
    lock: DataDirLock | None,
    metrics_at: tuple[str, int] | None,
    db_lock: DatabaseLock | None,
) -> bool:
    from server.hub import Hub
    from server.hub.hooks import HubHooks
    from server.hub.listener import serve_unix
    from server.store import Store

    from .banner import banner
    from .host import SSHHost
    from .keys import load_or_create_host_key
    from .live_sessions import LiveSessions

    host: SSHHost | None = None
    metrics = None
    local = None
    stop = asyncio.Event()
    restart = False

    def restart_now() -> None:
        nonlocal restart
        restart = True
        stop.set()

    store = Store.open(data_dir, db=hub_config.db)
    # The SSH host's sessions, made first: the hub's admins see each player's address.
    sessions = LiveSessions()
    hooks = HubHooks(
        on_fatal=stop.set,  # a store that cannot commit: stop, and start again from the disk
        on_restart=restart_now,
        describe_connection=sessions.describe,
    )
    hub = Hub(store, hub_config, hooks)
    if db_lock is not None:
        db_lock.keep(lost=restart_now)  # another may take the database: start again, wait
    # Stopping is set up first: a service manager may stop the server the moment it starts.
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await hub.start()
        # The hub's own socket, for `gambit admin` and other tools of the server's owner.
        local = await serve_unix(hub, data_dir / "hub.sock")
        key = load_or_create_host_key(data_dir)
        host = SSHHost(hub, host_config, key, sessions=sessions)
        port = await host.start()
        if lock is not None:
            lock.describe(f"gambit serve on {host_config.host} port {port}")
        text = banner(host_config.host, port, key)
        if metrics_at is not None:
            from server.metrics import Metrics

            metrics = Metrics(hub, host)
            metrics_port = await metrics.start(*metrics_at)
            text += f"Metrics: http://{metrics_at[0]}:{metrics_port}/metrics and /healthz\n"
        out.write(text)
        out.flush()
        log.info("serving on %s:%s, data in %s", host_config.host, port, data_dir)
        await stop.wait()
    finally:
        log.info("stopping")
        if metrics is not None:
            await metrics.close()
        if local is not None:
            local.close()
        if host is not None:
            await stop_host(host)
        await hub.stop()
        store.close()
        log.info("stopped for a restart" if restart else "stopped")
    return restart


async def stop_host(host: SSHHost) -> None:
    """Say goodbye to every player and end the workers, in :data:`STOP_TIMEOUT` at most
    (a service manager waits only so long before it kills everything, players' goodbyes
    and all)."""
    try:
        await asyncio.wait_for(host.close(), STOP_TIMEOUT)
    except TimeoutError:
        log.error("the SSH side did not stop within %.0f s; ending it", STOP_TIMEOUT)
        await host.abort()


def main_serve(args: argparse.Namespace) -> int:
    from server.logs import setup_logging
    from server.store import DataDirInUse, StoreError, default_data_dir, lock_data_dir

    setup_logging(args.log_file, args.verbose, args.log_json)
    try:
        login = login_from(args, "serve")
    except ConfigError as err:
        sys.stderr.write(f"gambit serve: {err}\n")
        return 2
    use_app_fps()  # before Textual is imported; the workers inherit it
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    host_config = HostConfig(
        host=args.host,
        port=args.port,
        **login,
        **limits_from(args),
        freeze_sessions=True,
        app_workers=default_workers() if args.workers is None else max(0, args.workers),
        log_file=args.log_file,
        verbose=args.verbose,
        log_json=args.log_json,
    )
    hub_config = hub_config_from(args)
    try:
        # One server per database, taken before the store is opened (server/store/lock.py).
        lock = lock_data_dir(data_dir, f"gambit serve on {args.host} port {args.port}")
    except DataDirInUse as err:
        sys.stderr.write(f"gambit serve: {err}\n")
        return 1
    try:
        metrics_at = parse_address(args.metrics) if args.metrics else None
        restart = asyncio.run(
            run_serve(data_dir, hub_config, host_config, sys.stdout, lock, metrics_at)
        )
    except (OSError, StoreError) as err:  # the port is taken, the database is in use
        sys.stderr.write(f"gambit serve: {err}\n")
        return 1
    finally:
        lock.release()
    return RESTART_EXIT if restart else 0
