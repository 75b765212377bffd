"""Bots think about ``bot_delay``, never exactly: tables must not move in step."""

from __future__ import annotations

from types import SimpleNamespace

from server.hub import Hub

from .conftest import fast_config


def pauses(store, seed: int | None, table_id: int) -> list[float]:
    hub = Hub(store, fast_config(bot_delay=2.0, seed=seed))
    return [
        hub.turns.bot_pause(SimpleNamespace(id=table_id, state=SimpleNamespace(history=[None] * n)))
        for n in range(50)
    ]


def test_bot_pauses_vary_around_the_delay_and_replay_with_the_seed(store) -> None:
    one = pauses(store, 7, table_id=1)
    assert all(1.5 <= p <= 2.5 for p in one)
    assert len(set(one)) == len(one)  # a new pause for every move
    assert 1.8 < sum(one) / len(one) < 2.2
    assert pauses(store, 7, table_id=1) == one  # a seeded game replays the same
    assert pauses(store, 7, table_id=2) != one  # other tables think differently
