"""The Fortunes table, played by keys against three bots through a real hub."""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console
from textual.widgets import Input, Select

from gambit_tui.fortunes_text import (
    COMPASS,
    FORTUNES_FACES,
    card_label,
)
from gambit_tui.names import seat_name
from gambit_tui.screens.create_table import CreateTableScreen
from gambit_tui.screens.fortunes_reading import FortunesReadingScreen
from gambit_tui.screens.fortunes_table import FortunesTableScreen
from gambit_tui.screens.last_trick import LastTrickScreen
from gambit_tui.widgets.fortunes_compass import FortunesCompass
from gambit_tui.widgets.fortunes_hand import FortunesHand
from gambit_tui.widgets.fortunes_status import FortunesStatus
from gambit_tui.widgets.fortunes_won import FortunesWon
from protocol.actions import Bid, Play, Raise, Stay

from .conftest import enter_lobby, make_app, screen_text, wait_for


async def open_fortunes_table(pilot, **options: Any) -> FortunesTableScreen:
    """From the lobby: a new Fortunes table with ``options``, three bots seated, started."""
    app = pilot.app
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
    form = app.screen
    form.query_one("#game", Select).value = "fortunes"
    await wait_for(pilot, lambda: bool(form.query("#opt-betting")))
    for name, value in options.items():
        field = form.query_one(f"#opt-{name}")
        if isinstance(field, Select):
            field.value = value
        else:
            assert isinstance(field, Input)
            field.value = str(value)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(app.screen, FortunesTableScreen))
    table = app.screen
    assert isinstance(table, FortunesTableScreen)
    await pilot.press("b", "b", "b")
    await wait_for(pilot, lambda: all(s["bot"] or s["name"] for s in table.info["seats"]))
    await wait_for(pilot, lambda: table.check_action("start", ()))
    await pilot.press("s")
    await wait_for(pilot, lambda: table.ask is not None)
    return table


def plain(renderable) -> str:
    """A Rich renderable as plain text, wide enough not to wrap."""
    console = Console(width=400, color_system=None)
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


def status_text(app) -> str:
    """The deal panel's text on one line (its last line may wrap)."""
    return " ".join(app.screen.query_one(FortunesStatus).build().plain.split())


def row_of(app, seat: int) -> str:
    """The won-tricks row of ``seat``, as shown."""
    won = app.screen.query_one(FortunesWon)
    return won.row(seat, won.content_size.width).plain


class Record:
    """What a played deal showed along the way."""

    def __init__(self) -> None:
        self.dimmed_refused = 0
        self.plays = 0
        self.autoplayed = 0
        #: Taken tricks whose last-trick overlay we looked at, by number.
        self.checked: set[int] = set()
        self.last_trick_checked = 0


async def play_card(pilot, table: FortunesTableScreen, record: Record) -> None:
    """Our turn: check the dimmed cards cannot be chosen, play a Star into a mundane trick
    when we may (it flips the direction), else the first playable card."""
    app = pilot.app
    view = table.view
    last = (view.get("tricks") or [None])[-1]
    flipped = last and last["flips"]
    if flipped and last["n"] not in record.checked:
        # a trick Stars flipped (ours, or anyone's): the overlay says so
        record.checked.add(last["n"])
        await check_last_trick_flipped(pilot, table, last["n"])
        record.last_trick_checked += 1
    hand = table.query_one(FortunesHand)
    legal = {a["card"] for a in view["legal"]}
    if len(legal) == 1 and app.prefs.autoplay_forced:
        # A forced card plays itself: no key at all.
        events_before = len(view["events"])
        await wait_for(
            pilot,
            lambda: table.view["over"] or len(table.view["events"]) > events_before,
        )
        record.autoplayed += 1
        return
    trick = view["trick"]
    text = screen_text(app)
    # The direction marker says what the trick's direction is now, flips included.
    arrow = "▲ HIGH wins" if trick["direction"] == "high" else "▼ LOW wins"
    assert arrow in text
    if trick["flips"]:
        assert f"flipped ×{trick['flips']}" in text
    assert ("Stars are free" in text) == view["stars_free"]
    dimmed = [i for i, c in enumerate(hand.cards) if c not in legal]
    if dimmed and dimmed[0] < 10:
        before = hand.selected
        await pilot.press(str((dimmed[0] + 1) % 10))
        assert hand.selected == before  # a dimmed card cannot be chosen
        assert table.legal_play() is not None and table.legal_play().card in legal
        record.dimmed_refused += 1
    stars = [c for c in hand.cards if c.startswith("*") and c in legal]
    choice = hand.selected
    if stars and trick["led"] not in (None, "*"):
        choice = stars[0]
        assert hand.pick(hand.cards.index(choice))
    assert choice in legal
    events_before = len(view["events"])
    await pilot.press("enter")
    record.plays += 1
    await wait_for(
        pilot,
        lambda: (
            table.view["over"]
            or len(table.view["events"]) > events_before
            or table.view["deal"] != view["deal"]
        ),
    )


