"""The start banner (issue 21): how to connect from this machine and from the network, and a
known_hosts line that the real OpenSSH client accepts as the server's key."""

from __future__ import annotations

import asyncio
import re
import subprocess

from gambit_connect.discover import browse
from server.cli import version
from server.ssh.banner import lan_addresses

from .conftest import needs_openssh
from .harness import SSH, ServeProcess

pytestmark = needs_openssh


def test_the_banner_names_the_lan_addresses_and_a_known_hosts_line_ssh_trusts(tmp_path):
    server = ServeProcess(tmp_path, "--host", "0.0.0.0", "--workers", "0")
    try:
        banner = server.banner
        for address in lan_addresses():
            assert f"play@{address}" in banner
        # Beyond loopback it is announced on the network, where `gambit connect` finds it.
        assert 'Announcing on the local network as "Gambit on ' in banner
        # (registered in the background, after the banner: within a few seconds)
        for _ in range(4):
            found = [f for f in asyncio.run(browse(1.5)) if f.port == server.port]
            if found:
                break
        assert [(f.host, f.version) for f in found] == [(lan_addresses()[0], version())]
        line = re.search(r"known_hosts line:  (.+)", banner).group(1)
        assert f"[localhost]:{server.port}" in line.split()[0]
        known = tmp_path / "known_hosts"
        known.write_text(line + "\n")
        # With strict checking and only this line to go by, the real client connects.
        done = subprocess.run(
            [
                SSH,
                "-F",
                "/dev/null",
                "-o",
                "StrictHostKeyChecking=yes",
                "-o",
                f"UserKnownHostsFile={known}",
                "-o",
                "PubkeyAuthentication=no",
                "-o",
                "BatchMode=no",
                "-p",
                str(server.port),
                "play@localhost",
                "x",
            ],
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
        assert "Gambit runs no commands" in done.stdout + done.stderr, done.stderr
        assert "Host key verification failed" not in done.stderr
    finally:
        server.stop()
