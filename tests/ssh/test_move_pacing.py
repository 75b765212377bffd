"""Issue 39: app moves wait in line, one at a time, so that a burst of players sitting down
does not start hundreds of apps at once (server/apphost/move_pacing.py)."""

from __future__ import annotations

import asyncio
import itertools
import time

from server.apphost.move_pacing import MovePacer


class Line:
    """Starts every move it is asked to (unless told which to refuse), and notes when."""

    def __init__(self, refuse: set[str] | None = None) -> None:
        self.started: list[tuple[str, float]] = []
        self.refuse = refuse or set()

    def start(self, app: str) -> bool:
        if app in self.refuse:
            return False
        self.started.append((app, time.monotonic()))
        return True


async def settle(pacer: MovePacer[str], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await asyncio.sleep(0.01)


async def test_a_burst_moves_one_app_at_a_time_in_order():
    line = Line()
    pacer = MovePacer(line.start, gap=0.02)
    for app in "abcdef":
        pacer.want(app)
    await settle(pacer, 0.1)
    assert [a for a, _ in line.started] == ["a"]  # the next waits for a's move to finish
    for expected in "bcdef":
        pacer.done(pacer.moving)  # type: ignore[arg-type]  # (one is moving)
        await settle(pacer, 0.05)
        assert line.started[-1][0] == expected
    times = [t for _, t in line.started]
    assert all(later - earlier >= 0.02 for earlier, later in itertools.pairwise(times))
    pacer.done("f")
    assert pacer.moving is None and not pacer.waiting


async def test_an_app_wanted_twice_moves_once():
    line = Line()
    pacer = MovePacer(line.start, gap=0.0)
    pacer.want("a")
    pacer.want("b")
    pacer.want("b")
    pacer.want("a")  # (moving already: not queued again)
    pacer.done("a")
    await settle(pacer, 0.02)
    pacer.done("b")
    await settle(pacer, 0.02)
    assert [a for a, _ in line.started] == ["a", "b"]


async def test_an_ended_app_leaves_the_line_and_frees_it():
    line = Line()
    pacer = MovePacer(line.start, gap=0.0)
    for app in "abc":
        pacer.want(app)
    pacer.forget("b")  # ended while waiting: never started
    pacer.forget("a")  # ended while moving: the line goes on
    await settle(pacer, 0.02)
    assert [a for a, _ in line.started] == ["a", "c"]


async def test_an_app_that_no_longer_needs_to_move_does_not_hold_the_line():
    line = Line(refuse={"a", "b"})
    pacer = MovePacer(line.start, gap=0.0)
    for app in "abc":
        pacer.want(app)
    await settle(pacer, 0.02)
    assert [a for a, _ in line.started] == ["c"]
    assert pacer.moving == "c"


async def test_closing_drops_the_line():
    line = Line()
    pacer = MovePacer(line.start, gap=0.05)
    pacer.want("a")
    pacer.done("a")
    pacer.want("b")  # waits for the gap
    pacer.close()
    await settle(pacer, 0.1)
    assert [a for a, _ in line.started] == ["a"]
