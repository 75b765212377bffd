"""Game nights in the app: the lobby's v opens the events, a host makes one and starts its
round by keys, a registered player's table opens by itself, and the standings follow every
table's end."""

from __future__ import annotations

import asyncio
import time

from textual.widgets import DataTable

from gambit_tui.night_text import state_label
from gambit_tui.screens.ask_name import AskNameScreen
from gambit_tui.screens.nights import NightSetupScreen, NightsScreen
from gambit_tui.screens.pg_table import PGTableScreen
from server.cli import build_parser
from server.event_cli import ask, request_of
from server.hub.listener import serve_unix
from tests.hub.harness import Client, connect, play_to_end

from .conftest import enter_lobby, make_app, screen_text, wait_for


async def _make_event(pilot, name: str = "Friday", rounds_down: int = 2) -> None:
    """From the lobby: v, n, the name, then the rules (rounds lowered by ``rounds_down``)."""
    await pilot.press("v")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, NightsScreen))
    await wait_for(pilot, lambda: "No events yet" in screen_text(pilot.app))
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, AskNameScreen))
    await pilot.press(*name, "enter")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, NightSetupScreen))
    await pilot.press("down", "down", "down", *["left"] * rounds_down, "enter")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, NightsScreen))
    await wait_for(pilot, lambda: name in screen_text(pilot.app))


async def _registered(hub, count: int, night: int) -> list[Client]:
    clients = []
    for i in range(count):
        client = await connect(hub)
        await client.hello(f"Pat{i}", identity=f"key-pat{i}")
        await client.send("night", op="register", night=night)
        await client.expect("night")
        clients.append(client)
    return clients


async def test_an_events_name_is_shown_as_typed_not_as_markup(hub):
    """(The crawler's find: the setup screen's title read the name as markup.)"""
    name = "[i]Fri[/i] [b]day[/b]"  # (24 letters at most)
    app = make_app(hub, name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, NightsScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, AskNameScreen))
        await pilot.press(*name, "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, NightSetupScreen))
        await wait_for(pilot, lambda: "New event" in screen_text(app))
        assert f"New event · {name}" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, NightsScreen))
        await wait_for(pilot, lambda: name in screen_text(app))


async def test_a_host_makes_an_event_registers_starts_it_and_the_table_opens_by_itself(hub):
    app = make_app(hub, name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await _make_event(pilot)
        night = hub.nights.nights[1]
        assert (night.rules.name, night.rules.rounds, night.rules.format) == ("Friday", 1, "swiss")
        text = screen_text(app)
        assert "Registering" in text and "Swiss" in text and "host: Ada" in text
        await pilot.press("r")
        await wait_for(pilot, lambda: "you are registered" in screen_text(app))
        await _registered(hub, 2, 1)
        await wait_for(pilot, lambda: "Pat1" in screen_text(app))  # the standings, live
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        table = night.rounds[0].table_ids[0]
        assert app.screen.table_id == table
        # Opened over the events, Esc goes back to them and the footer says so.
        await wait_for(pilot, lambda: "esc Events" in screen_text(app).splitlines()[-1])
        assert "esc Lobby" not in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, NightsScreen))
        await wait_for(pilot, lambda: f"your table: {table} (o)" in screen_text(app))
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))


async def test_an_event_made_on_the_servers_command_line_shows_the_host_it_was_given(hub, tmp_path):
    """Regression: the Events screen said "host: Player-0421" (the local admin's made-up name,
    another at each command) for an event made with ``gambit event create``."""
    sock = tmp_path / "hub.sock"
    server = await serve_unix(hub, sock)
    made = build_parser().parse_args(["event", "create", "Friday", "--host", "Ada's Club"])
    await ask(sock, request_of(made, time.time()))
    app = make_app(hub, name="Bob")
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, NightsScreen))
        await wait_for(pilot, lambda: "host: Ada's Club" in screen_text(app))
    server.close()


