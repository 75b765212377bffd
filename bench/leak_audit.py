"""Leak audit at scale: every frame of 10^5 games checked for cards hidden from its reader.

    python bench/leak_audit.py [--games 100000] [--procs 2] [--tables 6] [--seed S]

Not a timed test. Each process runs hubs (a fresh store in /dev/shm, or the temp folder, every
``--batch`` games, so neither grows) on which ``--tables`` tables play at once, each set up at
random from every option a table offers: the game, its number of players, every game option
(Prophet's deck, cards-per-round schedule and cap; Fortunes' betting, raises, target and
deals), a stake or none, and now and then two tables of one duplicate set. One to all of the
seats are scripted clients that answer every view asking something with a random legal
action at once; bots (heuristic, random, now and then strong) take the others; one or two
spectators watch. A table plays one to three games in a row, then its people leave.

The frames are checked by tests/hub/hiding_audit.py, the code tests/hub/test_hiding.py runs on
a few games a CI run: as the hub writes each frame (the very bytes), against the engine state
as it goes out, no card a reader never legitimately saw is in any string of it; lobby frames hold no
card at all; a view's public part holds only what every reader knows. With many tables of one
game the decks share their codes, so a frame is checked against its own table (see
``Auditor.own_tables``). After each batch the ledger must sum to zero and audit clean.

Prints, as its last line, one JSON object: ``games``, ``frames``, ``leaks`` (target 0, with
the first few in ``leak_samples``), ``audit_errors``, ``internal_errors``, ``stalled`` (tables
that did not finish their games in time), ``table_failures`` (a table that could not be set
up or played: an error the hub should not have given), ``ledger_sum``, ``per_game`` (games,
frames and tables per game), ``setups`` (tables per game, players and options), ``refused_setups``,
``seconds`` and ``games_per_second``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from event import config as quick_play

from protocol.codec import encode
from protocol.messages import PROTOCOL_VERSION
from server.engine import get_game
from server.hub import HubConfig
from server.store import Store
from tests.hub.hiding_audit import AuditedConnection, Auditor, WatchedHub

GAMES = ("prophets_gambit", "prophet", "fortunes")
TABLE_TIMEOUT = 300.0


def config() -> HubConfig:
    """No pauses a person needs, no budgets a person never meets: the event bench's quick
    play, with shorter pauses between games and a short grace."""
    return replace(quick_play(), between_games=0.05, after_results_read=0.0, grace=0.05)


def random_options(game: str, rng: random.Random) -> dict[str, Any]:
    """Every option of the game, each left at its default now and then, else any value it
    may take (numbers: half the time near the low end, where the games are short)."""
    options: dict[str, Any] = {}
    for name, spec in get_game(game).options.items():
        if rng.random() < 0.25:
            continue
        if spec.choices is not None:
            options[name] = rng.choice(spec.choices)
        elif isinstance(spec.default, int) and spec.minimum is not None:
            top = spec.maximum if spec.maximum is not None else spec.minimum + 50
            if rng.random() < 0.5:
                top = min(top, spec.minimum + 5)
            options[name] = rng.randint(spec.minimum, top)
    return options


def random_setup(rng: random.Random) -> dict[str, Any]:
    game = rng.choice(GAMES)
    g = get_game(game)
    return {
        "game": game,
        "players": rng.randint(g.min_players, g.max_players),
        "options": random_options(game, rng),
        "stake": rng.choice([0, 0, 1, 5, 20]),
    }


class BenchClient:
    """A scripted player or spectator with no reader task: the hub's end of its connection
    hands it each frame (audited, made whole) as it is sent, and it answers a view that asks
    something with a random legal action, queued straight into the hub's inbox."""

    def __init__(self, hub: WatchedHub, auditor: Auditor, who: str, rng: random.Random) -> None:
        self.loop = asyncio.get_running_loop()
        self.who = who
        self.rng = rng
        self.inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.conn = AuditedConnection(self.inbox, asyncio.Queue(), auditor, who, self.read)
        self.views: dict[int, dict[str, Any]] = {}
        self.due: set[int] = set()
        self.waiters: list[tuple[Any, asyncio.Future[dict[str, Any]]]] = []
        self.errors: Counter[str] = Counter()
        self.task = self.loop.create_task(hub.serve(self.conn))

    def send(self, t: str, **fields: Any) -> None:
        self.inbox.put_nowait(encode({"t": t, **fields}))

    def read(self, message: dict[str, Any]) -> None:
        kind = message["t"]
        if kind == "table":
            self.views[message["table"]] = message
            self.answer_soon(message["table"])
        elif kind == "error":
            self.errors[message["code"]] += 1
            if message.get("ref") == "act":  # a stale action: answer the last view anew
                for table_id in self.views:
                    self.answer_soon(table_id)
        for waiter in [w for w in self.waiters if w[0](message)]:
            self.waiters.remove(waiter)
            if not waiter[1].done():
                waiter[1].set_result(message)

    def answer_soon(self, table_id: int) -> None:
        if table_id not in self.due:
            self.due.add(table_id)
            self.loop.call_soon(self.answer, table_id)

    def answer(self, table_id: int) -> None:
        self.due.discard(table_id)
        message = self.views.get(table_id)
        view = message and message["view"]
        if view and view["legal"] and not view["over"]:
            self.send("act", table=table_id, action=self.rng.choice(view["legal"]))

    async def expect(self, predicate: Any, timeout: float = 10.0) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = self.loop.create_future()
        self.waiters.append((predicate, future))
        return await asyncio.wait_for(future, timeout)

    async def request(self, t: str, predicate: Any, **fields: Any) -> dict[str, Any]:
        """Send a request and wait for the frame that shows it done; a refusal raises."""
        reply = self.expect(lambda m: predicate(m) or (m["t"] == "error" and m.get("ref") == t))
        self.send(t, **fields)
        message = await reply
        if message["t"] == "error":
            raise RuntimeError(f"{t} {fields} refused: {message['code']} {message['message']}")
        return message

    async def hello(self) -> None:
        welcome = self.expect(lambda m: m["t"] == "welcome")
        self.send("hello", v=PROTOCOL_VERSION, name=self.who[-20:], identity=self.who)
        await welcome

    async def close(self) -> None:
        self.inbox.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.task, 5)


