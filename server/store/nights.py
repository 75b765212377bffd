"""Game nights kept: each event's whole map (rules, entrants, rounds, scores), saved at every
change so a restarted hub resumes it where it was (part of :class:`Store`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgpack

from protocol.codec import packb

if TYPE_CHECKING:
    import contextlib
    import sqlite3
    from collections.abc import Callable


class NightStore:
    """Mixed into Store: uses its connection, clock, counters and transactions."""

    _conn: sqlite3.Connection
    _clock: Callable[[], float]
    if TYPE_CHECKING:

        def transaction(self) -> contextlib.AbstractContextManager[Any]: ...  # Store's
        def _bump(self, counter: str) -> int: ...  # Store's

    def next_night_id(self) -> int:
        """A new event id: 1, 2, 3… never reused."""
        with self.transaction():
            return self._bump("night")

    def save_night(self, night_id: int, info: Mapping[str, Any]) -> None:
        """Create or replace an event's map."""
        with self.transaction():
            self._conn.execute(
                "INSERT INTO nights (id, info, updated) VALUES (?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET info = excluded.info, updated = excluded.updated",
                (night_id, packb(dict(info)), self._clock()),
            )

    def nights(self) -> list[dict[str, Any]]:
        """Every event kept, oldest first."""
        return [
            msgpack.unpackb(info, raw=False, strict_map_key=False)
            for (info,) in self._conn.execute("SELECT info FROM nights ORDER BY id")
        ]
