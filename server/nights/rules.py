"""An event's rules, fixed when it is made: what is played, how people are seated, how many
rounds, and who may register.

Plain data with a round trip to its stored form; :func:`problems` says, in sentences a host
can read, what is wrong with a set of rules before anything is stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.engine import RulesError, get_game

#: Swiss: seated by score; round robin: everyone meets everyone; duplicate: same cards everywhere.
FORMATS = ("swiss", "round_robin", "duplicate")
#: Who may register: anyone, the host's friends, or players the host invited.
ACCESS = ("everyone", "friends", "invited")
#: What happens to players left over when the count does not divide by the table size.
FILLS = ("bots", "byes")
BOT_LEVELS = ("heuristic", "random", "strong")
MAX_NAME = 24
MAX_ROUNDS = 20


@dataclass(frozen=True, slots=True)
class NightRules:
    """An event's fixed facts. ``starts_at`` and ``closes_at`` are wall-clock seconds (None:
    the host starts it; no closing time). ``bye_points`` None: the average a table gives."""

    name: str
    game: str
    table_size: int
    format: str = "swiss"
    rounds: int = 3
    options: dict[str, Any] = field(default_factory=dict)
    timer: int = 60
    access: str = "everyone"
    starts_at: float | None = None
    closes_at: float | None = None
    fill: str = "bots"
    bots: str = "heuristic"
    bye_points: float | None = None

    @property
    def points_for_bye(self) -> float:
        """What a bye scores: the average a seat gets at a table unless the rules say."""
        if self.bye_points is not None:
            return self.bye_points
        return (self.table_size - 1) / 2

    def to_record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "game": self.game,
            "table_size": self.table_size,
            "format": self.format,
            "rounds": self.rounds,
            "options": dict(self.options),
            "timer": self.timer,
            "access": self.access,
            "starts_at": self.starts_at,
            "closes_at": self.closes_at,
            "fill": self.fill,
            "bots": self.bots,
            "bye_points": self.bye_points,
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> NightRules:
        return cls(**data)


def problems(rules: NightRules) -> list[str]:
    """What is wrong with these rules (empty: they can be used), each a sentence."""
    found: list[str] = []
    name = " ".join(rules.name.split())
    if not name or len(name) > MAX_NAME or name != rules.name:
        found.append(f"An event needs a name of 1 to {MAX_NAME} letters.")
    if rules.format not in FORMATS:
        found.append("The format must be swiss, round_robin or duplicate.")
    if rules.access not in ACCESS:
        found.append("Registration is for everyone, friends or invited players.")
    if rules.fill not in FILLS:
        found.append("Seats left over are filled with bots or given byes.")
    if rules.bots not in BOT_LEVELS:
        found.append("The bots' level must be heuristic, random or strong.")
    if not 1 <= rules.rounds <= MAX_ROUNDS:
        found.append(f"An event has 1 to {MAX_ROUNDS} rounds.")
    if rules.timer < 0:
        found.append("The turn timer cannot be negative.")
    try:
        game = get_game(rules.game)
    except RulesError:
        found.append("There is no such game.")
        return found
    if not game.min_players <= rules.table_size <= game.max_players:
        found.append(
            f"{game.title} is played by {game.min_players} to {game.max_players} at a table."
        )
        return found
    try:
        options = game.resolve_options(rules.table_size, rules.options)
        game.new_state(rules.table_size, options, 0, 0)
    except RulesError as err:
        found.append(err.message)
    return found
