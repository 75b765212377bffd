"""SSH load: N players at tables of five, probes typing, the server measured from both sides.

    python bench/ssh_load.py --sessions 100 [--workers W] [--server-cores C] [--probes 4]
                             [--duration 20] [--ramp 10] [--pace SECONDS [--chat SECONDS]]
                             [--gateways G [--bus nats://…]]

Not a timed test. It starts the server (the same store, hub, SSH host and app workers as
``gambit serve``; ``--workers`` as there, by default one per core) in a child process, and
opens the client sessions from this process: asyncssh clients with 80×24 PTYs, which go
through the welcome screen to the lobby exactly as a player would (Enter). Then the server
seats them at tables of five (Prophet's Gambit), starts the tables one after another over
``--stagger`` seconds (about one deal: tables in every phase, as on a real server), where a
bot acts for one seat about once a second per table (0.75–1.25 s apart, as the hub's own
bots), and a few probe sessions type into the lobby chat. Seated players close the result of
a deal when it comes up (Enter, 0.5–2 s later), as people do. That is the *stress pace*.
With ``--pace SECONDS`` the tables go at a player's pace instead: every seated player who is
to decide does so after a time drawn around SECONDS (0.75–1.25 times it, so SECONDS is the
mean; several seats asked at once each take their own time), closes a deal's result 1–4 s
after it comes up, and now and then says a line in the table chat (``--chat``: about every
that many seconds per seated player, 60 by default; 0 for none): the chat opens (c), the
words are typed a key at a time as people type, Enter sends, Esc closes the chat. With
``BENCH_SLOW_CALLBACKS=0.15`` in the environment the server runs asyncio's debug mode and logs
every callback slower than that (its data folder is kept and named on stderr); with
``BENCH_PROFILE_LAPS=PREFIX`` (with ``--laps``), the SSH process is profiled lap by lap (CPU
time; ``PREFIX-lapN.prof``); with ``BENCH_NO_PLACEMENT=1``, apps stay on the worker they
started on (what moving them to their table's worker gains: the JSON's ``app_moves`` is then
0). With
``--server-cores C`` the server (with its workers) is pinned to the first C cores and the
clients to the others (all of them when none are left); by default both float over every
core, the clients' work competing with the server's. Prints, as its last line, one JSON
object:

* ``sessions``: N (the probes come on top).
* ``pace``: ``"stress"``, or the ``--pace`` in seconds.
* ``rss_mb_per_session``: the server's memory growth over all sessions, per session: its
  proportional set size (PSS, shared pages split between the processes that share them),
  the SSH process's and its workers' together.
* ``connect_to_lobby_ms_p50/p99``: from opening the TCP connection to the lobby on screen,
  without the wait between seeing the welcome screen and pressing Enter (client side).
* ``keystroke_echo_ms_p50/p99``: a probe's key press to the typed text on its screen (client
  side, the screen kept with pyte).
* ``action_to_all_screens_ms_p50/p99``: an action accepted by the hub to the first frame
  every seated player's session writes to its channel after it (or, rarely, finds already on
  that player's screen), for every seated player whose view of the table the action changed
  (a secret choice changes nothing on the other players' screens, and nothing is drawn).
  Server side, in the SSH process (with workers, after the frame has crossed back from the
  worker). The line before the last (details) lists the slowest actions and, for the five
  slowest, ``slowest_traced``: each seated player's frame as (app worker, ms) and what
  happened at other tables from half a second before (actions, deals starting), in ms from
  the action.
* ``first_paint_bytes``: bytes a client receives until its first screen is complete (median);
  ``_compressed``: the same through zlib@openssh.com's compression (modelled: a zlib stream per
  client, flushed per SSH packet, as asyncssh and OpenSSH do).
* ``bytes_per_action`` (and ``_compressed``): bytes a seated client receives per action at its
  table, during the measured window.
* ``cpu_percent``: the server's CPU time (SSH process and workers) over the measured window
  (100 = one core).
* ``cpu_ms_per_player_second``: the same CPU per player: ms of server CPU per second of the
  window per session (the probes counted).
* ``app_start_cpu_ms``: the server CPU it took to start one session's app (median over every
  session): in its app worker, from the session's start until the first frame that shows the
  app's first screen (the welcome screen), counting only the callbacks of that app (a worker
  interleaves a hundred apps; ``server/apphost/app_timing.py``, on in the bench's server
  through ``GAMBIT_APP_START_CPU``), reported over the worker link. Not the SSH handshake.
* ``hub_cpu_ms_per_action``: the hub's CPU time over the measured window per accepted action:
  thread time in the hub's message handling, actions, deal starts, commits (with the
  messages sent after them) and lobby flushes, in the SSH process, divided by the actions.
* ``apps_with_their_table``: at the report, the share of seated players' apps that run on
  their table's home worker (the one holding most of that table's seated apps; 1.0: every
  table drawn in one worker; about 0.6 for tables of five spread over two workers at
  random), read from the hub and the host alike for any server; ``app_moves``: the apps
  moved to their table's worker so far (None: a server that does not move them, or no
  workers). See server/apphost/placement.py.
* ``cpu_percent_by_lap``: with ``--laps K``, the window split into K laps of equal length,
  each lap's server CPU (None without): early and late in one run, which the machine's noise
  between runs cannot blur (issue 39: a minute into play cost more than the first). The
  details line has each lap's CPU by process, per action, the hub's per action, the deals
  started and the SSH process's collection pauses.

With ``--gateways G`` the same load goes through G gateways and a hub on NATS instead of one
``gambit serve`` process (bench/ssh_load_cluster.py says how it is measured there).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import cProfile
import functools
import gc
import json
import logging
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

if TYPE_CHECKING:
    from protocol.actions import Action

TABLE_SIZE = 5
ANSI = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
WELCOME = "Enter the lobby"
LOBBY = "Lobby chat"
#: The footer of the deal's result dialog ("⏎ Close"): only dialogs have it. An open chat's
#: footer says "esc Close chat": a "Close" is the dialog's once what follows it has come.
CLOSE_KEY = re.compile(rb"Close(?! chat)(?=[\s\S]{5})")
#: Bytes of one packet kept to look for the key again with the next (split between them).
CLOSE_TAIL = 10
#: A seated player closes a deal's result this many seconds after it comes up: at the
#: stress pace, and at a player's pace (``--pace``).
CLOSE_AFTER = (0.5, 2.0)
CLOSE_AFTER_AT_PACE = (1.0, 4.0)
#: At a player's pace, a decision takes this share of the pace, drawn evenly (the pace is the
#: mean) ...
DECIDE_SPREAD = (0.75, 1.25)
#: ... and a table waits for the next seat's time, or at most this many seconds (a deal that
#: starts by itself asks seats without an action of the bench's).
PACE_POLL = 0.5
#: What seated players say in the table chat. Only letters that are no table key and spaces:
#: a line typed while the chat is not open (a result came up meanwhile) does nothing.
CHAT_LINES = ("gg", "oh no", "hmm", "nope", "okay", "good hand", "my trump", "yay", "over")
#: A key every this many seconds while typing a chat line.
TYPING = (0.15, 0.4)
#: Seconds between an Esc and the next key (an Esc is a key of its own only when nothing
#: follows it within Textual's ESCAPE_DELAY).
ESC_PAUSE = 0.5


class PlayerPace:
    """When the seats of one table decide at a player's pace: each seat, from when it is first
    seen asked (by a state: a new deal is a new state), after its own time around the pace."""

    def __init__(self, pace: float, rng: random.Random) -> None:
        self.pace = pace
        self.rng = rng
        #: Each asked seat's state (by id) and the time it decides.
        self.due: dict[int, tuple[int, float]] = {}

    def ready(self, asked: Collection[int], state: object, now: float) -> list[int]:
        """The seats among ``asked`` whose time has come (forgotten then: a seat asked again
        takes a new time); seats no longer asked are forgotten too."""
        for seat in list(self.due):
            if seat not in asked:
                del self.due[seat]
        ready = []
        for seat in sorted(asked):
            known = self.due.get(seat)
            if known is None or known[0] != id(state):
                known = (id(state), now + self.pace * self.rng.uniform(*DECIDE_SPREAD))
                self.due[seat] = known
            if known[1] <= now:
                del self.due[seat]
                ready.append(seat)
        return ready


def percentile(values: list[float], p: float) -> float | None:
    """The p-th percentile (nearest rank), rounded to 0.1; None when nothing was measured."""
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return round(ordered[index], 1)


def pss_mb(pid: int) -> float:
    """A process's proportional set size: its own pages, and its share of shared ones."""
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def server_pss_mb(pids: list[int]) -> float:
    return sum(pss_mb(pid) for pid in pids)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used so far (``/proc/PID/stat``)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- the server (child process) ------------------------------------------------------------


