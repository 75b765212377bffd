"""``gambit hub`` (``python -m tests.hub.commit_fails hub ...``) whose database refuses to
commit once the file named by ``GAMBIT_TEST_COMMIT_FAILS`` exists: every commit if the file
says ``always`` (a disk that filled up), else the first one only (a database that refused
once). The store meets it as it would meet SQLite's own error; everything else is the real
``gambit hub``."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from server.cli import main
from server.store.store import Store

FLAG = Path(os.environ["GAMBIT_TEST_COMMIT_FAILS"])
_commit_held = Store.commit_held
_failed: list[bool] = []


class _Refusing:
    """A SQLite connection whose ``COMMIT`` fails."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "COMMIT":
            raise sqlite3.OperationalError("database or disk is full")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def _commit_held_or_not(self: Store) -> None:
    if not self.holding or not FLAG.exists():
        _commit_held(self)
        return
    if _failed and FLAG.read_text().strip() != "always":
        _commit_held(self)
        return
    _failed.append(True)
    conn = self._conn
    self._conn = _Refusing(conn)  # type: ignore[assignment]  # (the fault, for one commit)
    try:
        _commit_held(self)
    finally:
        self._conn = conn


Store.commit_held = _commit_held_or_not  # type: ignore[method-assign]  # (this process only)

if __name__ == "__main__":
    sys.exit(main())
