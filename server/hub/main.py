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
from typing import TYPE_CHECKING

from server import task_dump
from server.gc_freeze import FrozenSessions
from server.store import DataDirInUse, Store, StoreError, default_data_dir, lock_data_dir

from .cli_options import add_hub_options, hub_config_from
from .config import HubConfig
from .hooks import HubHooks
from .hub import Hub
from .listener import serve_tcp, serve_unix

if TYPE_CHECKING:  # for type hints only
    from server.metrics import Metrics
    from server.store import DataDirLock
    from server.store.pg_lock import DatabaseLock

    from .bus import HubBus
    from .lease import HubLease

log = logging.getLogger(__name__)
#: The exit code after an admin's restart (see server/ssh/serve.py).
RESTART_EXIT = 75


async def run_hub(
    data_dir: Path,
    config: HubConfig,
    unix: Path | None,
    tcp: tuple[str, int] | None,
    bus: tuple[str, str | None] | None = None,
    metrics_at: tuple[str, int] | None = None,
) -> bool:
    """Serve until stopped; True if it is to be started again (an admin's restart, a store
    that cannot commit, its database lock or lease lost). ``bus``: (NATS URL, the
    gateways' shared token) to serve gateways too (see bus.py): then the data folder is
    locked here, once this hub holds the lease (lease.py), not by the caller."""
    from server.store.pg_lock import lock_database

    hub_bus = None
    lease = None
    lock = None
    db_lock = None
    what = f"gambit hub on the bus {bus_url_shown(bus[0])}" if bus else f"gambit hub on {unix}"
    # kill -USR1: what each task waits for, in the log (a standby too: server/task_dump.py)
    task_dump.install(asyncio.get_running_loop())
    try:
        if bus is not None:
            from .bus import HubBus
            from .lease import HubLease, NoLease

            hub_bus = HubBus(None, *bus)
            await hub_bus.connect()
        # A PostgreSQL store's own guard first (server/store/pg_lock.py), then the lease:
        # the hub that holds the database is the one that may take the lease (and so a
        # lease that lapsed while its holder was held up is still free for it to take again).
        db_lock = await lock_database(config.db, what, waiting=_standby_for_database)
        if hub_bus is not None:
            lease = HubLease(hub_bus.nc, hub_bus.instance)
            try:
                await lease.acquire(waiting=lambda: print(STANDBY, flush=True))
                lease.keep(lost=lambda: None)  # (renewed from now on; who is told: _serve)
            except NoLease as err:
                log.warning("no lease (NATS without JetStream: %s); no standby can take over", err)
                lease = None
            lock = await take_lock(data_dir, what)
        return await _serve(data_dir, config, unix, tcp, hub_bus, lease, db_lock, metrics_at)
    finally:
        # The store is closed: a standby may take over at once (not 3 s later).
        if lease is not None:
            await lease.release()
        if db_lock is not None:
            await db_lock.release()
        if lock is not None:
            lock.release()
        if hub_bus is not None:
            await hub_bus.stop()


def _standby_for_database(holder: str) -> None:
    print(f"{STANDBY_DATABASE}: {holder} holds it; waiting", flush=True)


#: The hub collects nothing by itself (0: CPython's automatic collection off; apps: after
#: 5,000 new objects) ...
HUB_YOUNG_GENERATION = 0
#: ... and it sweeps (``server/gc_freeze.py``) once its resident memory has doubled.
HUB_SWEEP_ON_GROWTH = 1.0


def hub_memory(hub: Hub) -> FrozenSessions:
    """The app workers' freeze-and-sweep policy (``server/gc_freeze.py``) for a hub on its
    own, without the young collections.

    The hub's play makes no reference cycles (``tests/hub/test_no_cycles.py`` plays through
    the bus and finds none; the one library that makes them, openskill, is called inside
    ``FrozenSessions.own_cycles_freed``), so a collection could only walk what is alive and
    find nothing. It did so often: every 2,000 new objects, a tenth of the hub's CPU at
    10,000 players (``bench/hub_load.py``'s ``gc_ms_per_action`` 0.046 of 0.38 ms, pauses
    28 ms at the 99th percentile). Larger thresholds were worse, not better: old objects
    that die count against the threshold, so at 20,000 a collection met 120,000+ live young
    objects and stalled up to 190 ms.

    What does become cyclic garbage (sessions that end: their tasks and connections) waits
    for the sweeps, as in the SSH host: after sessions end, and once resident memory has
    doubled, at most once an hour (a safety net: a sweep walks everything alive, about 1 s
    at 10,000 players). Not when the frozen generation doubles, as in the workers: the hub's
    grows with the players arriving, nearly all of it alive."""
    memory = FrozenSessions(
        young=HUB_YOUNG_GENERATION, sweep_on_growth=HUB_SWEEP_ON_GROWTH, frozen_growth=None
    )
    memory.started()
    hub.memory = memory
    return memory


#: What a hub that waits for the lease says (a standby), or for a PostgreSQL database's lock.
STANDBY = "gambit hub standby: another hub is active; waiting for its lease"
STANDBY_DATABASE = "gambit hub standby: the database is in use"


