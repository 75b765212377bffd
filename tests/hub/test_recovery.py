"""Crash recovery: the hub runs in a subprocess and is killed with SIGKILL mid-game.

Each round lets two scripted humans and some bots play at three tables (one of each game, with
stakes), kills the hub at a different moment (a random one, right after a human's action is
stored, right after a bot's action is stored), and then checks, exactly:

* what the store holds: the ledger sums to 0 and passes its audit;
* that the hub never showed anything it had not stored: what each client saw last is the view
  of a prefix of the stored actions (or the final view of the table's last recorded game);
* a restart with bots and the next deal frozen (a delay of 600 s): each reconnecting player is
  back in the same seat and sees exactly the view of *all* the stored actions, with the chips
  the store holds; killing that hub again changes nothing in the store;
* a normal restart: the games go on from where they stopped and are played to the end; each
  recorded game's history begins with the actions stored at every kill, and every balance
  equals what the recorded games and the games in progress say it must be.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any

import msgpack

from protocol.actions import action_from_wire
from protocol.connection import ConnectionClosed
from server.engine import get_game
from server.engine.base import Outcome
from server.store import Store
from server.store.store import DB_NAME

from .harness import Client, connect_unix

ROOT = Path(__file__).resolve().parents[2]
START = 1000
PLAYERS = {"SHA256:ada": "Ada", "SHA256:bob": "Bob"}
FAST = {"bot_delay": 0.05, "between_games": 0.2}
FROZEN = {"bot_delay": 600.0, "between_games": 600.0}


def wire(value: Any) -> Any:
    """What a value looks like after a trip through the protocol."""
    return msgpack.unpackb(msgpack.packb(value, use_bin_type=True), raw=False)


class HubProcess:
    """``gambit hub`` in a subprocess on a unix socket, killed only with SIGKILL."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.sock = data_dir / "hub.sock"
        self.db = data_dir / DB_NAME
        self.proc: asyncio.subprocess.Process | None = None
        self.runs = 0

    async def start(self, *, bot_delay: float, between_games: float) -> None:
        self.runs += 1
        self.log = self.data_dir.parent / f"hub-{self.runs}.log"
        with open(self.log, "wb") as err:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "server.cli",
                "hub",
                "--data-dir",
                str(self.data_dir),
                "--unix",
                str(self.sock),
                "--bot-delay",
                str(bot_delay),
                "--between-games",
                str(between_games),
                "--grace",
                "30",
                "--turn-timer",
                "0",
                "--starting-chips",
                str(START),
                cwd=ROOT,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
            )
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), 20)
        assert b"gambit hub ready" in line, (line, self.log.read_text())

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(self.proc.wait(), 10)
        assert self.proc.returncode == -signal.SIGKILL
        self.proc = None
        errors = self.log.read_text()
        assert "Traceback" not in errors and "ERROR" not in errors, errors

    def stored_actions(self, reader: sqlite3.Connection, table_id: int) -> list[list[Any]]:
        rows = reader.execute(
            "SELECT seat, action FROM live_actions WHERE table_id = ? ORDER BY seq", (table_id,)
        )
        return [[seat, msgpack.unpackb(action, raw=False)] for seat, action in rows]

    def reader(self) -> sqlite3.Connection:
        """A read-only look at the store while the hub runs (WAL lets both work at once)."""
        return sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=5)


async def arrive(hub: HubProcess) -> dict[str, Client]:
    clients = {}
    for pid, name in PLAYERS.items():
        client = await connect_unix(str(hub.sock))
        client.welcome = await client.hello(name, identity=pid)  # type: ignore[attr-defined]  # noted on the test's client
        clients[pid] = client
    return clients


async def leave(clients: dict[str, Client]) -> None:
    for client in clients.values():
        with contextlib.suppress(Exception):
            await client.close()


