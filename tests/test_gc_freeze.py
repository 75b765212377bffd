"""The freeze-and-sweep policy: frozen garbage waits for a sweep, and sweeps come by themselves."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import sys
import time
import weakref
from collections import deque
from itertools import pairwise
from typing import Any

import pytest

from server import gc_freeze
from server.gc_freeze import FrozenSessions


class Node:
    """A reference cycle: only the garbage collector can free it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def policy():
    made = FrozenSessions()
    yield made
    made.close()
    gc.unfreeze()  # leave the test process as it was


def test_frozen_garbage_waits_for_a_sweep(policy):
    node = Node()
    ref = weakref.ref(node)
    policy._freeze()
    del node
    gc.collect()
    assert ref() is not None  # out of the collector's sight
    policy.sweep()
    assert ref() is None
    assert gc.get_freeze_count() > 0  # what is alive is frozen again


def test_a_sweep_logs_the_memory_it_leaves_and_the_apps_open(policy, caplog):
    """A soak's log then tells a leak (the memory after sweeps rising at the same apps
    open) from a high-water mark (between sweeps, garbage waiting is in the RSS)."""
    policy.open = 3
    with caplog.at_level("INFO", logger="server.gc_freeze"):
        policy.sweep()
    (line,) = [r.getMessage() for r in caplog.records if "swept" in r.getMessage()]
    resident = float(line.split("; ")[2].split(" MB")[0])
    assert resident == pytest.approx(policy.resident_after_sweep / 2**20, abs=0.1)
    assert resident > 1 and "with 3 open;" in line
    blocks = int(line.split("; ")[-1].split(" blocks")[0])
    assert blocks == pytest.approx(sys.getallocatedblocks(), rel=0.05)


async def test_what_a_young_collection_leaves_alive_is_frozen_and_its_garbage_freed(policy):
    policy.started()
    before = gc.get_freeze_count()
    alive = [Node() for _ in range(50)]
    garbage = Node()
    ref = weakref.ref(garbage)
    del garbage
    gc.collect(0)
    assert ref() is None  # a young collection still frees young garbage
    assert gc.get_freeze_count() >= before + len(alive)  # the survivors are frozen
    assert gc.get_objects(1) == []  # nothing waits in the middle generation to be walked again


async def test_a_full_cache_does_not_pile_up_young_objects_for_one_long_collection(
    policy, monkeypatch
):
    """A full bounded cache frees an old (frozen) entry for every new one, so CPython's count
    of the youngest generation stays near zero: without collections by the clock, the new
    entries piled up there, unwalked, for one long collection to walk at once (a worker's
    caches fill within a minute of play)."""
    monkeypatch.setattr(gc_freeze, "YOUNG_EVERY", 0.01, raising=False)
    cache = {i: [[i]] for i in range(5000)}
    policy.started()  # (the cache is frozen, as a worker's are by the time they are full)
    made = len(cache)
    largest = 0
    for _ in range(30):  # 30 moments of play, each making 1,000 entries and dropping as many
        for _ in range(1000):
            cache[made] = [[made]]
            made += 1
            del cache[next(iter(cache))]
        largest = max(largest, len(gc.get_objects(0)))
        await asyncio.sleep(0.02)
    assert gc.get_count()[0] < 100  # (what CPython's count saw: nothing to collect for)
    assert largest <= 2100  # one moment's entries (two objects each), not all of them


async def test_sweeps_follow_ended_sessions(policy, monkeypatch):
    monkeypatch.setattr(gc_freeze, "SWEEP_AFTER_ENDED", 3)
    monkeypatch.setattr(gc_freeze, "MIN_SWEEP_INTERVAL", 0.0)
    for _ in range(2):
        policy.session_ended(still_open=0)
    await asyncio.sleep(0.05)
    assert policy.sweeps == 0
    policy.session_ended(still_open=0)
    await asyncio.sleep(0.05)
    assert policy.sweeps == 1 and policy.ended == 0
    # With many players still here, a sweep (its stall grows with them) waits for turnover.
    for _ in range(5):
        policy.session_ended(still_open=10)
    await asyncio.sleep(0.05)
    assert policy.sweeps == 1