async def test_the_standings_follow_each_table_to_the_final_results(hub):
    app = make_app(hub, name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await _make_event(pilot)
        players = await _registered(hub, 3, 1)
        await pilot.press("s")
        await wait_for(pilot, lambda: hub.nights.nights[1].rounds)
        table = hub.nights.nights[1].rounds[0].table_ids[0]
        await asyncio.gather(*(p.until(lambda m: m["t"] == "table") for p in players))
        await play_to_end(dict(enumerate(players)), table)
        await wait_for(pilot, lambda: "Finished" in screen_text(app))
        standings = app.screen.query_one("#standings", DataTable)
        rows = [standings.get_row_at(i) for i in range(standings.row_count)]
        assert sorted(str(r[1]) for r in rows) == ["Pat0", "Pat1", "Pat2"]
        assert sorted(float(r[2]) for r in rows) in (
            [0, 1, 2],
            [0.5, 0.5, 2],
            [0, 1.5, 1.5],
            [1, 1, 1],
        )
        assert all(r[4] == "1" for r in rows)


def _counting_clears(table: DataTable, cleared: list[str | None]):
    clear = table.clear

    def counted(*args, **kwargs):
        cleared.append(table.id)
        return clear(*args, **kwargs)

    return counted


async def test_a_standings_message_changes_only_what_changed_and_the_cursor_stays(hub, monkeypatch):
    """Regression: each standings message (a registration, a table's end) cleared and filled
    both of the Events screen's tables: the standings went back to their first row and
    scrolled to the top under the reader's eyes, and every row of both was drawn again."""
    app = make_app(hub, name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await _make_event(pilot)
        await _registered(hub, 16, 1)
        nights = app.screen.query_one("#nights", DataTable)
        standings = app.screen.query_one("#standings", DataTable)
        await wait_for(pilot, lambda: standings.row_count == 16)
        cleared: list[str | None] = []
        for table in (nights, standings):
            monkeypatch.setattr(table, "clear", _counting_clears(table, cleared))
        standings.focus()
        standings.move_cursor(row=14)
        await pilot.pause()
        scrolled = standings.scroll_y
        assert scrolled > 0
        late = await connect(hub)
        await late.hello("Zed", identity="key-zed")
        await late.send("night", op="register", night=1)
        await wait_for(pilot, lambda: standings.row_count == 17)
        await pilot.pause()
        assert "Zed" in [str(standings.get_row_at(i)[1]) for i in range(17)]
        assert cleared == []
        assert (standings.cursor_row, standings.scroll_y) == (14, scrolled)
        assert nights.cursor_row == 0 and nights.row_count == 1


def test_the_countdown_to_the_next_round_runs_from_when_the_hub_said_it():
    between = {"status": "between", "round": 1, "rounds": 3, "next_in": 30}
    assert state_label(between) == "Round 1 of 3 · next in 0:30"
    assert state_label(between, 12.4) == "Round 1 of 3 · next in 0:18"
    assert state_label(between, 99) == "Round 1 of 3 · next in 0:00"
    assert state_label({**between, "status": "playing", "next_in": None}) == "Round 1 of 3"


async def test_the_host_pauses_extends_removes_a_player_and_cancels_from_the_events_screen(hub):
    from gambit_tui.screens.confirm import ConfirmScreen

    app = make_app(hub, name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await _make_event(pilot)
        night = hub.nights.nights[1]
        await _registered(hub, 2, 1)
        assert "Resume" not in screen_text(app)
        await pilot.press("p")
        await wait_for(pilot, lambda: "Registering · paused" in screen_text(app))
        assert night.paused and "Resume" in screen_text(app).splitlines()[-1]
        await pilot.press("p")
        await wait_for(pilot, lambda: not night.paused)
        await pilot.press("x", "x")
        await wait_for(pilot, lambda: night.rules.rounds == 3)
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, AskNameScreen))
        await pilot.press(*"Pat1", "enter")
        await wait_for(pilot, lambda: "key-pat1" not in night.active())
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: "Cancelled" in screen_text(app))
        assert night.status == "cancelled"


