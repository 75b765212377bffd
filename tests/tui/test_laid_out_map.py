"""A change is drawn even when the screen's map of widgets was rebuilt before its layout
(server/apphost/laid_out_map.py): on the real channel driver, the terminal then shows what
Textual draws from scratch.

The order that lost a change: a widget the map does not show (inside a hidden panel) asks for
a repaint, which marks the map stale; a widget is removed or shown; the next ``refresh``
asks a widget's place and rebuilds the map as things are now; the layout compares with that
map and finds nothing to draw.
"""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.pilot import Pilot
from textual.widgets import Static
from textual.widgets._toast import Toast

from server.apphost import laid_out_map
from server.terminal.driver import bind
from tests.ssh.test_driver import FakeTerminal, wait_until

from .test_draw_now import whole_screen


class PanelsApp(App[None]):
    CSS = """
    #hidden { display: none; }
    #box { height: auto; }
    Static { height: 3; border: round white; }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Static("top", id="top")
        with Vertical(id="hidden"):
            yield Static("in a hidden panel", id="inside")
        yield Static("row shown later", id="later")
        yield Static("bottom", id="bottom")

    def on_mount(self) -> None:
        self.query_one("#later").display = False


async def run_on_terminal(app: App[None]):
    term = FakeTerminal()
    bind(app, term)
    run = asyncio.create_task(app.run_async(size=(40, 12)))
    await wait_until(lambda: term.driver is not None and app.is_running)
    return term, run


async def settled(pilot: Pilot, term: FakeTerminal) -> str:
    """What is wrong on the terminal once things have settled ("" if nothing)."""
    app = pilot.app
    for _ in range(10):
        await pilot.pause(0.05)
        shown, drawn = term.screen(40, 12), whole_screen(app)
        if shown == drawn:
            return ""
    return f"the terminal shows\n{shown}\n--- Textual draws ---\n{drawn}"


async def map_made_stale(pilot: Pilot) -> None:
    """A widget inside the hidden panel asks for a repaint, and the screen updates: the map
    of widgets is stale (the chat box inside a table's hidden chat panel does this)."""
    app = pilot.app
    app.query_one("#inside").refresh()
    await pilot.pause(0.05)
    assert app.screen._compositor._full_map_invalidated


@pytest.fixture(params=["fixed", "textuals"])
def patched(request, monkeypatch):
    """With the correction (as the server runs), and with Textual's own code, to show the
    order below is the one that lost a change."""
    if request.param == "textuals":
        for name, value in laid_out_map.TEXTUALS.items():
            monkeypatch.setattr(laid_out_map.Compositor, name, value)
    return request.param


@pytest.mark.parametrize("change", ["removed", "shown"])
async def test_a_change_after_the_map_went_stale_reaches_the_terminal(patched, change):
    app = PanelsApp()
    term, run = await run_on_terminal(app)
    try:
        with app._context():
            pilot = Pilot(app)
            await pilot.pause(0.3)
            assert not await settled(pilot, term)
            await map_made_stale(pilot)
            if change == "removed":
                app.query_one("#top").remove()  # (as a toast that has timed out)
            else:
                app.query_one("#later").display = True  # (as a row that comes with an ask)
            problem = await settled(pilot, term)
    finally:
        app.exit()
        await asyncio.wait_for(run, 10)
    if patched == "fixed":
        assert not problem, problem
    else:
        assert problem  # Textual's own code leaves the change off the terminal


async def test_a_toast_that_times_out_leaves_the_terminal(patched):
    app = PanelsApp()
    term, run = await run_on_terminal(app)
    try:
        with app._context():
            pilot = Pilot(app)
            app.notify("The next game has started.", timeout=30)
            await wait_until(lambda: "next game" in term.screen(40, 12))
            assert not await settled(pilot, term)
            await map_made_stale(pilot)
            app.screen.query_one(Toast)._expire()  # what its timer does
            problem = await settled(pilot, term)
            assert "next game" not in whole_screen(app)
    finally:
        app.exit()
        await asyncio.wait_for(run, 10)
    if patched == "fixed":
        assert not problem, problem
    else:
        assert "next game" in problem
