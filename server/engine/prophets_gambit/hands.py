"""Prophet's Gambit hand evaluator (RULINGS.md, Prophet's Gambit rulings 13 and 14).

A hand is 4 or 5 common Tarokka cards (``"S7"``, ``"GM"``). Its strength is a *key*, a tuple of
ints compared with ``<`` (greater is stronger): the first element is the category's index in
:data:`CATEGORIES` (weakest first), the rest are the ranks that decide within the category,
most significant first, exactly as poker does (the ranks making the category, then kickers).

The rules that differ from poker:

* The categories rank *as written* in the rules, not by rarity: Fortune (three and a pair) beats
  Village (straight), which beats Guild (flush).
* A Master has no number. It is in no sequence (1–9 only, no wrap-around, so 1-2-3-4-5 is the
  lowest Village and M-9-8-7-6 is none), it pairs only with Masters, and for comparison it ranks
  above 9 (rank value 10 in a key).
* Five-card categories need five cards: a 4-card hand is only ever Circle, Three of a kind, Two
  pairs, One pair or Highest card.

Why tables: the Reveal evaluates few hands, but bots simulate many, and the evaluator must be at
least as fast as the pure-Python poker evaluator ``treys``. So, as treys does, every rank pattern
is scored once at import (a few thousand patterns, a few milliseconds): each rank has a prime,
the product of a hand's primes names its rank multiset, and one dict lookup gives the key. A
second table holds the keys of one-suit hands (Guild/Family), all of which have five distinct
ranks. :func:`hand_key` then costs a handful of dict lookups and multiplications.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations, combinations_with_replacement
from typing import Any

from protocol.cards import TAROKKA_COMMON, TAROKKA_RANKS

CATEGORIES: tuple[str, ...] = (
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
"""Category ids, weakest first; a key's first element indexes this tuple."""

CATEGORY_NAMES: dict[str, str] = {
    "highest_card": "Highest card",
    "one_pair": "One pair",
    "two_pairs": "Two pairs",
    "three_of_a_kind": "Three of a kind",
    "guild": "Guild",
    "village": "Village",
    "fortune": "Fortune",
    "circle": "Circle",
    "family": "Family",
}

(HIGHEST_CARD, ONE_PAIR, TWO_PAIRS, THREE, GUILD, VILLAGE, FORTUNE, CIRCLE, FAMILY) = range(9)

MASTER = 10
"""Rank value of a Master in keys: above 9, but never part of a sequence."""

_RANK_VALUE: dict[str, int] = {r: (MASTER if r == "M" else int(r)) for r in TAROKKA_RANKS}
_VALUE_LABEL: dict[int, str] = {v: r for r, v in _RANK_VALUE.items()}
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29)
_RANK_PRIME: dict[int, int] = {v: _PRIMES[v - 1] for v in range(1, MASTER + 1)}

# Village tops 5..9: sequences of numbers only, so the Master (10) never joins one.
_SEQUENCES: dict[frozenset[int], int] = {
    frozenset(range(top - 4, top + 1)): top for top in range(5, 10)
}


