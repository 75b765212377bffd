"""``gambit connect`` runs on a player's machine: its launcher and the channel transport load
the app and the protocol, never the server (issue 41's boundaries)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_gambit_connect_loads_no_server_module():
    code = (
        "import sys, gambit_connect.launcher, gambit_connect.lasting, protocol.ssh_channel\n"
        "import gambit_connect.discover\n"
        "import gambit_tui.app\n"
        "print(sorted(m for m in sys.modules if m == 'server' or m.startswith('server.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
