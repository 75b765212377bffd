"""The plain mode's parser and words without a terminal: prefixes, numbers, cards by name
or short form, refusals in one sentence, and the same in Ukrainian and German (English words
always understood)."""

from __future__ import annotations

import pytest

from gambit_tui.i18n import plain_catalog, translations
from gambit_tui.plain.editor import Key, LineEditor
from gambit_tui.plain.parser import choices_of, parse

LEGAL = [{"type": "play", "card": c} for c in ("S7", "T7", "CM", "HSE")] + [
    {"type": "risk", "card": "S7"}
]
NAMES = ["Ada", "Bot 2", "Bot 3"]


@pytest.fixture(params=["en", "uk", "de"])
def lang(request):
    token = plain_catalog.set(translations(request.param))
    yield request.param
    plain_catalog.reset(token)


def choices():
    return choices_of("prophets_gambit", LEGAL, NAMES)


@pytest.mark.parametrize(
    ("line", "action"),
    [
        ("play 7s", {"type": "play", "card": "S7"}),
        ("play 7 sw", {"type": "play", "card": "S7"}),
        ("2", {"type": "play", "card": "T7"}),
        ("seer", {"type": "play", "card": "HSE"}),
        ("m coins", {"type": "play", "card": "CM"}),
        ("pl master", {"type": "play", "card": "CM"}),
        ("risk", {"type": "risk", "card": "S7"}),
        ("5", {"type": "risk", "card": "S7"}),
        ("pla s7", {"type": "play", "card": "S7"}),
    ],
)
def test_english_always_understood(lang, line, action):
    assert parse(line, choices()).action == action


@pytest.mark.parametrize("line", ["9", "play 7", "kill", "frobnicate", "xyz"])
def test_refusals_are_one_sentence(lang, line):
    parsed = parse(line, choices())
    assert parsed.action is None and parsed.command is None
    assert parsed.refusal and "\n" not in parsed.refusal
    assert parsed.refusal.rstrip().endswith((".", ":")) or "." in parsed.refusal


def test_refusal_says_what_is_accepted():
    assert parse("9", choices()).refusal == "There is no choice 9: type a number from 1 to 5."
    assert "1 7 of Swords" in parse("kill", choices()).refusal
    assert parse("h", []).refusal == ("h could be help, hand, history or highest: type more of it.")
    assert parse("frob", []).refusal == (
        "There is no command frob: type help to hear the commands."
    )


def test_commands_by_prefix():
    assert parse("he", []).command == "help"
    assert parse("tab", []).command is None  # table or tables
    assert parse("tables", []).command == "tables"
    assert parse("join 3", []).command == "join" and parse("join 3", []).arg == "3"
    assert parse("say hello there", []).arg == "hello there"


def test_bids_by_number():
    bids = choices_of("prophet", [{"type": "bid", "tricks": n} for n in (0, 1, 3)], NAMES)
    assert parse("0", bids).action == {"type": "bid", "tricks": 0}
    assert parse("bid 3", bids).action == {"type": "bid", "tricks": 3}
    assert parse("2", bids).refusal == "You cannot bid 2: the choices are 0, 1 or 3."


@pytest.mark.parametrize(
    ("lang_code", "line", "command", "card_name"),
    [("de", "hil", "help", "7 der Schwerter"), ("uk", "дов", "help", None)],
)
def test_in_the_players_language(lang_code, line, command, card_name):
    token = plain_catalog.set(translations(lang_code))
    try:
        assert parse(line, []).command == command
        ch = choices()
        if card_name:
            assert ch[0].label == card_name
        assert parse("spielen 7s" if lang_code == "de" else "грати 7s", ch).action == LEGAL[0]
        refusal = parse("9", ch).refusal
        assert refusal and "There is no choice" not in refusal
    finally:
        plain_catalog.reset(token)


@pytest.mark.parametrize(
    ("lang_code", "line"),
    [("en", "play 8 hearts"), ("uk", "грати 8 чирви"), ("de", "spielen 8 herz"), ("de", "herz 8")],
)
def test_a_card_by_rank_and_suit_as_a_prompt_by_suit_says_it(lang_code, line):
    """("Hearts: 1 8, 2 Queen": the suit's own word, which is not always its form in the
    card's name: Ukrainian "8 чирв", German "Herz-8".)"""
    token = plain_catalog.set(translations(lang_code))
    try:
        ch = choices_of("prophet", [{"type": "play", "card": c} for c in ("8H", "QH", "8S")], NAMES)
        assert parse(line, ch).action == {"type": "play", "card": "8H"}
    finally:
        plain_catalog.reset(token)


def test_line_editor():
    editor = LineEditor()
    assert editor.feed(b"pla\x7fay 7s\x1b[A\r\n") == [Key("line", "play 7s")]
    echo = editor.echo()
    assert "\x1b" not in echo and "\b" not in echo  # (Backspace redraws after a CR)
    assert [k.kind for k in editor.feed(b"\x03")] == ["quit"]
    assert editor.feed(b"\x04") == [Key("quit")]


def test_next_is_the_open_verb_else_the_replay_step():
    deal = choices_of("fortunes", [{"type": "next_deal"}], NAMES)
    assert parse("next", deal).action == {"type": "next_deal"}
    assert parse("next", []).command == "next"
    assert parse("next 5", []).arg == "5"
    assert parse("replay 2", []).command == "replay"


@pytest.mark.parametrize("line", ["²", "play ²", "risk ٣"])
def test_digits_that_are_not_numbers_are_refused(line):
    """("²" is a digit to str.isdigit, which int() refuses: the line was met with silence.)"""
    parsed = parse(line, choices())
    assert parsed.action is None and parsed.refusal and "\n" not in parsed.refusal


async def test_a_session_answers_every_number_like_word(hub):
    from .plain_session import plain

    ada = await plain(hub)
    for line, answer in [
        ("²", "There is no command"),
        ("join ²", "Which table?"),
        ("replay ²", "Which game?"),
        ("next ²", "No replay is open"),
        ("register ²", "Which event?"),
        ("new ²", "Prophet's Gambit"),
    ]:
        said = await ada.type(line, answer)
        assert len(said) == 1, (line, said)
    await ada.close()