async def check_last_trick_flipped(pilot, table: FortunesTableScreen, n: int) -> None:
    """The last-trick overlay (key l) shows the trick our Star flipped, flipped."""
    app = pilot.app
    last = table.view["tricks"][-1]
    assert last["n"] == n
    await pilot.press("l")
    await wait_for(pilot, lambda: isinstance(app.screen, LastTrickScreen))
    shown = screen_text(app)
    assert f"Trick {n}, led by" in shown
    arrow = "▲ HIGH wins" if last["direction"] == "high" else "▼ LOW wins"
    assert arrow in shown and (f"flipped ×{last['flips']}" in shown) == bool(last["flips"])
    await pilot.press("l")
    await wait_for(pilot, lambda: app.screen is table)


async def play_until(pilot, table: FortunesTableScreen, done, record: Record) -> None:
    """Answer every decision until ``done()``: cards by :func:`play_card`, bets by staying,
    bids as they stand, the next deal when asked."""
    app = pilot.app
    for _ in range(400):
        if done():
            return
        if isinstance(app.screen, FortunesReadingScreen):
            await pilot.press("enter")
        ask = table.ask if app.screen is table else None
        kind = (ask or {}).get("kind")
        if kind == "play":
            await play_card(pilot, table, record)
            continue
        if kind in ("bet", "bid", "next_deal"):
            count = len(table.view["events"])
            await pilot.press({"bet": "s", "bid": "enter", "next_deal": "enter"}[kind])
            await wait_for(
                pilot,
                lambda count=count, ask=ask: len(table.view["events"]) != count or table.ask != ask,
            )
            continue
        await pilot.pause(0.02)
    raise AssertionError("the game did not end:\n" + screen_text(app))


