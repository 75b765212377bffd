"""Hole 8 of issue 17: stopping under a service manager.

systemd stops a service with SIGTERM to every one of its processes at once. The app workers
must not die of it: the server tells every player goodbye, stores everything and exits, in a
bounded time. And a worker whose server is gone ends on its own.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from server.ssh.serve import STOP_TIMEOUT
from tests.ssh.harness import SSH, SSHTerminal, ssh_command

from .procs import children, process_alive, serve, serve_log

pytestmark = pytest.mark.skipif(SSH is None, reason="the OpenSSH client is not installed")

GOODBYE = "The Gambit server is stopping"
SORRY = "Sorry: the server could not run your session"


def test_sigterm_to_the_whole_process_group_says_goodbye_to_every_player(tmp_path):
    data = tmp_path / "data"
    server, port = serve(data, "--workers", "2", new_session=True)
    terms: list[SSHTerminal] = []
    try:
        workers = children(server.pid)
        assert len(workers) == 2
        for name in ("Ada", "Bo"):
            terms.append(SSHTerminal(ssh_command(port, name)))
        for term in terms:
            term.wait_for("Enter the lobby", timeout=30)
        os.killpg(server.pid, signal.SIGTERM)  # what `systemctl stop` does
        started = time.monotonic()
        code = server.wait(STOP_TIMEOUT + 5)
        took = time.monotonic() - started
        for term in terms:
            term.wait_exit(timeout=10)
    finally:
        for term in terms:
            term.close()
        server.stop()
    log = serve_log(data)
    assert code == 0, (server.err, log)
    assert took < STOP_TIMEOUT, took
    for term in terms:
        assert GOODBYE in term.output()
        assert SORRY not in term.output()
    assert "exited; starting another" not in log
    assert "ERROR" not in log, log
    assert not any(process_alive(pid) for pid in workers)


def test_the_workers_end_when_their_server_is_killed(tmp_path):
    server, port = serve(tmp_path / "data", "--workers", "2", new_session=True)
    workers = children(server.pid)
    term = SSHTerminal(ssh_command(port, "Ada"))
    try:
        assert len(workers) == 2
        term.wait_for("Enter the lobby", timeout=30)
        server.kill()  # SIGKILL, the server alone: its workers only see their link close
        deadline = time.monotonic() + 10
        while any(process_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(process_alive(pid) for pid in workers)
    finally:
        term.close()
        server.stop()
        for pid in workers:  # never leave one running, whatever failed
            if process_alive(pid):
                os.kill(pid, signal.SIGKILL)
