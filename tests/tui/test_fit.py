"""Nothing is cut at 80×24, in any language: every screen and dialog, checked by tests/tui/fit.py.

One player per language sees the message a terminal below 80×24 gets (at 60×20), then walks
the welcome screen, the lobby (with a table of each game, each row's details), the new-table
dialog with each game, each field focused and each drop-down open, Settings, Friends, the
rules, a table of each game mid-deal (Prophet's Gambit at every decision of a deal) and at
its result, the Fortunes reading and the Prophet score sheet. Every text a widget was given
must be on the screen whole.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select

from gambit_tui.screens.ask_name import AskNameScreen
from gambit_tui.screens.create_table import CreateTableScreen
from gambit_tui.screens.fortunes_reading import FortunesReadingScreen
from gambit_tui.screens.fortunes_table import FortunesTableScreen
from gambit_tui.screens.leaderboard import LeaderboardScreen
from gambit_tui.screens.lobby import LobbyScreen
from gambit_tui.screens.nights import NightSetupScreen, NightsScreen
from gambit_tui.screens.pg_table import PGTableScreen
from gambit_tui.screens.profile import ProfileScreen
from gambit_tui.screens.prophet_table import ProphetTableScreen
from gambit_tui.screens.rules import RulesScreen
from gambit_tui.screens.score_sheet import ScoreSheetScreen
from gambit_tui.screens.settings import SettingsScreen
from gambit_tui.screens.social import SocialScreen
from gambit_tui.screens.welcome import WelcomeScreen
from gambit_tui.widgets.fortunes_hand import FortunesHand
from protocol.term import TermInfo

from .conftest import make_app, result_shown, screen_text, wait_for
from .fit import cuts
from .test_pg_table import play_deal_by_keys

LOCALES = {
    "en": "en_GB.UTF-8",
    "uk": "uk_UA.UTF-8",
    "de": "de_DE.UTF-8",
    # Without UTF-8 the app writes ASCII ("..." for "…", Ukrainian in Latin letters): longer.
    "uk-ascii": "uk_UA.KOI8-U",
    "de-ascii": "de_DE.ISO-8859-1",
}
#: The walks the suite makes: English, and each other language in its longest form (in ASCII,
#: "ß" is "ss" and Ukrainian is in Latin letters), which cuts wherever the UTF-8 form would.
#: ``FIT_ALL=1`` walks every locale above.
WALKED = list(LOCALES) if os.environ.get("FIT_ALL") else ["en", "uk-ascii", "de-ascii"]
#: Walked by files of their own (test_fit_uk.py, test_fit_de.py): each walk takes a worker
#: for a while, and ``--dist loadfile`` gives a file to one worker.
WALKED_ELSEWHERE = ("uk-ascii", "de-ascii")
GAMES = ("prophets_gambit", "prophet", "fortunes")


class Walk:
    """One player's walk, collecting what each screen cut."""

    def __init__(self, pilot) -> None:
        self.pilot = pilot
        self.app = pilot.app
        self.problems: list[str] = []

    async def check(self, where: str) -> None:
        await self.pilot.pause()
        found = cuts(self.app)
        if found:
            self.problems.append(f"{where}:\n    " + "\n    ".join(found))
            self.problems.append(screen_text(self.app))

    async def until(self, predicate) -> None:
        await wait_for(self.pilot, predicate)

    async def fields(self, where: str, options_only: bool = False) -> None:
        """Each field of the screen focused in turn (the line under a form names the focused
        field and its keys); with ``options_only``, only the new-table form's fields of the
        game's own options (``opt-...``)."""
        for field in list(self.app.screen.query("Select, Input, Button")):
            if not field.focusable:
                continue
            if options_only and not (field.id or "").startswith("opt-"):
                continue
            field.focus()
            await self.pilot.pause()
            await self.check(f"{where}, {field.id} focused")

    async def dropdowns(self, where: str) -> None:
        """Each drop-down of the screen, open."""
        for select in list(self.app.screen.query(Select)):
            select.focus()
            select.expanded = True
            await self.pilot.pause(0.05)
            await self.check(f"{where}, {select.id} open")
            select.expanded = False
            await self.pilot.pause()