async def test_a_whole_deal_by_keys_shows_compass_direction_stars_tricks_and_reading(
    hub, footer_checked
):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot, betting="ante")
        view = table.view
        dealer, me = view["dealer"], table.seat
        text = screen_text(app)
        # Seats by compass point, East the dealer, with their teams.
        for point, team in zip(COMPASS, ("High", "Low", "High", "Low"), strict=True):
            assert f"{point} · {team}" in text
        my_point = COMPASS[(me - dealer) % 4]
        assert "Ada (you)" in text and f"{my_point} ·" in text
        assert ("Stars are free" in text) == view["stars_free"]  # a bot may lead a Star
        assert "High 0 · Low 0" in text
        assert "single deal · pot 40" in text and "House rules: scoring" in text
        assert "⏎ Play" in text
        record = Record()
        await play_until(pilot, table, lambda: table.view["over"], record)
        assert record.plays == 19
        assert footer_checked.skipped > 0  # keys kept by bindings_state, and right (conftest)
        # Stars flipped tricks (this deal's bots lead Stars while ours last, so the flips are
        # theirs): the last-trick overlay showed one.
        assert record.dimmed_refused > 0 and record.last_trick_checked > 0
        # Stars flipped tricks: each raised a notice naming the new direction.
        assert any("flips to" in n for n in table.notices)
        assert any("Stars are free" in n for n in table.notices)
        # The reading comes up by itself: all 19 tricks in order with their dispositions.
        await wait_for(pilot, lambda: isinstance(app.screen, FortunesReadingScreen))
        reading = screen_text(app)
        view = table.view
        assert "The reading" in reading
        assert len(re.findall(r"[✓✗] (?:well|ill) ", reading)) == 19
        for record_ in view["tricks"]:
            assert card_label(record_["top"], app.card_style) in reading
        assert "house rule" in reading
        assert "takes the pot" in reading or "share the pot" in reading or "A draw" in reading
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is table)
        text = screen_text(app)
        assert "The game is over" in text
        # The won tricks: each seat's count, score and every top card with its mark.
        for seat in range(4):
            facts = view["seats"][seat]
            row = row_of(app, seat)
            assert f" {facts['tricks']} " in row
            for won in view["won"][seat][-3:]:
                mark = "✓" if won["disposition"] == "well" else "✗"
                assert card_label(won["top"], app.card_style) + mark in row
        high, low = view["teams"]["High"]["score"], view["teams"]["Low"]["score"]
        assert f"High {high:+d}".replace("+0", "0").replace("-", "−") in text
        assert f"Low {low:+d}".replace("+0", "0").replace("-", "−") in text
        # The last trick, on its key, with its final direction and disposition.
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LastTrickScreen))
        last = view["tricks"][-1]
        shown = screen_text(app)
        assert f"Trick 19, led by {table.name_of(last['leader'])}" in shown
        assert ("well-disposed" if last["disposition"] == "well" else "ill-disposed") in shown
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is table)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, FortunesReadingScreen))


async def test_raise_option_stay_raise_and_fold_by_keys(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot, betting="raise")
        view = table.view
        me = table.seat
        assert table.ask_kind == "bet"
        text = screen_text(app)
        assert "stay, raise the ante, or fold" in text
        assert "s Stay" in text and "r Raise" in text and "f Fold" in text
        paid = 10 * sum(view["contributions"])  # the antes, and the stays before ours
        assert "Ante 10 · raises 0 of 3" in text and f"pot {paid}" in text
        assert "House rules: scoring, most raises" in status_text(app)
        assert "A stay pays 10 chips, a raise 20. 3 more raises this deal (house rule)." in text
        await pilot.press("r")  # the ante goes up to 2 stakes, and we pay it
        await wait_for(pilot, lambda: table.view["contributions"][me] == 3)
        pot = 10 * sum(table.view["contributions"])
        text = screen_text(app)
        assert f"pot {pot}" in text and "Ante 20 · raises 1 of 3" in text
        # Stay and play on until we may bet again, then fold: the deal ends at once.
        record = Record()
        await play_until(
            pilot,
            table,
            lambda: (
                table.view["over"] or (table.ask_kind == "bet" and table.view["trick"]["n"] > 1)
            ),
            record,
        )
        if not table.view["over"]:
            await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FortunesReadingScreen))
        reading = screen_text(app)
        assert "folded: the highest score takes the pot" in reading
        assert "takes the pot" in reading or "share the pot" in reading or "A draw" in reading


async def test_bids_by_keys_show_in_the_status_and_the_won_tricks(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot, betting="bid")
        me = table.seat
        await wait_for(pilot, lambda: table.ask_kind == "bid")
        text = screen_text(app)
        assert "Bid the tricks you will win" in text and "Your bid: ◀ 5 ▶" in text
        assert "↑↓ 0–9 Choose bid" in text and "⏎ Bid" in text
        assert "Pick card" not in text  # the arrows and digits choose the bid now
        assert "House rules: scoring, bids per player" in status_text(app)
        await pilot.press("up", "up")
        assert "Your bid: ◀ 7 ▶" in screen_text(app)
        await pilot.press("3", "enter")
        await wait_for(pilot, lambda: table.view["bids"][me] == 3)
        await wait_for(pilot, lambda: table.view["phase"] == "play")
        bids = table.view["bids"]
        teams = table.view["teams"]
        high = sum(bids[s] for s in teams["High"]["seats"])
        low = sum(bids[s] for s in teams["Low"]["seats"])
        assert f"Bids High {high} · Low {low}" in screen_text(app)
        assert " 0/3 " in row_of(app, me)


