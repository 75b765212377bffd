"""The Prophet table, driven by keys against bots through a real hub; its shared pieces (the
hand row, the trick view, autoplay) and the two preferences they follow."""

from __future__ import annotations

import re
import time

from textual.widgets import Input, Select

from gambit_tui import autoplay
from gambit_tui.cards import FRENCH_FACES, CardStyle, french_label
from gambit_tui.prefs import Prefs
from gambit_tui.screens.create_table import CreateTableScreen
from gambit_tui.screens.last_trick import LastTrickScreen
from gambit_tui.screens.lobby import LobbyScreen
from gambit_tui.screens.prophet_table import ProphetTableScreen, join_tail, split_round
from gambit_tui.screens.score_sheet import ScoreSheetScreen
from gambit_tui.screens.settings import SettingsScreen
from gambit_tui.widgets.choice_row import ChoiceRow
from gambit_tui.widgets.event_log import EventLog
from gambit_tui.widgets.footer import GambitFooter
from gambit_tui.widgets.hand_row import HandRow
from gambit_tui.widgets.prophet_seats import ProphetSeats
from protocol.actions import Play, action_from_wire
from protocol.cards import FRENCH_52
from protocol.term import TermInfo

from .conftest import (
    check_kept_hand_and_hint,
    enter_lobby,
    keep_results_up,
    make_app,
    result_shown,
    screen_text,
    wait_for,
)

SUITS = {"S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs"}


async def open_prophet_table(
    pilot, *, players: int = 3, schedule: str = "up_down", cap: int = 2
) -> ProphetTableScreen:
    """From the lobby: a new Prophet table with these options, every other seat a bot."""
    app = pilot.app
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, CreateTableScreen))
    form = app.screen
    form.query_one("#game", Select).value = "prophet"
    # The game's options are made anew: wait until their drop-downs are whole (a loaded
    # machine may take more than one pause), or setting one finds no label to update.
    await wait_for(pilot, lambda: bool(form.query("#opt-schedule SelectCurrent #label")))
    form.query_one("#players", Select).value = players
    form.query_one("#opt-schedule", Select).value = schedule
    form.query_one("#opt-cap", Input).value = str(cap)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(app.screen, ProphetTableScreen))
    table = app.screen
    await pilot.press(*["b"] * (players - 1))
    await wait_for(pilot, lambda: all(s["bot"] or s["name"] for s in table.info["seats"]))
    return table


def seat_rows(app) -> dict[str, tuple[str, int, int]]:
    """The seats panel as read off the screen: name → (bid, tricks won, total)."""
    rows = {}
    for line in screen_text(app).splitlines():
        seats_part = line.split("││")[0]
        found = re.search(r"(Ada|Bot \d)(?: \(you\))?\s+D?\s+(—|\d+)\s+(\d+)\s+(\d+)", seats_part)
        if found:
            rows[found[1]] = (found[2], int(found[3]), int(found[4]))
    return rows


