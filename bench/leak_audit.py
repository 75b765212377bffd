"""Leak audit at scale: every frame of 10^5 games checked for cards hidden from its reader.

    python bench/leak_audit.py [--games 100000] [--first 0] [--procs 2] [--tables 6] [--seed S]
    python bench/leak_audit.py --add LOG [LOG ...]
    python bench/leak_audit.py --setup '{"game": ...}' --table-seed X [--repeat N]

Not a timed test. A seed's games are a sequence of blocks of ``--block`` games (100), block
``b`` with a seed of its own drawn from the run's seed and ``b`` alone; ``--first K --games N``
plays games K to K+N-1 of the sequence (whole blocks), however many processes share them. So
10^5 games can be played as chunks on different days, the same seed each time, and added up:

    python bench/leak_audit.py --seed 43 --first 0 --games 30000 > leak-0.log
    python bench/leak_audit.py --seed 43 --first 30000 --games 30000 > leak-1.log
    python bench/leak_audit.py --seed 43 --first 60000 --games 40000 > leak-2.log
    python bench/leak_audit.py --add leak-0.log leak-1.log leak-2.log

``--add`` reads each log's last JSON line and prints one verdict: every count added up
(games, frames, leaks, errors, ledger, per game, CPU seconds), ``covered`` (the games'
ranges the chunks played, joined), ``gaps`` and ``overlaps`` between them, and ``clean``
(no leak, audit or internal error, table failure, ledger imbalance or overlap). A block fixes
its tables' setups, who sits, the bots and the scripted moves, not the deals (a hub deals from
its own entropy): the same chunk played twice audits other deals of the same kind of tables.

Each block plays on a hub of its own (a fresh store in /dev/shm, or the temp folder, so
neither grows) on which ``--tables`` tables play at once, each set up at
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
``Auditor.own_tables``). After each block the ledger must sum to zero and audit clean.

A table that has not finished its games is told apart by how it stands: ``stalled``, no
move at it for ``--stall-after`` seconds (a table that stopped: a hub, bot or timer bug, or
a seat the hub emptied, say a player stood up for want of chips); ``unfinished``, still
moving after ``--table-timeout`` seconds (a long game on a loaded machine); ``long_tables``,
finished, but after more than five minutes. Each comes with a sample (the first few): its
setup and the command that plays that setup again alone (``--setup``, ``--table-seed``), and
the hub's state for it: status, games and deals done, moves, who it waits for (each pending
seat: a scripted client and what it was last shown, a bot, a player away), its timers, the
bots thinking, the seats' chips.

Prints, as its last line, one JSON object: ``games``, ``frames``, ``leaks`` (target 0, with
the first few in ``leak_samples``), ``audit_errors``, ``internal_errors``, ``stalled``,
``unfinished`` and ``long_tables`` (with ``stall_samples``, ``unfinished_samples`` and
``long_samples``), ``hub_errors`` (what the hub logged as an error: a bot or timer that
failed, with ``hub_error_samples``), ``table_failures`` (a table that could not be set up or
played: an error the hub should not have given), ``ledger_sum``, ``per_game`` (games, frames
and tables per game), ``distinct_setups`` and ``setups_by_game`` (tables' setups: game,
players and options), ``refused_setups``, ``blocks``, ``seed``, ``first``, ``games_asked``,
``block``, ``range``, ``seconds``, ``cpu_seconds`` (the blocks', in the workers),
``cpu_ms_per_game`` and ``games_per_second``. A block plays at least its games (a table
plays one to three, so the last ones may go over).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
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
#: Seconds without a move at a table before it counts as stalled.
STALL_AFTER = 60.0
#: Seconds a table that still moves may take before it is given up on (unfinished).
TABLE_TIMEOUT = 1800.0
#: A table that took longer than this to play its games is a long one (sampled).
LONG_AFTER = 300.0
#: Samples kept of each kind (stalled, unfinished, long).
SAMPLES = 5
#: Games a block plays, on a hub and store of its own, with a seed of its own: what a run
#: is cut into (see ``plan``).
BLOCK = 100
#: New objects between young garbage collections (CPython's default: 700).
YOUNG_GC = 5_000


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
    """One block's games on a fresh hub (``batch``), ``tables`` at a time."""

    def __init__(
        self,
        seed: int,
        tables: int,
        stall_after: float = STALL_AFTER,
        table_timeout: float = TABLE_TIMEOUT,
    ) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.tables = tables
        self.stall_after = stall_after
        self.table_timeout = table_timeout
        self.people = 0
        self.duplicates = 0
        #: Table id -> loop time of its last accepted move, and its moves so far (this hub).
        self.last_move: dict[int, float] = {}
        self.moves: Counter[int] = Counter()
        self.out: dict[str, Any] = {
            "games": 0,
            "frames": 0,
            "leaks": 0,
            "leak_samples": [],
            "audit_errors": 0,
            "internal_errors": 0,
            "stalled": 0,
            "unfinished": 0,
            "long_tables": 0,
            "stall_samples": [],
            "unfinished_samples": [],
            "long_samples": [],
            "ledger_sum": 0,
            "ledger_audit": 0,
            "refused_setups": 0,
            "table_failures": 0,
            "per_game": {g: {"games": 0, "frames": 0, "tables": 0} for g in GAMES},
            "setups": Counter(),
            "client_errors": Counter(),
        }

    async def batch(self, games: int, only: tuple[dict[str, Any], float] | None = None) -> None:
        """Tables at random until ``games`` games are played on one fresh hub; ``only``: a
        setup and its table's seed, played alone ``games`` times over instead (the deals
        are new each time: a hub deals from its own entropy)."""
        data = Path(tempfile.mkdtemp(prefix="leak-audit-", dir=shm_or_tmp()))
        store = Store.open(data / "data")
        hub = WatchedHub(store, config())
        await hub.start()
        auditor = Auditor(hub, own_tables=True, keep=False)
        self.frames_by_table: Counter[int] = Counter()
        audit = auditor.audit

        def counted(
            who: str, message: dict[str, Any], framed: bytes | None = None
        ) -> dict[str, Any] | None:
            whole = audit(who, message, framed)
            if whole is not None and isinstance(whole.get("table"), int):
                self.frames_by_table[whole["table"]] += 1
            return whole

        auditor.audit = counted  # type: ignore[method-assign]  # counts frames per table
        self.last_move.clear()
        self.moves.clear()
        hub.observe_actions(self.moved)
        played = 0
        try:
            running: set[asyncio.Task[int]] = set()
            opened = 0
            while (opened if only is not None else played) < games or running:
                while len(running) < self.tables and (
                    opened < games
                    if only is not None
                    else played + len(running) * 2 < games and opened < 10 * games + 100
                ):
                    opened += 1
                    if only is not None:
                        coro = self.table(hub, auditor, only[0], None, only[1])
                        running.add(asyncio.get_running_loop().create_task(coro))
                        continue
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

    def moved(self, table: Any, seat: int, action: Any) -> None:
        """An action was accepted at ``table`` (the hub's action hook): it moves."""
        self.last_move[table.id] = asyncio.get_running_loop().time()
        self.moves[table.id] += 1

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
        self,
        hub: WatchedHub,
        auditor: Auditor,
        setup: dict[str, Any],
        duplicate: str | None,
        table_seed: float | None = None,
    ) -> int:
        """One table's games; the number it played. ``table_seed``: this table's own random
        draws (who sits, how many games, which bots, every scripted move), drawn from the
        worker's if not given."""
        if table_seed is None:
            table_seed = self.rng.random()
        rng = random.Random(table_seed)
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
            how = dict(setup=setup, table_seed=table_seed, duplicate=bool(duplicate), games=deals)
            await self.until_played(hub, table, people, how)
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

    async def until_played(
        self, hub: WatchedHub, table: Any, people: list[BenchClient], how: dict[str, Any]
    ) -> None:
        """Wait until the table has played its games (``how["games"]``), telling apart a
        table that stopped (no move for ``stall_after`` s) from one still playing at
        ``table_timeout`` s; either, and a table that took long, is sampled."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        self.last_move[table.id] = started
        while table.games_played < how["games"]:
            await asyncio.sleep(0.05)
            now = loop.time()
            quiet = now - self.last_move.get(table.id, started)
            if quiet >= self.stall_after:
                self.note("stalled", f"no move for {quiet:.0f} s", hub, table, people, how, started)
                return
            if now - started >= self.table_timeout:
                self.note("unfinished", "still playing", hub, table, people, how, started)
                return
        if loop.time() - started >= LONG_AFTER:
            self.note("long_tables", "finished", hub, table, people, how, started)

    def note(
        self,
        kind: str,
        why: str,
        hub: WatchedHub,
        table: Any,
        people: list[BenchClient],
        how: dict[str, Any],
        started: float,
    ) -> None:
        """Count a table of ``kind`` and keep the first few as samples."""
        self.out[kind] += 1
        samples = self.out[
            {"stalled": "stall_samples", "unfinished": "unfinished_samples"}.get(
                kind, "long_samples"
            )
        ]
        if len(samples) < SAMPLES:
            sample = table_state(hub, table, people, self.moves[table.id], started)
            seed = how["table_seed"]
            samples.append(
                {
                    "why": why,
                    "worker_seed": self.seed,
                    **how,
                    "replay": f"python bench/leak_audit.py --setup '{json.dumps(how['setup'])}' "
                    f"--table-seed {seed!r}",
                    **sample,
                }
            )


def table_state(
    hub: WatchedHub, table: Any, people: list[BenchClient], moves: int, started: float
) -> dict[str, Any]:
    """The hub's state for one table, as far as a stall could come of it: where the table
    is (status, games, deal, moves), whom it waits for and why, its timers, its bots
    thinking, and what each scripted client was last shown and refused."""
    now = asyncio.get_running_loop().time()
    state = table.state
    pending = state.pending() if state is not None and not state.is_over else {}
    clients = {client.who: client for client in people}
    seats = []
    for index, seat in enumerate(table.seats):
        entry: dict[str, Any] = {"seat": index, "bot": seat.bot}
        if seat.player is not None:
            entry["player"] = seat.player
            entry["connected"] = seat.player in hub.players
            entry["chips"] = hub.store.balance(f"player:{seat.player}")
        if seat.reserved is not None:
            entry["reserved"] = seat.reserved
        if index in pending:
            entry["asked"] = pending[index].kind
        seats.append(entry)
    shown = {}
    for who, client in clients.items():
        message = client.views.get(table.id) or {}
        view = message.get("view") or {}
        shown[who] = {
            "seat": message.get("seat"),
            "legal": len(view.get("legal") or ()),
            "over": view.get("over"),
            "waiting": view.get("waiting"),
            "answer_due": table.id in client.due,
            "errors": dict(client.errors),
        }
    timers = {
        repr(key): round(handle.when() - now, 2)
        for key, handle in hub.timers.items()
        if isinstance(key, tuple) and key[1:2] == (table.id,)
    }
    deal = None
    if state is not None:
        deal = getattr(state, "deal_no", None) or getattr(state, "round", None)
    return {
        "table": table.id,
        "game": table.game,
        "status": table.status,
        "games_played": table.games_played,
        "deal": deal,
        "moves_in_game": len(state.history) if state is not None else None,
        "moves": moves,
        "seconds": round(now - started, 1),
        "stake": table.stake,
        "seats": seats,
        "waits_for": {str(seat): ask.kind for seat, ask in pending.items()},
        "timers": timers,
        "thinking": sorted(seat for (tid, seat) in hub.turns.thinking if tid == table.id),
        "entropy_waiting": table.id in hub.entropy.waiting,
        "clients": shown,
    }


def shm_or_tmp() -> str | None:
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


class HubErrors(logging.Handler):
    """The hub's errors (a timer or a bot that failed, a handler that raised), counted, the
    first few kept: a table can stop on one, and the hub only logs it."""

    def __init__(self, out: dict[str, Any]) -> None:
        super().__init__(logging.ERROR)
        self.out = out
        out["hub_errors"] = 0
        out["hub_error_samples"] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.out["hub_errors"] += 1
        if len(self.out["hub_error_samples"]) < SAMPLES:
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                where = traceback.extract_tb(record.exc_info[2])[-1]
                text += f": {record.exc_info[1]!r} at {where.filename}:{where.lineno}"
            self.out["hub_error_samples"].append(text)


def plan(seed: int, first: int, games: int, block: int = BLOCK) -> list[tuple[int, int]]:
    """The blocks games ``first`` .. ``first + games - 1`` of ``seed``'s sequence are, each
    with its own seed: fixed by the run's seed and the block's number alone, so a run cut
    into chunks (``--first``) covers the blocks one run over the same games would, whatever
    ``--procs``."""
    if first < 0 or games <= 0 or first % block or games % block:
        raise ValueError(f"--first ({first}) and --games ({games}) are whole blocks of {block}")
    return [(b, block_seed(seed, b)) for b in range(first // block, (first + games) // block)]


def block_seed(seed: int, block: int) -> int:
    """Block ``block``'s own seed (its tables' setups, who sits, the scripted moves)."""
    return random.Random(f"leak-audit:{seed}:{block}").randrange(2**31)


def run_block(
    args: tuple[int, int, int, int, float, float, tuple[dict[str, Any], float] | None],
) -> dict[str, Any]:
    """One block's games on a fresh hub and store (``only``: one setup alone instead); its
    counts, with the CPU seconds it took this process."""
    number, seed, games, tables, stall_after, table_timeout, only = args
    # The young generation collected after 5,000 new objects, not 700, as the server's own
    # policy has it (server/gc_freeze.py): decoded frames die by reference counting; the
    # collector's share of a run went from 4.5 % to 1.4 % (60 games, one process).
    thresholds = gc.get_threshold()
    gc.set_threshold(YOUNG_GC, *thresholds[1:])
    cpu = time.process_time()
    started = time.monotonic()
    logging.basicConfig(level=logging.CRITICAL)
    worker = Worker(seed, tables, stall_after, table_timeout)
    server_log = logging.getLogger("server")
    level, propagate = server_log.level, server_log.propagate
    server_log.setLevel(logging.ERROR)
    server_log.propagate = False  # (counted here, not printed)
    handler = HubErrors(worker.out)
    server_log.addHandler(handler)
    try:
        asyncio.run(worker.batch(games, only))
    finally:
        # (as it was: a test runs a block in its own process, whose later tests read logs)
        server_log.removeHandler(handler)
        server_log.setLevel(level)
        server_log.propagate = propagate
        gc.set_threshold(*thresholds)
    out = worker.out
    out["blocks"] = 1
    out["cpu_seconds"] = time.process_time() - cpu  # this process's, its threads' included
    print(
        f"block {number} (seed {seed}): {out['games']} games, {out['frames']} frames, "
        f"{out['leaks']} leaks, {time.monotonic() - started:.0f} s",
        file=sys.stderr,
        flush=True,
    )
    return out


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
            elif isinstance(value, list | int | float) and key in total:
                total[key] = total[key] + value
            else:
                total[key] = value
    return total


#: A run's JSON keys that name it or are worked out from the others, and the counts of
#: distinct setups (two chunks may play one setup): not added up.
NOT_ADDED = {
    "setups_by_game",
    "seed",
    "first",
    "games_asked",
    "block",
    "range",
    "procs",
    "distinct_setups",
    "games_per_second",
    "cpu_ms_per_game",
}
#: The counts that must all be 0 for a verdict to be clean.
MUST_BE_ZERO = (
    "leaks",
    "audit_errors",
    "internal_errors",
    "table_failures",
    "ledger_sum",
    "ledger_audit",
)


def finish(
    parts: list[dict[str, Any]],
    seed: int,
    first: int,
    games: int,
    block: int,
    procs: int,
    seconds: float,
) -> dict[str, Any]:
    """The run's JSON from its blocks' counts: ``range`` (games ``first`` up to, not
    including, ``first + games`` of ``seed``'s sequence), what ``add_runs`` adds up."""
    out = merge(parts)
    setups = out.pop("setups")
    out["distinct_setups"] = len(setups)
    out["setups_by_game"] = dict(Counter(key.split("/")[0] for key in setups))
    out["client_errors"] = dict(out["client_errors"])
    for key, value in out.items():
        if key.endswith("_samples") or key == "leak_samples":
            out[key] = value[: 2 * SAMPLES]
    out.update(seed=seed, first=first, games_asked=games, block=block)
    out["range"] = [first, first + games]
    out["procs"] = procs
    out["seconds"] = round(seconds, 1)
    out["cpu_seconds"] = round(out["cpu_seconds"], 1)
    out["cpu_ms_per_game"] = (
        round(1000 * out["cpu_seconds"] / out["games"]) if out["games"] else None
    )
    out["games_per_second"] = round(out["games"] / seconds, 2) if seconds else None
    return out


def add_runs(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One verdict from the JSON lines of runs of one seed and block size (chunks played on
    different days): every count added up, the games' ranges they covered, any gap between
    them or overlap, and ``clean`` (no leak, audit or internal error, table failure, ledger
    imbalance or overlap)."""
    if not runs:
        raise ValueError("no runs to add")
    seeds = {(run["seed"], run["block"]) for run in runs}
    if len(seeds) != 1:
        raise ValueError(f"runs of different seeds or block sizes: {sorted(seeds)}")
    total: dict[str, Any] = {}
    for run in runs:
        for key, value in run.items():
            if key in NOT_ADDED:
                continue
            if isinstance(value, dict):
                into = total.setdefault(key, {})
                for k, v in value.items():
                    if isinstance(v, dict):
                        for kk, n in v.items():
                            into.setdefault(k, {})
                            into[k][kk] = into[k].get(kk, 0) + n
                    else:
                        into[k] = into.get(k, 0) + v
            elif isinstance(value, list):
                total[key] = (total.get(key, []) + value)[: 2 * SAMPLES]
            elif isinstance(value, int | float) and not isinstance(value, bool):
                total[key] = total.get(key, 0) + value
    ranges = sorted(tuple(run["range"]) for run in runs)
    covered: list[list[int]] = []
    gaps: list[list[int]] = []
    overlaps: list[list[int]] = []
    for start, end in ranges:
        if covered and start < covered[-1][1]:
            overlaps.append([start, min(end, covered[-1][1])])
            covered[-1][1] = max(covered[-1][1], end)
        elif covered and start == covered[-1][1]:
            covered[-1][1] = end
        else:
            if covered:
                gaps.append([covered[-1][1], start])
            covered.append([start, end])
    seed, block = next(iter(seeds))
    verdict = {"chunks": len(runs), "seed": seed, "block": block, "covered": covered}
    verdict.update(gaps=gaps, overlaps=overlaps, **total)
    verdict["cpu_seconds"] = round(verdict.get("cpu_seconds", 0.0), 1)
    verdict["seconds"] = round(verdict.get("seconds", 0.0), 1)
    games = verdict.get("games", 0)
    verdict["cpu_ms_per_game"] = round(1000 * verdict["cpu_seconds"] / games) if games else None
    verdict["clean"] = not overlaps and all(verdict.get(k, 0) == 0 for k in MUST_BE_ZERO)
    return verdict


def last_json_line(path: str) -> dict[str, Any]:
    """A run's result: the last line of its output (or log) that is a JSON object."""
    for line in reversed(Path(path).read_text().splitlines()):
        if line.startswith("{"):
            result: dict[str, Any] = json.loads(line)
            return result
    raise ValueError(f"{path}: no JSON line")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="whole blocks")
    parser.add_argument(
        "--first", type=int, default=0, help="the first game of the seed's sequence (a block's)"
    )
    parser.add_argument("--block", type=int, default=BLOCK, help="games per block (a hub each)")
    parser.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tables", type=int, default=6, help="tables playing at once per hub")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--add", nargs="+", metavar="LOG", help="add up these runs' JSON lines into one verdict"
    )
    parser.add_argument(
        "--stall-after", type=float, default=STALL_AFTER, help="seconds without a move: stalled"
    )
    parser.add_argument(
        "--table-timeout",
        type=float,
        default=TABLE_TIMEOUT,
        help="seconds a table that still moves may take (then: unfinished)",
    )
    parser.add_argument(
        "--setup", help="play this one table setup (JSON, as a sample gives it) alone instead"
    )
    parser.add_argument(
        "--table-seed", type=float, default=None, help="with --setup: that table's own seed"
    )
    parser.add_argument("--repeat", type=int, default=1, help="with --setup: tables, in turn")
    args = parser.parse_args()
    if args.add:
        print(json.dumps(add_runs([last_json_line(path) for path in args.add])))
        return
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    timing = (args.stall_after, args.table_timeout)
    if args.setup:
        table_seed = args.table_seed if args.table_seed is not None else random.random()
        only = (json.loads(args.setup), table_seed)
        args.procs, args.first, args.games, args.block = 1, 0, args.repeat, args.repeat
        jobs = [(0, seed, args.repeat, 1, *timing, only)]
    else:
        try:
            blocks = plan(seed, args.first, args.games, args.block)
        except ValueError as err:
            parser.error(str(err))
        jobs = [(b, s, args.block, args.tables, *timing, None) for b, s in blocks]
    started = time.monotonic()
    procs = min(args.procs, len(jobs))
    if procs == 1:
        parts = [run_block(job) for job in jobs]
    else:
        with multiprocessing.get_context("spawn").Pool(procs) as pool:
            parts = list(pool.imap_unordered(run_block, jobs))
    out = finish(parts, seed, args.first, args.games, args.block, procs, time.monotonic() - started)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