async def make_invited_only_event(hub, app, pilot):
    """From the lobby, the host's keys make "Friday", open to invited players only."""
    await enter_lobby(pilot)
    await pilot.press("v")
    await wait_for(pilot, lambda: isinstance(app.screen, NightsScreen))
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, AskNameScreen))
    await pilot.press(*"Friday", "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, NightSetupScreen))
    await pilot.press("up", "left")  # the last line: who may join, everyone -> invited
    await wait_for(pilot, lambda: "Who may join: < invited >" in screen_text(app))
    await pilot.press("enter")
    await wait_for(pilot, lambda: 1 in hub.nights.nights)
    return hub.nights.nights[1]


async def test_the_host_makes_an_event_for_invited_players_and_invites_one_with_i(hub):
    guest = await connect(hub)
    await guest.hello("Bea", identity="key-bea")
    app = make_app(hub, name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        night = await make_invited_only_event(hub, app, pilot)
        assert night.rules.access == "invited"
        await guest.send("night", op="register", night=1)
        assert (await guest.expect("error"))["code"] == "not_allowed"
        await wait_for(pilot, lambda: "Invite" in screen_text(app).splitlines()[-1])
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, AskNameScreen))
        await pilot.press(*"Bea", "enter")
        await wait_for(pilot, lambda: night.invited == ["key-bea"])
        await guest.expect("notice", code="night_invited")
        await guest.send("night", op="register", night=1)
        await wait_for(pilot, lambda: night.active() == ["key-bea"])


async def test_the_host_takes_an_invitation_back_with_u(hub):
    guest = await connect(hub)
    await guest.hello("Bea", identity="key-bea")
    app = make_app(hub, name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        night = await make_invited_only_event(hub, app, pilot)
        await wait_for(pilot, lambda: "Uninvite" in screen_text(app).splitlines()[-1])
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, AskNameScreen))
        await pilot.press(*"Bea", "enter")
        await wait_for(pilot, lambda: night.invited == ["key-bea"])
        await guest.expect("notice", code="night_invited")
        await wait_for(pilot, lambda: isinstance(app.screen, NightsScreen))
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, AskNameScreen))
        assert "Name the player whose invitation to take back." in screen_text(app)
        await pilot.press(*"bea", "enter")  # (any case)
        await wait_for(pilot, lambda: night.invited == [])
        told = "Bea is no longer invited to Friday."
        await wait_for(pilot, lambda: any(told in n[0] for n in app.live_notices()))
        await guest.send("night", op="register", night=1)
        assert (await guest.expect("error"))["code"] == "not_allowed"


async def test_only_the_host_is_shown_the_uninvite_key(hub):
    host = await connect(hub)
    await host.hello("Cy", identity="key-cy")
    await host.send(
        "night",
        op="create",
        name="Friday",
        game="prophets_gambit",
        players=4,
        format="swiss",
        access="invited",
    )
    await host.expect("night")
    app = make_app(hub, name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("v")
        await wait_for(pilot, lambda: "Friday" in screen_text(app))
        await wait_for(pilot, lambda: "Register" in screen_text(app).splitlines()[-1])
        footer = screen_text(app).splitlines()[-1]
        assert "Invite" not in footer and "Uninvite" not in footer
        await pilot.press("u")  # (nothing to ask a player who does not host the event)
        await pilot.pause()
        assert isinstance(app.screen, NightsScreen)


def test_the_countdown_to_a_start_time_shows_in_the_list():
    night = {"status": "registering", "round": 0, "rounds": 3, "next_in": 125}
    assert state_label(night, 4.2) == "Registering · starts in 2:01"
    assert state_label({**night, "next_in": 3725}) == "Registering · starts in 1:02:05"
    assert state_label({**night, "next_in": None, "paused": True}) == "Registering · paused"