async def test_a_target_game_with_rank_sorting_and_autoplay_deals_again_after_the_reading(
    hub, monkeypatch
):
    monkeypatch.setattr("gambit_tui.autoplay.DELAY", (0.05, 0.05))
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        app.save_settings(app.lang, app.prefs.with_(sort="rank", autoplay_forced=True))
        table = await open_fortunes_table(pilot, betting="target_exact", target=1000, max_deals=2)
        first_dealer, me = table.view["dealer"], table.seat
        hand = table.query_one(FortunesHand)
        by_rank = FORTUNES_FACES.sort(table.view["hand"], "rank")
        assert hand.cards == by_rank != FORTUNES_FACES.sort(table.view["hand"], "suit")
        text = screen_text(app)
        assert "exact target 1000 · deal 1/2" in text
        assert "House rules: scoring, target, most deals" in status_text(app)
        record = Record()
        await play_until(
            pilot, table, lambda: isinstance(app.screen, FortunesReadingScreen), record
        )
        ours = [e for e in table.view["events"] if e["e"] == "play" and e["seat"] == me]
        assert len(ours) == 19 and not table.view["hand"]
        # Forced cards (the last one at least) played themselves, without a key.
        assert record.plays < 19
        reading = screen_text(app)
        assert "The reading of deal 1" in reading and "Totals (target 1000, house rule)" in reading
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is table)
        text = screen_text(app)
        assert "Deal 1 is over: press Enter when you are ready for deal 2." in text
        assert "⏎ Next deal" in text
        await pilot.press("enter")
        await wait_for(pilot, lambda: table.view["deal"] == 2)
        view = table.view
        assert view["dealer"] == (first_dealer + 1) % 4  # East moves on: new compass points
        assert "deal 2/2" in screen_text(app)
        assert f"{COMPASS[(me - view['dealer']) % 4]} · " in screen_text(app)


# --- the screen fed with engine states: exact positions, no hub table -----------------------


def table_message(state, seat: int, table_id: int = 99) -> dict[str, Any]:
    """The table message the hub would send ``seat`` for ``state`` (bots in the other seats)."""
    seats = [
        {"seat": s, "name": "Ada" if s == seat else None, "bot": s != seat, "away": False}
        for s in range(4)
    ]
    info = {
        "id": table_id,
        "game": "fortunes",
        "players": 4,
        "options": dict(state.options),
        "stake": 10,
        "status": "over" if state.is_over else "playing",
        "dealer": state.dealer,
        "games_played": 0,
        "seats": seats,
        "deadlines": {},
    }
    return {"t": "table", "table": table_id, "info": info, "seat": seat, "view": state.view(seat)}


def stacked_state(**options: Any):
    """East (seat 0) deals and holds the Wands; South only Stars; West (seat 2, us) Cups and
    Swords; North the Pentacles and one Star."""
    from protocol.cards import FORTUNES_DECK
    from server.engine import get_game

    east = [c for c in FORTUNES_DECK if c[0] == "W"] + ["C1", "C2", "C3", "C4", "C5"]
    south = [f"*{n}" for n in range(19)]
    west = [f"C{n}" for n in range(6, 15)] + [f"S{n}" for n in range(1, 11)]
    north = [f"S{n}" for n in range(11, 15)] + [f"P{n}" for n in range(1, 15)] + ["*19"]
    deck = ["*20", "*21", *south, *west, *north, *east]
    game = get_game("fortunes")
    return game.new_state(4, options=options, dealer=0, seed=1, deck=deck)


