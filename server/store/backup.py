"""Copies of the database: taken online, while the server plays on.

SQLite's backup API copies a consistent snapshot page by page through a connection of its own,
so a backup can be taken while the hub writes (WAL mode lets the reader and the writer go on
side by side) and is exactly the database as of one committed moment. Restoring is copying the
file back while the server is stopped (README: "Backups").

A PostgreSQL store (``--db``) is PostgreSQL's to copy: ``pg_dump`` takes the same kind of
consistent online snapshot, so :func:`backup` runs it when it is installed and otherwise says
to (restore with ``pg_restore``).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

from .store import DB_NAME, StoreError, _fsync_dir
from .urls import is_postgres_url, redact


def backup(source: str | os.PathLike[str], dest: str | os.PathLike[str]) -> Path:
    """Copy the database ``source`` (a file, a data folder, or a ``postgresql://`` URL) to
    ``dest`` (a file, or a folder to put a dated file in); returns the file written. The copy
    is written beside its final name and renamed when complete, so a backup file is never
    half a database."""
    if is_postgres_url(source):
        return backup_postgres(str(source), dest)
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


def pg_dump_path() -> str | None:
    """``pg_dump`` from PATH, else from Debian's ``/usr/lib/postgresql/*/bin`` (newest)."""
    found = shutil.which("pg_dump")
    if found:
        return found
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/pg_dump"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
    )
    return str(versions[-1]) if versions else None


def backup_postgres(url: str, dest: str | os.PathLike[str]) -> Path:
    """``pg_dump``'s custom-format copy of the database at ``url`` (restore it with
    ``pg_restore``); StoreError saying what to run when pg_dump is not installed."""
    out = Path(dest)
    if out.is_dir():
        out = out / f"gambit-{time.strftime('%Y%m%d-%H%M%S')}.pgdump"
    pg_dump = pg_dump_path()
    if pg_dump is None:
        raise StoreError(
            "The database is PostgreSQL: back it up with PostgreSQL's own pg_dump "
            f"(pg_dump --format=custom --file={out} '{redact(url)}'), "
            "which is not installed here."
        )
    partial = out.with_name(out.name + ".partial")
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))  # private first
    done = subprocess.run(
        [pg_dump, "--format=custom", f"--file={partial}", f"--dbname={url}"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        raise StoreError(f"pg_dump could not back up {redact(url)}: {done.stderr.strip()}")
    with open(partial, "rb") as file:
        os.fsync(file.fileno())
    os.replace(partial, out)
    _fsync_dir(out.resolve().parent)
    return out