async def test_a_policy_that_sweeps_on_growth_sweeps_once_memory_grew_by_its_share(monkeypatch):
    sizes = [100, 120, 140, 200]  # resident bytes at start, then at each tick
    monkeypatch.setattr(gc_freeze, "resident_bytes", lambda: sizes.pop(0) if sizes else 200)
    monkeypatch.setattr(gc_freeze, "FREEZE_EVERY", 0.01)
    monkeypatch.setattr(gc_freeze, "GROWTH_SWEEP_INTERVAL", 0.0)
    policy = FrozenSessions(sweep_on_growth=0.5)
    try:
        policy.started()  # 100 at start: a sweep is due above 150
        node = Node()
        ref = weakref.ref(node)
        gc.freeze()
        del node
        for _ in range(100):
            await asyncio.sleep(0.01)
            if policy.sweeps:
                break
        assert policy.sweeps == 1 and ref() is None  # at 200, and the frozen cycle is gone
        assert policy.resident_after_sweep == 200
        await asyncio.sleep(0.1)
        assert policy.sweeps == 1  # no more growth, no more sweeps
    finally:
        policy.close()
        gc.unfreeze()


async def test_a_policy_without_growth_sweeps_does_not_sweep_on_growth(monkeypatch):
    sizes = [100, 1000]
    monkeypatch.setattr(gc_freeze, "resident_bytes", lambda: sizes.pop(0) if sizes else 1000)
    monkeypatch.setattr(gc_freeze, "FREEZE_EVERY", 0.01)
    monkeypatch.setattr(gc_freeze, "GROWTH_SWEEP_INTERVAL", 0.0)
    policy = FrozenSessions()
    try:
        policy.started()
        await asyncio.sleep(0.1)
        assert policy.sweeps == 0
    finally:
        policy.close()
        gc.unfreeze()


async def test_a_hub_tells_its_policy_of_sessions_and_sweeps_after_they_end(store, monkeypatch):
    from server.hub import Hub
    from server.hub.main import hub_memory

    from .hub.conftest import fast_config
    from .hub.harness import connect

    monkeypatch.setattr(gc_freeze, "SWEEP_AFTER_ENDED", 2)
    monkeypatch.setattr(gc_freeze, "MIN_SWEEP_INTERVAL", 0.0)
    hub = Hub(store, fast_config())
    await hub.start()
    memory = hub_memory(hub)
    try:
        assert gc.get_threshold()[0] == memory.young
        clients = [await connect(hub) for _ in range(2)]
        for i, client in enumerate(clients):
            await client.hello(f"Gc{i}")
        assert memory.ended == 0
        for client in clients:
            await client.close()
        for _ in range(100):
            await asyncio.sleep(0.02)
            if memory.sweeps:
                break
        assert memory.sweeps == 1  # two sessions ended, none open: swept
    finally:
        memory.close()
        gc.unfreeze()
        await hub.stop()


async def test_growth_sweeps_wait_for_their_interval(monkeypatch):
    monkeypatch.setattr(gc_freeze, "resident_bytes", lambda: 100)
    monkeypatch.setattr(gc_freeze, "FREEZE_EVERY", 0.01)
    policy = FrozenSessions(sweep_on_growth=0.5)
    try:
        policy.started()
        monkeypatch.setattr(gc_freeze, "resident_bytes", lambda: 1000)  # grown tenfold
        await asyncio.sleep(0.1)
        assert policy.sweeps == 0  # (not within the hour since it started)
        policy.last_sweep -= gc_freeze.GROWTH_SWEEP_INTERVAL
        await asyncio.sleep(0.1)
        assert policy.sweeps == 1
    finally:
        policy.close()
        gc.unfreeze()