async def test_a_star_flips_the_direction_marker_and_says_so(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        state = stacked_state()
        state.apply(0, Play("W5"))  # East (High) leads: high wins
        app.receive(table_message(state, 2))
        await wait_for(pilot, lambda: isinstance(app.screen, FortunesTableScreen))
        table = app.screen
        text = screen_text(app)
        assert "▲ HIGH wins" in text and "led ♣" in text and "Stars not free yet" in text
        assert "flipped" not in text
        state.apply(1, Play("*3"))  # South has no Wand: a Star flips it
        app.receive(table_message(state, 2))
        await wait_for(pilot, lambda: "▼ LOW wins" in screen_text(app))
        text = screen_text(app)
        assert "▼ LOW wins · flipped ×1" in text and "▼ LOW" in text and "Stars are free" in text
        assert "Bot 2 plays ★3: trick 1 flips to ▼ LOW wins." in table.notices
        assert "Stars are free: anyone may play a Star at any time now." in table.notices
        # Our turn (West): no Wand, so every card may be played; W5 wins as it stands, and
        # the compass draws the card the view names as winning inverted (East's, not South's).
        assert table.ask_kind == "play"
        assert all(c.enabled for c in table.query_one(FortunesHand).choices)
        compass = table.query_one(FortunesCompass)
        assert table.view["trick"]["winning"] == 0
        assert "reverse" in str(compass.seat_card(0).spans) + str(compass.seat_card(0).style)
        assert "reverse" not in str(compass.seat_card(1).spans) + str(compass.seat_card(1).style)
        state.apply(2, Play("C6"))
        state.apply(3, Play("*19"))  # North flips it back
        app.receive(table_message(state, 2))
        await wait_for(pilot, lambda: table.view["trick"]["n"] == 2)
        assert "Bot 4 plays ★19: trick 1 flips to ▲ HIGH wins." in table.notices
        row = row_of(app, 0)
        assert "5♣✓" in row and " +5" in row  # East took it high: well-disposed, +5


async def test_the_reading_of_a_bid_deal_says_which_bids_were_made(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        state = stacked_state(betting="bid")
        for seat, tricks in ((0, 19), (1, 0), (2, 0), (3, 0)):
            state.apply(seat, Bid(tricks))
        app.receive(table_message(state, 2))
        await wait_for(pilot, lambda: isinstance(app.screen, FortunesTableScreen))
        while not state.is_over:
            (seat,) = state.pending()
            state.apply(seat, state.legal_actions(seat)[0])
        app.receive(table_message(state, 2))
        await wait_for(pilot, lambda: isinstance(app.screen, FortunesReadingScreen))
        reading = plain(app.screen.render_reading())
        assert "Bids (house rule: per player, a team's is the sum):" in reading
        assert "High 10 of 19, missed: loses the deal · Low 9 of 0, made" in reading
        assert "Bot 2 takes the pot of 40 chips.  You: −10 chips." in reading
        assert len(re.findall(r"[✓✗] (?:well|ill) ", reading)) == 19


def assert_one_closed_box(app, table: FortunesTableScreen) -> None:
    """The won tricks and the hand are one closed box in two parts: down both edges, a top
    corner, sides, the join carrying the hand's title, sides, a bottom corner (issue 38: the
    hand's own top border was drawn right under the won tricks, which had no bottom)."""
    rows = screen_text(app).splitlines()
    won, hand = table.query_one(FortunesWon).region, table.query_one(FortunesHand).region
    for x, corners in ((0, "╭├╰"), (won.right - 1, "╮┤╯")):
        edge = "".join(rows[y][x] for y in range(won.y, hand.bottom))
        top, join, bottom = corners
        assert re.fullmatch(f"{top}│+{join}│+{bottom}", edge), (edge, "\n".join(rows))
    join_row = rows[hand.y - 1]
    assert join_row.startswith("├─ " + table.query_one(FortunesHand).heading + " ─"), join_row


async def test_every_key_and_every_players_won_tricks_are_in_sight_at_80x24(hub):
    """The footer takes a second row (German and Ukrainian need it, English too once there
    is a last trick); the won tricks and the hand, one closed box, keep all four rows."""
    from gambit_tui.widgets.footer import GambitFooter
    from protocol.term import TermInfo

    def check(app, table: FortunesTableScreen, lang: str) -> None:
        footer = table.query_one(GambitFooter)
        text = screen_text(app)
        assert len(footer.items) >= 8, footer.items
        for item in footer.items:
            assert f"{item.shown} {item.description}" in text, (lang, item, text)
        assert footer.size.height == 2, (lang, text)
        won = table.query_one(FortunesWon)
        assert_one_closed_box(app, table)
        shown = text.splitlines()[won.region.y + 1 : won.region.bottom]
        names = [seat_name(s) for s in table.info["seats"]]
        assert len(shown) == 4, text
        for name in names:
            assert sum(name in line for line in shown) == 1, (lang, name, text)

    for lang in ("en_GB.UTF-8", "de_DE.UTF-8", "uk_UA.UTF-8"):
        for betting in ("raise", "ante"):  # the betting keys; then the play's, a last trick
            term = TermInfo(width=80, height=24, term="xterm-256color", lang=lang)
            app = make_app(hub, name="Ada", identity=f"SHA256:{lang}:{betting}", term=term)
            async with app.run_test(size=(80, 24)) as pilot:
                await enter_lobby(pilot)
                table = await open_fortunes_table(pilot, betting=betting)
                if betting == "raise":
                    assert table.ask_kind == "bet"
                    check(app, table, lang)
                    continue
                while table.view["trick"]["n"] < 2:  # our first card (any language)
                    count = len(table.view["events"])
                    await pilot.press("enter")
                    await wait_for(pilot, lambda t=table, n=count: len(t.view["events"]) > n)
                await wait_for(pilot, lambda t=table: t.ask_kind == "play")
                check(app, table, lang)
                assert "l" in {item.key for item in table.query_one(GambitFooter).items}


async def test_the_won_tricks_and_the_hand_are_one_closed_box_at_100x30_and_chat_splits_it(hub):
    """With room to spare (100×30) the box grows, still closed; with the table chat open in
    the won tricks' place, the hand is a box of its own again, its title on its own border."""
    app = make_app(hub)
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot)
        assert_one_closed_box(app, table)
        await pilot.press("c")
        await wait_for(pilot, lambda: table.chat_open)
        hand = table.query_one(FortunesHand).region
        rows = screen_text(app).splitlines()
        assert rows[hand.y].startswith("╭─ " + table.query_one(FortunesHand).heading), rows
        assert rows[hand.bottom - 1].startswith("╰─"), rows
        assert not any(row.startswith("├") for row in rows), rows


async def test_a_player_beside_the_trick_sees_their_whole_turn_timer(hub):
    """West and East have some eleven cells beside the trick: "(you)" goes before the
    timer's digits do, and a long name is cut, not the timer."""
    from gambit_tui.widgets.fortunes_compass import FortunesCompass

    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        state = stacked_state()
        state.apply(0, Play("W5"))
        state.apply(1, Play("*3"))  # now West (seat 2, us) must play
        for name in ("Ada", "Adalberta Longname"):
            message = table_message(state, 2)
            message["info"]["seats"][2]["name"] = name
            message["info"]["deadlines"] = {"2": 45.0}
            app.receive(message)
            await wait_for(pilot, lambda: isinstance(app.screen, FortunesTableScreen))
            await wait_for(pilot, lambda: 2 in app.screen.query_one(FortunesCompass).timers)
            compass = app.screen.query_one(FortunesCompass)
            west = screen_text(app).splitlines()[6]  # the side players' names
            assert re.search(r"│ (Ada|Adalb\S*…) 4\ds", west), west
            assert "(you)" not in west
        # With room, "(you)" stays: North's line is the compass's whole width.
        assert "(you)" in compass.seat_player(2, 40).plain


async def test_the_form_and_the_lobby_say_the_single_deal_favours_the_dealers_team(hub):
    """Ruling 11: the rubber is the default; the single deal (like the other options that
    miss the fairness bar) is marked in the player's language."""
    from gambit_tui.i18n import translations
    from protocol.term import TermInfo

    for lang in ("en", "de", "uk"):
        catalog = translations(lang)
        term = TermInfo(width=80, height=24, term="xterm-256color", lang=f"{lang}_XX.UTF-8")
        app = make_app(hub, name="Ada", identity=f"SHA256:favours:{lang}", term=term)
        async with app.run_test(size=(80, 24)) as pilot:
            await enter_lobby(pilot)
            await pilot.press("n")
            await wait_for(pilot, lambda app=app: isinstance(app.screen, CreateTableScreen))
            form = app.screen
            form.query_one("#game", Select).value = "fortunes"
            await wait_for(pilot, lambda form=form: bool(form.query("#opt-betting")))
            betting = form.query_one("#opt-betting", Select)
            assert betting.value == "rubber"
            assert catalog.gettext("rubber of four deals") in screen_text(app)
            betting.value = "ante"
            await pilot.pause()
            marked = catalog.gettext("{choice} ({favours})").format(
                choice=catalog.gettext("single deal"),
                favours=catalog.gettext("favours the dealer's team"),
            )
            assert marked in screen_text(app), (lang, screen_text(app))
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda app=app: isinstance(app.screen, FortunesTableScreen))
            await pilot.press("escape")  # back to the lobby: the table's detail says it too
            await wait_for(pilot, lambda app=app, m=marked: m in " ".join(screen_text(app).split()))


