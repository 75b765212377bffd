"""``gambit play``: the Gambit app on this terminal against bots, with no SSH in between.

The hub runs in this process and the app talks to it through the same in-process msgpack
connection an SSH session uses, so what a player sees here is what they would see over SSH.
Logs go to a file in the data directory: the terminal belongs to the app.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import logging
import shutil
import sys
import tempfile
from pathlib import Path

from protocol.term import local_term
from server.hub import HubConfig

log = logging.getLogger(__name__)


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir", help="where the SQLite file lives (default: per-user data folder)"
    )
    parser.add_argument(
        "--temp", action="store_true", help="use a temporary data folder, removed at the end"
    )
    parser.add_argument("--name", help="your display name (default: your user name)")
    parser.add_argument("--bot-delay", type=float, default=1.0, help="seconds before a bot acts")
    parser.add_argument("--turn-timer", type=float, default=0.0, help="seconds per turn (0: off)")
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="fixed deal seed (repeatable games; default: random deals)",
    )


async def run_play(data_dir: Path, config: HubConfig, name: str, user: str) -> None:
    """Start the hub, run the app against it until the player quits, then stop the hub."""
    from gambit_tui.app import GambitApp  # Textual loads only when someone plays
    from protocol.connection import queue_pair
    from server.apphost.colour_depth import set_colour_depth
    from server.hub import Hub
    from server.store import Store

    store = Store.open(data_dir)
    hub = Hub(store, config)
    await hub.start()
    client_end, hub_end = queue_pair(trusted=True, peer="local")
    serving = asyncio.get_running_loop().create_task(hub.serve(hub_end))
    try:
        term = local_term()
        app = GambitApp(client_end, term=term, identity=f"local:{user}", name=name)
        set_colour_depth(app, term)  # as the app host does: the depth the terminal said
        await app.run_async()
    finally:
        await client_end.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(serving, 2)
        await hub.stop()
        store.close()


def main_play(args: argparse.Namespace) -> int:
    from server.store import DataDirInUse, default_data_dir, lock_data_dir

    user = getpass.getuser()
    temp = tempfile.mkdtemp(prefix="gambit-") if args.temp else None
    data_dir = Path(temp or args.data_dir or default_data_dir())
    data_dir.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        filename=str(data_dir / "play.log"),
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    config = HubConfig(
        bot_delay=args.bot_delay, turn_timer=args.turn_timer, seed=args.seed, chat_limit=False
    )
    try:
        # Not beside a running server: two hubs would drive one ledger (server/store/lock.py).
        lock = lock_data_dir(data_dir, "gambit play")
    except DataDirInUse as err:
        sys.stderr.write(f"gambit play: {err}\n")
        return 1
    try:
        asyncio.run(run_play(data_dir, config, args.name or user, user))
    except KeyboardInterrupt:
        pass
    finally:
        lock.release()
        if temp:
            shutil.rmtree(temp, ignore_errors=True)
    return 0