async def test_a_policy_without_young_collections_frees_a_blocks_own_cycles_at_its_end():
    policy = FrozenSessions(young=0)
    try:
        policy.started()
        assert gc.get_threshold()[0] == 0  # no collection comes by itself
        older = Node()
        older_ref = weakref.ref(older)
        del older  # garbage from before the block: left for a sweep
        with policy.own_cycles_freed():
            made = Node()
            made_ref = weakref.ref(made)
            kept = Node()
            del made
            assert made_ref() is not None
        assert made_ref() is None  # the block's own cycle, freed at its end
        assert older_ref() is not None  # nothing older was walked
        assert weakref.ref(kept)() is kept
        policy.sweep()
        assert older_ref() is None
    finally:
        policy.close()
        gc.unfreeze()


async def test_apps_moved_out_are_swept_at_a_quarter_of_those_open_once_the_moves_settle(
    policy, monkeypatch
):
    monkeypatch.setattr(gc_freeze, "SWEEP_AFTER_MOVED", 3)
    monkeypatch.setattr(gc_freeze, "MOVES_SETTLE", 30.0)
    node = Node()
    ref = weakref.ref(node)
    policy._freeze()
    del node
    for _ in range(10):  # sessions that ended, as many as will move: they wait for turnover
        policy.session_ended(still_open=40)
    for _ in range(9):  # under a quarter of the 40 open
        policy.session_ended(still_open=40, moved=True)
    assert policy._sweep_handle is None
    policy.session_ended(still_open=40, moved=True)
    first = policy._sweep_handle
    assert first is not None and policy.sweeps == 0  # due, once the moves settle
    await asyncio.sleep(0.01)
    policy.session_ended(still_open=40, moved=True)
    assert first.cancelled() and policy._sweep_handle.when() > first.when()  # put off
    monkeypatch.setattr(gc_freeze, "MOVES_SETTLE", 0.0)
    policy.session_ended(still_open=40, moved=True)  # (the moves have settled)
    for _ in range(20):
        await asyncio.sleep(0.01)
        if policy.sweeps:
            break
    assert policy.sweeps == 1 and ref() is None
    assert policy.ended == policy.moved == 0


async def test_the_moves_sweep_waits_at_most_a_minute_for_them_to_settle(policy, monkeypatch):
    monkeypatch.setattr(gc_freeze, "SWEEP_AFTER_MOVED", 1)
    loop = asyncio.get_running_loop()
    policy.session_ended(still_open=2, moved=True)
    due = policy._sweep_handle.when()
    assert due - loop.time() <= gc_freeze.MOVES_SETTLE
    policy._moved_due -= gc_freeze.MIN_SWEEP_INTERVAL  # (moves have come for a minute)
    policy.session_ended(still_open=2, moved=True)
    assert policy._sweep_handle.when() - loop.time() < 0.1  # not put off again


async def test_a_sweep_frees_what_only_a_cancelled_timers_context_holds(policy):
    """asyncio keeps a cancelled timer, with the context it was made in, until its deadline:
    a Textual app's timers hold the app so (its ``active_app``)."""
    holder: contextvars.ContextVar[Node] = contextvars.ContextVar("holder")
    node = Node()
    ref = weakref.ref(node)
    context = contextvars.copy_context()
    context.run(holder.set, node)
    asyncio.get_running_loop().call_later(3600, print, context=context).cancel()
    del node, context
    policy._freeze()
    policy.sweep()
    assert ref() is None
    assert policy.sweeps == 1


