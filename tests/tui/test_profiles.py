"""Public profiles and the lobby's leaderboards: l opens the boards (←→ another game, Enter a
player's profile); p in the lobby, w at a table and p in Your games open players' profiles."""

from __future__ import annotations

from gambit_tui.screens.answer import AnswerScreen
from gambit_tui.screens.history import HistoryScreen
from gambit_tui.screens.leaderboard import LeaderboardScreen
from gambit_tui.screens.lobby import LobbyScreen
from gambit_tui.screens.pick_player import PickPlayerScreen
from gambit_tui.screens.profile import ProfileScreen
from gambit_tui.screens.social import SocialScreen
from server.hub import history

from .conftest import enter_lobby, make_app, screen_text, wait_for
from .test_prophet_table import open_prophet_table


def seed_games(store) -> None:
    """Bob has finished three Prophet games (two won, +35 at best); Ada one, with him."""
    store.ensure_player("SHA256:bob", starting_chips=1000)
    store.set_name("SHA256:bob", "Bob")
    store.ensure_player("SHA256:ada", starting_chips=1000)
    for place, chips in ((1, 35), (1, 10), (2, -10)):
        store.record_game(
            1,
            {"game": "prophet"},
            [],
            {},
            ["SHA256:bob", "SHA256:ada" if chips == 10 else None, None],
            results=[
                {"place": place, "chips": chips, "rating_change": 5},
                {"place": 2, "chips": -10, "rating_change": -5},
                {},
            ],
        )
    store.set_ratings("prophet", {"SHA256:bob": (30.0, 3.0)})


async def test_the_leaderboard_opens_from_the_lobby_and_leads_to_a_profile(hub, store, monkeypatch):
    seed_games(store)
    monkeypatch.setattr(history, "MIN_GAMES", 2)
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        assert "l Leaderboards" in screen_text(app)
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        await wait_for(pilot, lambda: "No one has played" in screen_text(app))
        assert "Prophet's Gambit" in screen_text(app)
        await pilot.press("right")  # the next game's board: Prophet
        await wait_for(pilot, lambda: "Bob" in screen_text(app))
        text = screen_text(app)
        assert "Leaderboard · Prophet" in text
        assert "at least 2 finished games" in text
        assert "Ada" not in text.split("Leaderboard")[-1]  # one game is not enough
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        await wait_for(pilot, lambda: "3 games, 2 won" in screen_text(app))
        text = screen_text(app)
        assert "Prophet: rating 1" in text and "best game: +35 chips" in text
        assert "3 finished games." in text and "Plays here since" in text
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))


async def test_profiles_from_the_lobby_a_table_and_your_games(hub, store):
    seed_games(store)
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("p")  # the players online: Ada herself
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        await wait_for(pilot, lambda: "1 finished game." in screen_text(app))
        assert "Ada · online" in screen_text(app) and "1 game, 0 won" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        # From Your games: the selected game's players.
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await wait_for(pilot, lambda: "page 1 of 1" in screen_text(app))
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        await wait_for(pilot, lambda: "3 games, 2 won" in screen_text(app))  # Bob, first
        await pilot.press("down")  # Ada
        await wait_for(pilot, lambda: "Ada · online" in screen_text(app))
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        # From a table: its seats' players (bots have no profile).
        table = await open_prophet_table(pilot)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        assert app.screen.names == ["Ada"]
        await wait_for(pilot, lambda: "Ada · online" in screen_text(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is table)


async def test_an_unknown_name_is_said_plainly(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await app.push_screen(ProfileScreen(["Zed"]))
        await wait_for(pilot, lambda: "There is no player called Zed." in screen_text(app))


async def test_the_leaderboards_open_with_a_board_already_fetched_by_your_games(hub, store):
    """Issue 38: h, g (Your games fetches Prophet's Gambit's board), Esc, l: the leaderboard
    screen showed the board the model held before its columns were added, and the session
    ended ("More values provided than there are columns")."""
    store.ensure_player("SHA256:ada", starting_chips=1000)
    for _ in range(history.MIN_GAMES):
        store.record_game(
            1,
            {"game": "prophets_gambit"},
            [],
            {},
            ["SHA256:ada", None, None],
            results=[{"place": 1, "chips": 20, "rating_change": 5}, {}, {}],
        )
    store.set_ratings("prophets_gambit", {"SHA256:ada": (30.0, 3.0)})
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press("g")  # all games → Prophet's Gambit, and its leaderboard
        await wait_for(pilot, lambda: app.model.leaderboards.get("prophets_gambit"))
        assert app.model.leaderboards["prophets_gambit"]["rows"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        await wait_for(pilot, lambda: "Leaderboard · Prophet's Gambit" in screen_text(app))
        assert "Ada" in screen_text(app).split("Leaderboard ·")[-1]
        assert app.is_running


async def test_a_name_written_like_markup_is_shown_as_written(hub, store):
    """A name kept from before the hub's name rules ("[reverse]Qzm[/reverse]") was read as
    markup in the leaderboard, a profile, Friends, the answer dialog and the invitation's list of
    players
    (found by the screen crawler)."""
    marked = "[reverse]Qzm[/reverse]"
    store.ensure_player("SHA256:mal", starting_chips=1000)
    store.set_name("SHA256:mal", marked)
    store.ensure_player("SHA256:ada", starting_chips=1000)
    for _ in range(history.MIN_GAMES):
        store.record_game(
            1,
            {"game": "prophets_gambit"},
            [],
            {},
            ["SHA256:mal", None, None],
            results=[{"place": 1, "chips": 20, "rating_change": 5}, {}, {}],
        )
    store.set_ratings("prophets_gambit", {"SHA256:mal": (30.0, 3.0)})
    store.request_friend("SHA256:mal", "SHA256:ada")
    store.add_friend("SHA256:ada", "SHA256:mal")
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        await wait_for(pilot, lambda: "Qzm" in screen_text(app))
        assert marked in screen_text(app)
        await pilot.press("enter")  # Mal's profile
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        await wait_for(pilot, lambda: "3 finished games" in screen_text(app))
        assert screen_text(app).count(marked) == 2  # in the list and the profile's head
        await pilot.press("escape", "escape", "f")
        await wait_for(pilot, lambda: isinstance(app.screen, SocialScreen))
        await wait_for(pilot, lambda: "Qzm" in screen_text(app))
        assert marked in screen_text(app)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, AnswerScreen))
        await wait_for(pilot, lambda: "Qzm" in screen_text(app))
        assert f"{marked} asks to be your friend." in screen_text(app)
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await open_prophet_table(pilot)
        await pilot.press("i")  # invite: friends first
        await wait_for(pilot, lambda: isinstance(app.screen, PickPlayerScreen))
        await wait_for(pilot, lambda: "Qzm" in screen_text(app))
        assert f"{marked} · " in screen_text(app)
