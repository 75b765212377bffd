"""Checks every gettext catalog of ours gets (the app's and the SSH host's)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def assert_msgfmt_accepts(path: Path) -> None:
    """GNU gettext's own check of a catalog (format strings, plural forms, headers); skipped
    where ``msgfmt`` is not installed."""
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("GNU gettext's msgfmt is not installed, so `msgfmt --check` cannot run")
    done = subprocess.run(
        [msgfmt, "--check", "-o", "/dev/null", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