async def walk_lobby_and_dialogs(walk: Walk) -> None:
    pilot, app = walk.pilot, walk.app
    await walk.until(lambda: isinstance(app.screen, WelcomeScreen))
    await walk.check("welcome")
    await walk.dropdowns("welcome")
    await pilot.press("enter")
    await walk.until(lambda: isinstance(app.screen, LobbyScreen))
    await walk.check("lobby")
    await pilot.press("n")
    await walk.until(lambda: isinstance(app.screen, CreateTableScreen))
    form = app.screen
    for index, game in enumerate(GAMES):
        form.query_one("#game", Select).value = game
        await pilot.pause(0.1)
        await walk.check(f"new table, {game}")
        await walk.dropdowns(f"new table, {game}")
        # The form's own fields (the game, players, stake, ..., the buttons) and the line
        # naming the focused one and its keys are the same whatever the game (as wide, saying
        # the same): each is focused with the first game; each game's option fields with it.
        await walk.fields(f"new table, {game}", options_only=index > 0)
    await pilot.press("escape")
    await walk.until(lambda: isinstance(app.screen, LobbyScreen))
    await pilot.press("comma")
    await walk.until(lambda: isinstance(app.screen, SettingsScreen))
    await walk.check("settings")
    await walk.dropdowns("settings")
    await pilot.press("escape")
    await walk.until(lambda: isinstance(app.screen, LobbyScreen))
    await pilot.press("f")
    await walk.until(lambda: isinstance(app.screen, SocialScreen))
    await pilot.pause(0.2)
    await walk.check("friends")
    await pilot.press("escape")
    await walk.until(lambda: isinstance(app.screen, LobbyScreen))
    await pilot.press("question_mark")
    await walk.until(lambda: isinstance(app.screen, RulesScreen))
    for section in "12345":
        await pilot.press(section)
        await pilot.pause(0.1)
        await walk.check(f"rules {section}")
    await pilot.press("escape")
    await walk.until(lambda: isinstance(app.screen, LobbyScreen))


async def back_to_lobby(walk: Walk) -> None:
    app = walk.app
    while not isinstance(app.screen, LobbyScreen):
        await walk.pilot.press("escape")
        await walk.pilot.pause(0.05)


async def open_fortunes_table(pilot, betting: str, timer: int, max_rating: int):
    """From the lobby: a Fortunes table (a turn timer, a highest rating), three bots, started."""
    app = pilot.app
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
    form = app.screen
    form.query_one("#game", Select).value = "fortunes"
    await wait_for(pilot, lambda: bool(form.query("#opt-betting")))
    form.query_one("#opt-betting", Select).value = betting
    form.query_one("#timer", Input).value = str(timer)
    form.query_one("#max_rating", Input).value = str(max_rating)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(app.screen, FortunesTableScreen))
    table = app.screen
    await pilot.press("b", "b", "b")
    await wait_for(pilot, lambda: table.check_action("start", ()))
    await pilot.press("s")
    await wait_for(pilot, lambda: table.ask is not None)
    return table


async def play_fortunes(walk: Walk, table) -> None:
    """Every decision of a Fortunes deal, in any language, until the reading comes up: the
    first playable card, bets stayed, bids as they stand."""
    pilot, app = walk.pilot, walk.app
    hand = table.query_one(FortunesHand)
    for _ in range(400):
        if isinstance(app.screen, FortunesReadingScreen):
            return
        ask = table.ask if app.screen is table else None
        kind = (ask or {}).get("kind")
        if kind in ("play", "bet", "bid", "next_deal"):
            count = len(table.view["events"])
            if kind == "play":
                legal = {a["card"] for a in table.view["legal"]}
                hand.pick(next(i for i, c in enumerate(hand.cards) if c in legal))
            await pilot.press("s" if kind == "bet" else "enter")
            await wait_for(
                pilot,
                lambda count=count, ask=ask: (
                    len(table.view["events"]) != count
                    or table.ask != ask
                    or isinstance(app.screen, FortunesReadingScreen)
                ),
            )
            continue
        await pilot.pause(0.02)
    raise AssertionError("no reading:\n" + screen_text(app))


