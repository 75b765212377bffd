"""The event loop's watchdog (``--debug-lag``) names the code that holds the loop."""

from __future__ import annotations

import argparse
import asyncio
import logging
import time
from pathlib import Path

from server.lag_watch import LagWatch, watch_loop
from server.settings import resolve
from server.ssh.serve import add_debug_lag_argument


def hold_the_loop(seconds: float) -> None:
    time.sleep(seconds)  # (blocking on purpose: what the watchdog is for)


async def test_a_held_loop_is_logged_with_the_code_holding_it(caplog):
    caplog.set_level(logging.WARNING, "server.lag_watch")
    watch = watch_loop(20)
    assert isinstance(watch, LagWatch)
    try:
        await asyncio.sleep(0.05)
        hold_the_loop(0.15)
        for _ in range(300):  # (the report comes from the watchdog's thread: the hold is
            await asyncio.sleep(0.01)  # noted, then logged)
            if watch.holds and "event loop held" in caplog.text:
                break
    finally:
        watch.stop()
    held, _, stacks = watch.holds[0]
    assert held >= 0.1
    # From the callback the loop ran (the test, a task's step) to where it is held.
    assert stacks[0][0].startswith("test_lag_watch.test_a_held_loop")
    assert stacks[0][0].endswith(" > test_lag_watch.hold_the_loop:17")
    assert "event loop held" in caplog.text and "hold_the_loop" in caplog.text


async def test_a_loop_that_keeps_time_logs_nothing():
    watch = watch_loop(50)
    assert watch is not None
    try:
        for _ in range(20):
            await asyncio.sleep(0.01)
    finally:
        watch.stop()
    assert watch.holds == []


def test_off_unless_asked_and_settable_from_the_environment():
    assert watch_loop(None) is None
    parser = argparse.ArgumentParser()
    add_debug_lag_argument(parser)
    assert parser.parse_args([]).debug_lag is None
    args = resolve(parser, [], env={"GAMBIT_DEBUG_LAG": "25"}, default_dir=Path()).args
    assert args.debug_lag == 25.0


async def test_a_hold_says_which_generations_were_collected_in_it(caplog):
    """Young collections and full ones are told apart in the log (the first are the server's
    by the clock, the second its sweeps)."""
    import gc

    caplog.set_level(logging.WARNING, "server.lag_watch")
    watch = watch_loop(20)
    assert watch is not None
    try:
        await asyncio.sleep(0.05)
        hold_the_loop(0.05)  # (the watchdog asks for its beat meanwhile)
        gc.collect()
        hold_the_loop(0.05)
        for _ in range(300):  # (noted, then logged, by the watchdog's thread)
            await asyncio.sleep(0.01)
            if watch.holds and "collections: " in caplog.text:
                break
    finally:
        watch.stop()
    assert watch.holds
    assert "1 of generation 2" in caplog.text.split("collections: ", 1)[1]
