"""Welcome, lobby, the create-table form and friends, driven by keys against a real hub."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import DataTable, Input, Select

from gambit_tui.screens.create_table import CreateTableScreen
from gambit_tui.screens.lobby import LobbyScreen
from gambit_tui.screens.pg_table import PGTableScreen
from gambit_tui.screens.prophet_table import ProphetTableScreen
from gambit_tui.screens.social import SocialScreen
from gambit_tui.screens.welcome import WelcomeScreen
from gambit_tui.widgets.footer import GambitFooter
from protocol.codec import encode
from protocol.term import TermInfo
from tests.hub.harness import connect

from .conftest import (
    enter_lobby,
    make_app,
    open_pg_table_with_bots,
    result_shown,
    screen_text,
    wait_for,
)
from .fit import cuts
from .test_fit import LOCALES


async def test_welcome_shows_the_name_and_renames_by_keys(hub):
    app = make_app(hub, name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
        text = screen_text(app)
        assert "Your name" in text and "Language" in text and "Ada · 1,000 chips" in text
        assert app.screen.query_one("#name", Input).value == "Ada"
        await pilot.press(*["backspace"] * 3, *"Adele", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await wait_for(pilot, lambda: app.model.name == "Adele")
        await pilot.pause()
        assert screen_text(app).startswith(" Adele · 1,000 chips")


async def test_lobby_lists_tables_and_players_and_joins_by_keys(hub):
    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    async with ada.run_test(size=(80, 24)) as ada_pilot, bob.run_test(size=(80, 24)) as bob_pilot:
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        await open_pg_table_with_bots(ada_pilot, bots=1, players=3)  # Ada, a bot, a free seat
        await wait_for(bob_pilot, lambda: 1 in bob.model.tables)
        await wait_for(bob_pilot, lambda: "2/3" in screen_text(bob))
        text = screen_text(bob)
        assert "Prophet's Gambit" in text and "everyone" in text and "waiting" in text
        assert "Ada" in text and "Bob" in text  # online list
        assert "Seats: Ada, Bot 2 (regular), empty." in text
        await bob_pilot.press("j")
        await wait_for(bob_pilot, lambda: isinstance(bob.screen, PGTableScreen))
        await wait_for(ada_pilot, lambda: "s Start" in screen_text(ada))
        await ada_pilot.press("s")
        await wait_for(bob_pilot, lambda: bob.screen.ask is not None)
        assert "The Bid" in screen_text(bob)


async def test_a_table_that_changes_is_changed_in_its_row_not_listed_again(hub):
    from textual.widgets import DataTable

    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    async with ada.run_test(size=(80, 24)) as ada_pilot, bob.run_test(size=(80, 24)) as bob_pilot:
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        await open_pg_table_with_bots(ada_pilot, bots=1, players=3)
        await wait_for(bob_pilot, lambda: "2/3" in screen_text(bob))
        assert "waiting" in screen_text(bob)
        listed = bob.screen.query_one("#tables", DataTable)
        clears: list[int] = []
        clear = listed.clear
        listed.clear = lambda *a, **k: (clears.append(1), clear(*a, **k))[1]
        await ada_pilot.press("b")  # the last seat: a bot
        await wait_for(bob_pilot, lambda: "3/3" in screen_text(bob))
        await ada_pilot.press("s")
        await wait_for(bob_pilot, lambda: "playing" in screen_text(bob))
        row = next(line for line in screen_text(bob).splitlines() if "Prophet's Gambit" in line)
        assert "3/3" in row and "playing" in row and "waiting" not in screen_text(bob)
        assert clears == [] and listed.row_count == 1
        assert "Seats: Ada, Bot 2 (regular), Bot 3 (regular)." in screen_text(bob)
        # Between two deals the game goes on: the list says so and is not drawn again (every
        # table's every deal redrew every lobby's list: a tenth of the server's work).
        updates: list[object] = []
        update_cell = listed.update_cell
        listed.update_cell = lambda *a, **k: (updates.append(a), update_cell(*a, **k))[1]
        between = {**bob.model.tables[1], "status": "between", "games_played": 1}
        bob.receive({"t": "lobby_update", "tables": [between], "removed": [], "players": None})
        await bob_pilot.pause()
        assert updates == [] and "playing" in screen_text(bob)
        bob.receive({"t": "lobby_update", "tables": [{**between, "status": "waiting"}]})
        await bob_pilot.pause()
        assert len(updates) == 1 and "waiting" in screen_text(bob)


async def test_lobby_chat_reaches_everyone(hub):
    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    async with ada.run_test(size=(80, 24)) as ada_pilot, bob.run_test(size=(80, 24)) as bob_pilot:
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        # Keys that are bindings elsewhere (q quits, n opens a table, ? the rules) are text here.
        await ada_pilot.press("c", *"quick: new game?", "enter", "escape")
        await wait_for(bob_pilot, lambda: "Ada: quick: new game?" in screen_text(bob))
        assert isinstance(ada.screen, LobbyScreen)


async def test_create_form_offers_every_option_of_every_game(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
        form = app.screen
        assert "no table options of its own" in screen_text(app)
        for game in app.model.server["games"]:
            form.query_one("#game", Select).value = game["name"]
            await pilot.pause()
            # The game's option fields are mounted a moment later (on a busy machine, later
            # than one pause): a Select reads Select.NULL until then.
            await wait_for(
                pilot,
                lambda game=game: all(
                    (found := form.query(f"#opt-{name}")) and found.first().is_mounted
                    for name in game["options"]
                ),
            )
            for name, spec in game["options"].items():
                field = form.query_one(f"#opt-{name}")
                value = field.value if isinstance(field, Select) else int(field.value)
                assert value == spec["default"]
            players = form.query_one("#players", Select)
            assert players.value in range(game["min_players"], game["max_players"] + 1)
        form.query_one("#game", Select).value = "prophet"
        await wait_for(pilot, lambda: bool(form.query("#opt-schedule SelectCurrent #label")))
        form.query_one("#opt-schedule", Select).value = "down_up"
        form.query_one("#opt-cap", Input).value = "3"
        form.query_one("#stake", Input).value = "25"
        message = form.build_message()
        assert message.game == "prophet"
        assert message.options == {"schedule": "down_up", "cap": 3}
        assert message.stake == 25
        form.query_one("#opt-cap", Input).value = "99"
        await pilot.press("ctrl+s")  # refused here, the form stays
        await pilot.pause()
        assert isinstance(app.screen, CreateTableScreen)
        form.query_one("#opt-cap", Input).value = "3"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ProphetTableScreen))
        options = app.model.tables[1]["options"]
        assert options["schedule"] == "down_up" and options["cap"] == 3


async def test_create_right_after_choosing_a_game_sends_what_the_form_is_about_to_show(hub):
    """The option fields are made again when the game changes, and a drop-down has no value
    until it is mounted: Ctrl+S pressed in between (a loaded server) sent Textual's blank
    value, which could not be encoded, and the player's session ended."""
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
        form = app.screen
        form.query_one("#game", Select).value = "prophet"
        # Ctrl+S at every step of the fields being made again: what is sent is what the
        # form shows, or is about to (every option its default), and it can be sent.
        for _turn in range(500):
            message = form.build_message()
            encode(message.to_wire())
            assert message.game == "prophet" and message.options == {}, message
            fields = form.query("#options Select, #options Input")
            if form.query("#opt-cap") and all(field.is_mounted for field in fields):
                break
            await asyncio.sleep(0)
        else:
            raise AssertionError("the option fields were never mounted")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ProphetTableScreen))
        assert app.is_running


async def test_create_form_by_keys_alone(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
        # Game list has focus: Tab to players, open it, pick the first (3), confirm.
        await pilot.press("tab", "enter", "home", "enter")
        await pilot.press("tab", "end", "ctrl+u", *"50")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        info = app.model.tables[1]
        assert info["players"] == 3 and info["stake"] == 50


async def test_friends_and_invitations(hub):
    """Friends and invites (issue 18, item 11): a friend is asked, from the players online;
    the other player is told at once and answers from the notice (Ctrl+R); an invitation is
    sent by picking the friend, and answered from its notice at Bob's own table."""
    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    async with (
        ada.run_test(size=(80, 24), notifications=True) as ada_pilot,
        bob.run_test(size=(80, 24), notifications=True) as bob_pilot,
    ):
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        await ada_pilot.press("f")
        await wait_for(ada_pilot, lambda: isinstance(ada.screen, SocialScreen))
        await wait_for(ada_pilot, lambda: ada.model.friends is not None)
        assert "No friends yet" in screen_text(ada)
        await ada_pilot.press("a")
        await wait_for(ada_pilot, lambda: "Bob · online" in screen_text(ada))
        await ada_pilot.press("down", "enter")  # Bob, picked from the players online
        await wait_for(ada_pilot, lambda: "Bob · asked, no answer yet" in screen_text(ada))
        await wait_for(
            bob_pilot,
            lambda: (
                "Ada asks to be your friend: Ctrl+R to answer."
                in [n.message for n in bob._notifications]
            ),
        )
        assert hub.store.friends("SHA256:ada") == []  # not before Bob says yes
        await bob_pilot.press("ctrl+r")
        await wait_for(bob_pilot, lambda: "Ada asks to be your friend." in screen_text(bob))
        await bob_pilot.press("y")
        await wait_for(ada_pilot, lambda: "Bob · online" in screen_text(ada))
        assert isinstance(bob.screen, LobbyScreen)
        assert hub.store.friends("SHA256:bob") == ["SHA256:ada"]
        await ada_pilot.press("escape")
        await open_pg_table_with_bots(ada_pilot, bots=1, players=3)
        await ada_pilot.press("i")
        await wait_for(ada_pilot, lambda: "Bob · friend, online" in screen_text(ada))
        await ada_pilot.press("down", "enter")
        await wait_for(bob_pilot, lambda: bob.model.invites)
        told = [n.message for n in bob._notifications]
        assert "Ada invites you to table 1: Ctrl+R to answer." in told
        await bob_pilot.press("ctrl+r")
        await wait_for(
            bob_pilot, lambda: "invites you to table 1 (Prophet's Gambit)" in screen_text(bob)
        )
        await bob_pilot.press("y")
        await wait_for(bob_pilot, lambda: isinstance(bob.screen, PGTableScreen))
        assert bob.screen.seat == 2


async def test_a_typed_name_still_invites_and_friends_can_be_removed_or_declined(hub):
    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    async with (
        ada.run_test(size=(80, 24)) as ada_pilot,
        bob.run_test(size=(80, 24)) as bob_pilot,
    ):
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        hub.store.request_friend("SHA256:ada", "SHA256:bob")
        hub.store.answer_friend_request("SHA256:ada", "SHA256:bob", accept=True)
        await ada_pilot.press("f")
        await wait_for(ada_pilot, lambda: "Bob · online" in screen_text(ada))
        await ada_pilot.press("d")  # ended for both
        await wait_for(ada_pilot, lambda: "No friends yet" in screen_text(ada))
        assert hub.store.friends("SHA256:bob") == []
        await ada_pilot.press("escape")
        await open_pg_table_with_bots(ada_pilot, bots=1, players=3)
        await ada_pilot.press("i", *"bob", "enter")
        await wait_for(bob_pilot, lambda: bob.model.invites)
        await bob_pilot.press("f")
        await wait_for(bob_pilot, lambda: "Table 1 (Prophet's Gambit) from Ada" in screen_text(bob))
        await bob_pilot.press("x")
        await wait_for(bob_pilot, lambda: "No invitations." in screen_text(bob))
        assert hub.store.invites_for("SHA256:bob") == []


async def test_prophet_plays_through_by_enter_alone(hub):
    """Prophet has its own table: Enter bids or plays whatever the cursor rests on (always a
    legal choice), so a game reaches its result by Enter alone."""
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
        form = app.screen
        form.query_one("#game", Select).value = "prophet"
        await pilot.pause()
        form.query_one("#players", Select).value = 3
        form.query_one("#opt-cap", Input).value = "1"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ProphetTableScreen))
        await pilot.press("b", "b")
        await wait_for(pilot, lambda: "s Start" in screen_text(app))
        await pilot.press("s")
        for _ in range(200):
            if result_shown(app):
                break
            if app.screen.view and app.screen.view.get("legal"):
                await pilot.press("enter")
            await pilot.pause(0.03)
        assert result_shown(app), screen_text(app)
        assert "Score" in screen_text(app)


async def test_at_a_table_the_lobby_is_not_updated_and_comes_back_whole(hub):
    """The app tells the hub when the lobby is hidden (no updates for a screen nobody sees)
    and when it shows again (a fresh lobby, with what changed meanwhile)."""
    from .conftest import open_pg_table_with_bots

    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await open_pg_table_with_bots(pilot, bots=2)
        session = next(s for s in hub.sessions if s.player and s.player.name == "Ada")
        await wait_for(pilot, lambda: not session.lobby_watching)
        other = make_app(hub, name="Bea", identity="SHA256:bea")
        async with other.run_test(size=(80, 24)) as pilot_b:
            await enter_lobby(pilot_b)
            await pilot_b.press("n")
            await wait_for(pilot_b, lambda: isinstance(other.screen, CreateTableScreen))
            await pilot_b.press("ctrl+s")
            await wait_for(pilot_b, lambda: len(hub.tables) == 2)
            await pilot.pause(0.1)
            assert len(app.model.tables) == 1  # Ada, at her table, was not told
            await pilot.press("escape")  # back to the lobby
            await wait_for(pilot, lambda: len(app.model.tables) == 2)
            assert session.lobby_watching


async def test_tables_opened_and_closed_elsewhere_change_the_list_row_by_row(hub):
    """A table opened anywhere on the server is added at the end of the list and a closed one
    taken out, without drawing the whole list again, and the row the player is on stays
    selected; only a table coming in between others makes the list again."""
    from textual.widgets import DataTable

    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        base = {
            "game": "prophet",
            "title": "Prophet",
            "players": 3,
            "options": {},
            "owner": "Zed",
            "access": "everyone",
            "max_rating": None,
            "stake": 0,
            "timer": 0.0,
            "status": "waiting",
            "dealer": 0,
            "games_played": 0,
            "spectators": 0,
            "seats": [
                {"seat": i, "name": None, "bot": None, "away": False, "reserved": None}
                for i in range(3)
            ],
        }

        def update(tables=(), removed=()):
            app.receive(
                {
                    "t": "lobby_update",
                    "tables": [{**base, "id": t} for t in tables],
                    "removed": list(removed),
                    "players": None,
                }
            )

        update(tables=[10, 20, 30])
        await pilot.pause()
        listed = app.screen.query_one("#tables", DataTable)
        listed.move_cursor(row=1)  # on table 20
        clears: list[int] = []
        clear = listed.clear
        listed.clear = lambda *a, **k: (clears.append(1), clear(*a, **k))[1]
        update(tables=[40], removed=[10])
        await pilot.pause()
        assert [k.value for k in listed.rows] == ["20", "30", "40"] and clears == []
        assert app.screen.selected_id == 20
        update(tables=[25])  # in between: the list is made again, in order
        await pilot.pause()
        assert [k.value for k in listed.rows] == ["20", "25", "30", "40"] and clears == [1]
        assert app.screen.selected_id == 20


async def test_chat_commands_ignore_and_report(hub):
    """In any chat, /report NAME sends that player's last line to the admins, /ignore NAME hides
    their lines (the hub stops sending them), /help says what there is."""
    from tests.hub.harness import connect

    eve = await connect(hub)
    await eve.hello("Eve", identity="SHA256:eve")
    app = make_app(hub)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await enter_lobby(pilot)
        await eve.send("chat", channel="lobby", text="you all stink")
        await wait_for(pilot, lambda: "you all stink" in screen_text(app))
        await pilot.press("c")
        await pilot.press(*"/report Eve", "enter")
        await wait_for(pilot, lambda: len(hub.store.reports()) == 1)
        (report,) = hub.store.reports()
        assert report["reported"] == "SHA256:eve" and report["line"]["text"] == "you all stink"
        await pilot.press(*"/ignore eve", "enter")
        await wait_for(pilot, lambda: "SHA256:eve" in hub.players["SHA256:ada"].ignores)
        await eve.send("chat", channel="lobby", text="still stinking")
        await eve.until(lambda m: m["t"] == "chat" and m["text"] == "still stinking")
        await pilot.pause(0.2)
        assert "still stinking" not in screen_text(app)
        await pilot.press(*"/help", "enter")
        await wait_for(
            pilot, lambda: any("/unignore" in str(n.message) for n in app._notifications)
        )
        await pilot.press(*"/report Zed", "enter")
        await wait_for(
            pilot, lambda: any("Zed has said nothing" in str(n.message) for n in app._notifications)
        )


async def test_a_known_key_goes_straight_to_the_lobby_new_keys_and_guests_are_welcomed(hub):
    """Straight back in (issue 18, item 9): the welcome screen is for new keys and guests."""
    first = make_app(hub, name="Ada")
    async with first.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(first.screen, WelcomeScreen))
        await pilot.press(*["backspace"] * 3, *"Adele", "enter")
        await wait_for(pilot, lambda: first.model.name == "Adele")
    again = make_app(hub, name=None)
    async with again.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_for(pilot, lambda: len(again.screen_stack) > 1)
        assert isinstance(again.screen, LobbyScreen)
        await wait_for(pilot, lambda: "Welcome back, Adele." in screen_text(again))
        # A name can still be changed: /name in chat.
        await pilot.press("c", *"/name Ada", "enter")
        await wait_for(pilot, lambda: again.model.name == "Ada")
    for identity in ("SHA256:new", None):  # a key never seen, and a guest
        app = make_app(hub, name="Cleo", identity=identity)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda app=app: len(app.screen_stack) > 1)
            assert isinstance(app.screen, WelcomeScreen)
        guest = app
    assert guest.model.you["guest"]


async def test_an_invitation_is_answered_at_ones_own_table(hub):
    """Ctrl+R answers from wherever the player is: here Bob, at his own table, declines."""
    from gambit_tui.screens.answer import AnswerScreen

    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    async with (
        ada.run_test(size=(80, 24)) as ada_pilot,
        bob.run_test(size=(80, 24)) as bob_pilot,
    ):
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        await open_pg_table_with_bots(bob_pilot, bots=2)
        bobs_table = bob.screen
        await open_pg_table_with_bots(ada_pilot, bots=1, players=3)
        await ada_pilot.press("i", *"Bob", "enter")
        await wait_for(bob_pilot, lambda: "^r Answer" in screen_text(bob))
        await bob_pilot.press("ctrl+r")
        await wait_for(bob_pilot, lambda: isinstance(bob.screen, AnswerScreen))
        assert "Ada invites you to table 2" in screen_text(bob)
        await bob_pilot.press("x")
        await wait_for(bob_pilot, lambda: bob.screen is bobs_table)
        await wait_for(bob_pilot, lambda: not hub.store.invites_for("SHA256:bob"))
        assert "^r Answer" not in screen_text(bob)


