"""Keep CPython's full garbage collections from stalling every player at once.

All sessions share one event loop, so a full collection, which walks every live object (a
hundred apps are millions of them), stops every screen while it runs: 84 ms with 10 sessions
and 325 ms with 50 on the prototype in the project's notes, 3.3 s with 104 sessions of the
Gambit app in ``bench/ssh_load.py``. Almost all of those objects live as long as their
session, so they need no collecting meanwhile: everything alive is frozen (``gc.freeze()``:
out of the collector's sight) at start, a few seconds after sessions arrive, every half
minute, and after every collection CPython runs by itself (see below). The collector then
only walks what was made since the last of those (tens of milliseconds at worst at 104
sessions, instead of 0.2–0.4 s when a half minute of new objects had piled up).

Everything a collection leaves alive is frozen right after it, the young collections too. The
objects a move makes that outlive it are nearly all alive for good (caches, the latest table
message, the lines on screen), so without that they went on to the middle generation, whose
collection walked them again: with 50 apps a worker's middle-generation collections stalled it
110 ms every 12 s or so, in the measured window of ``bench/ssh_load.py`` (its server log),
each time holding up every move in flight there. Frozen at once, each survivor is walked once,
by the young collection that met it, and the middle generation stays empty. What a young
collection sees alive and only later becomes cyclic garbage waits for a sweep: in
``bench/table_updates.py`` (630 app updates) a full collection then found 30–900 such
objects, as many as without freezing after young collections.

The youngest generation is collected after 5,000 new objects instead of CPython's 700. Apps
make and drop objects by the thousand on every move (lines, strips, styles); nearly all die
by reference counting within a few moves, but a collection every 700 found many still alive
and moved them into the older generations, whose collections then walked them again:
measured on 20 apps (``bench/table_updates.py``), 270 collections taking 0.8 s of 200 moves
became 12 taking 0.25 s, the longest pause about the same (30–50 ms on a slow day).

The youngest generation is also collected every half second (``YOUNG_EVERY``), whatever its
count says. CPython counts a generation's objects as made minus freed, and an object freed
counts even when it is an old, frozen one: once the apps' bounded caches are full (the shared
log tails and strips, ``functools.lru_cache``'s, ...), every entry made frees an old one, the
count stays near zero, and the new entries pile up in the youngest generation unwalked until
something else makes the count reach its threshold (or the 30 s freeze hides them). The next
collection then walked all of them at once: in ``bench/long_tables.py`` with 100 apps in one
process, the first game's 64 young collections took 12 ms each, every later game's 9-13
took 62-88 ms each (the same CPU in all: each survivor is walked once either way), and the
workers of ``bench/ssh_load.py`` logged young collections stalling them 100-245 ms a
minute into play. Collected every half second, a young collection walks half a second of
survivors at most; when there are none it costs microseconds.

The price: what is frozen and becomes garbage in a reference cycle stays in memory until a
*sweep* (unfreeze, one full collection, freeze again), whose stall grows with everything
alive. An app whose player has left is taken apart once it has ended
(``server/apphost/ended_apps.py``), so reference counting frees nearly all of it (5,800
objects an app for a sweep before, 256 after); what is left still waits for a sweep. So
sweeps are amortised: one runs only once at least as many sessions have ended as are still
open (and at least 20), at most once a minute. Memory for ended sessions never
exceeds that of the open ones, and the stall is paid once per turnover of the server, not
every few seconds.

An app moved to another worker (its table's: ``server/apphost/workers.py``) leaves its old
app behind, frozen, like an ended session's; but its player is still here, now with a second
app. Moves come in bursts, when many players sit down together (a server filling up, a game
night's round seated), and then nobody leaves: waiting for turnover kept every moved player's
old app for as long as they played, +0.6-0.85 MB per session in ``bench/ssh_load.py``. So
moved-out apps have a rule of their own: a sweep once as many have moved out (since the last
sweep) as a quarter of the apps still open, and at least 10; it waits until no app has moved
out for a few seconds (a burst is swept once, after it), at most a minute, and comes at most
once a minute. Their memory stays near a quarter of the open apps', and each sweep (its
stall grows with the open apps) is paid for by a quarter of the open apps having moved, each
move itself a whole app start on the table's worker (67-76 ms of CPU in ``bench/ssh_load.py``
on a loaded machine). Swept, the memory is the worker's to reuse (for apps arriving or moving
in); CPython and glibc keep most of it from the system (``docs/benchmarks.md``).

A server whose apps run in workers (``gambit serve``'s own process: the hub and the SSH
connections) has light sessions: an ended one leaves about 50 objects of cyclic garbage, not
an app. Its sweeps found 2,000-9,000 objects while walking 90,000-170,000 (everything alive,
two thirds of it what was imported at start), and held the event loop of every player
86-570 ms each (``bench/soak.py``, every 2-4 minutes). So there (``light``) nothing is frozen
but what is alive at start (modules, classes, the hub as restored): what comes later stays in
the collector's middle generation, which it never collects by itself (a threshold it never
reaches), and a sweep is a plain full collection, which walks only that, never the start's
objects; and sweeps wait for four times the turnover (each ended session's garbage is small).
There the youngest generation is collected every tenth of a second (``LIGHT_YOUNG_EVERY``),
not every half: its survivors are never walked again (they wait in the middle generation), so
the collections walk the same objects either way, in pauses a fifth as long; and every one of
them holds the loop of every player (its young collections were 25-65 ms under load in
``bench/soak.py``, its event loop's lag p99 28 ms on a quiet machine against a target of 20).

Garbage also piles up while everybody stays: an object frozen while alive (every half minute,
after every collection) that becomes garbage later (a screen closed, a result dismissed, a
log's old lines, a widget replaced) waits for a sweep, and players who sit and play for a long
time end no sessions to bring one. In ``bench/soak.py`` (30 terminals, 200 light players) a
worker's sweeps found up to 2.4 million objects, its memory rose to 390 MB with some fifteen
apps open, and each such sweep stalled its players for as long as it walked them all. So a
policy that freezes also sweeps once the frozen generation has grown to ``FROZEN_GROWTH``
times what the last sweep left alive (as a tracing collector sizes its heap: Go's ``GOGC``,
CPython's own full collections once a quarter more has survived): the garbage waiting is then
at most about what is alive, each sweep walks at most about twice the live objects, and the
sweeps' total work stays proportional to the objects frozen (each sweep is paid for by as
many new ones). It is checked at each half-minute freeze; it comes at most once a minute.
What is alive grows with the apps open, though, and a worker filling up with players (a
server's first minutes, a game night seated) would sweep at every doubling, walking everything
to find nothing, its players stalled each time (at full cores: a suspect in ``bench/ssh_load.py
--sessions 500``'s connect p99 of 6 s, 1.3 s before these sweeps). So what the last sweep
left is counted per app open then, and the bar grows with the apps opened since: sweeps come
for the garbage of the players who are there, not for more players.

After each sweep, and at each half-minute freeze, the C allocator gives its free pages back to
the system (``server/malloc_trim.py``): what Python frees over 512 bytes is glibc's, which
keeps it resident otherwise (a few MB in a soak, more under bursts), and a worker's memory
right after a sweep decides its recycling.

A sweep first drops the event loop's cancelled timers: asyncio keeps one until its deadline,
with the context it was made in, and a Textual app's context holds the app (its
``active_app``): an app that ended with a notice up (its 12 s timer cancelled) would stay
alive through a sweep in those 12 s and, frozen again, until the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import heapq
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator

from server.malloc_trim import trim

log = logging.getLogger(__name__)

#: Collect the youngest generation after this many new objects (CPython: 700; see above).
YOUNG_THRESHOLD = 5000
#: ... and at least this often (seconds), whatever CPython's count says (see above).
YOUNG_EVERY = 0.5
#: ... and in a light process (see above: its collections hold every player's loop).
LIGHT_YOUNG_EVERY = 0.1
#: A collection longer than this is logged.
SLOW_COLLECTION = 0.1
#: Freeze this long after a session starts (its first screens are built by then) ...
SETTLE = 5.0
#: ... and this often anyway (tables, screens and caches grow as people play).
FREEZE_EVERY = 30.0
#: Sweep once at least this many sessions have ended (and as many as are open) ...
SWEEP_AFTER_ENDED = 20
#: ... but not more often than this.
MIN_SWEEP_INTERVAL = 60.0
#: Sweep once at least this many apps have moved to another worker (see above) ...
SWEEP_AFTER_MOVED = 10
#: ... and at least this share of the apps still open ...
MOVED_SHARE = 0.25
#: ... once none has moved out for this long (at most ``MIN_SWEEP_INTERVAL`` after that).
MOVES_SETTLE = 3.0
#: A light process (see above) sweeps once this many times as many sessions have ended as
#: are open ...
LIGHT_TURNOVER = 4
#: ... and its collector never collects the older generations by itself (their thresholds).
NEVER = 1 << 30
#: Sweep once the frozen generation has grown to this many times what the last sweep left
#: alive (see above) ...
FROZEN_GROWTH = 2.0
#: ... and to at least this many objects (a process that has just started freezes its imports).
FROZEN_FLOOR = 100_000
#: Sweeps for growth alone (see ``sweep_on_growth``) come at most this often: what leaks
#: grows slowly (the hub's: about 600 objects a minute at 10,000 players), while players
#: arriving grow memory fast and would have it swept, at ever greater cost, as they come.
GROWTH_SWEEP_INTERVAL = 3600.0
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int | None:
    """This process's resident memory (None where ``/proc`` does not say)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * PAGE_SIZE
    except (OSError, ValueError, IndexError):
        return None


