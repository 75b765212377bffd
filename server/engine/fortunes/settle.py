"""Who takes the pot in Fortunes (ruling 10): one deal's payout and the multi-deal endings.

Pure functions over scores, so each betting option's ending can be read and tested alone.
A refund (equal teams, or all four players level after a fold) is returned as ``None`` winners.
A multi-deal verdict names the winning partnership by its index in :data:`PARTNERSHIPS`, or
``"tie"`` for a refund, or ``None`` to deal again.
"""

from __future__ import annotations

from server.engine.base import tie_order

#: The fixed partnerships of a multi-deal game; their High/Low roles alternate by deal.
PARTNERSHIPS = ([0, 2], [1, 3])
#: Option (a): a rubber is four deals, so every player deals once and each partnership is the
#: High team twice (one deal favours the dealer's team: ruling 11).
RUBBER_DEALS = 4


def ranking(scores: list[int], dealer: int) -> list[int]:
    """Seats by score, highest first; equal scores by ruling 2 (dealer's left first)."""
    order = tie_order(dealer, len(scores))
    return sorted(order, key=lambda s: (-scores[s], order.index(s)))


def takers(team: list[int], scores: list[int], dealer: int) -> list[int]:
    """The winning team's higher-scoring player, or both (ruling-2 order) when equal."""
    best = max(scores[s] for s in team)
    return [s for s in tie_order(dealer, len(scores)) if s in team and scores[s] == best]


def deal_winners(
    scores: list[int], dealer: int, made: dict[str, bool] | None = None
) -> list[int] | None:
    """One deal: the team with the higher score wins; ``None`` (refund) when equal.

    Option (c) passes ``made`` (team name → bid made): a team that missed its bid loses the
    deal outright whatever its points, and when both missed every ante is returned.
    """
    high = [dealer, (dealer + 2) % 4]
    low = [(dealer + 1) % 4, (dealer + 3) % 4]
    made_high, made_low = (made["High"], made["Low"]) if made else (True, True)
    if made_high != made_low:
        return takers(high if made_high else low, scores, dealer)
    high_score = sum(scores[s] for s in high)
    low_score = sum(scores[s] for s in low)
    if not made_high or high_score == low_score:
        return None
    return takers(high if high_score > low_score else low, scores, dealer)


def fold_winners(scores: list[int], dealer: int) -> list[int] | None:
    """Option (b) after a fold: the highest-scoring player takes the pot, whatever their team;
    players tied for the highest score split it (ruling-2 order). ``None`` (refund) when all
    four are level, e.g. a fold before the first trick (house rule)."""
    best = max(scores)
    tied = [s for s in tie_order(dealer, len(scores)) if scores[s] == best]
    return None if len(tied) == len(scores) else tied


def _higher(a: int, b: int) -> int | str:
    """The partnership with the higher total, or ``"tie"``."""
    return "tie" if a == b else (0 if a > b else 1)


def rubber_verdict(totals: list[int], deal_no: int) -> int | str | None:
    """Option (a): after the fourth deal the higher partnership total wins; equal, a refund."""
    if deal_no < RUBBER_DEALS:
        return None
    return _higher(*totals)


def target_verdict(
    totals: list[int], target: int, exact: bool, deal_no: int, max_deals: int
) -> int | str | None:
    """After a deal of option (d) or (e): the winning partnership's index (0 for seats 0 and 2,
    1 for seats 1 and 3), ``"tie"`` for a refund, or ``None`` to deal again.

    (d): the first partnership to reach ``target`` ends it, the higher total winning.
    (e): over the target busts (both over: the nearer one wins); exactly on it wins.
    At ``max_deals`` (house rule) the higher total wins, for (e) the nearest from below.
    """
    a, b = totals
    if not exact:
        if a >= target or b >= target or deal_no >= max_deals:
            return _higher(a, b)
        return None
    over_a, over_b = a > target, b > target
    if over_a and over_b:
        return _higher(-a, -b)
    if over_a or over_b:
        return 1 if over_a else 0
    if a == target or b == target:
        return _higher(a, b)
    if deal_no >= max_deals:
        return _higher(a, b)
    return None


def partnership_totals(totals: list[int]) -> list[int]:
    return [sum(totals[s] for s in pair) for pair in PARTNERSHIPS]