def _rank_key(values: Sequence[int], one_suit: bool) -> tuple[int, ...]:
    """Score a rank multiset the slow, readable way (used to build the tables, and for 1–3 cards).

    ``one_suit`` says the cards share a suit; it only matters for five distinct ranks.
    """
    counts = Counter(values)
    # Ranks ordered by (how many, rank), largest first: the poker order of significance.
    groups = sorted(counts, key=lambda v: (counts[v], v), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if len(values) == 5 and len(counts) == 5:
        top = _SEQUENCES.get(frozenset(values))
        if top is not None:
            return (FAMILY if one_suit else VILLAGE, top)
        return (GUILD if one_suit else HIGHEST_CARD, *groups)
    category = {
        (4, 1): CIRCLE,
        (4,): CIRCLE,
        (3, 2): FORTUNE,
        (3, 1, 1): THREE,
        (3, 1): THREE,
        (3,): THREE,
        (2, 2, 1): TWO_PAIRS,
        (2, 2): TWO_PAIRS,
        (2, 1, 1, 1): ONE_PAIR,
        (2, 1, 1): ONE_PAIR,
        (2, 1): ONE_PAIR,
        (2,): ONE_PAIR,
    }.get(tuple(shape), HIGHEST_CARD)
    return (category, *groups)


def _prime_product(values: Iterable[int]) -> int:
    product = 1
    for v in values:
        product *= _RANK_PRIME[v]
    return product


def _build_tables() -> tuple[dict[int, tuple[int, ...]], dict[int, tuple[int, ...]]]:
    """Key of every 4- and 5-card rank multiset (at most four of a rank), and of one-suit fives.

    4- and 5-card products never collide (unique factorisation), so one dict holds both sizes.
    """
    plain: dict[int, tuple[int, ...]] = {}
    suited: dict[int, tuple[int, ...]] = {}
    ranks = range(1, MASTER + 1)
    for size in (4, 5):
        for values in combinations_with_replacement(ranks, size):
            if max(Counter(values).values()) <= 4:
                plain[_prime_product(values)] = _rank_key(values, one_suit=False)
    for values in combinations(ranks, 5):
        suited[_prime_product(values)] = _rank_key(values, one_suit=True)
    return plain, suited


_PLAIN, _SUITED = _build_tables()
_CARD_PRIME: dict[str, int] = {c: _RANK_PRIME[_RANK_VALUE[c[1]]] for c in TAROKKA_COMMON}


def hand_key(cards: Sequence[str]) -> tuple[int, ...]:
    """The strength of exactly 4 or 5 distinct common Tarokka cards; greater is stronger.

    ``key[0]`` indexes :data:`CATEGORIES`; the rest are rank values (1–9, Master 10), most
    significant first. Equal keys are a tie (ruling 2 breaks it, not this module).
    Raises ValueError for another number of cards, a code that is not a common Tarokka card,
    or an impossible hand (a card repeated five times or within a one-suit hand).
    """
    p = _CARD_PRIME
    n = len(cards)
    try:
        if n == 5:
            a, b, c, d, e = cards
            product = p[a] * p[b] * p[c] * p[d] * p[e]
            if a[0] == b[0] == c[0] == d[0] == e[0]:
                return _SUITED[product]
            return _PLAIN[product]
        if n == 4:
            a, b, c, d = cards
            return _PLAIN[p[a] * p[b] * p[c] * p[d]]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a valid Prophet's Gambit hand: {list(cards)!r}") from exc
    raise ValueError(f"a hand is 4 or 5 cards, not {n}")


def _small_key(cards: Sequence[str]) -> tuple[int, ...]:
    """Key of 1–3 cards, should a hand ever be that short (only pairs and threes can occur)."""
    if not 1 <= len(cards) <= 3 or any(c not in _CARD_PRIME for c in cards):
        raise ValueError(f"not a valid Prophet's Gambit hand: {list(cards)!r}")
    return _rank_key([_RANK_VALUE[c[1]] for c in cards], one_suit=False)


def best_hand(cards: Sequence[str], size: int = 5) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The strongest hand of exactly ``min(size, len(cards))`` of ``cards`` (ruling 13).

    Returns its key and the cards used, in their order within ``cards``. Among equally strong
    choices the first in :func:`itertools.combinations` order wins, so the result depends only
    on the input. Used at the Reveal on hand + Fate + Focus: 5 cards normally, 4 when the Focus
    was killed, the best five of more when an Innocent holder kept more cards through a Donjon.
    """
    cards = tuple(cards)
    if len(set(cards)) != len(cards):
        raise ValueError(f"repeated card in {list(cards)!r}")
    take = min(size, len(cards))
    evaluate = hand_key if take in (4, 5) else _small_key
    best_key: tuple[int, ...] | None = None
    best_cards: tuple[str, ...] = ()
    for combo in combinations(cards, take):
        key = evaluate(combo)
        if best_key is None or key > best_key:
            best_key, best_cards = key, combo
    if best_key is None:
        raise ValueError("no cards to make a hand from")
    return best_key, best_cards


def describe(key: Sequence[int]) -> dict[str, Any]:
    """A key as plain data for views and logs.

    ``ranks`` are the deciding ranks as rank labels ("1".."9", "M"), most significant first:
    for a Village or Family only its top card, otherwise the category's ranks then kickers.
    """
    category = CATEGORIES[key[0]]
    return {
        "category": category,
        "name": CATEGORY_NAMES[category],
        "ranks": [_VALUE_LABEL[v] for v in key[1:]],
    }
