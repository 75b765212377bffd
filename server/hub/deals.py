"""The hub's part of verifiable deals: draw a secret seed, publish its commitment, reveal it.

Each table always holds the secret seed of its *next* game (``table.deal``), drawn before that
game is dealt, and shows its SHA-256 at the table (``table_info``); a game starts from it, and
the finished game's record reveals it. Deals from a fixed seed (``HubConfig.seed``: tests,
repeatable demos) are marked not fair. See ``docs/fair-deals.md``.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from server.engine import fairness

if TYPE_CHECKING:
    from .config import HubConfig
    from .table import Table

#: Why a fixed-seed deal is not fair, as the record and the table say it.
FIXED_SEED_NOTE = "fixed seed (the server's --seed): the deal was chosen in advance, not random"
STACKED_NOTE = "stacked deck: the top cards were chosen, not dealt at random"
DUPLICATE_NOTE = "duplicate set: every table of the set is dealt these cards, so they are known"
#: Why a deal is not fair, as a word an app can put in its own language.
REASONS = {FIXED_SEED_NOTE: "fixed_seed", STACKED_NOTE: "stacked", DUPLICATE_NOTE: "duplicate"}


def draw(table: Table, config: HubConfig) -> dict[str, Any]:
    """Draw the secret seed of the table's next game (once) and return it with its facts."""
    if table.deal is None:
        if config.seed is None:
            hub_seed = secrets.token_hex(fairness.SEED_BYTES)
            fair, note = True, ""
        else:
            # Tests and demos rely on these exact deals: the seed is the one they always had.
            hub_seed = f"{config.seed}:{table.id}:{table.games_played}"
            fair, note = False, FIXED_SEED_NOTE
        table.deal = {
            "hub_seed": hub_seed,
            "commitment": fairness.commitment(hub_seed),
            "contributions": [],
            "fair": fair,
            "note": note,
        }
    return table.deal


def game_seed(deal: dict[str, Any]) -> str:
    """The seed the engine deals from: the hub's, mixed with any players' values."""
    return fairness.mix(deal["hub_seed"], deal["contributions"])


def public(deal: dict[str, Any] | None) -> dict[str, Any] | None:
    """What everyone may see before and during the game: never the seed itself."""
    if deal is None:
        return None
    return {
        "algorithm": fairness.ALGORITHM,
        "commitment": deal["commitment"],
        "fair": deal["fair"],
        "note": deal["note"],
        "reason": REASONS.get(deal["note"], "" if deal["fair"] else "other"),
    }


def revealed(deal: dict[str, Any], params: dict[str, Any], dealt: list[Any]) -> dict[str, Any]:
    """The finished game's deal facts for its record: the seed revealed, the cards dealt."""
    fair, note = deal["fair"], deal["note"]
    if params.get("deck") is not None:
        fair, note = False, STACKED_NOTE
    return {
        "algorithm": fairness.ALGORITHM,
        "commitment": deal["commitment"],
        "hub_seed": deal["hub_seed"],
        "contributions": [list(c) for c in deal["contributions"]],
        "entropy": "hub" if not deal["contributions"] else "hub+players",
        "fair": fair,
        "note": note,
        "dealt": dealt,
    }
