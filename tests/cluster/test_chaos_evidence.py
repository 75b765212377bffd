"""What a chaos run whose check failed leaves behind (tests/cluster_support/evidence.py): every
process's log copied out of the run's temporary folders, and a note of what each process was
doing at the failed check."""

from __future__ import annotations

import subprocess
import sys

from tests.cluster_support import evidence

SLEEPER = """
import signal, time
signal.signal(signal.SIGUSR1, lambda *_: print("asked", flush=True))
print("ready", flush=True)
time.sleep(30)
"""


def test_every_processs_log_is_kept_with_postgres_log_and_the_runs_notes(tmp_path):
    run, pg, dest = tmp_path / "run", tmp_path / "pg", tmp_path / "kept" / "here"
    run.mkdir()
    pg.mkdir()
    names = ("hub1.log", "hub1.out", "gw2.log", "gw2.out", "nats.log", "faults.jsonl")
    for name in (*names, "snapshots.txt"):
        (run / name).write_text(f"{name} says\n")
    (run / "hub1").mkdir()  # a hub's data folder (its socket, its lock): not a log
    (run / "hub1" / "hub.lock").write_text("")
    (run / "host_key").write_text("secret")
    (pg / "postgres.log").write_text("LOG:  database system is ready\n")

    assert evidence.keep(run, pg, dest) == dest

    kept = sorted(p.name for p in dest.iterdir())
    assert kept == sorted((*names, "snapshots.txt", "postgres.log"))
    assert (dest / "hub1.out").read_text() == "hub1.out says\n"
    assert "ready" in (dest / "postgres.log").read_text()


def test_a_snapshot_says_who_is_alive_what_their_threads_wait_in_and_the_database(tmp_path):
    sleeping = subprocess.Popen(  # (as a hub: it takes SIGUSR1, see server/task_dump.py)
        [sys.executable, "-c", SLEEPER], stdout=subprocess.PIPE, text=True
    )
    assert sleeping.stdout is not None and sleeping.stdout.readline() == "ready\n"
    ended = subprocess.Popen([sys.executable, "-c", "raise SystemExit(75)"])
    ended.wait(timeout=30)
    try:
        evidence.snapshot(
            tmp_path,
            "fault 4 (postgres): a check failed",
            {"hub1": ended, "hub2": sleeping, "nats": None},
            {"hub1": ended, "hub2": sleeping},
            "postgresql://postgres@127.0.0.1:1/nothing",  # (nobody listens there)
        )
        assert sleeping.stdout.readline() == "asked\n"  # (its tasks, to its log)
    finally:
        sleeping.kill()
        sleeping.wait(timeout=10)
    text = (tmp_path / "snapshots.txt").read_text()
    assert "fault 4 (postgres): a check failed" in text
    assert f"hub1: pid {ended.pid} exited with 75" in text
    assert f"hub2: pid {sleeping.pid} running" in text
    assert "nats: not started" in text
    assert "database: no answer" in text
    # The live one's threads (an ended one has none to show).
    threads = text.split(f"--- hub2 (pid {sleeping.pid}): its threads\n")[1].strip()
    assert threads, text
    assert "--- hub1" not in text
    assert "their asyncio tasks: in each one's log, hub2)" in text