async def test_a_light_processs_sweep_walks_only_what_came_after_its_start():
    """Apps in workers (``gambit serve``'s own process): what is alive at start (modules,
    classes) stays frozen through sweeps, so a sweep walks only what came since, and still
    frees every cycle that came since; survivors wait in the middle generation, which the
    collector never collects by itself."""
    policy = FrozenSessions(light=True)
    try:
        policy.started()
        at_start = gc.get_freeze_count()
        assert at_start > 1000  # (pytest, asyncio and the server's modules)
        assert gc.get_threshold()[1:] == (gc_freeze.NEVER, gc_freeze.NEVER)
        alive = [Node() for _ in range(50)]
        garbage = Node()
        ref = weakref.ref(garbage)
        del garbage
        gc.collect(0)  # a young collection: its survivors are not frozen ...
        assert gc.get_freeze_count() == at_start
        walked = len(gc.get_objects())  # ... what a sweep walks: far less than at start
        assert walked < at_start / 2
        policy.sweep()
        assert ref() is None
        assert gc.get_freeze_count() == at_start  # nothing unfrozen, nothing more frozen
        assert all(gc.is_tracked(node) for node in alive)
    finally:
        policy.close()
        gc.unfreeze()


async def test_a_light_processs_young_collections_walk_a_tenth_of_a_second_of_survivors():
    """In ``gambit serve``'s own process (light) each young collection holds every player's
    event loop, and what it walks is what survived since the last: the collections by the clock
    come every tenth of a second there, so none walks more than about that long's survivors. As
    the hub plays, its old state is freed as new is made, so CPython's count stays near zero and
    only the clock brings a collection (the cache below stands for it)."""
    state: deque[list[list[int]]] = deque(([[i]] for i in range(5000)), maxlen=5000)
    collections: list[float] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info["generation"] == 0:
            collections.append(time.perf_counter())

    policy = FrozenSessions(light=True)
    gc.callbacks.append(seen)
    try:
        policy.started()  # (the state alive at start is frozen)
        made = 0
        largest = 0
        began = time.perf_counter()
        while time.perf_counter() - began < 1.5:  # moments of play, each 200 new entries
            for _ in range(200):
                state.append([[made]])  # (two objects; the oldest entry's two freed)
                made += 1
            largest = max(largest, len(gc.get_objects(0)))
            await asyncio.sleep(0.005)
        elapsed = time.perf_counter() - began
    finally:
        gc.callbacks.remove(seen)
        policy.close()
        gc.unfreeze()
    assert gc.get_count()[0] < 1000  # (CPython's count saw nearly nothing to collect for)
    gaps = [later - earlier for earlier, later in pairwise(collections)]
    assert gaps and max(gaps) < 0.45  # (every half second before: 0.5 s of them to walk)
    assert largest < 2 * made / elapsed * 0.25  # a quarter second's new objects at most


async def test_a_light_process_sweeps_at_four_times_the_turnover(monkeypatch):
    monkeypatch.setattr(gc_freeze, "MIN_SWEEP_INTERVAL", 0.0)
    policy = FrozenSessions(light=True)
    try:
        policy.started()
        for _ in range(39):
            policy.session_ended(still_open=10)
        await asyncio.sleep(0.05)
        assert policy.sweeps == 0  # (a heavy process would have swept at 20)
        policy.session_ended(still_open=10)
        await asyncio.sleep(0.05)
        assert policy.sweeps == 1
    finally:
        policy.close()
        gc.unfreeze()


