"""The hub's part of verifiable deals: draw a secret seed, publish its commitment, reveal it.

Each table always holds the secret seed of its *next* game (``table.deal``), drawn before that
game is dealt, and shows its SHA-256 at the table (``table_info``); a game starts from it, and
the finished game's record reveals it. Deals from a fixed seed (``HubConfig.seed``: tests,
repeatable demos) are marked not fair. See ``docs/fair-deals.md``.

Players' entropy: while a random deal waits to be dealt, each seated player's app commits to
a random value (``entropy`` with ``commit``: its SHA-256), and once commitments close (every
seated, connected player has committed at a full table, or the game is due) each app reveals
its value; the game's seed mixes the hub's seed with the values revealed
(``fairness.mix``). Bots and absent players contribute nothing. Whoever has not revealed when
the game is dealt is left out, and the record says so (``left_out``).
"""

from __future__ import annotations

import re
import secrets
from typing import TYPE_CHECKING, Any

from server.engine import fairness

if TYPE_CHECKING:  # for type hints only
    from .config import HubConfig
    from .table import Table

#: Why a fixed-seed deal is not fair, as the record and the table say it.
FIXED_SEED_NOTE = "fixed seed (the server's --seed): the deal was chosen in advance, not random"
STACKED_NOTE = "stacked deck: the top cards were chosen, not dealt at random"
DUPLICATE_NOTE = "duplicate set: every table of the set is dealt these cards, so they are known"
#: Why a deal is not fair, as a word an app can put in its own language.
REASONS = {FIXED_SEED_NOTE: "fixed_seed", STACKED_NOTE: "stacked", DUPLICATE_NOTE: "duplicate"}
#: What an app sends: 32 random bytes as 64 lowercase hex characters (and their SHA-256).
_HEX64 = re.compile(r"[0-9a-f]{64}")
#: The phases of players' entropy: commitments taken, then reveals; "off" for a fixed seed.
COMMIT, REVEAL, OFF = "commit", "reveal", "off"


class EntropyError(ValueError):
    """A commitment or reveal is refused; ``code`` and the message say why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


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
            # A fixed seed stays repeatable: nobody's entropy is mixed into it.
            "phase": COMMIT if fair else OFF,
            "commits": [],
            "left_out": [],
            "fair": fair,
            "note": note,
        }
    return table.deal


def _seats(pairs: list[Any]) -> list[int]:
    return [int(seat) for seat, _ in pairs]


def commit(deal: dict[str, Any], seat: int, digest: str) -> None:
    """Take ``seat``'s commitment (the SHA-256 of the value it will reveal)."""
    if deal.get("phase", OFF) == OFF:
        raise EntropyError("entropy_off", "This deal takes no players' entropy (a fixed seed).")
    if deal["phase"] != COMMIT:
        raise EntropyError(
            "entropy_late", "Commitments to this deal are closed: your value will go to the next."
        )
    if not _HEX64.fullmatch(digest):
        raise EntropyError("invalid", "A commitment is a SHA-256: 64 lowercase hex characters.")
    if seat in _seats(deal["commits"]):
        raise EntropyError("entropy_twice", "You have already committed to this deal.")
    deal["commits"].append([seat, digest])


def reveal(deal: dict[str, Any], seat: int, value: str) -> None:
    """Take ``seat``'s revealed value, if it matches its commitment."""
    if deal.get("phase", OFF) != REVEAL:
        raise EntropyError("entropy_early", "Reveals open only once every player has committed.")
    if not _HEX64.fullmatch(value):
        raise EntropyError("invalid", "A value is 32 random bytes: 64 lowercase hex characters.")
    committed = dict((int(s), d) for s, d in deal["commits"])
    if seat not in committed:
        raise EntropyError("entropy_uncommitted", "You did not commit to this deal in time.")
    if seat in _seats(deal["contributions"]):
        raise EntropyError("entropy_twice", "You have already revealed your value.")
    if fairness.commitment(value) != committed[seat]:
        raise EntropyError(
            "entropy_mismatch",
            f"Your value does not match your commitment: its SHA-256 is "
            f"{fairness.commitment(value)[:16]}…, you committed to {committed[seat][:16]}…. "
            "It was refused; the deal goes on without it.",
        )
    deal["contributions"].append([seat, value])


def forget(deal: dict[str, Any], seat: int) -> None:
    """While commitments are open, a seat whose player left takes its commitment with it
    (whoever sits there next commits afresh)."""
    if deal.get("phase") == COMMIT:
        deal["commits"] = [c for c in deal["commits"] if int(c[0]) != seat]


def close_commits(deal: dict[str, Any]) -> None:
    """No more commitments: reveals may come."""
    if deal.get("phase") == COMMIT:
        deal["phase"] = REVEAL


def all_committed(deal: dict[str, Any], seats: list[int]) -> bool:
    """Whether every one of ``seats`` (the seated, connected players) has committed."""
    done = set(_seats(deal.get("commits") or []))
    return bool(seats) and all(seat in done for seat in seats)


def unrevealed(deal: dict[str, Any], seats: list[int]) -> list[int]:
    """Which of ``seats`` committed but have not revealed yet (the deal waits for them)."""
    if deal.get("phase") != REVEAL:
        return []
    done = set(_seats(deal["contributions"]))
    return [s for s in _seats(deal["commits"]) if s in seats and s not in done]


def close(deal: dict[str, Any], humans: list[int]) -> None:
    """The game is dealt now: the seated players who gave no value are left out."""
    if deal.get("phase", OFF) == OFF:
        return
    close_commits(deal)
    given = set(_seats(deal["contributions"]))
    deal["left_out"] = sorted(seat for seat in humans if seat not in given)


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
        # Players' entropy: the phase, which seats committed and which revealed (never a value).
        "phase": deal.get("phase", OFF),
        "committed": _seats(deal.get("commits") or []),
        "revealed": _seats(deal.get("contributions") or []),
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
        "commits": [list(c) for c in deal.get("commits") or []],
        "left_out": list(deal.get("left_out") or []),
        "entropy": "hub" if not deal["contributions"] else "hub+players",
        "fair": fair,
        "note": note,
        "dealt": dealt,
    }