async def walk_tables(walk: Walk) -> None:
    pilot, app = walk.pilot, walk.app
    # Prophet's Gambit: mid-deal, then its result.
    await pilot.press("n")
    await walk.until(lambda: isinstance(app.screen, CreateTableScreen))
    app.screen.query_one("#players", Select).value = 3
    app.screen.query_one("#access", Select).value = "invited"  # the longest word there
    await pilot.press("ctrl+s")
    await walk.until(lambda: isinstance(app.screen, PGTableScreen))
    table = app.screen
    await walk.check("Prophet's Gambit, waiting")
    await pilot.press("b", "b")
    await walk.until(lambda: table.check_action("start", ()))
    # The lobby with a table waiting ("waiting" is the longest status), then back to it.
    await pilot.press("escape")
    await walk.until(lambda: isinstance(app.screen, LobbyScreen))
    await walk.check("lobby, a table waiting")
    await pilot.press("o")
    await walk.until(lambda: isinstance(app.screen, PGTableScreen))
    table = app.screen
    await pilot.press("s")
    await walk.until(lambda: table.ask is not None)
    await walk.check("Prophet's Gambit, mid-deal")
    decisions = iter(range(1, 100))

    async def each_decision() -> None:
        await walk.check(f"Prophet's Gambit, decision {next(decisions)}")

    # Risking a card whenever there is a High card to turn: the table shows the last High.
    await play_deal_by_keys(pilot, risk=True, before_key=each_decision)
    await walk.check("Prophet's Gambit, result")
    await pilot.press("enter")
    await back_to_lobby(walk)
    # Prophet: mid-deal, the score sheet, the result.
    await pilot.press("n")
    await walk.until(lambda: isinstance(app.screen, CreateTableScreen))
    form = app.screen
    form.query_one("#game", Select).value = "prophet"
    await pilot.pause()
    form.query_one("#players", Select).value = 3
    form.query_one("#opt-cap", Input).value = "1"
    await pilot.press("ctrl+s")
    await walk.until(lambda: isinstance(app.screen, ProphetTableScreen))
    table = app.screen
    await pilot.press("b", "b")
    await walk.until(lambda: table.check_action("start", ()))
    await pilot.press("s")
    await walk.until(lambda: table.ask is not None)
    await walk.check("Prophet, mid-deal")
    await pilot.press("t")
    await walk.until(lambda: isinstance(app.screen, ScoreSheetScreen))
    await walk.check("Prophet, score sheet")
    await pilot.press("escape")
    await walk.until(lambda: app.screen is table)
    for _ in range(200):
        if result_shown(app):
            break
        if app.screen is table and table.view and table.view.get("legal"):
            await pilot.press("enter")
        await pilot.pause(0.03)
    await walk.until(lambda: result_shown(app))
    await walk.check("Prophet, result")
    await pilot.press("enter")
    await back_to_lobby(walk)
    # Fortunes, with the longest details a lobby row can have: mid-deal, the reading, after.
    table = await open_fortunes_table(pilot, betting="target_exact", timer=60, max_rating=2000)
    await walk.check("Fortunes, mid-deal")
    await play_fortunes(walk, table)
    await pilot.pause(0.2)
    await walk.check("Fortunes, the reading")
    await pilot.press("enter")
    await walk.until(lambda: app.screen is table)
    await walk.check("Fortunes, over")
    await back_to_lobby(walk)
    # The lobby with a table of each game: each row's details.
    lobby = app.screen
    tables = lobby.query_one(DataTable)
    await walk.until(lambda: tables.row_count >= 3)
    for row in range(tables.row_count):
        tables.move_cursor(row=row)
        await pilot.pause(0.05)
        await walk.check(f"lobby, row {row}")
    # The leaderboards and the player's profile, with the games just finished.
    await walk_boards_and_profile(walk)


async def walk_boards_and_profile(walk: Walk) -> None:
    pilot, app = walk.pilot, walk.app
    await pilot.press("l")
    await walk.until(lambda: isinstance(app.screen, LeaderboardScreen))
    await walk.until(lambda: app.screen.board is not None)
    await walk.check("leaderboard")
    await pilot.press("escape")
    await walk.until(lambda: isinstance(app.screen, LobbyScreen))
    await pilot.press("p")
    await walk.until(lambda: isinstance(app.screen, ProfileScreen))
    await walk.until(lambda: app.model.profiles)
    await walk.check("profile")
    await pilot.press("escape")
    await walk.until(lambda: isinstance(app.screen, LobbyScreen))
    await walk_nights(walk)


async def walk_nights(walk: Walk) -> None:
    """The events (v), a new one's name and rules, and the event with its standings."""
    pilot, app = walk.pilot, walk.app
    await pilot.press("v")
    await walk.until(lambda: isinstance(app.screen, NightsScreen))
    await walk.until(lambda: app.model.nights is not None)
    await walk.check("events, none yet")
    await pilot.press("n")
    await walk.until(lambda: isinstance(app.screen, AskNameScreen))
    await pilot.press(*"Friday night", "enter")
    await walk.until(lambda: isinstance(app.screen, NightSetupScreen))
    await pilot.press("down", "down", "right", "down", "down", "right")  # duplicate, byes
    await walk.check("new event's rules")
    await pilot.press("enter")
    await walk.until(lambda: isinstance(app.screen, NightsScreen))
    await walk.until(lambda: app.model.night)
    await pilot.press("r")
    await walk.until(lambda: any(n.get("standings") for n in app.model.night.values()))
    await walk.check("an event and its standings")
    await pilot.press("escape")
    await walk.until(lambda: isinstance(app.screen, LobbyScreen))


