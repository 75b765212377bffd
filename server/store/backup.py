"""Copies of the database: taken online, while the server plays on.

SQLite's backup API copies a consistent snapshot page by page through a connection of its own,
so a backup can be taken while the hub writes (WAL mode lets the reader and the writer go on
side by side) and is exactly the database as of one committed moment. Restoring is copying the
file back while the server is stopped (README: "Backups").
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from .store import DB_NAME, StoreError, _fsync_dir


def backup(source: str | os.PathLike[str], dest: str | os.PathLike[str]) -> Path:
    """Copy the database ``source`` (a file, or a data folder) to ``dest`` (a file, or a folder
    to put a dated file in); returns the file written. The copy is written beside its final
    name and renamed when complete, so a backup file is never half a database."""
    src = Path(source)
    if src.is_dir():
        src = src / DB_NAME
    if not src.is_file():
        raise StoreError(f"There is no database at {src}.")
    out = Path(dest)
    if out.is_dir():
        out = out / f"gambit-{time.strftime('%Y%m%d-%H%M%S')}.sqlite3"
    partial = out.with_name(out.name + ".partial")
    reader = sqlite3.connect(f"file:{src}?mode=ro", uri=True, timeout=10.0)
    try:
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.close(fd)
        writer = sqlite3.connect(partial)
        try:
            reader.backup(writer, pages=256)  # in steps: the hub's writes go on between them
            writer.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
        finally:
            writer.close()
    except sqlite3.Error as err:
        partial.unlink(missing_ok=True)
        raise StoreError(f"Cannot back up {src}: {err}") from err
    finally:
        reader.close()
    with open(partial, "rb") as file:
        os.fsync(file.fileno())
    os.replace(partial, out)
    _fsync_dir(out.resolve().parent)
    return out


def backup_before_migration(path: str | os.PathLike[str], version: int) -> Path:
    """The copy taken before a migration changes the file (kept beside it)."""
    src = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return backup(src, src.with_name(f"{src.name}.v{version}-{stamp}.bak"))
