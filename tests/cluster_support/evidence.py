"""What a chaos run leaves behind when a check fails: every process's log, kept in a folder
the run names, and what each process was doing when the check failed.

The run's processes log into its temporary folder (each hub and gateway ``NAME.log``, and
what it printed, ``NAME.out``; NATS ``nats.log``), PostgreSQL into a folder of its own
(``postgres.log``); both folders are removed when the run ends. So a fault whose check
fails is looked at while it lasts (:func:`snapshot`: which processes are alive, PostgreSQL's
sessions and what each waits for, and every hub's and gateway's threads: their Python stacks
with ``py-spy`` when it is installed, else what the kernel says each thread waits in), and
at the end of the run everything is copied to the kept folder (:func:`keep`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The files of the run's folder that are kept (the hubs' data folders are not: their
#: store is PostgreSQL's).
KEPT = ("*.log", "*.out", "faults.jsonl", "snapshots.txt")
#: Seconds one look at a process (its stacks) or at the database may take.
LOOK_FOR = 20.0


def keep(folder: Path, postgres_root: Path | None, dest: Path) -> Path:
    """Copy every process's log (and the run's notes) from ``folder`` and PostgreSQL's
    folder to ``dest`` (made if need be); returns ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for pattern in KEPT:
        for path in sorted(folder.glob(pattern)):
            shutil.copy2(path, dest / path.name)
    if postgres_root is not None and (postgres_root / "postgres.log").exists():
        shutil.copy2(postgres_root / "postgres.log", dest / "postgres.log")
    return dest


def snapshot(
    folder: Path, why: str, processes: Mapping[str, Any], python: Mapping[str, Any], db: str
) -> None:
    """Append to ``folder/snapshots.txt`` what every process is doing now: ``processes``
    (name: ``subprocess.Popen`` or None) alive or not; PostgreSQL's sessions on the ``db``
    URL's server; and the threads of the ``python`` ones (hubs, gateways)."""
    lines = [f"=== {time.strftime('%H:%M:%S')} {why}"]
    for name, proc in processes.items():
        if proc is None:
            lines.append(f"{name}: not started")
        else:
            state = "running" if proc.poll() is None else f"exited with {proc.returncode}"
            lines.append(f"{name}: pid {proc.pid} {state}")
    lines += database_sessions(db)
    alive = {
        name: proc for name, proc in python.items() if proc is not None and proc.poll() is None
    }
    for name, proc in alive.items():
        lines.append(f"--- {name} (pid {proc.pid}): its threads")
        lines += stacks(proc.pid)
    for proc in alive.values():  # (each writes its tasks to its log: server/task_dump.py)
        with contextlib.suppress(OSError):
            os.kill(proc.pid, signal.SIGUSR1)
    if alive:
        lines.append(f"(their asyncio tasks: in each one's log, {', '.join(alive)})")
    with open(folder / "snapshots.txt", "a") as notes:
        notes.write("\n".join(lines) + "\n\n")


def database_sessions(db: str) -> list[str]:
    """PostgreSQL's sessions: who, in what state, waiting for what (and blocked by whom)."""
    try:
        import psycopg

        with psycopg.connect(
            db, autocommit=True, connect_timeout=5, options="-c statement_timeout=5000"
        ) as conn:
            rows = conn.execute(
                "SELECT pid, application_name, state, wait_event_type, wait_event, "
                "pg_blocking_pids(pid), round(extract(epoch FROM now() - xact_start)), "
                "round(extract(epoch FROM now() - state_change)), left(query, 160) "
                "FROM pg_stat_activity WHERE backend_type = 'client backend' "
                "AND pid <> pg_backend_pid() ORDER BY backend_start"
            ).fetchall()
    except Exception as err:  # (the database down, or not answering: that is the news)
        return [f"database: no answer ({err or type(err).__name__})"]
    lines = [f"database: {len(rows)} session(s)"]
    for pid, who, state, wait_type, wait, blockers, in_xact, in_state, query in rows:
        lines.append(
            f"  pid {pid} {who or '?'!r}: {state}, waits {wait_type}/{wait}, "
            f"blocked by {blockers or 'nobody'}, transaction {in_xact} s, "
            f"in this state {in_state} s: {query!r}"
        )
    return lines


def stacks(pid: int) -> list[str]:
    """A process's threads: Python stacks by ``py-spy dump`` (if installed), else each
    thread's state and kernel wait channel."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if Path(spy).exists():
        with contextlib.suppress(Exception):
            done = subprocess.run(
                [spy, "dump", "--pid", str(pid)],
                capture_output=True,
                text=True,
                timeout=LOOK_FOR,
            )
            if done.returncode == 0:
                return done.stdout.splitlines()
    lines = []
    with contextlib.suppress(OSError):
        for task in sorted(Path(f"/proc/{pid}/task").iterdir()):
            with contextlib.suppress(OSError):
                comm = (task / "comm").read_text().strip()
                state = (task / "stat").read_text().rpartition(")")[2].split()[0]
                wchan = (task / "wchan").read_text().strip()
                lines.append(f"  thread {task.name} {comm!r}: state {state}, waits in {wchan}")
    return lines
