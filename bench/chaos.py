"""Chaos for the cluster: players play while a gateway, the active hub, NATS or PostgreSQL
is killed (``kill -9``) at random, again and again.

    python bench/chaos.py [--faults 50] [--players 100] [--terminals 4] [--seed 1] [--bound 10]
                          [--logs DIR] [--keep-logs] [--kinds gateway,hub,nats,postgres]

Not a timed test. It starts, on loopback in a temporary folder, a PostgreSQL server of its
own (durable commits; it is killed too), NATS, two hubs (one active, one standby) and two
gateways, and ``--players`` players: light protocol clients (the ``gambit`` SSH channel, each
with a key of its own), four to a table of one of the three games, playing random legal moves
and connecting again through any gateway that is up when theirs ends; and among them
``--terminals`` real terminal players (OpenSSH ``ssh`` in a pty, the app on an 80x24 screen,
read with pyte: tests/cluster_support/terminals.py), each seated with three light clients,
pressing Enter now and then (their tables have a turn timer), and, when their gateway is
killed and their session ends, running ``ssh`` again 1-3 s later. Then ``--faults`` times,
after a few seconds of play (seeded: ``--seed``), it kills one process: a gateway (started
again on a new port), the active hub (the standby takes over; the killed one is started
again as the standby once the fault is checked), NATS or PostgreSQL (started again on the
same port and data after a moment); any hub that exits meanwhile (its lease or its lock
lost) is started again, as a service manager would. After each fault it checks the
ledger, every action a client saw accepted against the store (a terminal's: its seat's
moves seen by its table's owner, by count), every player back (a ping answered, its table
heard from; a terminal showing its table with a line said there after the fault), and that
one hub serves (the database's lock, no deal recorded twice); see tests/cluster_support/chaos.py.

When a check fails (or the run stops on an error, Ctrl+C too), every process's log is kept:
each hub's and gateway's log and what it printed (``NAME.log``, ``NAME.out``, every start of
it), NATS's and PostgreSQL's, the faults' records (``faults.jsonl``) and, taken at each
failed check while it lasted, what every process was doing (``snapshots.txt``: which are
alive, PostgreSQL's sessions and what they wait for, the hubs' and gateways' threads, their
Python stacks if ``py-spy`` is installed; their asyncio tasks, each down to the line it waits
on, go to their own logs: ``kill -USR1``, server/task_dump.py). They go to ``--logs``
(default: a new folder ``gambit-chaos-logs-…`` in the system's temporary folder), named in
the last line (``logs``) and on stderr; ``--keep-logs`` keeps them after a clean run too.
``--kinds`` kills only some kinds of process (``--kinds postgres``: what PostgreSQL's kills
do, again and again).

Prints one JSON line per fault (stderr), and as its last line one JSON object: ``faults``,
``survived`` (faults after which every check held), ``actions_lost`` (target 0),
``actions_checked``, ``back_to_play_s_max`` (target <= 10), ``not_back``, ``ledger_sum`` (0),
``two_hubs`` and ``deals_recorded_twice`` (0); for the terminals (counted in the figures
above too): ``terminals``, ``terminal_back_s_max``, ``terminals_not_back``,
``terminal_actions_checked`` and ``terminal_reconnects`` (new ``ssh`` runs after a session
ended under its player); ``leases_lost``, ``database_locks_lost`` and ``commits_failed``
(hubs that stopped by themselves: a hub change, or the same hub started again, that no kill
made); ``gateway_kills``, ``hub_kills``,
``nats_kills``, ``postgres_kills``, the ``sequence`` of processes killed and the ``seed``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.cluster_support.chaos import KINDS, Settings, run  # noqa: E402  (after the path is set)
from tests.cluster_support.postgres import running_postgres  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--faults", type=int, default=50, help="processes killed, one by one")
    parser.add_argument("--players", type=int, default=100, help="players in all (4 a table)")
    parser.add_argument(
        "--terminals", type=int, default=4, help="of them, real ssh terminal sessions"
    )
    parser.add_argument("--seed", type=int, default=1, help="which faults, when, which moves")
    parser.add_argument("--bound", type=float, default=10.0, help="seconds to be back within")
    parser.add_argument(
        "--logs",
        metavar="DIR",
        help="where every process's log is kept if a check fails (default: a new folder "
        "gambit-chaos-logs-... in the temporary folder)",
    )
    parser.add_argument(
        "--keep-logs", action="store_true", help="keep them even when every check holds"
    )
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help="which kinds of process are killed (comma-separated; default: all)",
    )
    args = parser.parse_args()
    logs = Path(args.logs) if args.logs else default_logs(args.seed)
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    if not kinds or set(kinds) - set(KINDS):
        parser.error(f"--kinds: some of {','.join(KINDS)}")
    settings = Settings(
        players=args.players,
        terminals=args.terminals,
        faults=args.faults,
        seed=args.seed,
        bound=args.bound,
        logs=logs,
        keep_logs=args.keep_logs,
        kinds=kinds,
    )
    with (
        tempfile.TemporaryDirectory(prefix="gambit-chaos-") as folder,
        running_postgres(durable=True) as postgres,
    ):
        result = asyncio.run(run(settings, Path(folder), postgres))
    print(json.dumps(result), flush=True)


def default_logs(seed: int) -> Path:
    """A new folder's name in the system's temporary folder (made only if logs are kept)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(tempfile.gettempdir()) / f"gambit-chaos-logs-{stamp}-seed{seed}"


if __name__ == "__main__":
    main()
