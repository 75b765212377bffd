"""Pilot tests of the app against a real hub: real messages, no SSH.

Each app gets an in-process connection to a hub with fast timers, no bot delay and a fixed deal
seed, so a test can play a deal by keys in well under a second.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

import gambit_tui.app as app_module
from gambit_tui.app import GambitApp
from protocol.connection import queue_pair
from protocol.term import TermInfo
from server.apphost.app_settings import host_many_apps
from server.apphost.textual_layer import TextualChanged, install_all
from server.hub import Hub
from tests.hub.conftest import fast_config

# The apps under test run as the server runs them (Textual's corrections, tables drawn at once).
try:
    host_many_apps()
except TextualChanged:
    # A Textual the patches were not written for: the server refuses it; the tests run anyway,
    # and tests/tui/test_textual_patches.py fails once for each patch whose original changed.
    install_all(checked=False)
# ... and as a debug run: a message the protocol does not list is logged and dropped.
app_module.CHECK_MESSAGES = True


def tui_config(**overrides):
    """Fast hub settings; the result of a deal stays up (the next deal waits a minute). An app
    has a minute to say hello: a test may start its hub's side of a connection well before
    the app (``make_app``, then another app's start), and under the suite's load a hub that
    gave up after 2 s left the app at "Connecting" (the hello's deadline: tests/hub)."""
    values = {"seed": 1, "between_games": 60.0, "hello_timeout": 60.0}
    values.update(overrides)
    return fast_config(**values)


@pytest.fixture
async def hub(store):
    h = Hub(store, tui_config())
    await h.start()
    yield h
    await h.stop()


class FooterChecks:
    """Every time a footer was asked to look at its keys again: ``skipped`` counts the
    times the screen's ``bindings_state`` let it keep its keys, ``stale`` the keys it kept (or
    made) that differ from the keys collected anew."""

    def __init__(self) -> None:
        self.skipped = 0
        self.stale: list[tuple[object, object]] = []


@pytest.fixture(autouse=True)
def footer_checked(monkeypatch) -> Iterator[FooterChecks]:
    """In every test here: after each look at the keys (kept by ``bindings_state`` or
    collected), the footer shows what collecting them anew gives (a stale footer fails the
    test at its end)."""
    from gambit_tui.widgets.footer import GambitFooter

    checks = FooterChecks()
    bindings_changed = GambitFooter.bindings_changed

    def checked(self, screen):
        state = self._state
        before = self.items
        bindings_changed(self, screen)
        if not self.is_attached or screen is not self.screen:
            return
        if self._state is state and self.items is before and state is not None:
            checks.skipped += 1
        fresh = self.collect(screen)
        if fresh != self.items:
            checks.stale.append((self.items, fresh))

    monkeypatch.setattr(GambitFooter, "bindings_changed", checked)
    yield checks
    assert not checks.stale, checks.stale[:3]


class KeptChecks:
    """What :func:`check_kept_hand_and_hint` found: moves checked, and the stale ones."""

    def __init__(self) -> None:
        self.checked = 0
        self.stale: list[str] = []


def check_kept_hand_and_hint(
    monkeypatch, screen_cls: type, row_of: Callable[[Any], Any], again: Callable[[Any], None]
) -> KeptChecks:
    """After every ``refresh_view`` of ``screen_cls``: the hand row's choices (the row
    ``row_of`` the screen) and the prompt's hint, kept from earlier moves by the screen's
    memos, equal those made anew (``again`` forgets the memos and sets both again). The test
    asserts ``stale`` empty (an assertion inside the app would be lost)."""
    from gambit_tui.widgets.prompt_bar import PromptBar

    checks = KeptChecks()
    refresh = screen_cls.refresh_view

    def checked(self):
        refresh(self)
        if self.message is None or not self.query(PromptBar):
            return
        row, prompt = row_of(self), self.query_one(PromptBar)
        kept = (list(row.choices), prompt.hint)
        again(self)
        if (list(row.choices), prompt.hint) != kept:
            checks.stale.append(repr(self.view))
        checks.checked += 1

    monkeypatch.setattr(screen_cls, "refresh_view", checked)
    return checks


def keep_results_up(hub: Hub) -> None:
    """The hub takes no player's ``result_read``, as if another player were still reading
    the result: the finished game stays on show after the test's player closes it (else the
    next game is dealt at once; see ``server/hub/play.py``)."""
    hub.handlers["result_read"] = lambda session, message: None


def make_app(
    hub: Hub,
    name: str = "Ada",
    identity: str | None = "SHA256:ada",
    term: TermInfo | None = None,
) -> GambitApp:
    """An app connected to ``hub`` the way the SSH host connects one."""
    client_end, hub_end = queue_pair(trusted=True)
    asyncio.get_running_loop().create_task(hub.serve(hub_end))
    return GambitApp(client_end, term=term or TermInfo(), identity=identity, name=name)


async def wait_for(pilot: Pilot, predicate: Callable[[], object], timeout: float = 15.0) -> None:
    """Let the app run until ``predicate()`` holds (the hub answers asynchronously). The
    bound is generous: under the suite's two workers and its SSH tests a step the app takes
    in 50 ms alone has taken over 5 s; a wait that never holds still fails, only later."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting; screen:\n{screen_text(pilot.app)}")
        await pilot.pause(0.02)
    await pilot.pause()  # let the screen render what made the predicate true


def result_shown(app: GambitApp) -> bool:
    """Whether the result of a deal is open over the table on top."""
    return bool(getattr(app.screen, "result_open", False))


def screen_text(app: GambitApp) -> str:
    """What the terminal shows, as plain text (one line per row)."""
    return "\n".join(strip.text.rstrip() for strip in app.screen._compositor.render_strips())


async def enter_lobby(pilot: Pilot) -> None:
    """From the welcome screen to the lobby, keeping the name (a key the hub knows goes to
    the lobby by itself)."""
    from gambit_tui.screens.lobby import LobbyScreen
    from gambit_tui.screens.welcome import WelcomeScreen

    await wait_for(pilot, lambda: isinstance(pilot.app.screen, (WelcomeScreen, LobbyScreen)))
    if isinstance(pilot.app.screen, WelcomeScreen):
        await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, LobbyScreen))


async def open_pg_table_with_bots(pilot: Pilot, bots: int = 2, players: int | None = None) -> None:
    """From the lobby: a new Prophet's Gambit table (1 + ``bots`` seats unless ``players``
    says more), the bots seated."""
    from gambit_tui.screens.create_table import CreateTableScreen
    from gambit_tui.screens.pg_table import PGTableScreen

    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CreateTableScreen))
    form = pilot.app.screen
    from textual.widgets import Select

    form.query_one("#players", Select).value = players or 1 + bots
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, PGTableScreen))
    await pilot.press(*["b"] * bots)
    screen = pilot.app.screen
    await wait_for(pilot, lambda: all(s["bot"] or s["name"] for s in screen.info["seats"]))


async def start_pg_deal(pilot: Pilot):
    """From the lobby: a Prophet's Gambit table of three (two bots), started, until the first
    decision is the player's; returns its screen."""
    await open_pg_table_with_bots(pilot, bots=2)
    await pilot.press("s")
    table = pilot.app.screen
    await wait_for(pilot, lambda: table.ask is not None)
    return table
