"""Prophet's Gambit hand ranking (RULINGS.md, Prophet's Gambit rulings 13 and 14)."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, pairwise
from math import comb

import msgpack
import pytest

from protocol.cards import TAROKKA_COMMON
from server.engine.prophets_gambit.hands import (
    CATEGORIES,
    CATEGORY_NAMES,
    best_hand,
    describe,
    hand_key,
)


def category(cards: str) -> str:
    return CATEGORIES[hand_key(cards.split())[0]]


def key(cards: str) -> tuple[int, ...]:
    return hand_key(cards.split())


# --- Categories --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("S5 S6 S7 S8 S9", "family"),
        ("C1 C2 C3 C4 C5", "family"),
        ("S4 T4 C4 G4 SM", "circle"),
        ("SM TM CM GM S1", "circle"),
        ("S3 T3 C3 GM SM", "fortune"),
        ("SM TM CM G2 S2", "fortune"),
        ("S5 T6 C7 G8 S9", "village"),
        ("S1 T2 C3 G4 S5", "village"),
        ("S1 S3 S5 S7 S9", "guild"),
        ("GM G9 G8 G7 G6", "guild"),
        ("S7 T7 C7 G1 SM", "three_of_a_kind"),
        ("S7 T7 C2 G2 SM", "two_pairs"),
        ("SM TM C2 G3 S4", "one_pair"),
        ("S1 T3 C5 G7 SM", "highest_card"),
    ],
)
def test_every_category_is_recognised(cards: str, expected: str) -> None:
    assert category(cards) == expected


def test_categories_rank_as_written_not_by_rarity() -> None:
    assert CATEGORIES == (
        "highest_card",
        "one_pair",
        "two_pairs",
        "three_of_a_kind",
        "guild",
        "village",
        "fortune",
        "circle",
        "family",
    )
    # The weakest hand of each category beats the strongest hand of the category below.
    weakest_to_strongest = [
        ("S1 T2 C3 G4 S6", "SM T9 C8 G7 S5"),  # highest card
        ("S1 T1 C2 G3 S4", "SM TM C9 G8 S7"),  # one pair
        ("S1 T1 C2 G2 S3", "SM TM C9 G9 S8"),  # two pairs
        ("S1 T1 C1 G2 S3", "SM TM CM G9 S8"),  # three of a kind
        ("S1 S2 S3 S4 S6", "SM S9 S8 S7 S5"),  # guild
        ("S1 T2 C3 G4 S5", "S5 T6 C7 G8 S9"),  # village
        ("S1 T1 C1 G2 S2", "SM TM CM G9 S9"),  # fortune
        ("S1 T1 C1 G1 S2", "SM TM CM GM S9"),  # circle
        ("S1 S2 S3 S4 S5", "S5 S6 S7 S8 S9"),  # family
    ]
    for (weak, strong), name in zip(weakest_to_strongest, CATEGORIES, strict=True):
        assert category(weak) == category(strong) == name
        assert key(weak) < key(strong)
    for (_, strong), (weak_above, _) in pairwise(weakest_to_strongest):
        assert key(strong) < key(weak_above)
    assert key("S1 T2 C3 G4 S5") > key("GM G9 G8 G7 G6")  # Village beats Guild
    assert key("S1 T1 C1 G2 S2") > key("S5 T6 C7 G8 S9")  # Fortune beats Village


def test_category_names() -> None:
    assert set(CATEGORY_NAMES) == set(CATEGORIES)
    assert CATEGORY_NAMES["family"] == "Family"
    assert CATEGORY_NAMES["three_of_a_kind"] == "Three of a kind"
    assert CATEGORY_NAMES["highest_card"] == "Highest card"


# --- Within a category: category ranks first, then kickers ---------------------------------


@pytest.mark.parametrize(
    ("stronger", "weaker"),
    [
        ("S6 S7 S8 S9 S5", "C1 C2 C3 C4 C5"),  # family by its top card
        ("S5 T5 C5 G5 S1", "S4 T4 C4 G4 SM"),  # circle rank beats the kicker
        ("S5 T5 C5 G5 S2", "S5 T5 C5 G5 S1"),  # circle kicker (4-card Circle + fifth card)
        ("S2 T2 C2 G1 S1", "S1 T1 C1 GM SM"),  # fortune: the three decides first
        ("S2 T2 C2 GM SM", "S2 T2 C2 G9 S9"),  # fortune: then the pair
        ("S5 T6 C7 G8 S9", "S4 T5 C6 G7 S8"),  # village by its top card
        ("SM S9 S1 S2 S3", "S9 S8 S7 S6 S4"),  # guild: Master high
        ("S9 S7 S5 S3 S2", "S9 S7 S5 S3 S1"),  # guild: the last kicker decides
        ("S3 T3 C3 G1 S2", "S2 T2 C2 GM S9"),  # three: rank beats kickers
        ("S3 T3 C3 GM S1", "S3 T3 C3 G9 S8"),  # three: first kicker
        ("S3 T3 C3 GM S2", "S3 T3 C3 GM S1"),  # three: second kicker
        ("S9 T9 C1 G1 S2", "S8 T8 C7 G7 SM"),  # two pairs: high pair first
        ("S9 T9 C3 G3 S2", "S9 T9 C2 G2 SM"),  # two pairs: then low pair
        ("S9 T9 C3 G3 S2", "S9 T9 C3 G3 S1"),  # two pairs: then kicker
        ("S8 T8 C1 G2 S3", "S7 T7 CM G9 S6"),  # pair rank beats kickers
        ("S7 T7 CM G2 S1", "S7 T7 C9 G8 S6"),  # pair: first kicker
        ("S7 T7 CM G9 S2", "S7 T7 CM G9 S1"),  # pair: last kicker
        ("SM T1 C2 G3 S5", "S9 T8 C7 G6 S4"),  # highest card: Master above 9
        ("S9 T7 C5 G3 S2", "S9 T7 C5 G3 S1"),  # highest card: last kicker
    ],
)
def test_kickers_decide_within_a_category(stronger: str, weaker: str) -> None:
    assert category(stronger) == category(weaker)
    assert key(stronger) > key(weaker)


def test_equal_hands_in_different_suits_tie() -> None:
    assert key("S7 T7 CM G9 S2") == key("C7 G7 TM S9 C2")
    assert key("S1 S2 S3 S4 S5") == key("G1 G2 G3 G4 G5")
    assert key("S1 T2 C3 G4 S5") == key("G5 C4 T3 S2 G1")  # order of the cards is irrelevant


# --- Masters ---------------------------------------------------------------------------


def test_master_is_in_no_sequence() -> None:
    assert category("S9 T8 C7 G6 S5") == "village"
    assert category("SM T9 C8 G7 S6") == "highest_card"
    assert category("SM S9 S8 S7 S6") == "guild"
    assert category("S1 T2 C3 G4 SM") == "highest_card"
    assert category("S8 T9 CM G1 S2") == "highest_card"  # no wrap-around
    assert category("S7 T8 C9 G1 S2") == "highest_card"


def test_one_to_five_is_the_lowest_village() -> None:
    villages = [f"S{t - 4} T{t - 3} C{t - 2} G{t - 1} S{t}" for t in range(5, 10)]
    keys = [key(v) for v in villages]
    assert all(category(v) == "village" for v in villages)
    assert keys == sorted(keys) and len(set(keys)) == 5
    assert keys[0] < key("S2 T3 C4 G5 S6") and keys[-1] == key("G5 C6 T7 S8 G9")


def test_masters_pair_only_with_masters_and_rank_above_nine() -> None:
    assert category("SM TM C1 G2 S3") == "one_pair"
    assert category("SM T9 C1 G2 S3") == "highest_card"  # a Master is no 9
    assert key("SM TM C1 G2 S3") > key("S9 T9 CM G8 S7")
    assert key("SM TM CM GM S1") > key("S9 T9 C9 G9 SM")
    assert describe(key("SM TM C1 G2 S3"))["ranks"] == ["M", "3", "2", "1"]


# --- Four-card hands ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("S4 T4 C4 G4", "circle"),
        ("SM TM CM GM", "circle"),
        ("S4 T4 C4 GM", "three_of_a_kind"),
        ("S4 T4 CM GM", "two_pairs"),
        ("S4 T4 C1 GM", "one_pair"),
        ("S1 S2 S3 S4", "highest_card"),  # no four-card Family, Village or Guild
        ("S5 S7 S9 SM", "highest_card"),
        ("S5 T6 C7 G8", "highest_card"),
    ],
)
def test_four_card_hands(cards: str, expected: str) -> None:
    assert category(cards) == expected


def test_four_card_kickers() -> None:
    assert key("S4 T4 C4 G4") > key("S3 T3 C3 G3")
    assert key("S4 T4 C4 GM") > key("S4 T4 C4 G9")
    assert key("SM TM C1 G1") > key("S9 T9 C8 G8")
    assert key("SM T1 C2 G3") > key("S9 T8 C7 G5")
    assert key("SM T9 C2 G3") > key("SM T9 C2 G1")


@pytest.mark.parametrize("cards", [[], ["S1"], ["S1", "S2", "S3"], TAROKKA_COMMON[:6]])
def test_hand_key_needs_four_or_five_cards(cards: list[str]) -> None:
    with pytest.raises(ValueError):
        hand_key(cards)


@pytest.mark.parametrize("cards", ["S1 S2 S3 S4 HSE", "S1 S2 S3 S4 S0", "S1 S1 S1 S1 S1"])
def test_hand_key_refuses_what_is_no_hand(cards: str) -> None:
    with pytest.raises(ValueError):
        key(cards)


def test_describe_is_plain_data() -> None:
    described = describe(key("S3 T3 C3 GM SM"))
    assert described == {"category": "fortune", "name": "Fortune", "ranks": ["3", "M"]}
    assert msgpack.unpackb(msgpack.packb(described)) == described
    assert describe(key("S5 T6 C7 G8 S9"))["ranks"] == ["9"]
    assert describe(key("S1 T2 C4 G7"))["ranks"] == ["7", "4", "2", "1"]


# --- Every hand of the 40-card deck, against combinatorics -----------------------------------

RANKS, SUITS = 10, 4  # 1–9 and the Master, in four suits
TOPS = 9 - 5 + 1  # sequences of five among the numbers 1–9 only


def expected_five_card_counts() -> dict[str, int]:
    family = TOPS * SUITS
    plain_ranks = comb(RANKS, 5) - TOPS  # five distinct ranks that are no sequence
    return {
        "family": family,
        "circle": RANKS * (RANKS - 1) * SUITS,
        "fortune": RANKS * comb(SUITS, 3) * (RANKS - 1) * comb(SUITS, 2),
        "village": TOPS * SUITS**5 - family,
        "guild": SUITS * plain_ranks,
        "three_of_a_kind": RANKS * comb(SUITS, 3) * comb(RANKS - 1, 2) * SUITS**2,
        "two_pairs": comb(RANKS, 2) * comb(SUITS, 2) ** 2 * (RANKS - 2) * SUITS,
        "one_pair": RANKS * comb(SUITS, 2) * comb(RANKS - 1, 3) * SUITS**3,
        "highest_card": plain_ranks * (SUITS**5 - SUITS),
    }


def expected_four_card_counts() -> dict[str, int]:
    return {
        "circle": RANKS,
        "three_of_a_kind": RANKS * comb(SUITS, 3) * (RANKS - 1) * SUITS,
        "two_pairs": comb(RANKS, 2) * comb(SUITS, 2) ** 2,
        "one_pair": RANKS * comb(SUITS, 2) * comb(RANKS - 1, 2) * SUITS**2,
        "highest_card": comb(RANKS, 4) * SUITS**4,
    }


def test_every_five_card_hand_is_counted_right() -> None:
    expected = expected_five_card_counts()
    assert sum(expected.values()) == comb(40, 5) == 658_008
    counts = Counter(hand_key(h)[0] for h in combinations(TAROKKA_COMMON, 5))
    assert {CATEGORIES[c]: n for c, n in counts.items()} == expected


def test_every_four_card_hand_is_counted_right() -> None:
    expected = expected_four_card_counts()
    assert sum(expected.values()) == comb(40, 4) == 91_390
    counts = Counter(hand_key(h)[0] for h in combinations(TAROKKA_COMMON, 4))
    assert {CATEGORIES[c]: n for c, n in counts.items()} == expected


# --- An independent, slow reference for the ordering ---------------------------------------


def reference_key(cards: tuple[str, ...]) -> tuple[int, ...]:
    """Rulings 13–14 written plainly: group by rank, test sequence and suit directly."""
    value = {"M": 10, **{str(n): n for n in range(1, 10)}}
    values = sorted((value[c[1]] for c in cards), reverse=True)
    by_count = sorted(set(values), key=lambda v: (values.count(v), v), reverse=True)
    pattern = sorted((values.count(v) for v in set(values)), reverse=True)
    five = len(cards) == 5
    straight = five and 10 not in values and len(set(values)) == 5 and values[0] - values[4] == 4
    flush = five and len({c[0] for c in cards}) == 1
    if straight and flush:
        return (CATEGORIES.index("family"), values[0])
    if pattern[0] == 4:
        return (CATEGORIES.index("circle"), *by_count)
    if pattern == [3, 2]:
        return (CATEGORIES.index("fortune"), *by_count)
    if straight:
        return (CATEGORIES.index("village"), values[0])
    if flush:
        return (CATEGORIES.index("guild"), *values)
    if pattern[0] == 3:
        return (CATEGORIES.index("three_of_a_kind"), *by_count)
    if pattern[:2] == [2, 2]:
        return (CATEGORIES.index("two_pairs"), *by_count)
    if pattern[0] == 2:
        return (CATEGORIES.index("one_pair"), *by_count)
    return (CATEGORIES.index("highest_card"), *values)


def test_keys_agree_with_the_reference_on_random_hands() -> None:
    rng = random.Random(14)
    for _ in range(3000):
        size = rng.choice((4, 5))
        a = tuple(rng.sample(TAROKKA_COMMON, size))
        b = tuple(rng.sample(TAROKKA_COMMON, size))
        assert hand_key(a) == reference_key(a)
        assert (hand_key(a) > hand_key(b)) == (reference_key(a) > reference_key(b))


# --- Best hand at the Reveal ----------------------------------------------------------------


@pytest.mark.parametrize(("pool", "size"), [(7, 5), (8, 5), (9, 5), (6, 4), (5, 4)])
def test_best_hand_matches_brute_force(pool: int, size: int) -> None:
    rng = random.Random(pool * 10 + size)
    for _ in range(150):
        cards = rng.sample(TAROKKA_COMMON, pool)
        got_key, used = best_hand(cards, size)
        assert len(used) == size and set(used) <= set(cards)
        assert hand_key(used) == got_key
        assert got_key == max(reference_key(c) for c in combinations(cards, size))


def test_best_hand_picks_the_hidden_family() -> None:
    cards = ["SM", "TM", "CM", "S5", "S6", "S7", "S8", "S9"]
    got_key, used = best_hand(cards)
    assert CATEGORIES[got_key[0]] == "family"
    assert used == ("S5", "S6", "S7", "S8", "S9")
    # With the Focus killed only four cards count: the three Masters and the best kicker.
    got_key, used = best_hand(cards, size=4)
    assert describe(got_key)["ranks"] == ["M", "9"]
    assert used == ("SM", "TM", "CM", "S9")


def test_best_hand_is_deterministic_among_equal_keys() -> None:
    cards = ["S1", "T1", "C1", "S5", "T5", "C5"]  # two ways to make 5-5-5 over 1-1
    first = best_hand(cards)
    assert first == best_hand(list(cards))
    assert CATEGORIES[first[0][0]] == "fortune" and first[0][1:] == (5, 1)
    assert first[1] == ("S1", "T1", "S5", "T5", "C5")


def test_best_hand_of_exactly_the_hand_size_uses_every_card() -> None:
    assert best_hand(["S2", "T2", "C9", "G4", "SM"]) == (
        key("S2 T2 C9 G4 SM"),
        ("S2", "T2", "C9", "G4", "SM"),
    )
    assert best_hand(["S2", "T2", "C9", "G4"]) == (key("S2 T2 C9 G4"), ("S2", "T2", "C9", "G4"))


def test_best_hand_refuses_repeated_cards() -> None:
    with pytest.raises(ValueError):
        best_hand(["S1", "S1", "T2", "C3", "G4", "S5"])