async def test_a_rubber_counts_its_deals_and_totals_and_reads_each_deal(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        state = stacked_state()  # the default betting: a rubber of four deals
        app.receive(table_message(state, 2))
        await wait_for(pilot, lambda: isinstance(app.screen, FortunesTableScreen))
        table = app.screen
        assert "rubber · deal 1/4 · pot 40" in status_text(app)
        while state.phase == "play":
            (seat,) = state.pending()
            state.apply(seat, state.legal_actions(seat)[0])
        assert state.phase == "next_deal" and not state.is_over
        app.receive(table_message(state, 2))
        await wait_for(pilot, lambda: isinstance(app.screen, FortunesReadingScreen))
        reading = plain(app.screen.render_reading())
        totals = state.view(2)["partnerships"]
        assert "Rubber totals after deal 1 of 4:" in reading
        for pair in totals:
            names = "+".join(table.name_of(s) for s in pair["seats"])
            assert names in reading
        assert "The reading of deal 1" in screen_text(app)
        assert "Ace 14 … Righ 1" in " ".join(reading.split())  # ruling 9, in words
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is table)
        assert "Deal 1 is over: press Enter when you are ready for deal 2." in screen_text(app)


async def test_a_player_who_cannot_pay_the_ante_again_can_only_fold(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        state = stacked_state(betting="raise")
        state.apply(0, Raise())  # East raises: the ante is 2 stakes, 20 chips
        state.apply(1, Stay())
        app.receive(table_message(state, 2))  # West (us) decides, with 1,000 chips
        await wait_for(pilot, lambda: isinstance(app.screen, FortunesTableScreen))
        table = app.screen
        await wait_for(pilot, lambda: table.ask_kind == "bet")
        text = screen_text(app)
        assert "A stay pays 20 chips, a raise 30. 2 more raises this deal (house rule)." in text
        assert "s Stay" in text and "r Raise" in text
        app.receive({"t": "you", **dict(app.model.you, chips=25)})  # enough to stay only
        app.receive(table_message(state, 2))
        await wait_for(pilot, lambda: "r Raise" not in screen_text(app))
        assert table.check_action("bet", ("stay",)) and not table.check_action("bet", ("raise",))
        app.receive({"t": "you", **dict(app.model.you, chips=15)})
        app.receive(table_message(state, 2))
        await wait_for(pilot, lambda: "s Stay" not in screen_text(app))
        text = screen_text(app)
        assert "You cannot pay the ante again (20 chips): you must fold." in text
        assert "f Fold" in text and not table.check_action("bet", ("stay",))


async def test_a_hand_of_19_bare_cards_is_not_offered_digits_it_does_not_show(hub):
    """At 80 columns the full hand is drawn without digits: the hint offers the arrows only;
    a hand that shows its digits is offered them (1–9, 0 for ten cards or more)."""
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot)
        hand = table.query_one(FortunesHand)
        await wait_for(pilot, lambda: table.ask_kind == "play")
        await pilot.pause()
        text = screen_text(app)
        assert "1–9" not in text and "1 " + hand.choices[0].label.plain not in text
        assert len(hand.choices) == 19 and hand.digit_keys() == ""
        if sum(c.enabled for c in hand.choices) > 1:
            assert "←→ pick" in text
    app = make_app(hub, name="Bea", identity="SHA256:bea")
    async with app.run_test(size=(200, 30)) as pilot:
        await enter_lobby(pilot)
        table = await open_fortunes_table(pilot)
        hand = table.query_one(FortunesHand)
        await wait_for(pilot, lambda: table.ask_kind == "play")
        await pilot.pause()
        assert hand.digit_keys() == "1–9, 0"  # 200 columns: one line, each card numbered
        if sum(c.enabled for c in hand.choices) > 1:
            assert "←→ or 1–9, 0 pick" in screen_text(app)


