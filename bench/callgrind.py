"""Instruction counts under valgrind's callgrind: for the benches whose timings this shared
machine makes too noisy to compare (counts do not depend on what else runs)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def instrument(on: bool) -> None:
    """Turn counting on or off in this process (which must run under :func:`counted`)."""
    subprocess.run(
        ["callgrind_control", "-i", "on" if on else "off", str(os.getpid())],
        capture_output=True,
        check=True,
    )


def counted(script: str, argv: list[str], env: dict[str, str] | None = None) -> tuple[Any, int]:
    """Run ``python script *argv`` under callgrind, counting only while it turns counting on:
    the JSON of its last line of output, and the instructions counted."""
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is needed: apt-get install valgrind")
    out = Path(tempfile.mkdtemp(prefix="gambit-callgrind-")) / "callgrind.out"
    try:
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                f"--callgrind-out-file={out}",
                sys.executable,
                script,
                *argv,
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)
    refs = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    assert refs, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1]), int(refs.group(1).replace(",", ""))
