"""Ratings as players read them (issue 18, item 12): each game's change per seat is on the
table for the result panel, and Fortunes partners are rated by their partnership's result."""

from __future__ import annotations

from gambit_tui.cards import CardStyle
from gambit_tui.result_text import result_text
from gambit_tui.widgets.status_bar import StatusBar
from server.engine import get_game
from server.hub.ratings import DEFAULT, display, update_teams

from .harness import connect, play_to_end


async def start_table(clients, game, players, options=None):
    owner = clients[0]
    await owner.send("create_table", game=game, players=players, options=options or {})
    table = (await owner.until(lambda m: m["t"] == "table" and m["seat"] == 0))["table"]
    for seat, client in enumerate(clients[1:], start=1):
        if client is not None:
            await client.send("join", table=table, seat=seat)
            await client.until(lambda m, t=table: m["t"] == "table" and m["table"] == t)
    for seat, client in enumerate(clients):
        if client is None:
            await owner.send("add_bot", table=table, seat=seat)
    for seat in range(len(clients), players):
        await owner.send("add_bot", table=table, seat=seat)
    await owner.until(
        lambda m: m["t"] == "table" and all(s["bot"] or s["name"] for s in m["info"]["seats"])
    )
    await owner.send("start", table=table)
    return table


async def test_the_table_says_how_each_seats_rating_moved(hub):
    ada, bob = await connect(hub), await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    await bob.hello("Bob", identity="SHA256:bob")
    table = await start_table([ada, bob], "prophet", 3)
    view = await play_to_end({0: ada, 1: bob}, table, timeout=120)
    msg = await ada.until(lambda m: m["t"] == "table" and m["info"]["rating_changes"])
    changes = msg["info"]["rating_changes"]
    assert changes[2] is None  # the bot
    for seat, pid in ((0, "SHA256:ada"), (1, "SHA256:bob")):
        assert changes[seat] == display(hub.store.rating(pid, "prophet")) - display(None)
    ranking = view["outcome"]["ranking"]
    better, worse = sorted((0, 1), key=ranking.index)
    assert changes[better] >= changes[worse]
    # The result panel says it in words: Ada's place and how far her rating moved.
    text = result_text(msg, CardStyle()).plain
    place = ranking.index(0) + 1
    assert f"Place {place} of 3: rating {changes[0]:+d}" in text
    # The status bar names the game the rating is for.
    bar = StatusBar()
    bar.you, bar.game = {"name": "Ada", "ratings": {"prophet": 1012, "fortunes": 990}}, "prophet"
    assert bar._left("full").plain == "Ada · rating Prophet 1,012"
    bar.game = None
    assert bar._left("short").plain == "Ada · Fortunes 990 Prophet 1,012"


async def test_fortunes_partners_win_and_lose_together(hub):
    ada, cy = await connect(hub), await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    await cy.hello("Cy", identity="SHA256:cy")
    table = await start_table([ada, None, cy], "fortunes", 4, {"betting": "ante"})
    await play_to_end({0: ada, 2: cy}, table, timeout=120)
    msg = await ada.until(lambda m: m["t"] == "table" and m["info"]["rating_changes"])
    changes = msg["info"]["rating_changes"]
    assert changes[0] == changes[2] and changes[1] is None and changes[3] is None
    assert hub.store.rating("SHA256:ada", "fortunes") == hub.store.rating("SHA256:cy", "fortunes")


def test_partners_are_rated_together():
    assert get_game("fortunes").partnerships == ((0, 2), (1, 3))
    winners, losers = update_teams([[None, None], [None, None]], [0, 1])
    assert winners[0] == winners[1] and losers[0] == losers[1]
    assert display(winners[0]) > display(DEFAULT) > display(losers[0])
    tied = update_teams([[None, None], [None, None]], [0, 0])
    assert display(tied[0][0]) == display(tied[1][0])