async def test_a_whole_prophet_game_by_keys(hub, footer_checked, monkeypatch):
    """Every round of a short schedule (1-2-1 cards), each decision made by keys, checking
    what the table shows on the way: round and trump, the dealer's barred bid, bids and tricks
    against them, dimmed cards that cannot be picked, the last trick and the score sheet; and
    a log with every play, trick and round score exactly once (each round's final trick and
    score arrive in the next round's first views)."""
    # The seats' lines kept from earlier moves equal lines made anew, at every move.
    seats_build = ProphetSeats.build
    seats_compared: list[int] = []

    def seats_checked(self):
        lines = seats_build(self)
        kept, self._lines_made = self._lines_made, {}
        assert lines == seats_build(self)
        self._lines_made = kept
        seats_compared.append(len(lines))
        return lines

    monkeypatch.setattr(ProphetSeats, "build", seats_checked)

    # The hand shown and the card hint, kept while they stay the same, equal ones made anew.
    def again(table):
        hand = table.query_one(HandRow)
        hand._shown_hand = table._hint_memo = None
        table._set_hand(table.view)
        table._set_prompt(table.view)

    kept = check_kept_hand_and_hint(
        monkeypatch, ProphetTableScreen, lambda t: t.query_one(HandRow), again
    )
    keep_results_up(hub)  # (the finished game stays on show)
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await open_prophet_table(pilot, players=3, schedule="up_down", cap=2)
        await pilot.press("s")
        style = CardStyle()
        seen: set[str] = set()
        decisions = 0
        last_marker = None
        for _ in range(600):
            if result_shown(app):
                break
            view, ask = table.view, table.ask
            marker = table._decision_key()
            if not ask or marker == last_marker or app.screen is not table:
                await pilot.pause(0.02)
                continue
            last_marker = marker
            decisions += 1
            await pilot.pause()
            text = screen_text(app)
            trump = view["trump"]
            assert f"Round {view['round']} of 3" in text
            assert f"Trump {french_label(trump, style)} ({SUITS[trump[1]]})" in text
            dealer = table.name_of(view["dealer"])
            assert f"Dealer {dealer}" in text
            if ask["kind"] == "bid":
                await bid_by_keys(pilot, table, seen)
            else:
                await play_by_keys(pilot, table, seen)
        assert result_shown(app), screen_text(app)
        # Every round had a bid and every card a play: 1+2+1 cards, plus 3 bids.
        assert decisions == 4 + 3
        assert footer_checked.skipped > 0  # keys kept by bindings_state, and right (conftest)
        assert len(seats_compared) > 10
        assert not kept.stale and kept.checked > 10, kept.stale[:2]
        assert seen >= {"forbidden", "dimmed", "last_trick", "sheet", "bids_shown"}
        result = screen_text(app)
        view = table.view
        assert view["over"] and len(view["sheet"]) == 3
        assert "Score" in result and "Ada (you)" in result
        for seat, total in enumerate(view["totals"]):
            assert re.search(rf"{re.escape(table.name_of(seat))}(?: \(you\))?\s+{total}\b", result)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is table)
        assert "The game is over. Highest total:" in screen_text(app)
        log = [line.plain for line in table.query_one(EventLog).lines]
        assert sum(" plays " in line for line in log) == 3 * 4, log
        assert sum(line.endswith(" wins the trick.") for line in log) == 4, log
        scored = [line for line in log if line.startswith("Round ") and " scored: " in line]
        assert [line.split(" scored")[0] for line in scored] == ["Round 1", "Round 2", "Round 3"]
        for row, line in zip(view["sheet"], scored, strict=True):
            points = ", ".join(f"{table.name_of(s)} {p}" for s, p in enumerate(row))
            assert line.endswith(f" scored: {points}.")


async def bid_by_keys(pilot, table: ProphetTableScreen, seen: set[str]) -> None:
    """Bid by digit and Enter; the dealer's barred number cannot be picked."""
    app = pilot.app
    view, ask = table.view, table.ask
    row = table.query_one("#bids", ChoiceRow)
    legal = [a["tricks"] for a in view["legal"]]
    text = screen_text(app)
    assert "Your bid: how many tricks will you take?" in text
    assert "⏎ Bid" in text
    forbidden = ask.get("forbidden")
    if forbidden is not None:
        assert view["dealer"] == table.seat
        assert (
            f"You may not bid {forbidden}: the bids would add up to the number of cards "
            f"({view['cards']})." in text
        )
        assert forbidden not in legal
        await pilot.press(str(forbidden))
        assert row.selected != forbidden and row.selected in legal
        seen.add("forbidden")
    bid = legal[-1]
    await pilot.press(str(bid), "enter")
    await wait_for(pilot, lambda: table.view["bids"][table.seat] == bid)
    rows = seat_rows(app)
    for seat, value in enumerate(table.view["bids"]):
        if value is not None:
            assert rows[table.name_of(seat)][0] == str(value)
            seen.add("bids_shown")