def drop_cancelled_timers() -> None:
    """Let go of the running loop's cancelled timers now, as asyncio itself does once they are
    more than half of its timers (``BaseEventLoop._run_once``): until its deadline, a cancelled
    timer keeps the context it was made in, and with it the Textual app whose context it was
    (see the module docstring). Asyncio's own timer heap (``_scheduled``) is private; a loop
    without one is left as it is."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    scheduled = getattr(loop, "_scheduled", None)
    if not isinstance(scheduled, list) or not hasattr(loop, "_timer_cancelled_count"):
        return
    kept = []
    for handle in scheduled:
        if handle.cancelled():
            handle._scheduled = False  # (as asyncio does: it is no longer in the heap)
        else:
            kept.append(handle)
    if len(kept) < len(scheduled):
        heapq.heapify(kept)
        loop._scheduled = kept  # type: ignore[attr-defined]  # asyncio's private heap (above)
        loop._timer_cancelled_count = 0  # (its count of them, with it)


class FrozenSessions:
    """The freeze-and-sweep policy for one server process (see the module docstring).

    ``young``: collect the youngest generation after so many new objects. ``sweep_on_growth``:
    sweep also once resident memory has grown by this share since the last sweep (None:
    only after sessions end). ``light``: the sessions' apps run elsewhere (see the module
    docstring: only what is alive at start is frozen). ``frozen_growth``: sweep also once the
    frozen generation has grown to this many times what the last sweep left (None: not; see
    ``FROZEN_GROWTH``)."""

    def __init__(
        self,
        young: int = YOUNG_THRESHOLD,
        sweep_on_growth: float | None = None,
        light: bool = False,
        frozen_growth: float | None = FROZEN_GROWTH,
    ) -> None:
        self.young = young
        self.sweep_on_growth = sweep_on_growth
        self.light = light
        self.frozen_growth = None if light else frozen_growth  # (nothing frozen grows there)
        self._thresholds = gc.get_threshold()
        self.resident_after_sweep: int | None = None
        #: What the start or the last sweep left frozen (see ``FROZEN_GROWTH``) ...
        self.frozen_after_sweep = 0
        #: ... of which the start's (imports, the hub as restored) ...
        self.frozen_at_start = 0
        #: ... and the apps open then (see the module docstring) and now.
        self.open_at_sweep = 0
        self.open = 0
        self.ended = 0
        #: Of those, apps that went on in another worker (see the module docstring) ...
        self.moved = 0
        #: ... and when they first were enough for a sweep (None: not yet).
        self._moved_due: float | None = None
        self.sweeps = 0
        self._gc_started = 0.0
        self.last_sweep = time.monotonic()
        self._freeze_handle: asyncio.TimerHandle | None = None
        self._sweep_handle: asyncio.TimerHandle | None = None
        #: Whether the sweep on its way is the moves' (put off by each further move).
        self._sweep_waits_for_moves = False
        self._periodic: asyncio.TimerHandle | None = None
        self._young_timer: asyncio.TimerHandle | None = None
        #: Told after each sweep (the app worker reports its memory then: a worker whose
        #: memory stays high right after one is recycled, see ``workers.py``).
        self.on_swept: Callable[[], None] | None = None

    def started(self) -> None:
        """Everything alive now lives as long as the server: freeze it, and keep freezing."""
        gc.collect()
        gc.freeze()
        self.resident_after_sweep = resident_bytes()
        self.frozen_after_sweep = self.frozen_at_start = gc.get_freeze_count()
        self._thresholds = gc.get_threshold()
        _, older, oldest = self._thresholds
        if self.light:
            older = oldest = NEVER
        gc.set_threshold(self.young, older, oldest)
        gc.callbacks.append(self._collected)
        loop = asyncio.get_running_loop()
        self._periodic = loop.call_later(FREEZE_EVERY, self._tick)
        if self.young:  # (a process that collects nothing by itself is left so: the hub)
            self._young_timer = loop.call_later(self.young_every, self._collect_young)

    def _collect_young(self) -> None:
        """The youngest generation collected by the clock (see the module docstring); what
        survives is frozen by :meth:`_collected`."""
        gc.collect(0)
        loop = asyncio.get_running_loop()
        self._young_timer = loop.call_later(self.young_every, self._collect_young)

    @property
    def young_every(self) -> float:
        """Seconds between the young collections by the clock (see the module docstring)."""
        return LIGHT_YOUNG_EVERY if self.light else YOUNG_EVERY

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        """What survived a collection is long-lived: out of the next ones' way."""
        if phase == "start":
            self._gc_started = time.perf_counter()
            return
        took = time.perf_counter() - self._gc_started
        if took > SLOW_COLLECTION:
            log.info(
                "a collection of generation %d stalled this process for %.0f ms",
                info.get("generation"),
                took * 1000,
            )
        if not self.light:
            gc.freeze()

    def _tick(self) -> None:
        if not self.light:
            self._freeze_what_lives()
        trim()  # (see the module docstring)
        self._periodic = asyncio.get_running_loop().call_later(FREEZE_EVERY, self._tick)
        if self._sweep_handle is not None:
            return
        if self.frozen_growth is not None:
            limit = self.frozen_growth * max(self.live_now(), FROZEN_FLOOR)
            if gc.get_freeze_count() > limit:
                self._sweep_at(self.last_sweep + MIN_SWEEP_INTERVAL if self.sweeps else 0.0)
                return
        if self.sweep_on_growth is None:
            return
        now, then = resident_bytes(), self.resident_after_sweep
        if now is None or then is None or now <= then * (1 + self.sweep_on_growth):
            return
        if time.monotonic() - self.last_sweep >= GROWTH_SWEEP_INTERVAL:
            self.sweep()

    def live_now(self) -> float:
        """About what is alive now: what the last sweep left, and for each app opened since,
        as much as each app open then had (see the module docstring)."""
        live = float(self.frozen_after_sweep)
        if self.open_at_sweep and self.open > self.open_at_sweep:
            per_app = (live - self.frozen_at_start) / self.open_at_sweep
            live += max(0.0, per_app) * (self.open - self.open_at_sweep)
        return live

    @contextlib.contextmanager
    def own_cycles_freed(self) -> Iterator[None]:
        """In a process that collects nothing by itself (``young`` 0: the hub), free the
        reference cycles a block makes and drops, walking only the block's own objects:
        everything older is frozen first (at no cost: the generations are spliced), so the
        young collection at its end meets just what the block made. For a library that makes
        cycles at every call (openskill's ``rate``: its nested sorting closures refer to each
        other). With the collector on, the next young collection frees them anyway."""
        if self.young:
            yield
            return
        gc.freeze()
        try:
            yield
        finally:
            gc.collect(0)  # (whatever it leaves alive is frozen: see _collected)

    def session_started(self) -> None:
        self.open += 1
        # One freeze for a burst of arrivals, once the last of them has settled.
        if self._freeze_handle is not None:
            self._freeze_handle.cancel()
        loop = asyncio.get_running_loop()
        self._freeze_handle = loop.call_later(SETTLE, self._freeze)

    def session_ended(self, still_open: int, moved: bool = False) -> None:
        """A session's app has ended here (``moved``: it goes on in another app worker)."""
        self.ended += 1
        self.moved += moved
        self.open = still_open
        earliest = self.last_sweep + MIN_SWEEP_INTERVAL if self.sweeps else 0.0
        turnover = LIGHT_TURNOVER * still_open if self.light else still_open
        if self.ended >= max(SWEEP_AFTER_ENDED, turnover):
            self._sweep_at(earliest)
        elif moved and self.moved >= max(SWEEP_AFTER_MOVED, MOVED_SHARE * still_open):
            now = time.monotonic()
            if self._moved_due is None:
                self._moved_due = now
            settled = min(now + MOVES_SETTLE, self._moved_due + MIN_SWEEP_INTERVAL)
            self._sweep_at(max(earliest, settled), for_moves=True)

    def _sweep_at(self, when: float, for_moves: bool = False) -> None:
        """Sweep at ``when`` (``time.monotonic``), unless a sweep is on its way already: the
        moves' sweep is put off by each further move (and brought forward by turnover)."""
        if self._sweep_handle is not None:
            if not self._sweep_waits_for_moves:
                return
            self._sweep_handle.cancel()
        wait = max(0.0, when - time.monotonic())
        self._sweep_handle = asyncio.get_running_loop().call_later(wait, self.sweep)
        self._sweep_waits_for_moves = for_moves

    def _freeze(self) -> None:
        self._freeze_handle = None
        if not self.light:
            self._freeze_what_lives()

    @staticmethod
    def _freeze_what_lives() -> None:
        """Freeze what is alive, after a young collection: objects made since the last one
        that are garbage already (a layout's recursive closure, with the map it made) would
        otherwise be frozen with the rest and wait for a sweep."""
        gc.collect(0)
        gc.freeze()

    def sweep(self) -> None:
        """Collect what ended sessions left behind, then freeze what is still alive."""
        if self._sweep_handle is not None:  # (a sweep asked for directly: none is due after it)
            self._sweep_handle.cancel()
        self._sweep_handle = None
        started = time.perf_counter()
        drop_cancelled_timers()
        if self.light:  # (what was alive at start stays frozen, out of the walk)
            found = gc.collect()
        else:
            gc.unfreeze()
            found = gc.collect()
            gc.freeze()
        trim()  # what the sweep freed, and what the C allocator kept (see the module docstring)
        self.resident_after_sweep = resident_bytes()
        self.frozen_after_sweep = gc.get_freeze_count()
        self.open_at_sweep = self.open
        self.ended = self.moved = 0
        self._moved_due = None
        self._sweep_waits_for_moves = False
        self.sweeps += 1
        self.last_sweep = time.monotonic()
        # (the memory a sweep leaves, with the apps open then, is what tells a leak from a
        # high-water mark in a soak's log: the RSS between sweeps holds garbage waiting)
        # (and Python's live blocks beside it: resident memory well above what the blocks
        # need is memory the allocators keep, not objects kept alive)
        resident = self.resident_after_sweep
        log.info(
            "swept %d objects in %.0f ms; %d frozen; %.1f MB resident with %d open; "
            "%d blocks alive (pid %d)",
            found,
            (time.perf_counter() - started) * 1000,
            gc.get_freeze_count(),
            (resident or 0) / 2**20,
            self.open,
            sys.getallocatedblocks(),
            os.getpid(),  # (the server and its app workers write one log)
        )
        if self.on_swept is not None:
            self.on_swept()

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._collected)
        _, older, oldest = self._thresholds
        gc.set_threshold(700, older, oldest)
        handles = (self._freeze_handle, self._sweep_handle, self._periodic, self._young_timer)
        for handle in handles:
            if handle is not None:
                handle.cancel()