class Humans:
    """Every client answers every ask with a random legal action after a short think."""

    def __init__(self, clients: dict[str, Client], rng: random.Random) -> None:
        self.clients = clients
        self.rng = rng
        self.paused = False
        self.answered: set[int] = set()  # id() of table messages already answered
        self.task = asyncio.get_running_loop().create_task(self.run())

    def open_asks(self) -> list[tuple[Client, int, dict[str, Any]]]:
        asks = []
        for client in self.clients.values():
            for table_id, msg in list(client.tables.items()):
                view = msg["view"]
                if view and view["legal"] and id(msg) not in self.answered:
                    asks.append((client, table_id, msg))
        return asks

    async def run(self) -> None:
        while True:
            if not self.paused:
                for client, table_id, msg in self.open_asks():
                    self.answered.add(id(msg))
                    with contextlib.suppress(ConnectionClosed):
                        action = self.rng.choice(msg["view"]["legal"])
                        await client.send("act", table=table_id, action=action)
            await asyncio.sleep(self.rng.uniform(0.002, 0.02))

    async def stop(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


def replay_views(params: dict[str, Any], actions: list[list[Any]], seat: int) -> list[Any]:
    """The view ``seat`` has after each prefix of ``actions`` (index k: the first k)."""
    state = get_game(params["game"]).new_state(
        params["num_players"], params["options"], params["dealer"], params["seed"], params["deck"]
    )
    views = [wire(state.view(seat))]
    for who, action in actions:
        state.apply(who, action_from_wire(action))
        views.append(wire(state.view(seat)))
    return views


def read_store(data_dir: Path, stakes: dict[int, int]) -> dict[str, Any]:
    """Everything the checks need, read with the hub dead. ``stakes`` by table id."""
    store = Store.open(data_dir)
    try:
        tables = {row["id"]: row for row in store.live_tables()}
        last_games: dict[int, dict[str, Any]] = {}
        games: dict[int, dict[str, Any]] = {}
        for pid in PLAYERS:
            for game in store.games_of(pid, 1000):
                games[game["id"]] = {**game, "stake": stakes[game["table_id"]]}
        for game in sorted(games.values(), key=lambda g: g["id"]):
            last_games[game["table_id"]] = game
        return {
            "tables": tables,
            "balances": store.balances(),
            "total": store.ledger_total(),
            "audit": store.audit(),
            "games": games,
            "last_games": last_games,
        }
    finally:
        store.close()


def unsettled_payouts(snap: dict[str, Any]) -> dict[str, int]:
    """Chips a restart must still pay: games whose last action was stored but not settled
    (the hub died between the two transactions)."""
    due: dict[str, int] = {}
    for row in snap["tables"].values():
        if row["info"]["status"] != "playing":
            continue
        params, actions = row["params"], row["actions"]
        state = get_game(params["game"]).replay(params, actions)
        if not state.is_over:
            continue
        payouts = state.outcome().payouts(row["info"]["stake"])
        for i, account in enumerate(row["info"]["accounts"]):  # who anted for each seat
            due[account] = due.get(account, 0) + payouts[i]
            due[f"pot:{row['id']}"] = due.get(f"pot:{row['id']}", 0) - payouts[i]
    return due


def expected_balance(snap: dict[str, Any], pid: str) -> int:
    """A player's chips from first principles: the start, every recorded game's payments in
    (antes, and a Fortunes deal's stays and raises) and payout, and what the player has paid
    into the game in progress (its stored actions replayed)."""
    balance = START
    for game in snap["games"].values():
        if pid not in game["players"]:
            continue
        seat = game["players"].index(pid)
        outcome = Outcome(**game["outcome"])
        stake = game["stake"]
        contributions = outcome.contributions or [1] * len(outcome.scores)
        balance += outcome.payouts(stake)[seat] - stake * contributions[seat]
    for row in snap["tables"].values():
        info = row["info"]
        if info["status"] != "playing" or f"player:{pid}" not in info["accounts"]:
            continue
        seat = info["accounts"].index(f"player:{pid}")
        state = get_game(row["params"]["game"]).replay(row["params"], row["actions"])
        paid = state.view(None).get("contributions") or [1] * state.num_players
        balance -= info["stake"] * paid[seat]
    return balance


async def set_up_tables(clients: dict[str, Client]) -> dict[int, dict[str, Any]]:
    """Three tables, one per game, each with a stake, bots and one or two humans."""
    ada, bob = clients["SHA256:ada"], clients["SHA256:bob"]
    specs = [
        (ada, [bob], "prophets_gambit", 3, {}, 10, ["heuristic"]),
        (ada, [], "prophet", 3, {"cap": 2}, 5, ["heuristic", "random"]),
        (bob, [], "fortunes", 4, {"betting": "raise"}, 7, ["random", "heuristic", "random"]),
    ]
    tables = {}
    for owner, guests, game, players, options, stake, bots in specs:
        await owner.send(
            "create_table", game=game, players=players, options=options, stake=stake, timer=0
        )
        created = await owner.until(
            lambda m, g=game: m["t"] == "table" and m["info"]["game"] == g and m["seat"] == 0
        )
        table_id = created["table"]
        for guest in guests:
            await guest.send("join", table=table_id)
            await guest.until(lambda m, t=table_id: m["t"] == "table" and m["table"] == t)
        first_bot = 1 + len(guests)
        for seat, kind in enumerate(bots, start=first_bot):
            await owner.send("add_bot", table=table_id, seat=seat, kind=kind)
        await owner.until(
            lambda m, t=table_id: (
                m["t"] == "table"
                and m["table"] == t
                and all(s["bot"] or s["name"] for s in m["info"]["seats"])
            )
        )
        await owner.send("start", table=table_id)
        msg = await owner.until(
            lambda m, t=table_id: m["t"] == "table" and m["table"] == t and m["view"] is not None
        )
        tables[table_id] = {"game": game, "stake": stake, "seats": human_seats_of(msg)}
    return tables


def human_seats_of(msg: dict[str, Any]) -> dict[str, int]:
    names = {name: pid for pid, name in PLAYERS.items()}
    return {names[s["name"]]: i for i, s in enumerate(msg["info"]["seats"]) if s["name"]}


# --- the moments of the kill --------------------------------------------------------------


async def kill_at_random(
    hub: HubProcess, humans: Humans, rng: random.Random, tables: dict[int, dict[str, Any]]
) -> str:
    await asyncio.sleep(rng.uniform(0.2, 0.9))
    await hub.kill()
    return "at a random moment"


async def kill_after_human_action(
    hub: HubProcess, humans: Humans, rng: random.Random, tables: dict[int, dict[str, Any]]
) -> str:
    """A human acts; the moment the store holds that action, the hub dies — most likely
    before anyone was told."""
    await asyncio.sleep(rng.uniform(0.1, 0.5))
    humans.paused = True
    await asyncio.sleep(0.05)  # acts already on the wire land first
    reader = hub.reader()
    try:
        for _attempt in range(5):
            for _ in range(400):
                asks = humans.open_asks()
                if asks:
                    break
                await asyncio.sleep(0.025)
            else:
                raise AssertionError("no human was asked anything for 10 s")
            client, table_id, msg = rng.choice(asks)
            humans.answered.add(id(msg))
            seat = msg["seat"]
            action = rng.choice(msg["view"]["legal"])
            mark = len(client.log)
            before = hub.stored_actions(reader, table_id).count([seat, action])
            await client.send("act", table=table_id, action=action)
            for _ in range(5000):
                if hub.stored_actions(reader, table_id).count([seat, action]) > before:
                    await hub.kill()
                    return f"right after table {table_id} seat {seat} stored {action}"
                if any(m["t"] == "error" and m.get("ref") == "act" for m in client.log[mark:]):
                    break  # a bot changed the state first; ask again
                await asyncio.sleep(0.001)
            else:
                raise AssertionError(f"the hub never stored {action} for seat {seat}")
        raise AssertionError("five actions in a row were refused")
    finally:
        reader.close()


async def kill_after_bot_action(
    hub: HubProcess, humans: Humans, rng: random.Random, tables: dict[int, dict[str, Any]]
) -> str:
    """The hub dies as soon as a bot's action is stored."""
    await asyncio.sleep(rng.uniform(0.1, 0.5))
    reader = hub.reader()
    try:
        counts = {t: len(hub.stored_actions(reader, t)) for t in tables}
        for _ in range(10000):
            for table_id, spec in tables.items():
                stored = hub.stored_actions(reader, table_id)
                new = stored[counts[table_id] :] if len(stored) >= counts[table_id] else stored
                counts[table_id] = len(stored)
                bots = [a for a in new if a[0] not in spec["seats"].values()]
                if bots:
                    await hub.kill()
                    return f"right after table {table_id} stored bot action {bots[-1]}"
            await asyncio.sleep(0.001)
        raise AssertionError("no bot acted for 10 s")
    finally:
        reader.close()


# --- the checks ---------------------------------------------------------------------------


def check_store(snap: dict[str, Any], when: str) -> None:
    assert snap["total"] == 0, when
    assert snap["audit"] == [], when
    assert sum(snap["balances"].values()) == 0, when
    for pid in PLAYERS:
        assert snap["balances"].get(f"player:{pid}", 0) == expected_balance(snap, pid), (when, pid)


def expected_views(snap: dict[str, Any], table_id: int, seat: int) -> list[Any]:
    """Every view the seat may legitimately have been shown of the table's current game,
    oldest first; the last one is the view of every stored action."""
    row = snap["tables"][table_id]
    return replay_views(row["params"], row["actions"], seat)


def check_seen(snap: dict[str, Any], clients: dict[str, Client], tables: dict, when: str) -> None:
    """Nothing a client was shown is missing from the store."""
    for table_id, spec in tables.items():
        for pid, seat in spec["seats"].items():
            seen = clients[pid].tables[table_id]["view"]
            if seen in expected_views(snap, table_id, seat):
                continue
            last = snap["last_games"].get(table_id)
            assert last is not None, (when, table_id, pid)
            final = replay_views(last["params"], last["history"], seat)[-1]
            assert seen == final, (when, table_id, pid, "a view that was never stored")


async def check_frozen_restart(hub: HubProcess, snap: dict[str, Any], tables: dict, when: str):
    """Restart with bots and deals frozen: every table is exactly at its last stored action."""
    await hub.start(**FROZEN)
    clients = await arrive(hub)
    due = unsettled_payouts(snap)
    try:
        for pid, client in clients.items():
            you = client.welcome["you"]  # type: ignore[attr-defined]  # noted on the test's client
            chips = snap["balances"][f"player:{pid}"] + due.get(f"player:{pid}", 0)
            assert you["chips"] == chips, (when, pid)
            lobby = await client.expect("lobby")
            assert {t["id"] for t in lobby["tables"]} == set(snap["tables"]), when
        for table_id, spec in tables.items():
            for pid, seat in spec["seats"].items():
                msg = await clients[pid].until(
                    lambda m, t=table_id: m["t"] == "table" and m["table"] == t
                )
                assert msg["seat"] == seat, (when, table_id, pid)
                assert msg["info"]["seats"][seat]["name"] == PLAYERS[pid]
                assert msg["info"]["seats"][seat]["away"] is False
                row = snap["tables"][table_id]
                status, played = row["info"]["status"], row["info"]["games_played"]
                if status == "playing" and expected_views(snap, table_id, seat)[-1]["over"]:
                    status, played = "between", played + 1  # settled on restart
                assert msg["info"]["status"] == status, (when, table_id)
                assert msg["info"]["games_played"] == played, (when, table_id)
                assert msg["view"] == expected_views(snap, table_id, seat)[-1], (when, table_id)
    finally:
        await leave(clients)
    await hub.kill()
    again = read_store(hub.data_dir, {t: spec["stake"] for t, spec in tables.items()})
    check_store(again, when + " (after the frozen restart)")
    for table_id, row in snap["tables"].items():
        assert again["tables"][table_id]["params"] == row["params"], (when, table_id)
        if not get_game(row["params"]["game"]).replay(row["params"], row["actions"]).is_over:
            assert again["tables"][table_id]["actions"] == row["actions"], (when, table_id)
            assert again["tables"][table_id]["info"] == row["info"], (when, table_id)
    expected = dict(snap["balances"])
    for account, amount in due.items():
        expected[account] = expected.get(account, 0) + amount
    assert {a: b for a, b in again["balances"].items() if b} == {
        a: b for a, b in expected.items() if b
    }, when


async def test_sigkill_mid_game_then_restart(tmp_path):
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    hub = HubProcess(tmp_path / "data")
    await hub.start(**FAST)
    clients = await arrive(hub)
    for client in clients.values():
        assert client.welcome["you"]["chips"] == START  # type: ignore[attr-defined]  # noted on the test's client
    tables = await set_up_tables(clients)
    stakes = {t: spec["stake"] for t, spec in tables.items()}
    interrupted: list[tuple[str, dict[str, Any]]] = []  # (when, live row) of unfinished games
    kills = [kill_at_random, kill_after_human_action, kill_after_bot_action, kill_at_random]
    humans = Humans(clients, rng)
    for round_no, kill in enumerate(kills):
        when = f"seed {seed}, kill {round_no} " + await kill(hub, humans, rng, tables)
        await humans.stop()
        snap = read_store(hub.data_dir, stakes)
        check_store(snap, when)
        check_seen(snap, clients, tables, when)
        await leave(clients)
        playing = [row for row in snap["tables"].values() if row["info"]["status"] == "playing"]
        assert set(snap["tables"]) == set(tables), when
        interrupted += [(when, row) for row in playing]
        await check_frozen_restart(hub, snap, tables, when)
        await hub.start(**FAST)
        clients = await arrive(hub)
        humans = Humans(clients, rng)
    assert interrupted, f"seed {seed}: no kill hit a game in progress"

    # Play on until every interrupted game has been finished and recorded.
    async def finished() -> None:
        while True:
            snap_games = {}
            for client in clients.values():
                for msg in client.log:
                    if msg["t"] == "table" and msg["view"] is not None and msg["view"]["over"]:
                        snap_games[msg["table"]] = msg["info"]["games_played"]
            if all(
                snap_games.get(row["id"], -1) > row["info"]["games_played"]
                for _, row in interrupted
            ):
                return
            await asyncio.sleep(0.05)

    await asyncio.wait_for(finished(), 40)
    await humans.stop()
    await hub.kill()
    await leave(clients)
    final = read_store(hub.data_dir, stakes)
    check_store(final, f"seed {seed}, at the end")
    records = {g["params"]["seed"]: g for g in final["games"].values()}
    for when, row in interrupted:
        if get_game(row["params"]["game"]).replay(row["params"], row["actions"]).is_over:
            continue
        game = records.get(row["params"]["seed"])
        assert game is not None, (when, "the interrupted game was never finished")
        assert game["params"] == row["params"], when
        # the game went on from its last stored action, never from an earlier one
        assert game["history"][: len(row["actions"])] == row["actions"], when
        assert len(game["history"]) > len(row["actions"]), when
