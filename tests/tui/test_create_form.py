"""The new-table form (issue 18, item 6): one Tab stop per field, the focused field seen in
every theme (reversed, so without colour too), a hint naming it and its keys, and a wrong
value told under its field with the form kept open."""

from __future__ import annotations

from textual.widgets import Input, Label, Select, Static

from gambit_tui.screens.create_table import CreateTableScreen
from gambit_tui.screens.pg_table import PGTableScreen
from gambit_tui.themes import THEME_NAMES
from protocol.term import TermInfo

from .conftest import enter_lobby, make_app, screen_text, wait_for

PROPHET_FIELDS = [
    "game",
    "players",
    "stake",
    "timer",
    "access",
    "max_rating",
    "duplicate",
    "opt-deck",
    "opt-schedule",
    "opt-cap",
    "cancel",
    "create",
]


async def open_form(pilot) -> CreateTableScreen:
    await enter_lobby(pilot)
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CreateTableScreen))
    return pilot.app.screen


def reversed_labels(app) -> list[str]:
    """The texts of the form's labels drawn reversed on screen (what stands out without
    colour), read from the rendered cells."""
    strips = app.screen._compositor.render_strips()
    shown = []
    for label in app.screen.query(Label).results(Label):
        region = label.region
        if not region.height:
            continue
        cells = strips[region.y].crop(region.x, region.x + 4)
        if all(seg.style is not None and seg.style.reverse for seg in cells if seg.text.strip()):
            shown.append(str(label.content))
    return shown


async def test_tab_stops_at_every_field_and_nowhere_else(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot)
        form.query_one("#game", Select).value = "prophet"
        await pilot.pause()
        stops = []
        for _ in PROPHET_FIELDS:
            stops.append(app.focused.id)
            await pilot.press("tab")
        assert stops == PROPHET_FIELDS
        assert app.focused.id == "game"  # round again
        # Cap is 9 Tabs from the game, and digits typed there land in Cap.
        await pilot.press(*["tab"] * 9, *"3")
        assert form.query_one("#opt-cap", Input).value == "3"
        assert "Cap: type a number from 0 to" in screen_text(app)


async def test_the_focused_field_stands_out_in_every_theme(hub):
    """Reversed, so it shows in the dark, light and monochrome themes, and on a terminal
    without colour (``TERM=xterm-mono``; ``NO_COLOR`` takes the same way: no colour at all)."""
    for themes, term in [
        (["dark", "light", "mono"], TermInfo()),
        ([None], TermInfo(term="xterm-mono")),
    ]:
        app = make_app(hub, term=term)
        async with app.run_test(size=(80, 24)) as pilot:
            form = await open_form(pilot)
            for theme in themes:
                if theme is not None:
                    app.theme = THEME_NAMES[theme]
                else:
                    assert app.theme == THEME_NAMES["mono"]
                app.set_focus(form.query_one("#game"))
                await pilot.pause()
                assert reversed_labels(app) == ["Game"], theme
                await pilot.press("tab", "tab")
                await pilot.pause()
                assert reversed_labels(app) == ["Stake (chips each game)"], theme
                text = screen_text(app)
                assert "Stake (chips each game): type a number from 0 to 1000000" in text
                await pilot.press("tab", "tab", "tab", "tab", "tab", "tab")
                await pilot.pause()
                assert app.focused.id == "create"
                assert reversed_labels(app) == []
                create = form.query_one("#create")
                cell = app.screen._compositor.render_strips()[create.region.y].crop(
                    create.region.x, create.region.right
                )
                assert any(seg.style.reverse for seg in cell if seg.text.strip()), theme


async def test_a_stake_out_of_range_is_told_beside_it_and_the_form_kept(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot)
        await pilot.press("tab", "tab", "ctrl+u", *"2000000", "tab", "ctrl+u", *"45")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form
        error = form.query_one("#error-stake", Static)
        assert error.display and "Stake must be from 0 to 1000000." in str(error.content)
        assert app.focused.id == "stake"
        assert form.query_one("#stake", Input).value == "2000000"
        assert form.query_one("#timer", Input).value == "45"
        # More than the player's chips: the hub refuses, and says so under the stake too.
        form.query_one("#stake", Input).value = "5000"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "is more than your 1000" in screen_text(app))
        assert app.screen is form
        assert form.query_one("#error-stake", Static).display
        assert form.query_one("#timer", Input).value == "45"
        assert not hub.tables
        form.query_one("#stake", Input).value = "50"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        assert app.model.tables[1]["stake"] == 50
        await pilot.press("escape")  # the form closed with the table: back to the lobby
        await wait_for(pilot, lambda: type(app.screen).__name__ == "LobbyScreen")


async def test_a_stake_typed_with_ctrl_s_in_one_packet_is_the_tables_stake(hub):
    """Keys that arrive together over SSH (a stake and Ctrl+S in one packet, posted at once:
    pilot.press waits between keys): the priority Ctrl+S read the form before the box had
    the keys typed just ahead of it, so the table got the old stake."""
    from textual import events

    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot)
        await pilot.press("tab", "tab")
        assert app.focused is form.query_one("#stake", Input)
        await pilot.pause()
        keys = [("ctrl+u", None)] + [(c, c) for c in "25"] + [("ctrl+s", None)]
        for key, character in keys:
            app.post_message(events.Key(key, character))
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        assert app.model.tables[1]["stake"] == 25