async def play_by_keys(pilot, table: ProphetTableScreen, seen: set[str]) -> None:
    """Play by digit and Enter; a card that may not be played is dimmed and cannot be picked.
    Between plays: tricks won against bids, the last trick (l) and the score sheet (t)."""
    app = pilot.app
    view = table.view
    hand = table.query_one(HandRow)
    legal = {a["card"] for a in view["legal"]}
    assert sorted(hand.cards) == sorted(view["hand"])
    dimmed = [c.value for c in hand.choices if not c.enabled]
    assert set(dimmed) == set(view["hand"]) - legal
    for card in dimmed:
        assert not hand.pick_digit(hand.cards.index(card) + 1)
        assert hand.selected in legal
        seen.add("dimmed")
    rows = seat_rows(app)
    for seat, won in enumerate(view["tricks"]):
        assert rows[table.name_of(seat)][1] == won
    if view["last_trick"] and "last_trick" not in seen:
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LastTrickScreen))
        text = screen_text(app)
        last = view["last_trick"]
        assert "Last trick" in text
        # Round 1 has one card, so the first last trick shown is round 1's, in round 2.
        assert view["round"] == 2 and last["round"] == 1 and sum(view["tricks"]) == 0
        assert "Round 1 ended with this trick." in text
        assert f"Led by {table.name_of(last['leader'])}" in text
        assert f"{table.name_of(last['winner'])} won the trick." in text
        for _seat, card in last["cards"]:
            assert french_label(card, CardStyle()) in text
        await pilot.press("l")
        await wait_for(pilot, lambda: app.screen is table)
        seen.add("last_trick")
    if view["round"] >= 2 and "sheet" not in seen:
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreSheetScreen))
        text = screen_text(app)
        assert "Score sheet" in text and "Total" in text
        first = " ".join(str(p) for p in view["sheet"][0])
        assert re.search(r"\b1\s+1\s+" + r"\s+".join(first.split()) + r"\b", text), text
        await pilot.press("t")
        await wait_for(pilot, lambda: app.screen is table)
        seen.add("sheet")
    card = hand.selected
    before = len(view["hand"])
    await pilot.press(str(hand.cards.index(card) + 1), "enter")
    await wait_for(
        pilot,
        lambda: (
            table.view["round"] != view["round"]
            or table.view["over"]
            or len(table.view["hand"]) < before
        ),
    )


async def test_a_forced_card_plays_itself_only_with_the_preference(hub, monkeypatch):
    """Rounds of 1, 2 and 3 cards. Round 1 (one card: the play is forced) with autoplay on
    plays itself after a pause; in round 2 the player acts before a long pause ends (played
    once); in round 3, with autoplay off, the forced last card waits for a key."""
    monkeypatch.setattr(autoplay, "DELAY", (0.3, 0.4))
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        app.save_settings("en", Prefs(autoplay_forced=True))
        table = await open_prophet_table(pilot, players=3, schedule="ascending", cap=3)
        await pilot.press("s")

        async def next_decision(kind: str, after: object = None) -> object:
            await wait_for(
                pilot,
                lambda: (table.ask or {}).get("kind") == kind and table._decision_key() != after,
            )
            return table._decision_key()

        def my_plays(round_no: int) -> list[str]:
            """The cards we played in a round, from the hub's own record of the game."""
            (hub_table,) = hub.tables.values()
            plays, current = [], 0
            for e in hub_table.state.events:
                if e["e"] == "deal":
                    current = e["round"]
                elif e["e"] == "play" and e["seat"] == table.seat and current == round_no:
                    plays.append(e["card"])
            return plays

        key = await next_decision("bid")
        await pilot.press("enter")
        key = await next_decision("play", key)  # one card: forced
        assert table.autoplay.pending.to_wire() == table.view["legal"][0]
        started = time.monotonic()
        await wait_for(pilot, lambda: table.view["round"] == 2, timeout=2)  # no key pressed
        assert time.monotonic() - started > 0.2  # after a pause, not at once
        assert len(my_plays(1)) == 1

        monkeypatch.setattr(autoplay, "DELAY", (5.0, 6.0))
        key = await next_decision("bid", key)
        started = time.monotonic()
        await pilot.press("enter")
        for _ in range(2):
            key = await next_decision("play", key)
            legal = table.view["legal"]
            assert table.autoplay.pending == (
                action_from_wire(legal[0]) if len(legal) == 1 else None
            )
            await pilot.press("enter")  # acting first: the key sends the play at once
            assert table._acted_on == key
        await wait_for(pilot, lambda: table.view["round"] == 3)
        assert time.monotonic() - started < 5.0  # so no timer played them
        assert len(my_plays(2)) == 2

        monkeypatch.setattr(autoplay, "DELAY", (0.05, 0.1))
        app.save_settings("en", Prefs(autoplay_forced=False))
        key = await next_decision("bid", key)
        await pilot.press("enter")
        for left in (3, 2, 1):
            key = await next_decision("play", key)
            assert len(table.view["hand"]) == left and table.autoplay.pending is None
            if left == 1:
                await pilot.pause(0.3)  # thrice the longest pause: still waiting for a key
                assert table.ask is not None and len(table.view["hand"]) == 1
            await pilot.press("enter")
        await wait_for(pilot, lambda: table.view["over"])
        assert len(my_plays(3)) == 3

        # A new view drops a pending play; a free choice is never played for the player.
        table.autoplay.consider("k1", [{"type": "play", "card": "AS"}], enabled=True)
        assert table.autoplay.pending == Play("AS")
        table.autoplay.consider("k2", [], enabled=True)
        assert table.autoplay.pending is None
        two = [{"type": "play", "card": "AS"}, {"type": "play", "card": "KS"}]
        table.autoplay.consider("k3", two, enabled=True)
        assert table.autoplay.pending is None


