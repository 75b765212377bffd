"""Player text is never markup (issue 38, item 4): whatever a player typed (chat, a duplicate
set's name, the admins' message of the day, a broadcast) is shown exactly as typed, in every
place it reaches: panels, lists, status lines and notices. Names cannot carry markup: the hub
refuses a name with brackets (checked here too)."""

from __future__ import annotations

from textual.widgets import Input

from gambit_tui.screens.create_table import CreateTableScreen
from gambit_tui.screens.pg_table import PGTableScreen
from gambit_tui.screens.welcome import WelcomeScreen
from protocol.requests import Chat
from server.hub.hub import clean_name

from .conftest import enter_lobby, make_app, screen_text, wait_for

#: Markup Textual would draw reversed and struck through (and without its brackets).
MARK = "see [reverse]REV[/reverse] and [strike]gone[/strike]"
#: A duplicate set's name (at most 24 letters) that is markup too.
SET = "[b]S[/b] [i]T[/i]"
MOTD = "[bold red]Welcome[/] all"
BROADCAST = "[blink]going down[/blink] soon"


def shown(app) -> str:
    """What the screen shows, and the text of each notice up (a notice wraps in its box)."""
    toasts = [str(toast.render()) for toast in app.screen.query("Toast")]
    return "\n".join([screen_text(app), *toasts])


async def test_a_name_with_markup_is_refused():
    assert clean_name("[b]Ada[/b]") == "" and clean_name("Ada") == "Ada"


async def test_player_text_is_shown_as_typed_everywhere(hub):
    hub.store.set_motd(MOTD)
    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    size = (130, 30)
    async with (
        ada.run_test(size=size, notifications=True) as ada_pilot,
        bob.run_test(size=size, notifications=True) as bob_pilot,
    ):
        await wait_for(ada_pilot, lambda: isinstance(ada.screen, WelcomeScreen))
        assert MOTD in screen_text(ada)  # the welcome's message of the day
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        # The lobby's chat.
        ada.send(Chat("lobby", MARK))
        await wait_for(bob_pilot, lambda: "Ada: " + MARK in screen_text(bob))
        # A duplicate set's name: the lobby's description of the table, the table's lines.
        await ada_pilot.press("n")
        await wait_for(ada_pilot, lambda: isinstance(ada.screen, CreateTableScreen))
        ada.screen.query_one("#duplicate", Input).value = SET
        await ada_pilot.press("ctrl+s")
        await wait_for(ada_pilot, lambda: isinstance(ada.screen, PGTableScreen))
        await wait_for(bob_pilot, lambda: f"duplicate set {SET}, game 1" in screen_text(bob))
        await bob_pilot.press("j")
        await wait_for(bob_pilot, lambda: isinstance(bob.screen, PGTableScreen))
        await wait_for(bob_pilot, lambda: f"Set {SET}, game 1: you hold" in screen_text(bob))
        # A table's chat, told in a notice while the chat is closed (the tester's case).
        table = bob.screen.table_id
        ada.send(Chat("table", MARK, table=table))
        await wait_for(bob_pilot, lambda: bob.screen.query_one("ChatPanel").query("RichLog"))
        await wait_for(bob_pilot, lambda: any(MARK in n.message for n in bob._notifications))
        await bob_pilot.pause()
        assert "Ada: " + MARK in shown(bob)
        await bob_pilot.press("c")
        await wait_for(bob_pilot, lambda: "Ada: " + MARK in screen_text(bob))
    # The message of the day told to a returning player; an admins' broadcast.
    again = make_app(hub, name=None)
    async with again.run_test(size=size, notifications=True) as pilot:
        await wait_for(pilot, lambda: again.in_lobby())  # and at Ada's table, on top
        await wait_for(pilot, lambda: "Message of the day" in shown(again))
        assert MOTD in shown(again)
        again.receive({"t": "notice", "code": "broadcast", "message": BROADCAST})
        await pilot.pause()
        assert BROADCAST in shown(again)