async def test_frozen_garbage_of_players_who_stay_is_swept_once_the_frozen_doubles(monkeypatch):
    """Nobody leaves, but what was frozen alive becomes garbage (closed screens, old lines):
    a sweep comes once the frozen generation is twice what the last sweep left."""
    monkeypatch.setattr(gc_freeze, "FREEZE_EVERY", 0.01)
    monkeypatch.setattr(gc_freeze, "FROZEN_FLOOR", 0)
    monkeypatch.setattr(gc_freeze, "MIN_SWEEP_INTERVAL", 0.0)
    policy = FrozenSessions()
    try:
        policy.started()
        base = policy.frozen_after_sweep
        garbage = [Node() for _ in range(base // 2)]  # half as many again: not yet
        ref = weakref.ref(garbage[0])
        await asyncio.sleep(0.1)  # frozen by the ticks, alive
        del garbage
        await asyncio.sleep(0.1)
        assert policy.sweeps == 0 and ref() is not None
        alive = [Node() for _ in range(base // 2 + 1000)]  # now over twice what the start left
        for _ in range(100):
            await asyncio.sleep(0.01)
            if policy.sweeps:
                break
        assert policy.sweeps == 1 and ref() is None
        # The garbage is gone, not frozen again; what is alive is.
        assert policy.frozen_after_sweep < base + len(alive) + base // 4
    finally:
        policy.close()
        gc.unfreeze()


def test_the_ssh_host_is_light_when_its_apps_run_in_workers(tmp_path):
    from server.hub import Hub
    from server.ssh.config import HostConfig
    from server.ssh.host import SSHHost
    from server.ssh.keys import load_or_create_host_key
    from server.store import Store

    key = load_or_create_host_key(tmp_path)
    with Store() as store:
        hub = Hub(store)
        for workers, light in ((2, True), (0, False)):
            config = HostConfig(port=0, app_workers=workers, freeze_sessions=True)
            host = SSHHost(hub, config, key)
            assert host.memory is not None and host.memory.light is light


async def test_a_policy_without_frozen_growth_sweeps_does_not_sweep_as_the_frozen_grows(
    monkeypatch,
):
    monkeypatch.setattr(gc_freeze, "FREEZE_EVERY", 0.01)
    monkeypatch.setattr(gc_freeze, "FROZEN_FLOOR", 0)
    monkeypatch.setattr(gc_freeze, "MIN_SWEEP_INTERVAL", 0.0)
    policy = FrozenSessions(frozen_growth=None)
    try:
        policy.started()
        alive = [Node() for _ in range(3 * policy.frozen_after_sweep)]
        await asyncio.sleep(0.1)
        assert policy.sweeps == 0 and len(alive) > 0
    finally:
        policy.close()
        gc.unfreeze()


async def test_players_arriving_do_not_bring_sweeps_but_the_garbage_of_those_there_does(
    monkeypatch,
):
    """The frozen generation grows with every app that opens; a worker filling up with
    players is not swept for that (each sweep would walk everything to find nothing), only
    for garbage beyond what its apps hold."""
    monkeypatch.setattr(gc_freeze, "FREEZE_EVERY", 0.01)
    monkeypatch.setattr(gc_freeze, "FROZEN_FLOOR", 0)
    monkeypatch.setattr(gc_freeze, "MIN_SWEEP_INTERVAL", 0.0)
    policy = FrozenSessions()
    apps: list[list[Node]] = []
    try:
        policy.started()
        per_app = max(gc.get_freeze_count() // 4, 1000)

        def arrive(count: int) -> None:
            for _ in range(count):
                policy.session_started()
                apps.append([Node() for _ in range(per_app)])

        arrive(8)  # twice the start's objects and more: the first sweep (nothing yet to go by)
        for _ in range(100):
            await asyncio.sleep(0.01)
            if policy.sweeps:
                break
        assert policy.sweeps == 1
        arrive(24)  # four times the apps: the frozen doubles twice, all of it alive
        await asyncio.sleep(0.2)
        assert policy.sweeps == 1, "a sweep for players arriving"
        gc.freeze()
        live = gc.get_freeze_count()  # (everything is alive)
        garbage = [Node() for _ in range(live * 6 // 10)]
        ref = weakref.ref(garbage[0])
        await asyncio.sleep(0.1)  # frozen alive ...
        del garbage  # ... then garbage, while every player stays
        await asyncio.sleep(0.1)
        assert policy.sweeps == 1 and ref() is not None
        more = [Node() for _ in range(live * 6 // 10)]  # (the same players' new screens)
        for _ in range(100):
            await asyncio.sleep(0.01)
            if policy.sweeps > 1:
                break
        assert policy.sweeps == 2 and ref() is None
        assert len(more) > 0
    finally:
        policy.close()
        apps.clear()
        gc.unfreeze()
