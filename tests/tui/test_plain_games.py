"""The plain mode without a terminal: ``new`` and its options read forgivingly (a refusal in
one sentence otherwise), Fortunes' events as sentences with cards by name in three
languages, and a view's event window that starts later (Prophet's) not said again."""

from __future__ import annotations

from typing import Any

import pytest

from gambit_tui import fortunes_text
from gambit_tui.cards import CardStyle
from gambit_tui.i18n import plain_catalog, translations
from gambit_tui.plain.client import already_said
from gambit_tui.plain.new_table import parse_new
from gambit_tui.plain.result import result_lines
from gambit_tui.plain.words import face

GAMES: list[dict[str, Any]] = [
    {"name": "prophets_gambit", "min_players": 3, "max_players": 3, "options": {}},
    {
        "name": "prophet",
        "min_players": 3,
        "max_players": 6,
        "options": {
            "deck": {"default": 32, "choices": [32, 52], "min": None, "max": None},
            "schedule": {
                "default": "ascending",
                "choices": ["ascending", "fixed", "descending", "down_up", "up_down"],
                "min": None,
                "max": None,
            },
            "cap": {"default": 0, "choices": None, "min": 0, "max": 17},
        },
    },
    {
        "name": "fortunes",
        "min_players": 4,
        "max_players": 4,
        "options": {
            "betting": {"default": "rubber", "choices": ["rubber", "ante", "raise"]},
            "max_raises": {"default": 3, "choices": None, "min": 0, "max": 19},
            "max_deals": {"default": 10, "choices": None, "min": 1, "max": 50},
        },
    },
]


@pytest.fixture(params=["en", "uk", "de"])
def lang(request):
    token = plain_catalog.set(translations(request.param))
    yield request.param
    plain_catalog.reset(token)


def test_new_reads_options_in_any_order():
    got = parse_new("prophet 4 players stake 10 sched down_up deck 52 cap 5 timer 30", GAMES)
    assert got.refusal is None
    assert (got.game, got.players, got.stake, got.timer) == ("prophet", 4, 10, 30)
    assert got.options == {"schedule": "down_up", "deck": 52, "cap": 5}
    assert parse_new("fort bet ante", GAMES).options == {"betting": "ante"}
    assert parse_new("", GAMES).game == "prophets_gambit"
    assert parse_new("5", GAMES).players == 5


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        (
            "prophet colour red",
            "Prophet has no option colour: it takes players, stake, timer, deck, schedule, cap.",
        ),
        (
            "prophet schedule sideways",
            "schedule takes ascending, fixed, descending, down_up, up_down.",
        ),
        ("prophet cap 40", "cap takes a number from 0 to 17."),
        (
            "fortunes max 3",
            "Fortunes has no option max: it takes players, stake, timer, "
            "betting, max_raises, max_deals.",
        ),
        ("prophet stake lots", "Type a number after stake, as in stake 10."),
        ("fortunes 3", "Fortunes seats 4 to 4 players."),
    ],
)
def test_new_refuses_in_one_sentence(typed, said):
    assert parse_new(typed, GAMES).refusal == said


def test_new_refusals_translated(lang):
    refusal = parse_new("prophet colour red", GAMES).refusal or ""
    assert "colour" in refusal and refusal.count(".") == 1
    assert ("has no option" in refusal) == (lang == "en")


EVENTS = [
    {"e": "deal", "deal": 1, "dealer": 0, "high": [0, 2], "low": [1, 3]},
    {"e": "play", "seat": 0, "card": "W14"},
    {"e": "play", "seat": 1, "card": "*7", "flip": "low", "stars_free": True},
    {"e": "stay", "seat": 2, "trick": 2},
    {
        "e": "trick",
        "n": 1,
        "winner": 1,
        "top": "*7",
        "disposition": "ill",
        "points": -7,
        "direction": "low",
    },
    {"e": "deal_end", "deal": 1, "scores": [3, -7, 0, 1]},
]
NAMES = ["Ada", "Bob", "Cy", "Di"]


