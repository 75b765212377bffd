"""What admins decide and players ask for, kept: bans, mutes, ignores, reports, the message of
the day, and a log of every admin action with who did it (part of :class:`Store`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgpack

from protocol.codec import packb

if TYPE_CHECKING:
    import contextlib
    import sqlite3
    from collections.abc import Callable

MOTD_KEY = "motd"


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


class ModerationStore:
    """Mixed into Store: uses its connection, clock and transactions."""

    _conn: sqlite3.Connection
    _clock: Callable[[], float]
    if TYPE_CHECKING:

        def transaction(self) -> contextlib.AbstractContextManager[Any]: ...  # Store's

    # --- bans ----------------------------------------------------------------------------

    def add_ban(
        self,
        *,
        fingerprint: str | None,
        address: str | None,
        until: float | None,
        reason: str,
        by: str,
    ) -> int:
        """Ban a key and/or an address until ``until`` (None: for good); returns its id."""
        if fingerprint is None and address is None:
            raise ValueError("a ban needs a key or an address")
        with self.transaction():
            cur = self._conn.execute(
                "INSERT INTO bans (fingerprint, address, until, reason, by, created) "
                "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (fingerprint, address, until, reason, by, self._clock()),
            )
            return cur.fetchone()[0]

    def lift_bans(self, *, fingerprint: str | None = None, address: str | None = None) -> int:
        """Lift every ban in force on this key or address; returns how many."""
        now = self._clock()
        with self.transaction():
            cur = self._conn.execute(
                "UPDATE bans SET lifted = ? WHERE lifted IS NULL "
                "AND (until IS NULL OR until > ?) "
                "AND ((CAST(? AS TEXT) IS NOT NULL AND fingerprint = ?) "
                "OR (CAST(? AS TEXT) IS NOT NULL AND address = ?))",
                (now, now, fingerprint, fingerprint, address, address),
            )
            return cur.rowcount

    def ban_on(self, *, fingerprint: str | None = None, address: str | None = None) -> dict | None:
        """The ban in force on this key or address, if any: ``{"id", "until", "reason"}``."""
        now = self._clock()
        row = self._conn.execute(
            "SELECT id, until, reason FROM bans WHERE lifted IS NULL "
            "AND (until IS NULL OR until > ?) "
            "AND ((CAST(? AS TEXT) IS NOT NULL AND fingerprint = ?) "
            "OR (CAST(? AS TEXT) IS NOT NULL AND address = ?)) "
            "ORDER BY until IS NULL DESC, until DESC LIMIT 1",
            (now, fingerprint, fingerprint, address, address),
        ).fetchone()
        return {"id": row[0], "until": row[1], "reason": row[2]} if row else None

    def bans(self) -> list[dict[str, Any]]:
        """The bans in force, newest first."""
        now = self._clock()
        rows = self._conn.execute(
            "SELECT id, fingerprint, address, until, reason, by, created FROM bans "
            "WHERE lifted IS NULL AND (until IS NULL OR until > ?) ORDER BY id DESC",
            (now,),
        )
        keys = ("id", "fingerprint", "address", "until", "reason", "by", "created")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    # --- mutes ---------------------------------------------------------------------------

    def set_mute(self, player_id: str, until: float, reason: str, by: str) -> None:
        with self.transaction():
            self._conn.execute(
                "INSERT INTO mutes (player_id, until, reason, by) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (player_id) DO UPDATE SET until = excluded.until, "
                "reason = excluded.reason, by = excluded.by",
                (player_id, until, reason, by),
            )

    def lift_mute(self, player_id: str) -> bool:
        with self.transaction():
            cur = self._conn.execute("DELETE FROM mutes WHERE player_id = ?", (player_id,))
            return cur.rowcount > 0

    def mute_on(self, player_id: str) -> dict[str, Any] | None:
        row = self._conn.execute(
            "SELECT until, reason FROM mutes WHERE player_id = ? AND until > ?",
            (player_id, self._clock()),
        ).fetchone()
        return {"until": row[0], "reason": row[1]} if row else None

    # --- ignores and reports ---------------------------------------------------------------

    def set_ignore(self, owner: str, ignored: str, on: bool) -> None:
        with self.transaction():
            if on:
                self._conn.execute(
                    "INSERT INTO ignores (owner, ignored, created) VALUES (?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    (owner, ignored, self._clock()),
                )
            else:
                self._conn.execute(
                    "DELETE FROM ignores WHERE owner = ? AND ignored = ?", (owner, ignored)
                )

    def ignored_by(self, owner: str) -> set[str]:
        rows = self._conn.execute("SELECT ignored FROM ignores WHERE owner = ?", (owner,))
        return {r[0] for r in rows}

    def add_report(
        self, reporter: str, reported: str | None, line: dict[str, Any], context: list[Any]
    ) -> int:
        with self.transaction():
            cur = self._conn.execute(
                "INSERT INTO reports (at, reporter, reported, line, context) "
                "VALUES (?, ?, ?, ?, ?) RETURNING id",
                (self._clock(), reporter, reported, packb(line), packb(context)),
            )
            return cur.fetchone()[0]

    def reports(self, limit: int = 50) -> list[dict[str, Any]]:
        rows = self._conn.execute(
            "SELECT id, at, reporter, reported, line, context FROM reports "
            "ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        return [
            {
                "id": r[0],
                "at": r[1],
                "reporter": r[2],
                "reported": r[3],
                "line": _unpack(r[4]),
                "context": _unpack(r[5]),
            }
            for r in rows
        ]

    # --- the message of the day, and the admins' log -----------------------------------------

    def motd(self) -> str:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (MOTD_KEY,)).fetchone()
        return row[0] if row and row[0] else ""

    def set_motd(self, text: str) -> None:
        with self.transaction():
            self._conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (MOTD_KEY, text),
            )

    def log_admin(self, by: str, action: str, detail: dict[str, Any]) -> int:
        with self.transaction():
            cur = self._conn.execute(
                "INSERT INTO admin_log (at, by, action, detail) VALUES (?, ?, ?, ?) RETURNING id",
                (self._clock(), by, action, packb(detail)),
            )
            return cur.fetchone()[0]

    def admin_log(self, limit: int = 100) -> list[dict[str, Any]]:
        rows = self._conn.execute(
            "SELECT id, at, by, action, detail FROM admin_log ORDER BY id DESC LIMIT ?", (limit,)
        )
        return [
            {"id": r[0], "at": r[1], "by": r[2], "action": r[3], "detail": _unpack(r[4])}
            for r in rows
        ]