async def take_lock(data_dir: Path, what: str, timeout: float = 10.0) -> DataDirLock:
    """The data folder's lock, waited for a while: a hub that has just lost its lease is
    still stopping (it stops at once when it notices)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            return lock_data_dir(data_dir, what)
        except DataDirInUse:
            if loop.time() >= deadline:
                raise
            await asyncio.sleep(0.2)


async def _serve(
    data_dir: Path,
    config: HubConfig,
    unix: Path | None,
    tcp: tuple[str, int] | None,
    hub_bus: HubBus | None,
    lease: HubLease | None,
    db_lock: DatabaseLock | None = None,
    metrics_at: tuple[str, int] | None = None,
) -> bool:
    store = await Store.open_off_loop(data_dir, db=config.db)
    servers: list[asyncio.Server] = []
    restarted: list[bool] = []
    metrics: Metrics | None = None
    memory: FrozenSessions | None = None
    # Stopping is set up before anyone is told the hub is ready: a service manager may
    # stop it the moment it is.
    stop = asyncio.Event()

    def restart() -> None:
        restarted.append(True)
        stop.set()

    # The store that cannot commit stops the hub; so does an admin's restart, when it comes.
    # Either way it is to be started again (a failed commit kept nothing of its batch: the
    # next start goes on from what the store holds), so it exits as after a restart.
    # (Its admins see a gateway session's address, as the gateway saw it: the bus's.)
    describe = hub_bus.describe if hub_bus is not None else None
    hub = Hub(
        store,
        config,
        HubHooks(on_fatal=restart, on_restart=restart, describe_connection=describe),
    )
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        # Lost (NATS or the database gone, or another hub holds it now): stop writing at
        # once, and exit as after an admin's restart, so that a service manager starts this
        # hub again, to wait as a standby.
        def lost() -> None:
            restarted.append(True)
            stop.set()

        if lease is not None:
            lease.keep(lost=lost)
        if db_lock is not None:
            # A database that restarts under the hub ends the lock's session: the hub
            # writes nothing, takes the lock again if nobody held it meanwhile, and goes on.
            db_lock.keep(lost=lost, away=hub.database_away, back=hub.database_back)
            # A write that finds the store's connection gone first (the lock is checked
            # every second) is refused as while away, and the lock checked at once.
            store.on_lost = db_lock.check_now
        await hub.start()
        memory = hub_memory(hub)
        if hub_bus is not None:
            await hub_bus.start(hub)
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
        if hub_bus is not None:
            log.info("hub serving gateways on the bus at %s", bus_url_shown(hub_bus.url))
            ready += f" bus {bus_url_shown(hub_bus.url)}"
        if metrics_at is not None:
            from server.metrics import Metrics

            metrics = Metrics(hub)  # (the players' screens are the gateways': no latency)
            port = await metrics.start(*metrics_at)
            ready += f"\nMetrics: http://{metrics_at[0]}:{port}/metrics and /healthz"
        print(ready, flush=True)
        await stop.wait()
    finally:
        for server in servers:
            server.close()
        if metrics is not None:
            await metrics.close()
        if memory is not None:
            memory.close()
        if hub_bus is not None:
            # The gateways keep their sessions for the next hub (a standby, or this one
            # started again): no goodbye goes out, and they move them when it answers.
            hub_bus.detach()
        await hub.stop()
        store.close()
    return bool(restarted)


def main_hub(args: argparse.Namespace) -> int:
    from server.logs import setup_logging
    from server.metrics import parse_address

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
    bus = (args.bus, args.bus_token or None) if args.bus else None
    lock = None
    try:
        if bus is None:
            # One hub per database, taken before the store is opened (server/store/lock.py);
            # on the bus, once this hub holds the lease (run_hub).
            lock = lock_data_dir(data_dir, f"gambit hub on {unix}")
        metrics_at = parse_address(args.metrics) if args.metrics else None
        restarted = asyncio.run(run_hub(data_dir, config, unix, tcp, bus, metrics_at))
    except DataDirInUse as err:
        sys.stderr.write(f"gambit hub: {err}\n")
        return 1
    except (OSError, StoreError) as err:  # the socket is another hub's, the port is taken,
        # or the database cannot be opened (a --db server that does not answer)
        sys.stderr.write(f"gambit hub: {err}\n")
        return 1
    except Exception as err:  # nats-py's own (a login NATS refuses, say)
        if not type(err).__module__.startswith("nats"):
            raise
        sys.stderr.write(f"gambit hub: the bus: {err or type(err).__name__}\n")
        return 1
    finally:
        if lock is not None:
            lock.release()
    return RESTART_EXIT if restarted else 0


def bus_url_shown(url: str) -> str:
    """A NATS URL without its password (it goes to logs and the terminal)."""
    scheme, sep, rest = url.partition("://")
    if "@" in rest:
        creds, _, where = rest.rpartition("@")
        user = creds.partition(":")[0]
        return f"{scheme}{sep}{user}:***@{where}"
    return url


def add_bus_arguments(parser: argparse.ArgumentParser) -> None:
    """The bus options that ``gambit hub`` and ``gambit gateway`` share."""
    parser.add_argument(
        "--bus",
        metavar="URL",
        help="NATS server to meet gateways on (nats://[user:password@]host:port)",
    )
    parser.add_argument(
        "--bus-token",
        metavar="TOKEN",
        help="shared secret of the hub and its gateways: only a gateway that knows it may "
        "vouch for players' keys (without it every bus player is a guest; prefer the "
        "GAMBIT_BUS_TOKEN environment variable, which ps does not show)",
    )


def add_hub_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir", help="where the SQLite file lives (default: per-user data folder)"
    )
    parser.add_argument("--unix", help="unix socket path (default: DATA_DIR/hub.sock)")
    parser.add_argument("--tcp", help="also listen on HOST:PORT (clients there are guests)")
    add_bus_arguments(parser)
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
    from server.ssh.serve import add_metrics_argument

    add_metrics_argument(parser)