@pytest.mark.parametrize("lang", [x for x in WALKED if x not in WALKED_ELSEWHERE])
async def test_nothing_is_cut_at_80x24(hub, lang):
    await walk_in(hub, lang)


async def walk_in(hub, lang: str) -> None:
    """The whole walk in ``lang``: the 60x20 message, then every screen at 80x24."""
    app = make_app(hub, term=TermInfo(lang=LOCALES[lang]))
    async with app.run_test(size=(60, 20)) as pilot:
        walk = Walk(pilot)
        # Below 80×24 the app says so instead of its screens: that message, whole.
        await walk.until(lambda: isinstance(app.screen, WelcomeScreen))
        await walk.check("60×20, too small")
        await pilot.resize_terminal(80, 24)
        await walk_lobby_and_dialogs(walk)
        await walk_tables(walk)
    report = "\n".join(walk.problems)
    if report and (out := os.environ.get("FIT_REPORT")):
        Path(out, f"{lang}.txt").write_text(report)
    assert not walk.problems, report


def pg_message_at_its_longest() -> dict:
    """A Prophet's Gambit table message whose middle panel has every row at its longest:
    two-digit decks and discards, a discard on top, the last High card (no fronts)."""
    from server.engine import get_game

    state = get_game("prophets_gambit").new_state(3, options={}, dealer=0, seed=1)
    view = state.view(0)
    view.update(deck=17, high_deck=13, discard=["S7"] * 12, discard_top="SM", high_discard=["HBR"])
    seats = [{"seat": s, "name": "Ada" if s == 0 else None, "bot": s != 0} for s in range(3)]
    info = {"id": 99, "game": "prophets_gambit", "players": 3, "options": {}, "stake": 10}
    info.update(status="playing", dealer=0, games_played=0, seats=seats, deadlines={})
    return {"t": "table", "table": 99, "info": info, "seat": 0, "view": view}


@pytest.mark.parametrize("lang", WALKED)
async def test_the_prophets_gambit_table_panel_shows_its_longest_values_whole(hub, lang):
    """Issue 38: in German the label "Letzte Hohe Karte" left the values ten cells, and the
    panel showed "Stapel 9 · Hohe …" and "Ablage 3 · oben …"."""
    app = make_app(hub, term=TermInfo(lang=LOCALES[lang]))
    async with app.run_test(size=(80, 24)) as pilot:
        walk = Walk(pilot)
        await walk.until(lambda: isinstance(app.screen, WelcomeScreen))
        await pilot.press("enter")
        await walk.until(lambda: isinstance(app.screen, LobbyScreen))
        app.receive(pg_message_at_its_longest())
        await walk.until(lambda: isinstance(app.screen, PGTableScreen))
        await walk.check("Prophet's Gambit, every row of the table panel")
    assert not walk.problems, "\n".join(walk.problems)


@pytest.mark.parametrize("lang", WALKED)
async def test_the_fortunes_deal_panel_shows_a_star_led_trick_whole(hub, lang):
    """A trick led with a Star ("Star lead: fixed" beside the direction), the longest first
    line of the deal panel: German cut it ("Sternstich: fe…")."""
    from protocol.actions import Play

    from .test_fortunes_table import stacked_state, table_message

    state = stacked_state()
    for seat, card in ((0, "W5"), (1, "*3"), (2, "C6"), (3, "P1"), (1, "*4")):
        state.apply(seat, Play(card))  # South, holding only Stars, leads trick 2 with one
    app = make_app(hub, term=TermInfo(lang=LOCALES[lang]))
    async with app.run_test(size=(80, 24)) as pilot:
        walk = Walk(pilot)
        await walk.until(lambda: isinstance(app.screen, WelcomeScreen))
        await pilot.press("enter")
        await walk.until(lambda: isinstance(app.screen, LobbyScreen))
        app.receive(table_message(state, 2))
        await walk.until(lambda: isinstance(app.screen, FortunesTableScreen))
        await walk.check("Fortunes, a Star-led trick")
    assert not walk.problems, "\n".join(walk.problems)
