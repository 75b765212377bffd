"""A duplicate table's result (pilot): after the deal, the player sees how the others who held
the same cards at the set's other tables did, whole at 80x24 in each language."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Select

from gambit_tui.screens.create_table import CreateTableScreen
from gambit_tui.screens.pg_table import PGTableScreen
from gambit_tui.widgets.prompt_bar import PromptBar
from protocol.term import TermInfo
from tests.hub.harness import connect, play_to_end

from .conftest import enter_lobby, keep_results_up, make_app, result_shown, screen_text, wait_for
from .fit import cuts
from .test_fit import LOCALES
from .test_pg_table import play_deal_by_keys

EXPECTED = {
    "en": ("Duplicate set friday, game 1", "Bob: place", "better than", "duplicate set friday"),
    "uk-ascii": ("friday", "Bob:", "friday", "friday"),
    "de-ascii": ("Duplikat-Serie friday, Spiel 1", "Bob: Platz", "besser platziert", "Duplikat"),
}


async def _bob_plays_the_set_first(hub) -> int:
    bob = await connect(hub)
    await bob.hello("Bob", identity="SHA256:bob")
    await bob.send("create_table", game="prophets_gambit", players=3, duplicate="friday")
    table = (await bob.expect("table"))["table"]
    for seat in (1, 2):
        await bob.send("add_bot", table=table, seat=seat, kind="heuristic")
    await bob.until(
        lambda m: m["t"] == "table" and all(s["bot"] or s["name"] for s in m["info"]["seats"])
    )
    await bob.send("start", table=table)
    await play_to_end({0: bob}, table)
    return table


@pytest.mark.parametrize("lang", list(EXPECTED))
async def test_the_result_compares_your_cards_with_the_other_tables(hub, lang):
    bobs = await _bob_plays_the_set_first(hub)
    app = make_app(hub, term=TermInfo(lang=LOCALES[lang]))
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        # The lobby names the set of Bob's table (the only one, selected).
        await wait_for(pilot, lambda: EXPECTED[lang][3] in screen_text(app))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
        app.screen.query_one("#players", Select).value = 3
        app.screen.query_one("#duplicate", Input).value = "friday"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        screen = app.screen
        assert screen.info["duplicate"]["set"] == "friday"
        await pilot.press("b", "b")
        await wait_for(pilot, lambda: all(s["bot"] or s["name"] for s in screen.info["seats"]))
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.ask is not None)
        await play_deal_by_keys(pilot)
        assert result_shown(app)
        text = screen_text(app)
        head, bob_row, summary, _ = EXPECTED[lang]
        assert head in text and f"{bobs}, {bob_row}" in text and summary in text, text
        assert cuts(app) == [], text


SEATS = {
    "en": (
        "Set friday, game 1: you hold seat 1's cards",
        "Set friday, game 2 next: you move to seat 3",
        "You have seen game 1 of the",
    ),
    "de-ascii": (
        "Serie friday, Spiel 1: Sie halten die Karten von Platz 1",
        "Serie friday, als Naechstes Spiel 2: Sie ruecken auf Platz 3",
        "Sie haben Spiel 1 der",
    ),
}


@pytest.mark.parametrize("lang", list(SEATS))
async def test_the_table_says_whose_cards_you_hold_and_the_hub_refuses_them_twice(hub, lang):
    """At the set's second table: the waiting room says whose cards the player holds, the
    finished game where they move next; having played game 1, a new table of the set (game 1
    again) is refused, in the player's language."""
    await _bob_plays_the_set_first(hub)
    keep_results_up(hub)  # (the finished game stays on show)
    app = make_app(hub, term=TermInfo(lang=LOCALES[lang]))
    holds, moves, refused = SEATS[lang]
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)

        async def open_friday() -> None:
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
            app.screen.query_one("#players", Select).value = 3
            app.screen.query_one("#duplicate", Input).value = "friday"
            await pilot.press("ctrl+s")

        await open_friday()
        await wait_for(pilot, lambda: isinstance(app.screen, PGTableScreen))
        screen = app.screen
        # The waiting room's question leaves a row for the set's line, in every language.
        await wait_for(pilot, lambda: holds in screen.query_one(PromptBar).hint.plain)
        await wait_for(pilot, lambda: holds in screen_text(app))
        assert cuts(app) == [], screen_text(app)
        await pilot.press("b", "b")
        await wait_for(pilot, lambda: all(s["bot"] or s["name"] for s in screen.info["seats"]))
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.ask is not None)
        await play_deal_by_keys(pilot)
        await pilot.press("enter")  # the result closes: the prompt shows the next game
        await wait_for(pilot, lambda: moves in screen_text(app))
        assert cuts(app) == [], screen_text(app)

        await pilot.press("q")  # the table closes with its last person; the set lives on
        await wait_for(pilot, lambda: not isinstance(app.screen, PGTableScreen))
        await open_friday()
        await wait_for(pilot, lambda: refused in screen_text(app))
        assert isinstance(app.screen, CreateTableScreen)
