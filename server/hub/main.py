"""``gambit hub``: run the hub alone, listening on a unix socket (and optionally TCP).

The SSH server will embed the same hub; this entry point lets clients in other processes,
tests and tools talk to it, and lets crash-recovery tests kill it with SIGKILL.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from pathlib import Path

from server.store import DataDirInUse, Store, StoreError, default_data_dir, lock_data_dir

from .cli_options import add_hub_options, hub_config_from
from .config import HubConfig
from .hub import Hub
from .listener import serve_tcp, serve_unix

log = logging.getLogger(__name__)
#: The exit code after an admin's restart (see server/ssh/serve.py).
RESTART_EXIT = 75


async def run_hub(
    data_dir: Path, config: HubConfig, unix: Path | None, tcp: tuple[str, int] | None
) -> bool:
    """Serve until stopped; True if an admin's restart stopped it."""
    store = Store.open(data_dir, db=config.db)
    hub = Hub(store, config)
    servers: list[asyncio.Server] = []
    restarted: list[bool] = []
    try:
        await hub.start()
        unix = unix or data_dir / "hub.sock"
        servers.append(await serve_unix(hub, unix))
        log.info("hub listening on %s", unix)
        ready = f"gambit hub ready: unix {unix}"
        if tcp:
            server = await serve_tcp(hub, *tcp)
            servers.append(server)
            port = server.sockets[0].getsockname()[1]
            log.info("hub listening on tcp %s:%s", tcp[0], port)
            ready += f" tcp {tcp[0]}:{port}"
        # Stopping is set up before anyone is told the hub is ready: a service manager may
        # stop it the moment it is.
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        hub.on_fatal = stop.set
        hub.admin.on_restart = lambda: (restarted.append(True), stop.set())
        print(ready, flush=True)
        await stop.wait()
    finally:
        for server in servers:
            server.close()
        await hub.stop()
        store.close()
    return bool(restarted)


def main_hub(args: argparse.Namespace) -> int:
    from server.logs import setup_logging

    setup_logging(args.log_file, args.verbose, args.log_json)
    if args.verbose:
        logging.getLogger().setLevel(logging.INFO)
    config = hub_config_from(args)
    tcp = None
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        tcp = (host or "127.0.0.1", int(port))
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    unix = Path(args.unix) if args.unix else data_dir / "hub.sock"
    try:
        # One hub per database, taken before the store is opened (see server/store/lock.py).
        lock = lock_data_dir(data_dir, f"gambit hub on {unix}")
    except DataDirInUse as err:
        sys.stderr.write(f"gambit hub: {err}\n")
        return 1
    try:
        restarted = asyncio.run(run_hub(data_dir, config, unix, tcp))
    except (OSError, StoreError) as err:  # the socket is another hub's, the port is taken,
        # or the database cannot be opened (a --db server that does not answer)
        sys.stderr.write(f"gambit hub: {err}\n")
        return 1
    finally:
        lock.release()
    return RESTART_EXIT if restarted else 0


def add_hub_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir", help="where the SQLite file lives (default: per-user data folder)"
    )
    parser.add_argument("--unix", help="unix socket path (default: DATA_DIR/hub.sock)")
    parser.add_argument("--tcp", help="also listen on HOST:PORT (clients there are guests)")
    add_hub_options(parser)
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="log the informational lines of every library"
    )
    parser.add_argument(
        "--log-file", help="log here instead of stderr (it may be rotated under the hub)"
    )
    parser.add_argument(
        "--log-json", action="store_true", help="log one JSON object per line (for collectors)"
    )
