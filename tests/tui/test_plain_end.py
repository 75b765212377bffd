"""The end of a game is said once in plain mode: "Game over." and the result in full, not
Prophet's own end event besides (it said the end and the winner twice)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import AsyncIterator

import pytest

from server.hub import Hub
from tests.hub.conftest import fast_config

from .plain_session import plain, play


@pytest.fixture
async def hub(store) -> AsyncIterator[Hub]:
    h = Hub(store, fast_config(seed=3, between_games=60.0))
    await h.start()
    yield h
    await h.stop()


@pytest.mark.parametrize("new", ["new prophet cap 2", "new prophet cap 1 stake 10"])
async def test_prophet_end_said_once(hub, new):
    ada = await plain(hub, "Ada")
    lines = await play(ada, new, 2)
    await ada.close()
    ends = [x for x in lines if re.search(r"(?i)game (is )?over|Highest total", x)]
    assert ends == ["Game over."], ends
    results = [x for x in lines if re.match(r"Place \d: |Winner: |.+ wins the pot ", x)]
    assert len(results) == 4, results
    assert not [x for x, n in Counter(results).items() if n > 1]