async def test_the_hand_is_sorted_by_suit_or_by_rank_as_the_player_prefers(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await open_prophet_table(pilot, players=3, schedule="fixed", cap=7)
        await pilot.press("s")
        await wait_for(pilot, lambda: table.ask is not None)
        hand = table.query_one(HandRow)
        cards = table.view["hand"]
        assert hand.cards == FRENCH_FACES.sort(cards, "suit")
        suits = [c[1] for c in hand.cards]
        assert suits == sorted(suits, key="SHCD".index)  # ♠ ♥ ♣ ♦: colours alternate
        app.save_settings("en", Prefs(sort="rank"))
        await wait_for(pilot, lambda: table.query_one(HandRow).cards != hand.cards)
        ranked = table.query_one(HandRow).cards
        assert ranked == FRENCH_FACES.sort(cards, "rank")
        ranks = ["789TJQKA".index(c[0]) for c in ranked]
        assert ranks == sorted(ranks) and ranked != hand.cards


def test_a_rounds_tail_joins_the_log_once_however_much_of_it_was_seen():
    """The next round's view repeats the final trick's plays the client may already have
    seen; joined to the old round they appear once, whatever view the client saw last."""
    deal1 = {"e": "deal", "round": 1}
    bids = [{"e": "bid", "seat": s, "tricks": 0} for s in range(3)]
    plays = [{"e": "play", "seat": s, "card": c} for s, c in enumerate(("AS", "KS", "QS"))]
    end = [{"e": "trick_won", "seat": 0}, {"e": "round_scored", "round": 1}]
    whole = [deal1, *bids, *plays, *end]
    deal2 = {"e": "deal", "round": 2}
    view = [*plays, *end, deal2, {"e": "bid", "seat": 1, "tricks": 0}]
    tail, current = split_round(view)
    assert tail == [*plays, *end] and current == view[-2:]
    for seen in range(4, len(whole) + 1):  # from the last bid to the whole round
        assert join_tail(whole[:seen], tail) == whole
    assert split_round([deal1, *bids]) == ([], [deal1, *bids])


def test_deck_faces_sort_and_french_faces_fit_one_cell_per_character():
    faces = FRENCH_FACES
    assert faces.sort(["AS", "7H", "KS", "7S"], "suit") == ["7S", "KS", "AS", "7H"]
    assert faces.sort(["AS", "7H", "KS", "7S"], "rank") == ["7S", "7H", "KS", "AS"]
    for style in (CardStyle(), CardStyle(ascii=True), CardStyle(suit_letters=True)):
        for code in FRENCH_52:
            label = french_label(code, style)
            assert len(label) in (2, 3, 4) and (label.isascii() or not style.ascii)
    assert french_label("TH", CardStyle()) == "10♥"
    assert french_label("QC", CardStyle(suit_letters=True)) == "Q♣C"
    assert french_label("AD", CardStyle(ascii=True)) == "AD"
    four = CardStyle(four_colour=True)
    assert len({faces.text(c, four).style for c in ("AS", "AH", "AD", "AC")}) == 4


async def test_sort_and_autoplay_are_settings_that_come_back(hub):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("comma")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
        assert "Sort your hand by" in screen_text(app)
        assert "Play a forced card for me" in screen_text(app)
        app.screen.query_one("#sort", Select).value = "rank"
        app.screen.query_one("#autoplay", Select).value = True
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert app.prefs.sort == "rank" and app.prefs.autoplay_forced
    again = make_app(hub)
    async with again.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        assert again.prefs == Prefs(sort="rank", autoplay_forced=True)
    assert Prefs.from_wire({"sort": "colour", "autoplay_forced": "yes"}) == Prefs()


async def test_six_seats_fit_80x24_and_a_spectator_sees_no_hand(hub):
    ada = make_app(hub)
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    async with ada.run_test(size=(80, 24)) as ada_pilot, bob.run_test(size=(80, 24)) as bob_pilot:
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)
        await open_prophet_table(ada_pilot, players=6, schedule="fixed", cap=5)
        await ada_pilot.press("s")
        # (With two apps in one test, read each app's model: a screen's ``app`` is whichever
        # app's context the caller runs in.)
        await wait_for(ada_pilot, lambda: (ada.model.views[1]["view"] or {}).get("ask"))
        text = screen_text(ada)
        for n in range(2, 7):
            assert f"Bot {n}" in text
        assert "Round 1 of 5 · 5 cards · schedule fixed" in text
        assert "Your bid" in text and "Your hand" in text and "⏎ Bid" in text
        assert "Log" in text  # the log keeps a line even with six seats and the bid row
        await wait_for(bob_pilot, lambda: bob.model.tables.get(1, {}).get("status") == "playing")
        await bob_pilot.press("w")
        await wait_for(bob_pilot, lambda: isinstance(bob.screen, ProphetTableScreen))
        watcher = bob.screen
        await bob_pilot.pause()
        text = screen_text(bob)
        assert "You are watching this table: hands stay hidden." in text
        assert "Trump" in text and "Ada (you)" not in text
        assert watcher.query_one(HandRow).choices == []
        assert not watcher.query_one("#bids").display
        await bob_pilot.press("t")
        await wait_for(bob_pilot, lambda: isinstance(bob.screen, ScoreSheetScreen))
        assert "Score sheet" in screen_text(bob)