async def test_the_suit_signs_and_the_reversed_winning_card_are_explained_on_the_table(hub):
    """Issue 38: "9♣ 9 of Wands" (the faces borrow the French signs) and "inverted: winning
    so far" (a word for what the screen does) left a new player guessing. The hand's bottom
    border names each sign's suit; the compass's shows a reversed sample and says, in words,
    that a card drawn so is the one winning the trick so far."""
    from gambit_tui.cards import CardStyle
    from gambit_tui.fortunes_text import suit_legend

    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        state = stacked_state()
        state.apply(0, Play("W5"))  # East leads a Wand: it wins the trick so far
        app.receive(table_message(state, 2))
        await wait_for(pilot, lambda: isinstance(app.screen, FortunesTableScreen))
        table = app.screen
        await wait_for(pilot, lambda: table.view is not None)
        rows = screen_text(app).splitlines()
        hand = table.query_one(FortunesHand).region
        assert "♣ Wands · ♥ Cups · ♠ Swords · ♦ Pentacles" in rows[hand.bottom - 1], rows
        compass = table.query_one(FortunesCompass)
        bottom = rows[compass.region.bottom - 1]
        assert "= the card winning the trick so far" in bottom and "inverted" not in bottom
        # Just before the words, two blank cells in reverse video: the sample.
        strip = app.screen._compositor.render_strips()[compass.region.bottom - 1]
        cells = [(ch, seg.style) for seg in strip for ch in seg.text]
        start = "".join(ch for ch, _ in cells).index("= the card")
        assert [ch for ch, _ in cells[start - 3 : start]] == [" ", " ", " "]
        assert all(style and style.reverse for _, style in cells[start - 3 : start - 1])
        assert not (cells[start - 1][1] and cells[start - 1][1].reverse)
        east = compass.seat_card(0)  # the card winning the trick, drawn as the sample says
        assert east.plain == "5♣" and "reverse" in str(east.spans[-1].style)
    ascii_legend = suit_legend(CardStyle(ascii=True)).plain
    assert ascii_legend == "W Wands · C Cups · S Swords · P Pentacles"
