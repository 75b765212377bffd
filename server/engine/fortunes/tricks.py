"""Fortunes' trick rules as pure functions of cards and seats (rulings 2 and 4–9).

Kept apart from the state so the rules read in one place and the bot's reasoning and the tests
can call them directly. Seats are relative to the deal's dealer: East is the dealer, then South,
West and North clockwise; East–West is the High team, North–South the Low team.
"""

from __future__ import annotations

from typing import Any

from protocol.cards import FORTUNES_DECK, FORTUNES_STAR

STAR = FORTUNES_STAR
HAND_SIZE = 19
TRICKS_PER_DEAL = 19
SET_ASIDE = 2
COMPASS = ("East", "South", "West", "North")
HIGH, LOW = "high", "low"
WELL, ILL = "well", "ill"
#: One card of each suit, for messages ("you hold a Wand").
SUIT_SINGULAR = {"W": "Wand", "C": "Cup", "S": "Sword", "P": "Pentacle", STAR: "Star"}
#: Display order of a hand: suits as in the deck, then value; Stars last.
SORT_KEY: dict[str, int] = {code: i for i, code in enumerate(FORTUNES_DECK)}


#: Ruling 9: one more than the strongest mundane card and the strongest Star, so that a trick
#: won low turns each scale over (Ace 14 … Righ 1; Star 21 minus its number).
_MUNDANE_TURN = 15
_STAR_TURN = 21


def value(card: str) -> int:
    """The face value: Ace 1 … 10, Herald 11, Knight 12, Riga 13, Righ 14; a Star its number."""
    return int(card[1:])


def strength(card: str, direction: str) -> int:
    """Ruling 9: how strong ``card`` is in a trick going ``direction``. High, its face value;
    low, the scale turned over (Ace 14 … Righ 1, a Star 21 minus its number). The winning
    card of a trick is the strongest of the led suit, and it scores its strength, so a low
    trick is worth as much as a high one (face values made the High team win 98 % of deals)."""
    v = value(card)
    if direction == HIGH:
        return v
    return (_STAR_TURN if card[0] == STAR else _MUNDANE_TURN) - v


def compass(seat: int, dealer: int) -> str:
    return COMPASS[(seat - dealer) % 4]


def is_high_team(seat: int, dealer: int) -> bool:
    """East (the dealer) and West are the High team."""
    return (seat - dealer) % 2 == 0


def team_name(seat: int, dealer: int) -> str:
    return "High" if is_high_team(seat, dealer) else "Low"


def team_seats(high: bool, dealer: int) -> list[int]:
    first = dealer if high else (dealer + 1) % 4
    return [first, (first + 2) % 4]


def leader_of(trick_no: int, dealer: int) -> int:
    """Ruling 4: the dealer leads trick 1, then the lead passes clockwise whoever won."""
    return (dealer + trick_no - 1) % 4


def lead_direction(leader: int, dealer: int) -> str:
    """Ruling 5: a High-team lead is won high, a Low-team lead low."""
    return HIGH if is_high_team(leader, dealer) else LOW


def flipped(direction: str) -> str:
    return LOW if direction == HIGH else HIGH


def flips(cards: list[list[Any]], led: str | None) -> int:
    """Ruling 5: how often the trick's direction has flipped, one flip per Star played into a
    trick led in a mundane suit (a Star lead is fixed)."""
    if not cards or led in (None, STAR):
        return 0
    return sum(1 for _seat, card in cards[1:] if card[0] == STAR)


def favoured_team(direction: str) -> str:
    """The team a trick going ``direction`` favours: High when it goes high, Low when low."""
    return "High" if direction == HIGH else "Low"


def playable(hand: list[str], led: str | None, stars_free: bool) -> list[str]:
    """The cards of ``hand`` that may be played to a trick whose led suit is ``led``.

    Ruling 6: follow the led suit if able (a Star lead is followed with a Star); a player who
    cannot plays anything. Once Stars are free a Star may be played even holding the led suit.
    """
    if led is None:
        return hand
    follow = [c for c in hand if c[0] == led]
    if not follow:
        return hand
    if stars_free and led != STAR:
        follow += [c for c in hand if c[0] == STAR]
    return follow


def trick_top(cards: list[list[Any]], led: str, direction: str) -> list[Any]:
    """The ``[seat, card]`` that wins (ruling 7): the strongest card of the led suit in the
    trick's direction, i.e. the highest one in a high trick and the lowest in a low one."""
    return max(
        (pair for pair in cards if pair[1][0] == led),  # the leader's card is always one
        key=lambda pair: strength(pair[1], direction),
    )


def disposition(winner: int, dealer: int, direction: str) -> str:
    """Ruling 8: well-disposed when the final direction favoured the winner's team."""
    return WELL if is_high_team(winner, dealer) == (direction == HIGH) else ILL


def trick_points(top: str, direction: str, disp: str) -> int:
    """Ruling 9 (house rule): the top card's strength in the trick's final direction, added if
    the trick is well-disposed, subtracted if ill-disposed."""
    points = strength(top, direction)
    return points if disp == WELL else -points


def favours(direction: str, seat: int, dealer: int) -> bool:
    """Whether a trick going ``direction`` favours ``seat``'s team."""
    return (direction == HIGH) == is_high_team(seat, dealer)
