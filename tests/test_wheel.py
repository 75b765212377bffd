"""The package as a user installs it (issue 21): a wheel built from this checkout, installed
(not editable) into a fresh virtualenv, runs ``gambit serve`` to a real ssh lobby, with its
rules texts and catalogs (the app's and the SSH host's) inside, and nothing taken from the
checkout; its ``gambit connect`` reaches the same server (issue 41)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.ssh.conftest import needs_openssh
from tests.ssh.harness import SSHTerminal, ssh_command

ROOT = Path(__file__).resolve().parents[1]
#: What a build must not see of the checkout: earlier builds, environments, caches.
NOT_SOURCE = (
    "build",
    "dist",
    ".venv",
    ".git",
    "__pycache__",
    "*.egg-info",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
)
pytestmark = needs_openssh


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtualenv with the wheel in it; its dependencies are this environment's (a
    path file), so the test needs no second download of them."""
    base = tmp_path_factory.mktemp("wheel")
    # Built from a copy without the checkout's build/ folder: setuptools reuses what it finds
    # there, and a stale build/lib once hid package data missing from pyproject.toml.
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(base / "dist"),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = (base / "dist").glob("gambit_tables-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(
        subprocess.run(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "--no-deps",
            "-q",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return venv


def test_the_installed_wheel_serves_a_lobby_in_german(installed, tmp_path):
    python, gambit = installed / "bin" / "python", installed / "bin" / "gambit"
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import gambit_tui, server; print(gambit_tui.__file__, server.__file__)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout
    assert str(ROOT) not in where and str(installed) in where  # the wheel's copy, not ours
    version = subprocess.run([str(gambit), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and "gambit" in version.stdout.lower()
    proc = subprocess.Popen(
        [
            str(gambit),
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(tmp_path / "data"),
            "--workers",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": ""},
    )
    term = None
    try:
        assert proc.stdout is not None
        banner = ""
        while "Stop with Ctrl+C" not in banner:
            line = proc.stdout.readline()
            assert line, banner
            banner += line
        port = int(banner.split("ssh -p ")[1].split()[0])
        term = SSHTerminal(
            ssh_command(port, "Ada", extra=["-o", "SendEnv=LANG"]), env={"LANG": "de_DE.UTF-8"}
        )
        term.wait_for("Zur Lobby")  # the German catalog, from the wheel
        term.send("\r")
        term.wait_for("Lobby")
        term.send("?")  # the rules, from the wheel's content folder
        term.wait_for("Prophet's Gambit")
        # The SSH host's own words (server/ssh/locale), from the wheel too.
        refused = subprocess.run(
            ssh_command(port, extra=["-o", "SetEnv=LANG=de_DE.UTF-8"], remote=["ls"]),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
            start_new_session=True,
        )
        assert "Gambit führt keine Befehle aus" in refused.stderr.decode("utf-8", "replace")
        # gambit connect (issue 41), from the wheel: the app on this side, over the channel.
        home = tmp_path / "home"
        home.mkdir()
        local = SSHTerminal(
            [str(gambit), "connect", "-p", str(port), "Bo@127.0.0.1"],
            env={"HOME": str(home), "PYTHONPATH": ""},
        )
        try:
            local.wait_for(r"continue connecting \(yes/no\)\?", timeout=30)
            local.send("yes\r")
            local.wait_for("Enter the lobby", timeout=30)
        finally:
            local.close()
    finally:
        if term is not None:
            term.close()
        proc.terminate()
        proc.wait(timeout=20)
