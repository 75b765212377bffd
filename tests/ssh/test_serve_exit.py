"""``gambit serve`` whose store cannot commit stops and exits 75 (as after an admin's restart),
so that a service manager (deploy/gambit.service: ``Restart=on-failure``) starts it again from
what the store holds; with 0 it stayed down. A real server process and a real ``ssh`` login."""

from __future__ import annotations

import subprocess

from server.ssh.serve import RESTART_EXIT

from .conftest import needs_openssh
from .harness import ServeProcess
from .test_e2e import Player

pytestmark = needs_openssh


def test_a_server_whose_store_cannot_commit_exits_to_be_started_again(tmp_path, monkeypatch):
    flag = tmp_path / "refuse-commits"
    monkeypatch.setenv("GAMBIT_TEST_COMMIT_FAILS", str(flag))  # (tests/hub/commit_fails.py)
    server = ServeProcess(tmp_path, module="tests.hub.commit_fails")
    player = None
    try:
        flag.write_text("once")
        player = Player(server)  # a guest arrives: their chips are written, a batch
        try:
            code = server.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            code = None
        assert code == RESTART_EXIT, server.log()
        assert "the store cannot commit; stopping" in server.log()
    finally:
        if player is not None:
            player.close()
        server.stop()
