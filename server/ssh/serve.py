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
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from server.hub.cli_options import add_hub_options, hub_config_from
from server.metrics import parse_address
from server.options import add_options, settings_from

from .config import (
    ADDRESS,
    GROUPS,
    LIMITS,
    LOGGING,
    VERBOSE,
    WORKERS,
    ConfigError,
    HostConfig,
)
from .config import default_workers as default_workers  # (its old home: benches import it)

#: The exit code after an admin's restart (EX_TEMPFAIL): not 0, so that systemd's
#: Restart=on-failure (deploy/gambit.service) starts the server again.
RESTART_EXIT = 75

if TYPE_CHECKING:  # for type hints only
    from server.hub.config import HubConfig
    from server.store import DataDirLock
    from server.store.pg_lock import DatabaseLock

    from .host import SSHHost

log = logging.getLogger(__name__)
T = TypeVar("T")

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


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    add_options(parser, HostConfig, GROUPS, only=ADDRESS)
    parser.add_argument(
        "--data-dir", help="database and host key folder (default: per-user data folder)"
    )
    add_login_arguments(parser)
    limits = add_options(parser, HostConfig, GROUPS, only=LIMITS)["limits"]
    add_hub_options(parser, limits)
    add_options(parser, HostConfig, GROUPS, only=WORKERS + LOGGING)
    add_metrics_argument(parser)
    add_debug_lag_argument(parser)
    add_announce_argument(parser)
    add_options(parser, HostConfig, GROUPS, only=VERBOSE)


def add_announce_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--announce",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="announce the server on the local network (mDNS/DNS-SD), where 'gambit connect' "
        "with no host finds it (default: on, unless it listens on loopback only)",
    )


def add_login_arguments(parser: argparse.ArgumentParser) -> None:
    """Who may log in to an SSH front door (``gambit serve`` and ``gambit gateway``
    alike). The password is read by :func:`read_password` (a file, the environment or the
    flag); the keys are :class:`HostConfig`'s option."""
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
    add_options(parser, HostConfig, GROUPS, only=("authorized_keys",))


def login_from(args: argparse.Namespace, command: str) -> dict[str, Any]:
    """The password :func:`add_login_arguments`' options give; warns (on stderr, and in the
    log file) about one given on the command line. Raises :class:`ConfigError` for a
    password that cannot be used."""
    password = read_password(args)
    if args.password is not None:
        sys.stderr.write(f"gambit {command}: warning: {PASSWORD_WARNING}\n")
        if args.log_file:
            log.warning(PASSWORD_WARNING)
    return {"password": password}


def host_config_from(args: argparse.Namespace, login: dict[str, Any]) -> HostConfig:
    """The SSH side's settings from the options the command added (each declared on its
    :class:`HostConfig` field) and ``login`` (:func:`login_from`'s). Raises
    :class:`ConfigError` for a setting that cannot be used."""
    return HostConfig(
        **settings_from(args, HostConfig, partial=True), **login, freeze_sessions=True
    )


def add_metrics_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--metrics",
        metavar="HOST:PORT",
        help="serve Prometheus metrics (/metrics) and a health check (/healthz) here",
    )


def add_debug_lag_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--debug-lag",
        metavar="MS",
        type=float,
        help="log where the event loop is whenever it is held longer than this "
        "(server/lag_watch.py: a diagnosis, off by default)",
    )


async def watched(coro: Coroutine[Any, Any, T], debug_lag: float | None) -> T:
    """Run ``coro`` with the event loop's watchdog on, if asked (``--debug-lag``)."""
    from server.lag_watch import watch_loop

    watch = watch_loop(debug_lag)
    try:
        return await coro
    finally:
        if watch is not None:
            watch.stop()


#: Textual repaints a changed screen at its next frame, 60 a second by default: up to 17 ms
#: after a move before any player's screen starts to change. A table changes a few times a
#: second at most, so the apps here may draw as soon as 4 ms later (``TEXTUAL_FPS``, read
#: once when Textual is imported; an owner's own setting wins).
APP_FPS = "250"


def use_app_fps() -> None:
    os.environ.setdefault("TEXTUAL_FPS", APP_FPS)


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
    announce: bool = False,
) -> bool:
    """Serve until stopped; True if it is to be started again: an admin's restart, a store
    that cannot commit, its database lock lost (the caller exits with :data:`RESTART_EXIT`
    so that a service manager starts it again). ``announce``: on the
    local network (``server/announce.py``)."""
    from server.store.pg_lock import lock_database

    # One server per PostgreSQL database (server/store/pg_lock.py): a restarted server's
    # last session may still be closing, so wait a little, then refuse.
    db_lock = await lock_database(hub_config.db, "gambit serve", timeout=DB_LOCK_WAIT)
    try:
        return await _run_serve(
            data_dir, hub_config, host_config, out, lock, metrics_at, db_lock, announce
        )
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
    announce: bool = False,
) -> bool:
    from server.announce import Announcing, announce_in_background
    from server.cli import version
    from server.hub import Hub
    from server.hub.hooks import HubHooks
    from server.hub.listener import serve_unix
    from server.store import Store

    from .banner import banner
    from .host import SSHHost
    from .keys import load_or_create_host_key
    from .live_sessions import LiveSessions

    host: SSHHost | None = None
    announcing: Announcing | None = None
    metrics = None
    local = None
    stop = asyncio.Event()
    restart = False

    def restart_now() -> None:
        nonlocal restart
        restart = True
        stop.set()

    store = await Store.open_off_loop(data_dir, db=hub_config.db)
    # The SSH host's sessions, made first: the hub's admins see each player's address.
    sessions = LiveSessions()
    hooks = HubHooks(
        on_fatal=restart_now,  # a store that cannot commit: stop, start again from the disk
        on_restart=restart_now,
        describe_connection=sessions.describe,
    )
    hub = Hub(store, hub_config, hooks)
    if db_lock is not None:
        # Another may take the database: start again, wait. (A database that restarts
        # under it: it writes nothing, takes the lock again if nobody had it, goes on.)
        db_lock.keep(lost=restart_now, away=hub.database_away, back=hub.database_back)
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
        if announce:  # (registered in the background: the banner does not wait for it)
            announcing = announce_in_background(host_config.host, port, version())
        text = banner(
            host_config.host, port, key, announced=announcing.name if announcing else None
        )
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
        if announcing is not None:
            await announcing.stop()
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
    from server.announce import wanted
    from server.logs import setup_logging
    from server.store import DataDirInUse, StoreError, default_data_dir, lock_data_dir

    setup_logging(args.log_file, args.verbose, args.log_json)
    try:
        host_config = host_config_from(args, login_from(args, "serve"))
    except ConfigError as err:
        sys.stderr.write(f"gambit serve: {err}\n")
        return 2
    use_app_fps()  # before Textual is imported; the workers inherit it
    from server.mem_trace import start_from_env

    start_from_env("serve")  # GAMBIT_TRACEMALLOC=DIR: a diagnosis, off by default
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
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
            watched(
                run_serve(
                    data_dir,
                    hub_config,
                    host_config,
                    sys.stdout,
                    lock,
                    metrics_at,
                    announce=wanted(args.announce, host_config.host),
                ),
                args.debug_lag,
            )
        )
    except (OSError, StoreError) as err:  # the port is taken, the database is in use
        sys.stderr.write(f"gambit serve: {err}\n")
        return 1
    finally:
        lock.release()
    return RESTART_EXIT if restart else 0