class ServerProbe:
    """Runs inside the server: seats players, drives the tables, times actions to screens."""

    def __init__(self, hub: Any, host: Any) -> None:
        self.hub = hub
        self.host = host
        self.tables: list[int] = []
        self.frames = 0
        self.frames_unchanged = 0
        # action id → (accept time, sessions still to write a frame, latest frame time)
        self.open: dict[int, tuple[float, set[Any], list[float]]] = {}
        self.waiting: dict[Any, set[int]] = {}
        self.latencies: list[float] = []
        #: What each action was, and the slowest to reach every screen (for the details).
        self.kinds: dict[int, str] = {}
        self.slowest: list[tuple[float, str, int]] = []
        self.actions = 0
        self.unfinished = 0
        self.next_id = 0
        self.window = False
        self.pace = 0.0
        self.rss_base = server_pss_mb(self.pids())
        self.cpu_mark = 0.0
        self.wall_mark = 0.0
        original = hub.play.apply_action

        def apply_action(table: Any, seat: int, action: Action) -> None:
            # What each seat sees before and after: a seat whose view the action leaves as it
            # was has nothing new to draw, so no frame of theirs is waited for. (The clock
            # starts after the bench's own look at the views before, which the hub does not do.)
            seats = range(len(table.seats))
            state = table.state
            before = [state.view(s) for s in seats] if self.window and state else None
            accepted = time.perf_counter()
            self.hub_timed(original, table, seat, action)
            state = table.state
            after = [state.view(s) for s in seats] if before is not None and state else None
            changed = {s for s in seats if after is None or before[s] != after[s]}
            self.accepted(table, accepted, action, changed)

        hub.play.apply_action = apply_action
        host.frame_observers.append(self.on_frame)
        #: (time, table, what) of every action and deal start in the window, and each
        #: action's frames as (session's worker, ms): what the slowest actions waited behind.
        self.events: list[tuple[float, int, str]] = []
        self.frames_of: dict[int, list[tuple[int, float]]] = {}
        self.table_of: dict[int, int] = {}
        self.accepted_at: dict[int, float] = {}
        start_game = hub.play.start_game

        def started(table: Any, *args: Any, **kwargs: Any) -> Any:
            if self.window:
                self.events.append((time.perf_counter(), table.id, "deal starts"))
            return start_game(table, *args, **kwargs)

        hub.play.start_game = started
        # The hub's own CPU (thread time: it runs on the SSH process's one thread, among the
        # SSH connections): what it does for a message, an action, a deal starting, a commit
        # (and the messages that waited for it) and a lobby flush.
        self.hub_cpu = 0.0
        self._hub_depth = 0
        #: Table chat lines said in the window (``--pace``'s players chat).
        self.chat_lines = 0
        handle = hub.handle

        def counted(conn: Any, message: Any, *args: Any, **kwargs: Any) -> Any:
            if self.window and isinstance(message, dict) and message.get("t") == "chat":
                self.chat_lines += 1
            return handle(conn, message, *args, **kwargs)

        hub.handle = counted
        for owner, name in (
            (hub, "handle"),
            (hub, "commit"),
            (hub.lobby, "flush"),
            (hub.play, "start_game"),
        ):
            setattr(owner, name, self.hub_timing(getattr(owner, name)))
        self.gc_pauses: list[float] = []
        self._gc_started = 0.0
        gc.callbacks.append(self.on_gc)

    def hub_timed(self, method: Any, *args: Any) -> Any:
        """Call one of the hub's methods, adding its thread time to ``hub_cpu`` (once, when
        it calls another that is timed too)."""
        if self._hub_depth:
            return method(*args)
        self._hub_depth += 1
        started = time.thread_time()
        try:
            return method(*args)
        finally:
            self._hub_depth -= 1
            if self.window:
                self.hub_cpu += time.thread_time() - started

    def hub_timing(self, method: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            return self.hub_timed(functools.partial(method, **kwargs), *args)

        return timed

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        """Time every collection in the measured window (they stall every screen)."""
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif self.window:
            self.gc_pauses.append((time.perf_counter() - self._gc_started) * 1000)

    # seating and driving --------------------------------------------------------------------

    def seat(self, stagger: float = 0.0, pace: float = 0.0) -> dict[str, Any]:
        """Tables of five for every ``load…`` player, seated at once and started one after
        another over ``stagger`` seconds (a server's tables are at every stage of a deal, not
        all at the same one). ``pace``: a seated player's mean time to decide (0: the stress
        pace, about an action a second per table)."""
        self.pace = pace
        players = sorted(
            (p for p in self.hub.players.values() if p.name.startswith("load")),
            key=lambda p: p.name,
        )
        made = 0
        for start in range(0, len(players) - TABLE_SIZE + 1, TABLE_SIZE):
            group = players[start : start + TABLE_SIZE]
            owner = next(iter(group[0].sessions))
            message = {
                "t": "create_table",
                "game": "prophets_gambit",
                "players": TABLE_SIZE,
                "timer": 0,
            }
            self.hub.handle(owner, message)
            table_id = max(t.id for t in self.hub.tables.values() if t.owner == group[0].id)
            for player in group[1:]:
                self.hub.handle(next(iter(player.sessions)), {"t": "join", "table": table_id})
            self.tables.append(table_id)
            made += 1
        loop = asyncio.get_running_loop()
        for number, table_id in enumerate(self.tables):
            table = self.hub.tables[table_id]
            owner = next(iter(self.hub.players[table.owner].sessions))
            delay = stagger * number / max(1, made)
            loop.call_later(delay, self.start_table, owner, table_id)
        return {"tables": made, "seated": made * TABLE_SIZE}

    def start_table(self, owner: Any, table_id: int) -> None:
        self.hub.handle(owner, {"t": "start", "table": table_id})
        drive = self.drive_at_pace if self.pace else self.drive
        asyncio.get_running_loop().create_task(drive(table_id))

    def act(self, table: Any, seat: int) -> None:
        """A bot chooses ``seat``'s action, and the hub applies it."""
        from server.bots import make_bot

        state = table.state
        bot = make_bot(table.game, "heuristic", seed=f"{table.id}:{len(state.history)}")
        try:
            self.hub.play.apply_action(table, seat, bot.choose(state.view(seat)))
        except Exception as err:  # a refused action is the bot's problem, not the bench's
            logging.getLogger(__name__).warning("action refused: %s", err)

    def playing(self, table_id: int) -> Any:
        """The table, if a deal is on and someone is to decide; else None."""
        table = self.hub.tables.get(table_id)
        if table is None or table.state is None or table.status != "playing":
            return None
        return None if table.state.is_over or not table.state.pending() else table

    async def drive_at_pace(self, table_id: int) -> None:
        """Each seat asked to decide acts after its own time around the pace. The table
        sleeps until the next seat's time (not a poll: it runs in the server's process, whose
        CPU the bench measures)."""
        rng = random.Random(table_id)
        pace = PlayerPace(self.pace, rng)
        await asyncio.sleep(rng.random())
        while table_id in self.hub.tables:
            table = self.playing(table_id)
            now = time.perf_counter()
            if table is None:  # between deals: nobody is asked
                pace.due.clear()
                await asyncio.sleep(PACE_POLL)
                continue
            ready = pace.ready(table.state.pending(), table.state, now)
            if ready:  # one at a time; the seats asked next get their times at once
                self.act(table, ready[0])
                continue
            due = min((when for _state, when in pace.due.values()), default=now + PACE_POLL)
            await asyncio.sleep(max(0.0, min(due, now + PACE_POLL) - now))

    async def drive(self, table_id: int) -> None:
        """The stress pace: a bot acts for one pending seat about once a second."""
        rng = random.Random(table_id)
        await asyncio.sleep(rng.random())
        while table_id in self.hub.tables:
            # About once a second, as people and the hub's bots do: never exactly, or every
            # table that a busy moment delayed would wake, and act, in the same instant.
            await asyncio.sleep(rng.uniform(0.75, 1.25))
            table = self.playing(table_id)
            if table is not None:
                self.act(table, min(table.state.pending()))

    # timing ---------------------------------------------------------------------------------

    def pids(self) -> list[int]:
        workers = self.host.workers
        return [os.getpid(), *(workers.pids if workers is not None else [])]

    def seated_sessions(self, table: Any, seats: set[int] | None = None) -> set[Any]:
        by_conn = {s.hub_conn: s for s in self.host.sessions if s.hub_conn is not None}
        sessions = set()
        for number, seat in enumerate(table.seats):
            if seats is not None and number not in seats:
                continue
            player = self.hub.players.get(seat.player) if seat.player else None
            for session in player.sessions if player else ():
                ours = by_conn.get(session.conn)
                if ours is not None and ours.driver is not None:
                    sessions.add(ours)
        return sessions

    def accepted(
        self,
        table: Any,
        when: float,
        what: Action | None = None,
        changed: set[int] | None = None,
    ) -> None:
        if not self.window:
            return
        self.actions += 1
        sessions = self.seated_sessions(table, changed)
        if not sessions:
            return
        action = self.next_id
        self.next_id += 1
        self.open[action] = (when, set(sessions), [when])
        state = table.state
        self.kinds[action] = (what.TYPE if what is not None else "?") + (
            " (ends the deal)" if state is not None and state.is_over else ""
        )
        self.events.append((when, table.id, self.kinds[action]))
        self.table_of[action] = table.id
        self.accepted_at[action] = when
        self.frames_of[action] = []
        for session in sessions:
            self.waiting.setdefault(session, set()).add(action)

    def on_frame(self, session: Any, size: int) -> None:
        if self.window:
            self.frames += 1
            self.frames_unchanged += size == 0
        actions = self.waiting.pop(session, None)
        if not actions:
            return
        now = time.perf_counter()
        for action in actions:
            accepted, left, latest = self.open[action]
            left.discard(session)
            latest[0] = now
            worker = getattr(getattr(session.app, "worker", None), "number", 0)
            self.frames_of[action].append((worker, round((now - accepted) * 1000)))
            if not left:
                del self.open[action]
                self.latencies.append((now - accepted) * 1000)
                self.slowest.append((self.latencies[-1], self.kinds.get(action, "?"), action))

    def trace(self, ms: float, action: int) -> dict[str, Any]:
        """One slow action: its frames (worker, ms) and what happened at other tables from
        half a second before it until it was on every screen (ms from its acceptance)."""
        start, table_id = self.accepted_at[action], self.table_of[action]
        return {
            "ms": round(ms),
            "kind": self.kinds[action],
            "frames": self.frames_of[action],
            "others": [
                (round((t - start) * 1000), table, what)
                for t, table, what in self.events
                if start - 0.5 <= t <= start + ms / 1000 and table != table_id
            ],
        }

    def mark(self) -> dict[str, Any]:
        self.window = True
        self.actions = 0
        self.latencies.clear()
        self.slowest.clear()
        self.events.clear()
        self.gc_pauses.clear()
        self.open.clear()
        self.waiting.clear()
        self.frames = self.frames_unchanged = 0
        self.hub_cpu = 0.0
        self.chat_lines = 0
        self.cpu_pids = self.pids()
        self.cpu_marks = [cpu_seconds(pid) for pid in self.cpu_pids]
        self.cpu_mark = sum(self.cpu_marks)
        self.wall_mark = time.perf_counter()
        self._lap_start = (self.wall_mark, list(self.cpu_marks), 0, 0.0, 0, 0)
        self._profile_lap()
        return {"rss_mb": server_pss_mb(self.pids()), "sessions": len(self.host.sessions)}

    def _profile_lap(self) -> None:
        """With ``BENCH_PROFILE_LAPS=PREFIX``: the SSH process's thread (the hub, the SSH
        connections) profiled lap by lap, in CPU time, each lap to ``PREFIX-lapN.prof``."""
        prefix = os.environ.get("BENCH_PROFILE_LAPS")
        if not prefix:
            return
        profile = getattr(self, "_profile", None)
        if profile is not None:
            profile.disable()
            self._laps_profiled = getattr(self, "_laps_profiled", 0) + 1
            profile.dump_stats(f"{prefix}-lap{self._laps_profiled}.prof")
        self._profile = cProfile.Profile(time.thread_time)
        self._profile.enable()

    def lap(self) -> dict[str, Any]:
        """The window so far since the last lap (or its start): the server's CPU, by process
        too, per action, the hub's, the deals started and the collections' pauses. Laps of
        one window compare early and late within one run (``--laps``)."""
        now = time.perf_counter()
        cpus_now = [cpu_seconds(pid) for pid in self.cpu_pids]
        started, cpus_then, actions_then, hub_then, starts_then, pauses_then = self._lap_start
        wall = now - started
        cpus = [n - t for n, t in zip(cpus_now, cpus_then, strict=True)]
        actions = self.actions - actions_then
        starts = sum(1 for _t, _table, what in self.events if what == "deal starts")
        self._lap_start = (now, cpus_now, self.actions, self.hub_cpu, starts, len(self.gc_pauses))
        self._profile_lap()
        return {
            "ended": time.strftime("%H:%M:%S"),  # (as the server's log tells time)
            "seconds": round(wall, 1),
            "cpu_percent": round(100 * sum(cpus) / wall, 1),
            "cpu_percent_by_process": [round(100 * c / wall, 1) for c in cpus],
            "actions": actions,
            "cpu_ms_per_action": round(1000 * sum(cpus) / max(1, actions), 2),
            "hub_cpu_ms_per_action": round(1000 * (self.hub_cpu - hub_then) / max(1, actions), 2),
            "deal_starts": starts - starts_then,
            "gc_pause_ms_ssh_process": round(sum(self.gc_pauses[pauses_then:]), 1),
        }

    def colocation(self) -> dict[str, Any]:
        """How many seated players' apps run on their table's home worker (the one holding
        most of the table's seated apps): tables drawn together (issue 39). Read from the hub
        and the host, so a server that does not place apps by table is measured alike."""
        worker_of = {
            s.hub_conn: getattr(s.app, "worker", None)
            for s in self.host.sessions
            if s.hub_conn is not None and s.app is not None
        }
        seated = together = 0
        for table_id in self.tables:
            table = self.hub.tables.get(table_id)
            if table is None:
                continue
            workers = [
                worker_of.get(session.conn)
                for pid in table.humans()
                if (player := self.hub.players.get(pid)) is not None
                for session in player.sessions
            ]
            counts = collections.Counter(id(w) for w in workers if w is not None)
            seated += sum(counts.values())
            together += max(counts.values(), default=0)
        workers = getattr(self.host, "workers", None)
        return {
            "apps_with_their_table": round(together / seated, 3) if seated else None,
            "app_moves": getattr(workers, "moves", None),
        }

    def report(self) -> dict[str, Any]:
        cpus = [cpu_seconds(pid) - m for pid, m in zip(self.cpu_pids, self.cpu_marks, strict=True)]
        cpu = sum(cpus)
        wall = time.perf_counter() - self.wall_mark
        self.window = False
        slowest = sorted(self.slowest, reverse=True)
        # In-process drivers, when the apps run here (with workers, they are theirs).
        drivers = [
            s.app.driver
            for s in self.host.sessions
            if s.app is not None and hasattr(getattr(s.app, "driver", None), "frames_full")
        ]
        started = time.perf_counter()
        gc.collect()
        full_gc_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        if self.host.memory is not None:
            self.host.memory.sweep()
        sweep_ms = (time.perf_counter() - started) * 1000
        starts = [
            s.app.start_cpu_ms
            for s in self.host.sessions
            if getattr(s.app, "start_cpu_ms", None) is not None
        ]
        return {
            **self.colocation(),
            "app_start_cpu_ms": statistics.median(starts) if starts else None,
            "app_starts_measured": len(starts),
            "hub_cpu_ms_per_action": 1000 * self.hub_cpu / max(1, self.actions),
            "full_gc_ms": full_gc_ms,
            "gc_pause_ms_max": max(self.gc_pauses, default=0.0),
            "gc_pauses": len(self.gc_pauses),
            "sweep_ms": sweep_ms,
            "actions": self.actions,
            "chat_lines": self.chat_lines,
            "latencies": self.latencies,
            "unfinished": len(self.open),
            "cpu_percent": 100 * cpu / wall,
            "slowest_actions": [(round(ms), kind) for ms, kind, _ in slowest[:8]],
            "slowest_traced": [self.trace(ms, action) for ms, _, action in slowest[:5]],
            "cpu_percent_by_process": [round(100 * c / wall, 1) for c in cpus],
            "rss_base_mb": self.rss_base,
            "sessions": len(self.host.sessions),
            "workers": len(self.pids()) - 1,
            "frames_in_window": self.frames,
            "frames_unchanged_in_window": self.frames_unchanged,
            "frames_full": sum(d.frames_full for d in drivers) if drivers else None,
            "frames_skipped": sum(d.frames_skipped for d in drivers) if drivers else None,
            "gc": gc.get_stats(),
            "screens": dict(
                collections.Counter(
                    type(s.app.app.screen).__name__
                    for s in self.host.sessions
                    if s.app is not None and hasattr(getattr(s.app, "app", None), "screen")
                )
            ),
        }


def seat_arguments(line: str) -> tuple[float, float]:
    """``seat [STAGGER [PACE]]``'s numbers (0 for each one left out)."""
    numbers = [float(word) for word in line.split()[1:3]] + [0.0, 0.0]
    return numbers[0], numbers[1]


def loopback_host_config(data_dir: Path, workers: int, limit: int) -> Any:
    """The SSH host's settings for a load run: every client comes from this machine, so the
    per-address door limits (each with a test of its own) are raised to ``limit``, or they
    would measure themselves here instead of the load."""
    from server.ssh.config import HostConfig

    return HostConfig(
        port=0,
        max_sessions=limit,
        max_per_address=limit,
        max_unauthenticated=limit,
        connection_burst=limit,
        connections_per_second=float(limit),
        idle_timeout=0,
        freeze_sessions=True,
        app_workers=workers,
        log_file=str(data_dir / "server.log"),
    )


async def serve_child(data_dir: Path, workers: int, strict: bool = False) -> None:
    """The server side: what ``gambit serve`` runs, plus the probe, driven over stdin.

    ``strict`` (bench/abuse.py): the limits of ``gambit serve`` as they are by default, and the
    hub on a TCP listener too (as ``gambit hub --tcp``), for attackers who speak the protocol.
    """

    from server.hub import Hub, HubConfig
    from server.ssh.config import HostConfig
    from server.ssh.host import SSHHost
    from server.ssh.keys import load_or_create_host_key
    from server.store import Store

    logging.basicConfig(filename=data_dir / "server.log", level=logging.WARNING)
    if os.environ.get("BENCH_SLOW_CALLBACKS"):  # log what stalls the event loop
        loop = asyncio.get_running_loop()
        loop.set_debug(True)
        loop.slow_callback_duration = float(os.environ["BENCH_SLOW_CALLBACKS"])
        logging.getLogger("asyncio").setLevel(logging.WARNING)
        print(data_dir, file=sys.stderr)
    store = Store.open(data_dir)
    hub = Hub(store, HubConfig(bot_delay=1.0, turn_timer=0, between_games=2.0))
    await hub.start()
    if strict:
        config = HostConfig(
            port=0,
            idle_timeout=0,
            freeze_sessions=True,
            app_workers=workers,
            log_file=str(data_dir / "server.log"),
        )
    else:
        config = loopback_host_config(data_dir, workers, 10_000)
    host = SSHHost(hub, config, load_or_create_host_key(data_dir))
    port = await host.start()
    if os.environ.get("BENCH_NO_PLACEMENT") and host.workers is not None:
        host.workers.by_table = False  # apps stay where they started (what moving gains)
    hub_tcp = None
    if strict:
        from server.hub.listener import serve_tcp

        hub_tcp = (await serve_tcp(hub, "127.0.0.1", 0)).sockets[0].getsockname()[1]
    probe = ServerProbe(hub, host)
    # The real stdout: while apps run, Textual points sys.stdout at its capture.
    out = sys.__stdout__
    assert out is not None
    out.write(json.dumps({"port": port, "hub_tcp": hub_tcp}) + "\n")
    out.flush()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := (await reader.readline()).decode().strip():
        if line.startswith("seat"):
            answer = probe.seat(*seat_arguments(line))
        elif line == "mark":
            answer = probe.mark()
        elif line == "lap":
            answer = probe.lap()
        elif line == "report":
            answer = probe.report()
        elif line == "pids":
            answer = {"pids": probe.pids()}
        elif line == "store":
            store_ = hub.store
            answer = {"commits": store_.commits, "commit_ms_max": store_.commit_ms_max}
            store_.commit_ms_max = 0.0  # the longest commit since the last question
        else:
            break
        out.write(json.dumps(answer) + "\n")
        out.flush()
    await host.close()
    await hub.stop()
    store.close()


# --- the clients (this process) ------------------------------------------------------------


class Client:
    """One player's SSH session: counts bytes, finds the welcome and lobby screens."""

    def __init__(
        self, name: str, probe: bool, close_after: tuple[float, float] = CLOSE_AFTER
    ) -> None:
        self.name = name
        self.probe = probe
        #: Seconds from a deal's result coming up to the player closing it.
        self.close_after = close_after
        #: Results that came up so far, and whether the player is typing a chat line.
        self.results = 0
        self.chatting = False
        self.bytes = 0
        self.zbytes = 0
        self._z = zlib.compressobj()
        self.text = ""
        self.started = 0.0
        self.welcome_at = 0.0
        self.enter_at = 0.0
        self.lobby_at = 0.0
        self.first_paint = (0, 0)
        self.changed = asyncio.Event()
        self.closing = False
        self.tail = b""
        self.chan: Any = None
        self.conn: Any = None
        self.screen: Any = None
        self.stream: Any = None
        if probe:
            import pyte

            self.screen = pyte.Screen(80, 24)
            self.stream = pyte.ByteStream(self.screen)

    def received(self, data: bytes) -> None:
        self.bytes += len(data)
        self.zbytes += len(self._z.compress(data) + self._z.flush(zlib.Z_SYNC_FLUSH))
        if self.stream is not None:
            self.stream.feed(data)
        if not self.lobby_at:
            self.text = (self.text + ANSI.sub("", data.decode("utf-8", "replace")))[-8000:]
        elif not self.closing and CLOSE_KEY.search(self.tail + data):
            # The result of a deal is up: a player reads it and closes it, as people do.
            self.closing = True
            self.results += 1
            asyncio.get_running_loop().call_later(
                random.uniform(*self.close_after), self.close_dialog
            )
        self.tail = (self.tail + data)[-CLOSE_TAIL:]
        self.changed.set()

    def close_dialog(self) -> None:
        if self.chatting:  # (the result closed the chat: the line stops at its next key)
            asyncio.get_running_loop().call_later(0.5, self.close_dialog)
            return
        self.closing = False
        if self.chan is not None:
            with contextlib.suppress(Exception):  # the session may be over by now
                self.chan.write(b"\r")

    def reset_counts(self) -> None:
        self.bytes = self.zbytes = 0

    def display(self) -> str:
        return "\n".join(self.screen.display) if self.screen is not None else ""


def _guest_client() -> Any:
    import asyncssh

    class Guest(asyncssh.SSHClient):
        """Keyboard-interactive with no prompts: how a guest without a key comes in."""

        def kbdint_auth_requested(self) -> str:
            return ""

        def kbdint_challenge_received(self, name, instructions, lang, prompts):
            return [""] * len(prompts)

    return Guest


def GuestClient() -> Any:  # a factory, as asyncssh expects
    return _guest_client()()


def make_session_class(client: Client) -> Any:
    import asyncssh

    class Session(asyncssh.SSHClientSession):
        def data_received(self, data: bytes, datatype: Any) -> None:
            client.received(data)

    return Session


async def wait_change(client: Client, timeout: float) -> bool:
    client.changed.clear()
    try:
        await asyncio.wait_for(client.changed.wait(), timeout)
    except TimeoutError:
        return False
    return True


async def quiet(client: Client, seconds: float, limit: float = 10.0) -> None:
    """Wait until nothing has arrived for ``seconds``."""
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline and await wait_change(client, seconds):
        pass


async def connect(
    client: Client, port: int, timeout: float = 300.0, source: str | None = None
) -> None:
    """``source``: the loopback address to connect from (a server's limits are per address)."""
    import asyncssh

    client.started = time.perf_counter()
    client.conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=client.name,
        known_hosts=None,
        client_keys=None,
        agent_path=None,
        compression_algs=["none"],
        preferred_auth=["keyboard-interactive"],
        client_factory=GuestClient,
        local_addr=(source, 0) if source else None,
    )
    client.chan, _ = await client.conn.create_session(
        make_session_class(client), term_type="xterm-256color", term_size=(80, 24), encoding=None
    )
    deadline = time.perf_counter() + timeout
    while WELCOME not in client.text:
        await wait_change(client, 1.0)
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{client.name}: no welcome screen")
    client.welcome_at = time.perf_counter()
    await quiet(client, 0.15)
    client.first_paint = (client.bytes, client.zbytes)
    client.text = ""
    client.enter_at = time.perf_counter()
    client.chan.write(b"\r")
    while LOBBY not in client.text:
        await wait_change(client, 1.0)
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{client.name}: no lobby")
    client.lobby_at = time.perf_counter()
    client.text = ""


