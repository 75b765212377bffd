"""Every Prophet's Gambit decision has its question and a key for each of its legal actions.

The hub end of the connection is scripted here, so each ask kind of the engine can be put to
the table screen directly, with a real seat's view from the engine around it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.binding import Binding

from gambit_tui.app import GambitApp
from gambit_tui.screens.pg_table import PGTableScreen
from protocol.connection import queue_pair
from protocol.term import TermInfo
from server.engine import get_game
from server.engine.prophets_gambit.state import _ASK_TYPES
from tests.ssh.screens import decision_key

from .conftest import screen_text, wait_for

INFO = {
    "id": 1, "game": "prophets_gambit", "title": "Prophet's Gambit", "players": 3, "options": {},
    "owner": "Ada", "access": "everyone", "max_rating": None, "stake": 10, "timer": 0.0,
    "status": "playing", "dealer": 2, "games_played": 0, "spectators": 0, "deadlines": {},
    "seats": [
        {"seat": 0, "name": "Ada", "bot": None, "away": False, "reserved": None},
        {"seat": 1, "name": None, "bot": "heuristic", "away": False, "reserved": None},
        {"seat": 2, "name": None, "bot": "heuristic", "away": False, "reserved": None},
    ],
}  # fmt: skip
WELCOME = {
    "t": "welcome", "v": 1,
    "you": {"id": "SHA256:ada", "name": "Ada", "guest": False, "chips": 1000,
            "ratings": {"prophets_gambit": 1000}, "lang": "en", "prefs": {}},
    "server": {"games": [], "chat_max": 500, "turn_timer": 0.0, "starting_chips": 1000},
}  # fmt: skip


def ask_view(kind: str) -> dict[str, Any]:
    """A real seat-0 view from the engine, with ``kind`` asked and its legal actions."""
    view = get_game("prophets_gambit").new_state(3, {}, dealer=2, seed=1).view(0)
    hand = view["hand"][:5]
    view.update(phase="round", round=1, turn=0, waiting=[0], hand=hand, discard=["S1", "C2"])
    ask: dict[str, Any] = {"kind": kind}
    legal: list[dict[str, Any]] = []
    for kind_type in _ASK_TYPES[kind]:
        if kind_type == "target":
            ask["targets"] = [1, 2]
            legal += [{"type": "target", "seat": s} for s in (1, 2)]
        elif kind == "darklord_pick":
            ask.update(target=1, hand=["G3", "T4"])
            legal += [{"type": "pick", "card": c} for c in ask["hand"]]
        elif kind == "ghost":
            legal += [{"type": "take", "card": c} for c in view["discard"]]
        elif kind == "forced":
            ask.update(order="highest", by=1, cards=[hand[1]])
            legal += [{"type": "play", "card": hand[1]}]
        elif kind_type in ("bid", "play", "risk", "discard", "give"):
            legal += [{"type": kind_type, "card": c} for c in hand]
        else:
            legal.append({"type": kind_type})
    if kind == "marionette_order":
        ask["target"] = 1
    if kind == "bonus":
        ask["card"] = hand[0]
    if kind in ("discard", "donjon"):
        ask["count"] = 1
    view.update(ask=ask, legal=legal)
    return view


def key_for(screen: PGTableScreen, action_type: str) -> str:
    for binding in screen.BINDINGS:
        assert isinstance(binding, Binding)
        if binding.action == f"act('{action_type}')":
            return binding.key
    raise AssertionError(f"no key for {action_type}")


@pytest.mark.parametrize("kind", sorted(_ASK_TYPES))
async def test_every_ask_has_its_question_and_keys(kind):
    client, hub_end = queue_pair(trusted=True)
    app = GambitApp(client, term=TermInfo(), identity="SHA256:ada", name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        hello = await hub_end.recv()
        assert hello["t"] == "hello" and hello["identity"] == "SHA256:ada"
        hub_end.send_nowait(WELCOME)
        await pilot.pause()
        await pilot.press("enter")  # nothing changed on the welcome screen: nothing is sent
        view = ask_view(kind)
        hub_end.send_nowait({"t": "table", "table": 1, "info": INFO, "seat": 0, "view": view})
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        screen = app.screen
        question = screen_text(app).splitlines()[-3]
        assert question.strip() and "Decide." not in question
        for action in view["legal"][-1:] + view["legal"][:1]:
            # Put the cursor on the action's card or player, then press the type's key.
            target = action.get("card", action.get("seat"))
            if target is not None:
                from gambit_tui.widgets.choice_row import ChoiceRow

                row = screen.query_one(ChoiceRow)
                index = [c.value for c in row.choices].index(target)
                await pilot.press(str(index + 1))
            key = key_for(screen, action["type"])
            assert f"act('{action['type']}')" in {
                b.action for _, b, enabled, _ in screen.active_bindings.values() if enabled
            }
            await pilot.press(key)
            sent = await asyncio.wait_for(hub_end.recv(), 1)
            while sent["t"] == "lobby_watch":  # the lobby, hidden under the table, says so
                sent = await asyncio.wait_for(hub_end.recv(), 1)
            assert sent == {"t": "act", "table": 1, "action": action}
            screen._acted_on = None  # the hub would answer with a new view


@pytest.mark.parametrize("kind", [*sorted(_ASK_TYPES), "turn, no High cards left"])
async def test_every_asks_footer_offers_a_key_the_terminal_players_press(kind):
    """The end-to-end tests' players press the key their footer offers (``decision_key``); a
    decision whose footer showed none of theirs was left to the turn timer. The Marionette's
    forced play offers Play alone: a full-suite run waited the timer's minute for it."""
    client, hub_end = queue_pair(trusted=True)
    app = GambitApp(client, term=TermInfo(), identity="SHA256:ada", name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await hub_end.recv()  # (hello)
        hub_end.send_nowait(WELCOME)
        await pilot.pause()
        await pilot.press("enter")  # to the lobby, which the table opens over
        view = ask_view(kind.split(",")[0])
        if kind != view["ask"]["kind"]:  # (the High deck used up: a turn is Play alone)
            view["legal"] = [a for a in view["legal"] if a["type"] == "play"]
        hub_end.send_nowait({"t": "table", "table": 1, "info": INFO, "seat": 0, "view": view})
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        await pilot.pause()
        footer = screen_text(app).rstrip().splitlines()[-1]  # (as the e2e tests read it)
        assert decision_key(footer) is not None, footer


async def test_simultaneous_choices_name_who_is_still_choosing():
    view = ask_view("beast")
    view.update(ask=None, legal=[], waiting=[1, 2], turn=0, picked="S1")
    client, hub_end = queue_pair(trusted=True)
    app = GambitApp(client, term=TermInfo(), identity="SHA256:ada", name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await hub_end.recv()
        hub_end.send_nowait(WELCOME)
        await pilot.pause()
        await pilot.press("enter")
        hub_end.send_nowait({"t": "table", "table": 1, "info": INFO, "seat": 0, "view": view})
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        text = screen_text(app)
        assert "Still choosing: Bot 2, Bot 3." in text
        assert app.alerts == 0  # nothing is asked of us


async def test_the_app_closes_when_the_server_goes_away():
    client, hub_end = queue_pair(trusted=True)
    app = GambitApp(client, term=TermInfo(), identity="SHA256:ada", name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await hub_end.recv()
        hub_end.send_nowait(WELCOME)
        await pilot.pause()
        hub_end.send_nowait({"t": "bye", "code": "shutdown", "message": "Closing for the night."})
        await hub_end.close()
        await wait_for(pilot, lambda: app.closed_reason == "Closing for the night.")
        await wait_for(pilot, lambda: not app.is_running, timeout=5)


async def test_fronts_and_the_seers_glimpse_are_on_the_table():
    view = ask_view("turn")
    view.update(glimpse={"1": "G9", "2": "CM"}, fronts=[["HEX"], [], ["HIN"]])
    client, hub_end = queue_pair(trusted=True)
    app = GambitApp(client, term=TermInfo(), identity="SHA256:ada", name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await hub_end.recv()
        hub_end.send_nowait(WELCOME)
        await pilot.pause()
        await pilot.press("enter")
        hub_end.send_nowait({"t": "table", "table": 1, "info": INFO, "seat": 0, "view": view})
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        text = screen_text(app)
        assert "Seer" in text and "9♦" in text and "M●" in text
        assert "♛Ex" in text and "♛In" in text  # in front of their holders
        assert "Fronts    ♛Ex Ada ♛In Bot 3" in text, text