def _said(ev: dict[str, Any]) -> str:
    line = fortunes_text.event_text(ev, NAMES.__getitem__, CardStyle(ascii=True), face("fortunes"))
    assert line is not None
    return line.plain


def test_fortunes_events_in_english():
    said = [_said(ev) for ev in EVENTS]
    assert said == [
        "Ada deals (East).",
        "Ada plays Righ of Wands.",
        "Bob plays Star 7: the trick flips to LOW wins. "
        "Stars are free: anyone may play a Star at any time now.",
        "Cy stays.",
        "Bob wins trick 1 with Star 7, ill-disposed: -7 points.",
        "Deal 1 is over. Points: Ada 3, Bob -7, Cy 0, Di 1.",
    ]


def test_fortunes_events_translated(lang):
    said = [_said(ev) for ev in EVENTS]
    english = ("deals", "plays", "stays", "wins trick", "is over")
    assert all(not any(word in line for word in english) for line in said) == (lang != "en")
    assert all("{" not in line and "\u2605" not in line for line in said)


def test_fortunes_question_spoken():
    view = {"trick": {"n": 3, "led": "C"}, "stars_free": True}
    said = fortunes_text.ask_text({"kind": "play"}, view, CardStyle(ascii=True), spoken=True)
    assert said.plain == "Play to trick 3: follow Cups if you can. Stars may be played."
    lead = {"trick": {"n": 1, "direction": "low"}}
    said = fortunes_text.ask_text({"kind": "play"}, lead, CardStyle(ascii=True), spoken=True)
    assert said.plain == "You lead trick 1: LOW wins. Play any card."
    # the deal's end is said by its event: the question does not say it again
    said = fortunes_text.ask_text({"kind": "next_deal"}, {"deal": 2}, CardStyle(), spoken=True)
    assert said.plain == "Ready for deal 3?"


def test_a_later_window_is_not_said_again():
    deal, bid = {"e": "deal", "round": 1}, {"e": "bid", "seat": 0, "tricks": 1}
    p1, p2 = {"e": "play", "seat": 0, "card": "SA"}, {"e": "play", "seat": 1, "card": "S7"}
    won, deal2 = {"e": "trick_won", "seat": 0}, {"e": "deal", "round": 2}
    assert already_said([], [deal, bid]) == 0
    assert already_said([deal, bid], [deal, bid, p1]) == 2
    # the round ends and the next is dealt in one action: the window starts at its final trick
    assert already_said([deal, bid, p1], [p1, p2, won, deal2]) == 1
    # a new deal afresh
    assert already_said([deal, bid, p1, p2, won], [deal2]) == 0


def _over(game: str, outcome: dict[str, Any], stake: int) -> dict[str, Any]:
    seats = [{"seat": i, "name": n, "bot": None} for i, n in enumerate(["Ada", "Bob", "Cy"])]
    info = {"game": game, "stake": stake, "seats": seats}
    return {"table": 1, "seat": 0, "info": info, "view": {"over": True, "outcome": outcome}}


def test_prophet_result_said_in_full():
    outcome = {"ranking": [1, 0, 2], "scores": [11, 23, 0], "winners": [1]}
    assert result_lines(_over("prophet", outcome, 10), CardStyle(ascii=True)) == [
        "Place 1: Bob, 23 points; chips +20.",
        "Place 2: Ada (you), 11 points; chips -10.",
        "Place 3: Cy, 0 points; chips -10.",
        "Bob wins the pot of 30 chips.",
    ]


def test_prophets_gambit_result_said_in_full(lang):
    hand = {"hand": ["S7"], "fate": "S7", "category": "one_pair", "cards": ["S7", "T7"]}
    outcome = {"ranking": [0, 1, 2], "scores": [3, 2, 1], "winners": [0], "hands": [hand] * 3}
    lines = result_lines(_over("prophets_gambit", outcome, 0), CardStyle(ascii=True))
    assert len(lines) == 4 and lines[-1].endswith("Ada.")
    assert all("{" not in line for line in lines)
    if lang == "en":
        assert (
            lines[0]
            == "Place 1: Ada (you), One pair: 7 of Swords, 7 of Stars; Fate 7 of Swords; chips +0."
        )