async def test_every_key_in_the_footer_is_in_sight_at_80_columns_in_every_language(hub):
    """The Prophet table offers the most keys; in German they need a second footer row."""
    for lang in ("en_GB.UTF-8", "de_DE.UTF-8", "uk_UA.UTF-8"):
        term = TermInfo(width=80, height=24, term="xterm-256color", lang=lang)
        app = make_app(hub, name="Ada", identity=f"SHA256:{lang}", term=term)
        async with app.run_test(size=(80, 24)) as pilot:
            await enter_lobby(pilot)
            table = await open_prophet_table(pilot, players=3)
            await pilot.press("s")
            await wait_for(pilot, lambda t=table: t.ask is not None, timeout=10)
            footer = table.query_one(GambitFooter)
            text = screen_text(app)
            assert len(footer.items) >= 8, footer.items
            for item in footer.items:
                assert f"{item.shown} {item.description}" in text, (lang, item, text)
            assert footer.size.height == len(footer._rows(80)) <= 3


async def test_the_footer_and_hints_say_only_what_the_keys_do(hub):
    """While bidding the footer names the keys that choose the bid (never "Pick card"); a
    hand of one card is not offered "1–1 pick"; two cards are offered their two digits."""
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        table = await open_prophet_table(pilot, players=3, schedule="up_down", cap=2)
        await pilot.press("s")
        seen: set[str] = set()
        last = None
        for _ in range(600):
            if result_shown(app):
                break
            ask, marker = table.ask, table._decision_key()
            if not ask or marker == last or app.screen is not table:
                await pilot.pause(0.02)
                continue
            last = marker
            await pilot.pause()
            text = screen_text(app)
            footer = " ".join(text.splitlines()[-2:])
            assert "1–1" not in text
            if ask["kind"] == "bid":
                most = len(table.query_one("#bids", ChoiceRow).choices) - 1
                assert f"←→ 0–{most} Choose bid" in footer and "Pick card" not in footer
                seen.add("bid")
                await pilot.press("enter")
                continue
            hand = table.query_one(HandRow)
            playable = sum(c.enabled for c in hand.choices)
            if playable == 1:
                assert " pick" not in text
                seen.add("one")
            elif len(hand.choices) == 2:
                assert "←→ or 1–2 pick" in text
                seen.add("two")
            assert "←→ Pick card" in footer and "Choose bid" not in footer
            legal = next(i for i, c in enumerate(hand.choices) if c.enabled)
            await pilot.press(str(legal + 1), "enter")
        assert result_shown(app)
        assert {"bid", "one"} <= seen, seen
