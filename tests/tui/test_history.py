"""Your games, from the lobby's h: finished games newest first, paged, by game, a leaderboard."""

from __future__ import annotations

from gambit_tui.screens.history import HistoryScreen
from gambit_tui.screens.lobby import LobbyScreen
from protocol.messages import HISTORY_PAGE

from .conftest import enter_lobby, make_app, screen_text, wait_for


def record(store, game: str, place: int, chips: int) -> int:
    players = ["SHA256:ada", None, None]
    return store.record_game(
        1,
        {"game": game},
        [],
        {},
        players,
        results=[{"place": place, "chips": chips, "rating_change": 4}, {}, {}],
    )


async def test_history_lists_pages_and_filters_by_game(hub, store):
    store.ensure_player("SHA256:ada", starting_chips=1000)
    for i in range(HISTORY_PAGE + 1):  # one page and one more game: the oldest
        record(store, "prophet" if i else "fortunes", 2, -10 if i else 35)
    app = make_app(hub)
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await wait_for(pilot, lambda: "page 1 of 2" in screen_text(app))
        text = screen_text(app)
        assert "Prophet" in text and "2/3" in text and "-10" in text and "+4" in text
        assert "Ada, Bot, Bot" in text
        await pilot.press("right")  # older
        await wait_for(pilot, lambda: "page 2 of 2" in screen_text(app))
        assert "Fortunes" in screen_text(app) and "+35" in screen_text(app)
        await pilot.press("g", "g", "g")  # all → Prophet's Gambit → Prophet → Fortunes
        await wait_for(pilot, lambda: "players with at least 3 games" in screen_text(app))
        text = screen_text(app)
        assert "page 1 of 1" in text and "+35" in text and "-10" not in text
        assert "No one has played enough games yet." in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))


async def test_a_history_of_500_games_pages_by_page_keys_and_jumps_to_either_end(hub, store):
    """Regression: PgDn and PgUp moved the cursor in the list instead of paging (the list's
    own keys came first), and 50 pages could be gone through only one at a time."""
    store.ensure_player("SHA256:ada", starting_chips=1000)
    for i in range(500):
        record(store, "fortunes" if i == 0 else "prophet", 2, 35 if i == 0 else -10)
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await wait_for(pilot, lambda: "page 1 of 50" in screen_text(app))
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: "page 2 of 50" in screen_text(app))
        await pilot.press("pageup")
        await wait_for(pilot, lambda: "page 1 of 50" in screen_text(app))
        await pilot.press("end")  # the oldest page: the first game played
        await wait_for(pilot, lambda: "page 50 of 50" in screen_text(app))
        assert "Fortunes" in screen_text(app) and "+35" in screen_text(app)
        await pilot.press("home")
        await wait_for(pilot, lambda: "page 1 of 50" in screen_text(app))
        assert "Fortunes" not in screen_text(app)