def connect_ms(client: Client) -> float:
    return ((client.welcome_at - client.started) + (client.lobby_at - client.enter_at)) * 1000


async def shows(client: Client, text: str, timeout: float) -> bool:
    """Wait until the probe's screen shows ``text``; False if it does not in time."""
    deadline = time.perf_counter() + timeout
    while text not in client.display():
        left = deadline - time.perf_counter()
        if left <= 0 or not await wait_change(client, left):
            return False
    return True


#: Letters that are no lobby key binding, so a keystroke that misses the chat box does no harm.
HARMLESS = "adeghiklmprtuvxyz"


async def type_keys(client: Client, stop: asyncio.Event, echoes: list[float]) -> None:
    """A probe types letters into the lobby chat, timing each until it shows on screen."""
    rng = random.Random(client.name)
    while not stop.is_set():
        # A marker no other text on screen has, then up to 16 letters, then all erased.
        typed = "zx"
        for _attempt in range(3):
            client.chan.write(b"c")  # into the chat box
            await quiet(client, 0.3)
            client.chan.write(typed.encode())
            if await shows(client, typed, 15.0):
                break
            client.chan.write(b"\x1b")  # not in the chat box: try again
            await quiet(client, 0.3)
        else:
            log(f"{client.name}: could not type into the chat box")
            return
        while len(typed) < 18 and not stop.is_set():
            await asyncio.sleep(rng.uniform(0.15, 0.4))
            letter = rng.choice(HARMLESS)
            typed += letter
            sent = time.perf_counter()
            client.chan.write(letter.encode())
            if await shows(client, typed, 10.0):
                echoes.append((time.perf_counter() - sent) * 1000)
        client.chan.write(b"\x7f" * len(typed))  # backspace it all away
        await quiet(client, 0.3)


