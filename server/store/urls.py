"""Telling a PostgreSQL URL from a SQLite path, and printing one without its password.

Kept apart from :mod:`server.store.pg` so that asking does not import psycopg.
"""

from __future__ import annotations

import re

_URL = re.compile(r"^postgres(ql)?://", re.IGNORECASE)
_PASSWORD = re.compile(r"^(postgres(?:ql)?://[^:@/]*):[^@/]*@", re.IGNORECASE)


def is_postgres_url(db: object) -> bool:
    """True for ``postgresql://…`` (or ``postgres://…``), the form ``--db`` takes."""
    return isinstance(db, str) and bool(_URL.match(db))


def redact(db: str) -> str:
    """The URL with its password (if any) replaced by ``***``, fit for logs and errors."""
    return _PASSWORD.sub(r"\1:***@", db)
