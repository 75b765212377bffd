"""A hub's stop ends the tasks it spawned, even those that never ran: one dropped unstarted
when its loop closes is a coroutine never awaited (a bot about to think at the stop)."""

from __future__ import annotations

import asyncio

from server.hub.timers import Timers


async def test_end_tasks_ends_a_task_that_never_ran_and_one_that_waits():
    timers = Timers()
    started: list[str] = []

    async def waits() -> None:
        started.append("waits")
        await asyncio.sleep(3600)

    async def never_ran() -> None:
        started.append("never_ran")

    waiting = timers.spawn(waits())
    await asyncio.sleep(0)  # (it runs up to its sleep)
    unstarted = timers.spawn(never_ran())
    await timers.end_tasks()
    assert waiting.cancelled() and unstarted.cancelled()
    assert started == ["waits"]
    assert not timers.tasks


async def test_end_tasks_called_from_a_spawned_task_does_not_wait_for_itself():
    timers = Timers()

    async def stopping() -> str:
        await timers.end_tasks(timeout=30.0)
        return "stopped"

    task = timers.spawn(stopping())
    assert await asyncio.wait_for(task, 5.0) == "stopped"


async def test_a_hubs_stop_leaves_no_task_of_its_own_pending(store):
    from server.hub import Hub

    from .conftest import fast_config

    hub = Hub(store, fast_config())
    await hub.start()
    spawned = hub.spawn(asyncio.sleep(3600))
    unstarted = hub.spawn(asyncio.sleep(0))
    await hub.stop()
    assert spawned.done() and unstarted.done()
