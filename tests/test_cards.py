"""Card codes: every deck has the right cards, once each, and every code reads back."""

import pytest

from protocol.cards import (
    DECKS,
    FORTUNES_DECK,
    FRENCH_32,
    FRENCH_52,
    TAROKKA_COMMON,
    TAROKKA_HIGH,
    TAROKKA_NAMES,
    describe,
    fortunes_value,
    french_rank,
    tarokka_number,
)


def test_deck_sizes_and_uniqueness():
    assert len(TAROKKA_COMMON) == 40 and len(TAROKKA_HIGH) == 14
    assert len(FRENCH_52) == 52 and len(FRENCH_32) == 32
    assert len(FORTUNES_DECK) == 78
    for deck in DECKS.values():
        assert len(set(deck)) == len(deck)


def test_tarokka_numbers_and_masters():
    assert tarokka_number("S7") == 7
    assert tarokka_number("GM") is None
    assert sum(1 for c in TAROKKA_COMMON if tarokka_number(c) is None) == 4
    assert TAROKKA_NAMES["C8"] == "Tax Collector"
    assert TAROKKA_NAMES["GM"] == "Priest"
    assert TAROKKA_NAMES["HSE"] == "Seer"


def test_french_32_is_seven_to_ace():
    assert {french_rank(c) for c in FRENCH_32} == set(range(7, 15))
    assert french_rank("AS") == 14 and french_rank("TH") == 10


def test_fortunes_values():
    assert fortunes_value("W1") == 1 and fortunes_value("P14") == 14
    assert sorted(fortunes_value(c) for c in FORTUNES_DECK if c[0] == "*") == list(range(22))


@pytest.mark.parametrize("deck", sorted(DECKS))
def test_every_code_describes(deck):
    for code in DECKS[deck]:
        face = describe(deck, code)
        assert face.code == code and face.name and face.rank


def test_describe_rejects_foreign_codes():
    with pytest.raises(ValueError):
        describe("french32", "2S")
    with pytest.raises(ValueError):
        describe("tarokka", "S0")
