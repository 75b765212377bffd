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

from server.store import DataDirInUse, Store, default_data_dir, lock_data_dir

from .cli_options import add_hub_options, hub_config_from
from .config import HubConfig
from .hub import Hub
from .listener import serve_tcp, serve_unix

log = logging.getLogger(__name__)


async def run_hub(
    data_dir: Path, config: HubConfig, unix: Path | None, tcp: tuple[str, int] | None
) -> None:
    store = Store.open(data_dir)
    hub = Hub(store, config)
    servers: list[asyncio.Server] = []
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
        print(ready, flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        for server in servers:
            server.close()
        await hub.stop()
        store.close()


def main_hub(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("server").setLevel(logging.INFO)  # our own lines: start, recovery
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
        asyncio.run(run_hub(data_dir, config, unix, tcp))
    except OSError as err:  # the socket is another hub's, or the TCP port is taken
        sys.stderr.write(f"gambit hub: {err}\n")
        return 1
    finally:
        lock.release()
    return 0


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
