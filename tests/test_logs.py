"""Logs an operator can use (issue 21): journal priorities under systemd, JSON lines for a
collector, a log file that may be rotated under the server."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from server.logs import setup_logging

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        handler.close()
    root.handlers[:] = handlers
    root.setLevel(level)


def run_hub(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """``gambit hub`` started and stopped again; what it wrote to stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "hub", "--data-dir", str(tmp_path / "d"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )
    assert proc.stdout is not None
    assert "gambit hub ready" in proc.stdout.readline()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    return err


def test_json_lines_for_a_collector(tmp_path):
    err = run_hub(tmp_path, "--log-json")
    entries = [json.loads(line) for line in err.splitlines()]
    started = next(e for e in entries if "restored" in e["message"])
    assert started["level"] == "info" and started["logger"] == "server.hub.hub"
    assert started["ts"].endswith("Z")


def test_under_systemd_each_line_has_its_priority_and_no_time(tmp_path):
    err = run_hub(tmp_path, env={"JOURNAL_STREAM": "8:12345"})
    line = next(line for line in err.splitlines() if "restored" in line)
    assert line.startswith("<6>server.hub.hub: started")
    assert not any(ch.isdigit() for ch in line[3:10])  # no timestamp first


def test_a_rotated_log_file_is_opened_again(tmp_path, restore_logging):
    path = tmp_path / "gambit.log"
    setup_logging(str(path), verbose=False)
    log = logging.getLogger("server.test")
    log.info("before the rotation")
    path.rename(tmp_path / "gambit.log.1")  # what logrotate does
    time.sleep(0.01)
    log.info("after the rotation")
    assert "before" in (tmp_path / "gambit.log.1").read_text()
    assert "after the rotation" in path.read_text()


def test_a_traceback_in_the_journal_keeps_its_priority(restore_logging, capsys):
    os.environ["JOURNAL_STREAM"] = "8:1"
    try:
        setup_logging(None, verbose=False)
    finally:
        del os.environ["JOURNAL_STREAM"]
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("server.test").exception("it failed")
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "<3>server.test: it failed"
    assert all(line.startswith("<3>") for line in lines) and len(lines) > 2
