import pytest

from server.hub import Hub, HubConfig


def fast_config(**overrides) -> HubConfig:
    values = dict(
        bot_delay=0.0,
        between_games=0.05,
        after_results_read=0.05,
        grace=0.5,
        turn_timer=0.0,
        # Stand-ins are strong bots: a short search, in a thread (no process to start).
        bot_think_ms=5.0,
        bot_workers=0,
        lobby_interval=0.02,
        hello_timeout=2.0,
        # Scripted clients send far faster than people; the budgets have tests of their own.
        messages_burst=1_000_000,
        seat_changes_burst=1_000_000,
        tables_burst=1_000_000,
        tables_per_player=1_000,
    )
    values.update(overrides)
    return HubConfig(**values)


@pytest.fixture
async def hub(store):
    h = Hub(store, fast_config())
    await h.start()
    yield h
    await h.stop()
