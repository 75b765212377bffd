"""One app's CPU among many on one loop (``server/apphost/app_timing.py``), and the figure a
worker reports for each session's start when asked to."""

from __future__ import annotations

import asyncio
import time

from server.apphost import app_timing

from .conftest import needs_openssh
from .harness import SSHTerminal, ssh_command
from .test_workers import worker_sessions


def burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


async def steps(count: int, each: float) -> None:
    for _ in range(count):
        burn(each)
        await asyncio.sleep(0)


async def test_a_clock_counts_only_its_own_contexts_callbacks():
    context, clock = app_timing.start_context()
    loop = asyncio.get_running_loop()
    # The measured task and another interleave, step by step: the other's CPU (three times
    # as much) lies between the measured one's start and end, and must not count.
    measured = loop.create_task(steps(5, 0.01), context=context)
    other = loop.create_task(steps(5, 0.03))
    await asyncio.gather(measured, other)
    assert 0.045 <= clock.cpu <= 0.09, clock.cpu
    assert clock.stop() == clock.cpu * 1000
    assert clock.stop() is None  # once
    counted = clock.cpu
    await loop.create_task(steps(2, 0.01), context=context)
    assert clock.cpu == counted  # stopped: no more


@needs_openssh
def test_a_worker_reports_each_apps_start_when_asked(standin_server, monkeypatch):
    monkeypatch.setenv(app_timing.MEASURE, "1")  # the workers inherit it
    server = standin_server(app_workers=1)
    term = SSHTerminal(ssh_command(server.port, "Ada"), cols=80, rows=24)
    try:
        term.wait_for("Enter the lobby", timeout=30)
        deadline = time.monotonic() + 10
        starts: list[float | None] = [None]
        while starts[0] is None and time.monotonic() < deadline:
            starts = server.sync(lambda: [s.app.start_cpu_ms for s in server.host.sessions])
            time.sleep(0.05)
        # The app's own work until its welcome screen: some milliseconds, not seconds.
        assert starts[0] is not None and 1 < starts[0] < 5000
    finally:
        term.close()
    assert worker_sessions(server) in ([0], [1])
