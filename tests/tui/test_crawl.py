"""The screen crawler's short run (tests/tui/crawler.py; the long one is bench/crawl.py).

From a populated hub, random keys each screen's footer offers, with Esc, Enter, Ctrl+C,
Ctrl+Q, Ctrl+R, resizes and typed lines; after every step: no exception, the session open
unless the player quit, nothing cut at 80×24, no player text read as markup. Each example is
one player's session in one language (they take turns: English, Ukrainian and German in
their longest, ASCII, forms).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from .crawler import Chooser, build_template, crawl_session

LANGS = ("en", "uk-ascii", "de-ascii")
#: Steps of each example's session (about a third of a second of CPU each).
STEPS = 40
#: Numbers a session's choices are read from, in turn (more than it can use).
TAPE = STEPS * 4


class TapeChooser:
    """Choices read from a tape of numbers hypothesis draws at once: the same tape makes the
    same choices whatever the hub's timing does to the screens (drawing choice by choice, a
    replay that reached another screen drew differently, and hypothesis calls that flaky).
    A tape shrinks towards zeros: the least pressed key of each screen, and no quitting."""

    def __init__(self, tape: list[int]) -> None:
        self.tape = tape
        self.read = 0

    def _number(self) -> int:
        number = self.tape[self.read % len(self.tape)]
        self.read += 1
        return number

    def pick(self, options):
        options = list(options)
        return options[self._number() % len(options)]

    def chance(self, one_in: int) -> bool:
        return self._number() % one_in == one_in - 1


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return asyncio.run(build_template(tmp_path_factory.mktemp("crawl") / "data"))


def test_a_short_crawl_finds_nothing_wrong(template):
    examples: list[int] = []
    screens: set[str] = set()

    @settings(
        max_examples=len(LANGS),  # (a session in each language: bench/crawl.py crawls long)
        deadline=None,
        database=None,
        derandomize=True,
        # No shrinking: a session's keys depend on the hub's timing too, and a shrink of 40
        # keys took minutes; the failure prints the keys that led to it.
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(st.integers(0, 1 << 16), min_size=TAPE, max_size=TAPE))
    def crawl(tape):
        lang = LANGS[len(examples) % len(LANGS)]
        examples.append(1)
        chooser: Chooser = TapeChooser(tape)
        report = asyncio.run(crawl_session(template, chooser, lang, STEPS))
        examples[-1] = report.steps
        screens.update(report.screens)
        assert not report.failures, f"{lang}:\n" + "\n\n".join(map(str, report.failures))

    crawl()
    print(f"crawled {sum(examples)} steps in {len(examples)} sessions: {sorted(screens)}")
    # The crawl went places: the lobby and at least its own screens, a table among them.
    assert len(screens) >= 6 and "LobbyScreen" in screens, screens


def test_in_a_game_is_the_hubs_word_not_a_replays_moment(template, tmp_path):
    """The crawl's judge of "quit mid-game without asking" asks the hub where Ada sits: a
    replay's moment looked like a game in progress to the app's model (three false alarms in
    a long crawl, all Ctrl+Q on a replay)."""
    import shutil

    from server.hub import Hub
    from server.store import Store
    from tests.hub.harness import connect, table_with_bots

    from .conftest import tui_config
    from .crawler import ADA, in_a_game, stage_bob

    async def run() -> None:
        shutil.copytree(template, tmp_path / "data")
        store = Store.open(tmp_path / "data")
        hub = Hub(store, tui_config())
        await hub.start()
        try:
            bob = await stage_bob(hub)  # Bob's games run; Ada sits at none of them
            ada = await connect(hub)
            await ada.hello("Ada", identity=ADA)
            await ada.send("replay", game=1, step=3)  # her finished game, mid-way
            await ada.expect("replay")
            assert not in_a_game(hub)
            table = await table_with_bots(ada, "prophet")
            assert not in_a_game(hub)  # seated, not started
            await ada.send("start", table=table)
            await ada.until(lambda m: m["t"] == "table" and m["view"] is not None)
            assert in_a_game(hub)
            for client in (ada, bob):
                await client.close()
        finally:
            await hub.stop()
            store.close()

    asyncio.run(run())
