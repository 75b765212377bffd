"""What one player may cost the hub: one budget for every message, and slower ones for what
changes tables.

Every handler is cheap, but a client can send thousands of messages a second: 3,000
``add_bot``/``remove_bot`` pairs from one guest once delayed everyone else's answers by half a
second, and 3,000 ``create_table`` made a lobby too big to send. So each player (all their
sessions together) spends tokens: one per message of any kind from a bucket that refills
faster than anyone types, and one from a slower bucket per seat or bot change and per table
opened; a player also owns only a few tables at once, and the server holds a bounded number.
Chat keeps its own, stricter bucket (see social.py). A client that keeps sending past its
budget is cut off.
"""

from __future__ import annotations

from dataclasses import dataclass

from .chat import RateLimiter
from .config import HubConfig
from .errors import HubError

#: Messages that change who sits where (or what watches), or reach another player (an
#: invitation, a friend request): they cost a seat-change token.
SEAT_CHANGES = frozenset(
    {"join", "leave", "stand", "spectate", "add_bot", "remove_bot", "start", "invite", "friend"}
)


@dataclass(slots=True)
class Budget:
    """One player's buckets."""

    messages: RateLimiter
    seat_changes: RateLimiter
    tables: RateLimiter

    @classmethod
    def of(cls, config: HubConfig) -> Budget:
        return cls(
            RateLimiter(config.messages_burst, config.messages_per_second),
            RateLimiter(config.seat_changes_burst, config.seat_changes_per_second),
            RateLimiter(config.tables_burst, config.tables_per_minute / 60),
        )

    def spend(self, kind: str) -> None:
        """Take what a message of ``kind`` costs, or raise HubError (and take nothing more)."""
        if not self.messages.allow():
            raise HubError("slow_down", "You are sending messages too fast; wait a moment.")
        if kind in SEAT_CHANGES and not self.seat_changes.allow():
            raise HubError("slow_down", "You are changing seats too fast; wait a moment.")
        if kind == "create_table" and not self.tables.allow():
            raise HubError("slow_down", "You have opened many tables lately; wait a minute.")
