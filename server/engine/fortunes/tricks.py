"""Fortunes' trick rules as pure functions of cards and seats (rulings 2 and 4–9).

Kept apart from the state so the rules read in one place and the bot's reasoning and the tests
can call them directly. Seats are relative to the deal's dealer: East is the dealer, then South,
West and North clockwise; East–West is the High team, North–South the Low team.
"""

from __future__ import annotations

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


def value(card: str) -> int:
    """Ace 1 … 10, Herald 11, Knight 12, Riga 13, Righ 14; a Star its number."""
    return int(card[1:])


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


def trick_top(cards: list[list], led: str, direction: str) -> list:
    """The ``[seat, card]`` that wins: the highest or lowest card of the led suit (ruling 7)."""
    best = None
    for pair in cards:
        card = pair[1]
        if card[0] != led:
            continue
        if best is None:
            best = pair
            continue
        v, b = value(card), value(best[1])
        if (v > b) if direction == HIGH else (v < b):
            best = pair
    assert best is not None  # the leader's card is always of the led suit
    return best


def disposition(winner: int, dealer: int, direction: str) -> str:
    """Ruling 8: well-disposed when the final direction favoured the winner's team."""
    return WELL if is_high_team(winner, dealer) == (direction == HIGH) else ILL


def trick_points(top: str, disp: str) -> int:
    """Ruling 9 (house rule): the top card's value, added if well-disposed, else subtracted."""
    return value(top) if disp == WELL else -value(top)


def favours(direction: str, seat: int, dealer: int) -> bool:
    """Whether a trick going ``direction`` favours ``seat``'s team."""
    return (direction == HIGH) == is_high_team(seat, dealer)
