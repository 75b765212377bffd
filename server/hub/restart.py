"""A restart an admin announced: while one is coming no table opens and no game starts.

Kept apart from :class:`~server.hub.admin.Admin` (which announces it) so that seating and
play, which refuse and hold games, need not hold the admin."""

from __future__ import annotations

import asyncio

from .errors import HubError


def minutes_text(seconds: float) -> str:
    if seconds >= 120:
        return f"{round(seconds / 60)} min"
    return f"{round(seconds)} s"


class Restart:
    __slots__ = ("at",)

    def __init__(self) -> None:
        #: When a restart announced by an admin happens (loop time), if one is coming.
        self.at: float | None = None

    def refuse_new_games(self) -> None:
        """Raise if a restart is coming: no table opens and no game starts before it."""
        if self.at is None:
            return
        left = max(0.0, self.at - asyncio.get_running_loop().time())
        raise HubError(
            "restarting",
            "The server restarts in {time}; no new game starts.",
            time=minutes_text(left),
        )