async def chat(client: Client, stop: asyncio.Event, every: float) -> None:
    """A seated player says a line in the table chat about every ``every`` seconds: opens the
    chat (c), types the line a key at a time, sends it (Enter) and closes the chat (Esc).
    Never while a result is up; a result that comes up meanwhile closes the chat (the
    screen does so), and the line stops there, the rest of its keys unsent."""
    rng = random.Random(client.name)
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), rng.expovariate(1 / every))
        if stop.is_set() or client.closing or client.chan is None:
            continue
        results = client.results
        client.chatting = True
        try:
            for key in ["c", *rng.choice(CHAT_LINES), "\r", "\x1b"]:
                if client.results != results:
                    break
                client.chan.write(key.encode())
                await asyncio.sleep(rng.uniform(*TYPING))
        except Exception:  # the session may be over by now
            return
        finally:
            client.chatting = False
        # A key right after the Esc would make the two one key (Alt and it): a pause.
        await asyncio.sleep(ESC_PAUSE)


class Child:
    """The server process and its command line on stdin/stdout."""

    def __init__(self, data_dir: Path, workers: int, strict: bool = False) -> None:
        from server.apphost.app_timing import MEASURE
        from server.apphost.app_worker import REPORT_UNCHANGED

        mode = ["strict"] if strict else []
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--child", str(data_dir), str(workers), *mode],
            env={**os.environ, REPORT_UNCHANGED: "1", MEASURE: "1"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        started = self.read()
        self.port = started["port"]
        self.hub_tcp = started.get("hub_tcp")

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the server process died")
        return json.loads(line)

    async def ask(self, command: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return await asyncio.to_thread(self.read)

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            assert self.proc.stdin is not None
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def start_server(args: argparse.Namespace, data_dir: Path) -> Any:
    """One ``gambit serve`` (a :class:`Child`), or with ``--gateways`` the same load's
    cluster: gateways and a hub on NATS (ssh_load_cluster.py, which answers alike)."""
    if not args.gateways:
        return Child(data_dir, args.workers)
    from ssh_load_cluster import Cluster  # (bench/ is this script's folder: on sys.path)

    return Cluster(data_dir, args.workers, args.gateways, args.bus)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    cores = sorted(os.sched_getaffinity(0))
    data_dir = Path(tempfile.mkdtemp(prefix="gambit-bench-"))
    child = start_server(args, data_dir)
    if args.server_cores:
        server_cores = set(cores[: args.server_cores])
        os.sched_setaffinity(child.proc.pid, server_cores)
        for pid in (await child.ask("pids"))["pids"]:
            os.sched_setaffinity(pid, server_cores)
        os.sched_setaffinity(0, set(cores[args.server_cores :]) or set(cores))
    close_after = CLOSE_AFTER_AT_PACE if args.pace else CLOSE_AFTER
    clients = [Client(f"load{i:04d}", False, close_after) for i in range(args.sessions)]
    probes = [Client(f"probe{i}", True) for i in range(args.probes)]
    try:
        # Ramp: a steady stream of arrivals, as players would trickle in.
        tasks = []
        for client in clients + probes:
            tasks.append(asyncio.create_task(connect(client, child.port)))
            await asyncio.sleep(1 / args.ramp)
        await asyncio.gather(*tasks)
        log(f"{len(tasks)} sessions in the lobby")
        seated = await child.ask(f"seat {args.stagger} {args.pace}")
        log(f"seated: {seated}")
        stop = asyncio.Event()
        chat_every = args.chat if args.chat is not None else (60.0 if args.pace else 0.0)
        chatting = [
            asyncio.create_task(chat(c, stop, chat_every))
            for c in (clients[: seated["seated"]] if chat_every > 0 else [])
        ]
        await asyncio.sleep(args.stagger + args.settle)
        echoes: list[float] = []
        typing = [asyncio.create_task(type_keys(p, stop, echoes)) for p in probes]
        await asyncio.sleep(1.0)
        marked = await child.ask("mark")
        for client in clients:
            client.reset_counts()
        client_mark, window_mark = time.process_time(), time.perf_counter()
        laps = []
        for _lap in range(args.laps):
            await asyncio.sleep(args.duration / args.laps)
            if args.laps > 1:
                laps.append(await child.ask("lap"))
                log(f"lap {len(laps)}: {json.dumps(laps[-1])}")
        client_cpu = time.process_time() - client_mark
        window = time.perf_counter() - window_mark
        # Typing stops before the report: the server's report runs a full collection, which
        # stalls it, and a key pressed meanwhile would time that stall, not the window.
        stop.set()
        await asyncio.gather(*typing, *chatting)
        report = await child.ask("report")
        in_window = {c.name for c in clients[: seated["seated"]]}
        seated_clients = [c for c in clients if c.name in in_window]
        per_client = max(1, report["actions"]) * TABLE_SIZE
        window_bytes = sum(c.bytes for c in seated_clients)
        window_zbytes = sum(c.zbytes for c in seated_clients)
        connects = [connect_ms(c) for c in clients + probes]
        paints = [c.first_paint[0] for c in clients + probes]
        zpaints = [c.first_paint[1] for c in clients + probes]
        total = args.sessions + args.probes
        details = {
            "workers": report["workers"],
            "server_cores": args.server_cores or len(cores),
            "cpu_percent_ssh_process_and_workers": report["cpu_percent_by_process"],
            "cpu_percent_clients": round(100 * client_cpu / window, 1),
            "actions": report["actions"],
            "chat_lines": report.get("chat_lines"),
            "unfinished_actions": report["unfinished"],
            "frames_in_window": report["frames_in_window"],
            "frames_unchanged_in_window": report["frames_unchanged_in_window"],
            "frames_full": report["frames_full"],
            "frames_skipped": report["frames_skipped"],
            "echo_samples": len(echoes),
            "app_starts_measured": report["app_starts_measured"],
            "first_paint_bytes_max": max(paints),
            "rss_mb_server": round(marked["rss_mb"], 1),
            "rss_mb_at_start": round(report["rss_base_mb"], 1),
            "gen2_collections_ssh_process": report["gc"][2]["collections"],
            "full_gc_ms": round(report["full_gc_ms"], 1),
            "gc_pause_ms_max": round(report["gc_pause_ms_max"], 1),
            "gc_pauses": report["gc_pauses"],
            "sweep_ms": round(report["sweep_ms"], 1),
            "slowest_actions_ms": report["slowest_actions"],
            "slowest_traced": report["slowest_traced"],
            "screens": report["screens"],
            "laps": laps,
        }
        log(json.dumps(details))
        return {
            "sessions": args.sessions,
            "pace": args.pace or "stress",
            "rss_mb_per_session": round((marked["rss_mb"] - report["rss_base_mb"]) / total, 2),
            "connect_to_lobby_ms_p50": percentile(connects, 50),
            "connect_to_lobby_ms_p99": percentile(connects, 99),
            "keystroke_echo_ms_p50": percentile(echoes, 50),
            "keystroke_echo_ms_p99": percentile(echoes, 99),
            "action_to_all_screens_ms_p50": percentile(report["latencies"], 50),
            "action_to_all_screens_ms_p99": percentile(report["latencies"], 99),
            "first_paint_bytes": round(statistics.median(paints)),
            "apps_with_their_table": report.get("apps_with_their_table"),
            "app_moves": report.get("app_moves"),
            "first_paint_bytes_compressed": round(statistics.median(zpaints)),
            "bytes_per_action": round(window_bytes / per_client),
            "bytes_per_action_compressed": round(window_zbytes / per_client),
            "cpu_percent": round(report["cpu_percent"], 1),
            # (cpu_percent is ms per second per 100: ×10 is ms of CPU per second of window)
            "cpu_ms_per_player_second": round(report["cpu_percent"] * 10 / total, 2),
            "app_start_cpu_ms": None
            if report["app_start_cpu_ms"] is None
            else round(report["app_start_cpu_ms"], 1),
            "hub_cpu_ms_per_action": round(report["hub_cpu_ms_per_action"], 2),
            "cpu_percent_by_lap": [lap["cpu_percent"] for lap in laps] if laps else None,
        }
    finally:
        for client in clients + probes:
            if client.conn is not None:
                client.conn.close()
        child.stop()
        if not (os.environ.get("BENCH_SLOW_CALLBACKS") or os.environ.get("BENCH_KEEP")):
            shutil.rmtree(data_dir, ignore_errors=True)


def log(text: str) -> None:
    print(text, flush=True)


def add_cluster_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--gateways",
        type=int,
        default=0,
        help="serve through this many gateways (one port, SO_REUSEPORT) and a hub on NATS, "
        "the --workers split between the gateways (0: one gambit serve process)",
    )
    parser.add_argument(
        "--bus",
        metavar="URL",
        help="with --gateways: this NATS server (default: start one on a free port)",
    )


def main() -> None:
    if len(sys.argv) in (4, 5) and sys.argv[1] == "--child":
        from server.ssh.serve import use_app_fps

        use_app_fps()  # as gambit serve does
        strict = sys.argv[4:] == ["strict"]
        asyncio.run(serve_child(Path(sys.argv[2]), int(sys.argv[3]), strict))
        return
    from server.ssh.serve import default_workers

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100, help="seated players (N)")
    parser.add_argument(
        "--workers",
        type=int,
        default=default_workers(),
        help="app worker processes, as gambit serve --workers (default: one per core)",
    )
    parser.add_argument(
        "--server-cores",
        type=int,
        default=0,
        help="pin the server to this many cores, the clients to the rest (0: no pinning)",
    )
    parser.add_argument("--probes", type=int, default=4, help="sessions that type keys")
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds")
    parser.add_argument("--ramp", type=float, default=10.0, help="new connections per second")
    parser.add_argument(
        "--stagger",
        type=float,
        default=30.0,
        help="start the tables one after another over this many seconds (about a deal)",
    )
    parser.add_argument(
        "--settle", type=float, default=3.0, help="seconds after the last table started"
    )
    parser.add_argument(
        "--laps",
        type=int,
        default=1,
        help="split the window into this many laps, each one's CPU reported (early and late "
        "in one run: e.g. --settle 0 --duration 120 --laps 6)",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="a seated player's mean time to decide (default 0: the stress pace, about one "
        "action a second per table of five); results closed 1-4 s after they come up",
    )
    parser.add_argument(
        "--chat",
        type=float,
        metavar="SECONDS",
        help="a seated player says a table chat line about every this many seconds "
        "(default: 60 with --pace, none at the stress pace; 0: none)",
    )
    add_cluster_arguments(parser)
    args = parser.parse_args()
    result = asyncio.run(run(args))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
