"""The service unit and the container image (issue 21): systemd accepts the unit, and every
setting they give is one ``gambit serve`` understands."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import main

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "deploy" / "gambit.service"
CONTAINERFILE = ROOT / "deploy" / "Containerfile"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_accepts_the_unit(tmp_path):
    gambit = Path(sys.executable).with_name("gambit")
    assert gambit.exists()
    unit = tmp_path / "gambit.service"
    unit.write_text(UNIT.read_text().replace("/usr/local/bin/gambit", str(gambit)))
    done = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    problems = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if "gambit.service" in line  # (lines about the host's own units are not ours)
    ]
    assert done.returncode == 0 and problems == [], done.stdout + done.stderr
    text = UNIT.read_text()
    for needed in (
        "DynamicUser=yes",
        "StateDirectory=gambit",
        "KillMode=mixed",
        "Restart=on-failure",
        "CAP_NET_BIND_SERVICE",
    ):
        assert needed in text


def test_every_setting_the_unit_and_the_image_give_is_an_option(capsys, monkeypatch):
    names = set(re.findall(r"\b(GAMBIT_[A-Z_]+)=", UNIT.read_text() + CONTAINERFILE.read_text()))
    assert {"GAMBIT_PORT", "GAMBIT_HOST", "GAMBIT_DATA_DIR"} <= names
    for name in names:
        monkeypatch.setenv(name, "2222" if name == "GAMBIT_PORT" else "/tmp/x")
    assert main(["serve", "--print-config"]) == 0
    printed = capsys.readouterr().out
    for name in names:
        assert f"# {name}" in printed, name


def _container_tool() -> str | None:
    for tool in ("podman", "docker"):
        path = shutil.which(tool)
        if path and subprocess.run([path, "info"], capture_output=True, timeout=30).returncode == 0:
            return path
    return None


@pytest.mark.skipif(_container_tool() is None, reason="no container tool that can build here")
def test_the_image_builds():
    tool = _container_tool()
    assert tool is not None
    done = subprocess.run(
        [tool, "build", "-q", "-f", str(CONTAINERFILE), "-t", "gambit-test", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr
