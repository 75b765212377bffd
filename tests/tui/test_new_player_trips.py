"""What a new player tripped over (issue 38): friends and guests, a taken name, leaving with
Ctrl+Q, an invitation's notice."""

from __future__ import annotations

import asyncio

import pytest

from gambit_tui.screens.pick_player import PickPlayerScreen
from gambit_tui.screens.social import SocialScreen

from .conftest import (
    enter_lobby,
    make_app,
    open_pg_table_with_bots,
    screen_text,
    start_pg_deal,
    wait_for,
)


async def test_guests_are_not_offered_as_friends_and_a_typed_guest_is_told_why(hub):
    """Item 5: the Add friend list offered "bob · online", a guest, and picking him said there
    was no player called bob."""
    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="bob", identity=None)  # a guest
    cleo = make_app(hub, name="Cleo", identity="SHA256:cleo")
    async with (
        ada.run_test(size=(80, 24), notifications=True) as ada_pilot,
        bob.run_test(size=(80, 24)) as bob_pilot,
        cleo.run_test(size=(80, 24)) as cleo_pilot,
    ):
        for pilot in (ada_pilot, bob_pilot, cleo_pilot):
            await enter_lobby(pilot)
        await ada_pilot.press("f")
        await wait_for(ada_pilot, lambda: isinstance(ada.screen, SocialScreen))
        await ada_pilot.press("a")
        await wait_for(ada_pilot, lambda: "Cleo · online" in screen_text(ada))
        assert isinstance(ada.screen, PickPlayerScreen)
        assert "bob" not in screen_text(ada)
        await ada_pilot.press(*"bob", "enter")
        await wait_for(
            ada_pilot,
            lambda: (
                "bob is a guest, and guests cannot keep friends."
                in [n.message for n in ada._notifications]
            ),
        )
        assert not any("no player" in n.message for n in ada._notifications)


async def test_ctrl_q_in_a_game_in_play_asks_as_q_does(hub):
    """Item 6: ``q`` at a table in play asked ("Leave during a game"), Ctrl+Q quit at once."""
    from gambit_tui.screens.confirm import QuitQuestion

    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, QuitQuestion))
        text = " ".join(screen_text(app).replace("│", " ").split())
        assert "Quit during a game" in text and "a bot plays it" in text, text
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is table)
        assert app.is_running
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, QuitQuestion))
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running)


async def test_ctrl_q_out_of_a_game_quits_at_once(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running)


async def test_a_taken_name_is_refused_in_words_and_the_welcome_stays(hub):
    """Item 9: "alice" (registered, online) typed on the welcome screen entered the lobby under
    the old name with no word; now the welcome says why and waits for another name."""
    from textual.widgets import Input

    from gambit_tui.screens.lobby import LobbyScreen
    from gambit_tui.screens.welcome import WelcomeScreen

    alice = make_app(hub, name="Alice", identity="SHA256:alice")
    new = make_app(hub, name="Newbie", identity="SHA256:new")
    async with alice.run_test(size=(80, 24)) as alice_pilot, new.run_test(size=(80, 24)) as pilot:
        await enter_lobby(alice_pilot)
        await wait_for(pilot, lambda: isinstance(new.screen, WelcomeScreen))
        await pilot.press(*["backspace"] * 6, *"alice", "enter")
        await wait_for(pilot, lambda: "Someone online is already called alice." in screen_text(new))
        await pilot.pause(0.1)
        assert isinstance(new.screen, WelcomeScreen) and new.model.name == "Newbie"
        assert new.screen.focused is new.screen.query_one("#name", Input)
        await pilot.press(*["backspace"] * 5, *"Alicia", "enter")
        await wait_for(pilot, lambda: isinstance(new.screen, LobbyScreen))
        assert new.model.name == "Alicia"
        assert "already called" not in screen_text(new)


async def test_keys_that_arrive_together_are_applied_in_the_order_typed(hub):
    """Item 9 over ssh: backspaces, a name and Enter arrive in one packet, posted to the app
    at once (pilot.press waits between keys). Textual applied the backspaces only once they
    had bubbled up to the app, after the letters (which they deleted), and the priority Enter
    read the field before either: the lobby opened under the old name, with no word."""
    from textual import events
    from textual.widgets import Input

    from gambit_tui.screens.welcome import WelcomeScreen

    alice = make_app(hub, name="Alice", identity="SHA256:alice")
    new = make_app(hub, name="Newbie", identity="SHA256:new")
    async with alice.run_test(size=(80, 24)) as alice_pilot, new.run_test(size=(80, 24)) as pilot:
        await enter_lobby(alice_pilot)
        await wait_for(pilot, lambda: isinstance(new.screen, WelcomeScreen))
        await pilot.pause()
        keys = [("backspace", "\x7f")] * 6 + [(c, c) for c in "alice"] + [("enter", "\r")]
        for key, character in keys:
            new.post_message(events.Key(key, character))
        await wait_for(pilot, lambda: "Someone online is already called alice." in screen_text(new))
        assert isinstance(new.screen, WelcomeScreen) and new.model.name == "Newbie"
        assert new.screen.query_one("#name", Input).value == "alice"


def notices(app) -> list[str]:
    """The text of every notice up on the app's screen."""
    return [str(toast.render()) for toast in app.screen.query("Toast")]


async def test_an_invitation_notice_goes_once_the_invitation_is_accepted(hub):
    """Item 12: the notice of an invitation stayed up (ten seconds) after it was accepted;
    other notices stay up."""
    from gambit_tui.screens.pg_table import PGTableScreen

    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    async with (
        ada.run_test(size=(100, 30), notifications=True) as ada_pilot,
        bob.run_test(size=(100, 30), notifications=True) as bob_pilot,
    ):
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        await open_pg_table_with_bots(ada_pilot, bots=1, players=3)
        bob.notify("Something else.", timeout=30)
        await ada_pilot.press("i", *"Bob", "enter")
        told = "Ada invites you to table 1: Ctrl+R to answer."
        await wait_for(bob_pilot, lambda: told in notices(bob))
        await bob_pilot.press("ctrl+r")
        await wait_for(bob_pilot, lambda: "invites you to table 1" in screen_text(bob))
        await bob_pilot.press("y")
        await wait_for(bob_pilot, lambda: isinstance(bob.screen, PGTableScreen))
        await bob_pilot.pause(0.1)
        assert told not in notices(bob) and "Something else." in notices(bob)


@pytest.mark.parametrize("wait", [None, 0.0], ids=["at-once", "next-turn"])
async def test_a_language_change_as_the_app_ends_is_no_crash(hub, wait):
    """Item 11: a player who chose a language just before the server stopped had their app
    crash (the lobby set up widgets its recompose had not made), and so read "Sorry: the
    server could not run your session" instead of the stopping server's goodbye."""
    from gambit_tui import events

    app = make_app(hub, name="Gus", identity=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        app.broadcast(events.LookChanged)
        if wait is not None:
            await asyncio.sleep(wait)
        app.exit()
    assert app.return_code == 0