class Worker:
    """One process's share: batches of games on fresh hubs, ``tables`` at a time."""

    def __init__(self, seed: int, tables: int) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.tables = tables
        self.people = 0
        self.duplicates = 0
        self.out: dict[str, Any] = {
            "games": 0,
            "frames": 0,
            "leaks": 0,
            "leak_samples": [],
            "audit_errors": 0,
            "internal_errors": 0,
            "stalled": 0,
            "ledger_sum": 0,
            "ledger_audit": 0,
            "refused_setups": 0,
            "table_failures": 0,
            "per_game": {g: {"games": 0, "frames": 0, "tables": 0} for g in GAMES},
            "setups": Counter(),
            "client_errors": Counter(),
        }

    async def batch(self, games: int) -> None:
        data = Path(tempfile.mkdtemp(prefix="leak-audit-", dir=shm_or_tmp()))
        store = Store.open(data / "data")
        hub = WatchedHub(store, config())
        await hub.start()
        auditor = Auditor(hub, own_tables=True, keep=False)
        self.frames_by_table: Counter[int] = Counter()
        audit = auditor.audit

        def counted(who: str, message: dict[str, Any]) -> dict[str, Any] | None:
            whole = audit(who, message)
            if whole is not None and isinstance(whole.get("table"), int):
                self.frames_by_table[whole["table"]] += 1
            return whole

        auditor.audit = counted  # type: ignore[method-assign]  # counts frames per table
        played = 0
        try:
            running: set[asyncio.Task[int]] = set()
            opened = 0
            while played < games or running:
                while (
                    played + len(running) * 2 < games
                    and len(running) < self.tables
                    and opened < 10 * games + 100
                ):
                    opened += 1
                    setup = random_setup(self.rng)
                    if self.rng.random() < 0.15:
                        coro = self.duplicate_pair(hub, auditor, setup)
                    else:
                        coro = self.table(hub, auditor, setup, None)
                    running.add(asyncio.get_running_loop().create_task(coro))
                if not running:
                    break
                done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    try:
                        played += task.result()
                    except Exception as err:  # written down; the run goes on
                        self.out["table_failures"] += 1
                        if len(self.out["leak_samples"]) < 10:
                            frames = traceback.extract_tb(err.__traceback__)
                            where = [f for f in frames if f.filename == __file__][-1]
                            self.out["leak_samples"].append(
                                f"seed {self.seed}: {err!r} at line {where.lineno}: {where.line}"
                            )
            self.collect(auditor)
        finally:
            await hub.stop()
            self.out["ledger_sum"] += store.ledger_total()
            self.out["ledger_audit"] += len(store.audit())
            store.close()
            shutil.rmtree(data, ignore_errors=True)

    def collect(self, auditor: Auditor) -> None:
        self.out["frames"] += auditor.checked_frames
        self.out["leaks"] += len(auditor.violations)
        room = 5 - len(self.out["leak_samples"])
        self.out["leak_samples"] += [f"seed {self.seed}: {v}" for v in auditor.violations[:room]]
        self.out["audit_errors"] += len(auditor.errors)
        self.out["leak_samples"] += auditor.errors[:2]

    async def duplicate_pair(self, hub: WatchedHub, auditor: Auditor, setup: dict) -> int:
        self.duplicates += 1
        name = f"set-{self.seed % 10000}-{self.duplicates}"
        first = asyncio.create_task(self.table(hub, auditor, setup, name))
        await asyncio.sleep(0.01)  # the first table founds the set
        second = asyncio.create_task(self.table(hub, auditor, setup, name))
        return sum(await asyncio.gather(first, second))

    async def table(
        self, hub: WatchedHub, auditor: Auditor, setup: dict[str, Any], duplicate: str | None
    ) -> int:
        """One table's games; the number it played."""
        rng = random.Random(self.rng.random())
        players = setup["players"]
        humans = rng.randint(1, players)
        deals = rng.randint(1, 3)
        people = []
        for _ in range(humans + rng.randint(1, 2)):
            self.people += 1
            people.append(BenchClient(hub, auditor, f"p{self.seed % 10000}-{self.people}", rng))
        seated, watchers = people[:humans], people[humans:]
        table_id = None
        try:
            await asyncio.gather(*(p.hello() for p in people))
            owner = seated[0]
            made = owner.expect(lambda m: m["t"] in ("table", "error"))
            fields = dict(setup, duplicate=duplicate) if duplicate else setup
            owner.send("create_table", **fields)
            reply = await made
            if reply["t"] == "error":
                self.out["refused_setups"] += 1
                return 0
            table_id = reply["table"]
            seats = rng.sample(range(1, players), humans - 1)
            joins = []
            for client, seat in zip(seated[1:], seats, strict=True):
                shown = lambda m, s=seat: m["t"] == "table" and m["seat"] == s  # noqa: E731
                joins.append(client.request("join", shown, table=table_id, seat=seat))
            for client in watchers:
                shown = lambda m: m["t"] == "table" and m["seat"] is None  # noqa: E731
                joins.append(client.request("spectate", shown, table=table_id))
            await asyncio.gather(*joins)
            kinds = ["heuristic", "random"] * 9 + ["strong"]
            for seat in sorted(set(range(1, players)) - set(seats)):
                owner.send("add_bot", table=table_id, seat=seat, kind=rng.choice(kinds))
            table = hub.tables[table_id]
            async with asyncio.timeout(10):
                while not table.full:
                    await asyncio.sleep(0.005)
            owner.send("start", table=table_id)
            try:
                async with asyncio.timeout(TABLE_TIMEOUT):
                    while table.games_played < deals:
                        await asyncio.sleep(0.01)
            except TimeoutError:
                self.out["stalled"] += 1
            for client in people:
                client.send("leave", table=table_id)
            played = table.games_played
            name = setup["game"]
            options = ",".join(f"{k}={v}" for k, v in sorted(setup["options"].items()))
            self.out["setups"][f"{name}/{players}/{options or '-'}/dup={bool(duplicate)}"] += 1
            self.out["per_game"][name]["games"] += played
            self.out["per_game"][name]["tables"] += 1
            self.out["games"] += played
            return played
        finally:
            await asyncio.gather(*(p.close() for p in people))
            for p in people:
                self.out["client_errors"].update(p.errors)
                self.out["internal_errors"] += p.errors["internal"]
            if table_id is not None:
                self.out["per_game"][setup["game"]]["frames"] += self.frames_by_table.pop(
                    table_id, 0
                )


