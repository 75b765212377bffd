"""Player text is never markup (issue 38, item 4): whatever a player typed (chat, a duplicate
set's name, the admins' message of the day, a broadcast) is shown exactly as typed, in every
place it reaches: panels, lists, logs, status lines and notices. Names cannot carry markup: the
hub refuses a name with brackets (checked here too)."""

from __future__ import annotations

from textual.widgets import Input

from gambit_tui.screens.create_table import CreateTableScreen
from gambit_tui.screens.pg_table import PGTableScreen
from gambit_tui.screens.welcome import WelcomeScreen
from protocol.requests import Chat
from server.hub.names import clean_name

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
        # A table's chat, told in the table's log while the chat is closed (the tester's case).
        table = bob.screen.table_id
        ada.send(Chat("table", MARK, table=table))
        await wait_for(bob_pilot, lambda: "Ada: " + MARK in screen_text(bob))
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


#: A name that is markup. The hub refuses it (test above); here it is let through, so that
#: every place that shows a name is seen to show it as it is, not as markup.
ZED = "[i]Zed[/i]"


async def test_names_are_shown_as_they_are_everywhere(hub, store, monkeypatch):
    """Lobby (online list, a table's description, chat), a friend request (notice, answer,
    the friends screen), an invitation (notice, answer, lists), a table's seats, profiles,
    the leaderboard and Your games."""
    import server.hub.names as names_module
    from gambit_tui.screens.answer import AnswerScreen
    from gambit_tui.screens.history import HistoryScreen
    from gambit_tui.screens.leaderboard import LeaderboardScreen
    from gambit_tui.screens.profile import ProfileScreen
    from gambit_tui.screens.social import SocialScreen
    from server.hub import history
    from tests.hub.harness import connect

    monkeypatch.setattr(names_module, "clean_name", lambda name: " ".join(name.split()))
    monkeypatch.setattr(history, "MIN_GAMES", 1)
    store.ensure_player("SHA256:ada", starting_chips=1000)
    store.ensure_player("SHA256:zed", starting_chips=1000)
    store.set_name("SHA256:zed", ZED)
    store.record_game(
        1,
        {"game": "prophet"},
        [],
        {},
        ["SHA256:zed", "SHA256:ada", None],
        results=[
            {"place": 1, "chips": 10, "rating_change": 5},
            {"place": 2, "chips": -10, "rating_change": -5},
            {},
        ],
    )
    store.set_ratings("prophet", {"SHA256:zed": (30.0, 3.0), "SHA256:ada": (20.0, 3.0)})
    zed = await connect(hub)
    await zed.hello(ZED, identity="SHA256:zed")
    ada = make_app(hub, name="Ada")
    async with ada.run_test(size=(130, 30), notifications=True) as pilot:
        await enter_lobby(pilot)
        await wait_for(pilot, lambda: ZED in screen_text(ada))  # online
        await zed.send("chat", channel="lobby", text="hello")
        await wait_for(pilot, lambda: f"{ZED}: hello" in screen_text(ada))
        # A friend request: its notice, Ctrl+R's question, the friends screen.
        await zed.send("friend", op="add", name="Ada")
        await wait_for(pilot, lambda: f"{ZED} asks to be your friend" in shown(ada))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(ada.screen, AnswerScreen))
        await wait_for(pilot, lambda: f"{ZED} asks to be your friend." in screen_text(ada))
        await pilot.press("escape", "f")
        await wait_for(pilot, lambda: isinstance(ada.screen, SocialScreen))
        await wait_for(pilot, lambda: ZED in screen_text(ada))
        await pilot.press("y")  # friends now
        await wait_for(pilot, lambda: f"{ZED} · online" in screen_text(ada))
        # An invitation: notice, question, the friends screen's list.
        await zed.send("create_table", game="prophet", players=3)
        table = (await zed.expect("table"))["table"]
        await zed.send("invite", op="send", table=table, name="Ada")
        await wait_for(pilot, lambda: f"{ZED} invites you to table {table}" in shown(ada))
        await wait_for(pilot, lambda: f"from {ZED}" in screen_text(ada))
        await pilot.press("escape")
        await wait_for(pilot, lambda: f"opened by {ZED}" in screen_text(ada))  # the table
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: f"{ZED} invites you to table {table}" in screen_text(ada))
        await pilot.press("y")  # at Zed's table: the seats
        await wait_for(pilot, lambda: getattr(ada.screen, "table_id", None) == table)
        await wait_for(pilot, lambda: ZED in screen_text(ada))
        # Profiles from the table (w), the picker of a friend to invite.
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(ada.screen, ProfileScreen))
        await wait_for(pilot, lambda: f"{ZED} · online" in screen_text(ada))
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: ada.in_lobby() and not hasattr(ada.screen, "table_id"))
        # The leaderboard, and Your games.
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(ada.screen, LeaderboardScreen))
        await pilot.press("right")  # Prophet
        await wait_for(pilot, lambda: ZED in screen_text(ada))
        await pilot.press("escape", "h")
        await wait_for(pilot, lambda: isinstance(ada.screen, HistoryScreen))
        await wait_for(pilot, lambda: f"{ZED}, Ada" in screen_text(ada))