async def test_a_player_arriving_redraws_only_the_number_online_in_other_lobbies(hub):
    """Every lobby shows the number online: a player arriving must not draw anyone's list of
    tables again, nor make their footer ask every key again (that was most of what an arrival
    cost the server, in every lobby, with hundreds there); the number, in the title of the
    panel of players, is drawn again by its row alone (bench/lobby_arrivals.py --online-only
    measures that)."""
    from textual.widgets import DataTable

    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    async with ada.run_test(size=(80, 24)) as ada_pilot, bob.run_test(size=(80, 24)) as bob_pilot:
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        await open_pg_table_with_bots(ada_pilot, bots=1, players=3)
        await wait_for(
            bob_pilot, lambda: "2/3" in screen_text(bob) and "Online (2)" in screen_text(bob)
        )
        await bob_pilot.pause(0.1)
        screen = bob.screen
        listed = screen.query_one("#tables", DataTable)
        whole: list[int] = []
        refresh = listed.refresh
        listed.refresh = lambda *regions, **kw: (  # type: ignore[method-assign]  # a stand-in that counts or records
            whole.append(1) if not regions else None,
            refresh(*regions, **kw),
        )[1]
        asked: list[int] = []
        publish = screen._publish_bindings
        screen._publish_bindings = lambda: (asked.append(1), publish())[1]  # type: ignore[method-assign]  # a stand-in that counts or records
        carol = make_app(hub, name="Carol", identity="SHA256:carol")
        async with carol.run_test(size=(80, 24)) as carol_pilot:
            await enter_lobby(carol_pilot)
            await wait_for(bob_pilot, lambda: "Online (3)" in screen_text(bob))
            await bob_pilot.pause(0.1)
            assert "Carol" in screen_text(bob) and "2/3" in screen_text(bob)
            assert whole == [] and asked == []


@pytest.mark.parametrize("lang", ["en", "uk-ascii", "de-ascii"])
async def test_the_lobby_footer_offers_o_only_at_ones_own_table_and_names_every_key(hub, lang):
    """Issue 38: the footer had no p or o, l read "Best", and o did nothing (silently) on
    someone else's table. Now o is offered where it opens a table (one's own; j too there),
    never elsewhere, and every key of the lobby has its label, whole at 80×24."""
    bob = await connect(hub)
    await bob.hello(name="Bob", identity="SHA256:bob")
    await bob.send("create_table", game="prophet", players=3)
    app = make_app(hub, term=TermInfo(lang=LOCALES[lang]))
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await open_pg_table_with_bots(pilot, bots=2)
        await pilot.press("escape")  # back to the lobby, keeping the seat
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby = app.screen
        await wait_for(pilot, lambda: len(app.model.tables) == 2)

        def keys() -> dict[str, str]:
            return {item.shown: item.description for item in lobby.query_one(GambitFooter).items}

        # Bob's table (table 1): o is not offered and does nothing.
        lobby.query_one("#tables", DataTable).move_cursor(row=0)
        await wait_for(pilot, lambda: lobby.selected_id == 1 and "j" in keys())
        assert "o" not in keys()
        await pilot.press("o")
        await pilot.pause()
        assert app.screen is lobby
        assert not cuts(app), cuts(app)
        # Her own table (table 2): o opens it, and j is not offered as "Join".
        lobby.query_one("#tables", DataTable).move_cursor(row=1)
        await wait_for(pilot, lambda: lobby.selected_id == 2 and "o" in keys())
        assert "j" not in keys()
        wanted = {"n", "o", "s", "f", "h", "l", "p", "c", ",", "q", "?"}
        assert wanted <= set(keys()), keys()
        assert keys()["l"] == app.translations.gettext("Leaderboards") != "Best"
        assert not cuts(app), cuts(app)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is lobby)
        await pilot.press("j")  # j still goes back to one's own table
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
    await bob.close()


@pytest.mark.parametrize("lang", ["en", "uk-ascii", "de-ascii"])
async def test_esc_in_table_chat_is_labelled_as_closing_the_chat(hub, lang):
    """Issue 38: with the table's chat open the footer said "esc Lobby", but Esc only
    closes the chat; the footer now says so (and Lobby again once it is closed)."""
    app = make_app(hub, term=TermInfo(lang=LOCALES[lang]))
    gettext = app.translations.gettext
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await open_pg_table_with_bots(pilot, bots=2)
        table = app.screen
        footer = table.query_one(GambitFooter)

        def esc() -> str | None:
            return next((i.description for i in footer.items if i.key == "escape"), None)

        assert esc() == gettext("Lobby")
        await pilot.press("c")
        await wait_for(pilot, lambda: table.chat_open and esc() == gettext("Close chat"))
        assert gettext("Close chat") != "Close chat" or lang == "en"
        assert not cuts(app), cuts(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not table.chat_open and esc() == gettext("Lobby"))
        assert app.screen is table
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