def shm_or_tmp() -> str | None:
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def run_worker(args: tuple[int, int, int, int]) -> dict[str, Any]:
    seed, games, tables, batch = args
    logging.basicConfig(level=logging.CRITICAL)
    worker = Worker(seed, tables)

    async def main() -> None:
        started = time.monotonic()
        while worker.out["games"] < games:
            before = worker.out["games"]
            await worker.batch(min(batch, games - worker.out["games"]))
            print(
                f"seed {seed}: {worker.out['games']} games, {worker.out['frames']} frames, "
                f"{worker.out['leaks']} leaks, {time.monotonic() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
            if worker.out["games"] == before:  # nothing played: do not spin
                break

    asyncio.run(main())
    return worker.out


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            if isinstance(value, dict) and key in total:
                if isinstance(value, Counter):
                    total[key].update(value)
                else:
                    for g, counts in value.items():
                        for k, n in counts.items():
                            total[key][g][k] += n
            elif isinstance(value, list | int) and key in total:
                total[key] = total[key] + value
            else:
                total[key] = value
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tables", type=int, default=6, help="tables playing at once per hub")
    parser.add_argument("--batch", type=int, default=2_000, help="games per hub and store")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    shares = [args.games // args.procs + (i < args.games % args.procs) for i in range(args.procs)]
    jobs = [(seed + i, n, args.tables, args.batch) for i, n in enumerate(shares) if n]
    started = time.monotonic()
    if len(jobs) == 1:
        parts = [run_worker(jobs[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(len(jobs)) as pool:
            parts = pool.map(run_worker, jobs)
    seconds = time.monotonic() - started
    out = merge(parts)
    setups = out.pop("setups")
    out["distinct_setups"] = len(setups)
    out["setups_by_game"] = dict(Counter(key.split("/")[0] for key in setups))
    out["client_errors"] = dict(out["client_errors"])
    out["seed"] = seed
    out["procs"] = args.procs
    out["seconds"] = round(seconds, 1)
    out["games_per_second"] = round(out["games"] / seconds, 2) if seconds else None
    print(json.dumps(out))


if __name__ == "__main__":
    main()
