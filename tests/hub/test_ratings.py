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
    # Both rated before (a first rated game is said otherwise: see the newcomer's test).
    hub.store.set_ratings("prophet", {"SHA256:ada": DEFAULT, "SHA256:bob": DEFAULT})
    table = await start_table([ada, bob], "prophet", 3)
    view = await play_to_end({0: ada, 1: bob}, table, timeout=120)
    msg = await ada.until(lambda m: m["t"] == "table" and m["info"]["rating_changes"])
    changes = msg["info"]["rating_changes"]
    assert changes[2] is None  # the bot
    assert msg["info"]["first_ratings"] == [None, None, None]
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


async def test_a_newcomer_is_shown_no_rating_until_a_rated_game_then_the_profiles_number(hub):
    """Issue 38: a new player's top bar showed 1,000 in every game while their profile said
    there was no rating yet. Until a game is rated there is none, anywhere; after it, the top
    bar and the profile show the same number."""
    from gambit_tui.profile_text import profile_lines

    ada = await connect(hub)
    welcome = await ada.hello("Ada", identity="SHA256:ada")
    assert welcome["you"]["ratings"] == {}
    bar = StatusBar()
    bar.you = welcome["you"]
    for game in (None, "prophet"):
        bar.game = game
        assert bar._left("full").plain == "Ada · 1,000 chips"  # no rating
    await ada.send("player", name="Ada")
    profile = await ada.expect("player")
    assert "No rating yet: ratings come with the first finished game." in profile_lines(profile)
    table = await start_table([ada], "prophet", 3)
    view = await play_to_end({0: ada}, table, timeout=120)
    you = await ada.until(lambda m: m["t"] == "you" and m["ratings"])
    assert set(you["ratings"]) == {"prophet"}
    # Her result says the rating she now has, not how far it fell from 1,000 ("rating -132").
    msg = await ada.until(lambda m: m["t"] == "table" and m["info"]["first_ratings"])
    assert msg["info"]["first_ratings"] == [you["ratings"]["prophet"], None, None]
    place = view["outcome"]["ranking"].index(0) + 1
    text = result_text(msg, CardStyle()).plain
    assert f"Place {place} of 3: your first rating, {you['ratings']['prophet']}" in text
    assert "rating -" not in text and "rating +" not in text
    await ada.send("player", name="Ada")
    profile = await ada.expect("player")
    assert profile["by_game"]["prophet"]["rating"] == you["ratings"]["prophet"]
    bar.you, bar.game = you, "prophet"
    assert bar._left("full").plain.endswith(f"rating Prophet {you['ratings']['prophet']:,}")
    bar.game = "fortunes"  # a game not rated yet: nothing, not another game's number
    assert "rating" not in bar._left("full").plain


def test_one_deal_moves_a_shown_rating_by_an_elo_like_amount():
    """The scale, checked against openskill's documented use (issue 38 saw −132 after one
    deal). A free-for-all is rated as one ranking of one-player teams (ranks, 0 best); the
    number shown is 1000 + 40 × the ordinal mu − 3σ. 40 puts one beta (4.17 mu points, the
    skill gap that wins about three times in four, as Elo's 200 points do) at 167 points, so
    the scale reads like Elo. A deal among n players counts like n − 1 games at once: with
    K = 32 last of five would lose 4 × 16 = 64 at equal ratings. A newcomer's first deals
    move more (sigma is at its widest: openskill's ordinal is known to swing, and rise, early),
    an established player's about as an Elo player's would."""
    import random

    from server.hub.ratings import update

    rng = random.Random(38)
    for n in (3, 4, 5):
        first = [display(r) - 1000 for r in update([None] * n, list(range(n)))]
        assert first[0] > 0 > first[-1]  # the winner up, the last down
        assert max(abs(d) for d in first) <= 160, (n, first)
        rated: list = [None] * n
        for _ in range(60):  # a season of deals in random order
            order = list(range(n))
            rng.shuffle(order)
            rated = update(rated, order)
        before = [display(r) for r in rated]
        after = [display(r) for r in update(rated, list(range(n)))]
        moves = [b - a for a, b in zip(before, after, strict=True)]
        assert moves[0] > 0 > moves[-1]
        assert max(abs(m) for m in moves) <= 16 * (n - 1) + 16, (n, moves)
