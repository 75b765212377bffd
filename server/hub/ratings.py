"""Skill ratings with openskill's Plackett–Luce model (it handles more than two players).

A rating is (mu, sigma); players see one number, ``display``: 1000 for a new player, rising
as the conservative estimate mu − 3·sigma rises.
"""

from __future__ import annotations

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
DEFAULT = (MODEL.mu, MODEL.sigma)


def display(rating: tuple[float, float] | None) -> int:
    mu, sigma = rating or DEFAULT
    return max(0, round(1000 + 40 * (mu - 3 * sigma)))


def update(
    ratings: list[tuple[float, float] | None], ranks: list[float]
) -> list[tuple[float, float]]:
    """New ratings for players who finished at ``ranks`` (0 best; equal ranks tie)."""
    teams = [[MODEL.create_rating(list(r or DEFAULT))] for r in ratings]
    rated = MODEL.rate(teams, ranks=ranks)
    return [(team[0].mu, team[0].sigma) for team in rated]


def update_teams(
    teams: list[list[tuple[float, float] | None]], ranks: list[float]
) -> list[list[tuple[float, float]]]:
    """New ratings for partnerships that finished at ``ranks``: partners win or lose together
    (openskill shares the update between them by how sure it is of each)."""
    rated = MODEL.rate(
        [[MODEL.create_rating(list(r or DEFAULT)) for r in team] for team in teams], ranks=ranks
    )
    return [[(r.mu, r.sigma) for r in team] for team in rated]
