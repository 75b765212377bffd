"""Issue 43: the memos a process's apps share are emptied every few minutes, and what the
apps draw after that is what they would have drawn."""

from __future__ import annotations

import asyncio
import functools
import logging
import types

from hypothesis import given, settings

from gambit_tui import shared_memos
from gambit_tui.widgets import text_lines
from server.apphost import colour_codes, memo_ages, shared_styles
from server.terminal import screen_diff, sgr
from server.terminal.screen_diff import SentScreen

from .test_moved_out_memory import a_worker_beside_a_hub
from .test_screen_diff import COLS, Terminal, changing_spans
from .test_worker_no_growth import Side, wave


def test_bounded_lru_caches_are_found_in_modules_and_classes_and_unbounded_ones_left():
    module = types.ModuleType("server.apphost.memo_example")

    @functools.lru_cache(maxsize=8)
    def bounded(x: int) -> int:
        return x

    @functools.cache
    def forever(x: int) -> int:
        return x

    class Shape:
        @functools.lru_cache(maxsize=4)  # noqa: B019 (the kind of method cache Rich has)
        def area(self) -> int:
            return 1

        @staticmethod
        @functools.lru_cache(maxsize=4)
        def parse(text: str) -> str:
            return text

    Shape.__module__ = module.__name__
    module.bounded, module.forever, module.Shape = bounded, forever, Shape
    found = set(memo_ages._bounded_lru_caches({module.__name__: module}))
    assert found == {bounded, Shape.__dict__["area"], Shape.parse}
    elsewhere = types.ModuleType("somewhere.else")
    elsewhere.bounded = bounded
    assert list(memo_ages._bounded_lru_caches({"somewhere.else": elsewhere})) == []


def test_forgetting_empties_the_apps_memos_the_servers_and_the_lru_caches():
    mine = shared_memos.shared_memo("test lines", {})
    mine.update({i: str(i) for i in range(10)})
    sgr.apply(sgr.PLAIN, "1;31")
    screen_diff._styled_runs("\x1b[1mab\x1b[0m")
    colour_codes._codes.setdefault(object(), {})[1] = (object(), "x")  # type: ignore[index]  # (a depth of our own)
    reported: dict[str, int] = {}
    dropped = memo_ages.forget(reported.__setitem__)
    assert reported["test lines"] == 10 and not mine
    assert reported["server.terminal.sgr.apply"] >= 1
    assert reported["server.terminal.screen_diff._styled_runs"] >= 1
    assert reported["style codes"] >= 1
    assert dropped == sum(reported.values())
    assert sgr.apply.cache_info().currsize == 0 and not colour_codes._codes
    assert not text_lines._made_strips and not shared_styles._answers
    assert memo_ages.forget() == 0  # nothing left


@settings(max_examples=100, deadline=None)
@given(changing_spans())
def test_pieces_cut_after_forgetting_draw_the_same_screen(frame_list):
    """The screen diff's and the codes' memos emptied between frames: what reaches the
    terminal still draws exactly the frames."""
    sent = SentScreen(width=COLS)
    full, diffed = Terminal(), Terminal()
    for frame in frame_list:
        memo_ages.forget()
        assert diffed.feed(sent.diff(frame)) == full.feed(frame)


async def test_apps_play_on_with_their_memos_emptied_every_few_moments(store, caplog):
    """Players at tables of the three games, some moved, with every shared memo emptied every
    20 ms: they see the games through and leave, and each emptying is logged."""
    ids = iter(range(1, 10_000))
    memos = memo_ages.MemoAges(every=0.02)
    with caplog.at_level(logging.INFO, logger="server.apphost.memo_ages"):
        async with a_worker_beside_a_hub(store, Side, guest_retention=0.0) as (hub, worker, side):
            memos.start()
            try:
                await wave(hub, worker, side, 0, ids)
            finally:
                memos.close()
            assert not worker.sessions
    assert memos.forgotten >= 10
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("forgot")]
    assert len(lines) == memos.forgotten
    assert any(" 0 shared memo entries" not in line for line in lines)
    await asyncio.sleep(0)
