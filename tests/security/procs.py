"""Real ``gambit serve`` and ``gambit hub`` processes for the security tests: started with
``python -m server.cli``, read without ever blocking past a deadline."""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Gambit:
    """One ``gambit …`` process; its stdout and stderr are read apart, with deadlines."""

    def __init__(
        self, *args: str, env: dict[str, str] | None = None, new_session: bool = False
    ) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env={**os.environ, **(env or {})},
            start_new_session=new_session,
        )
        self.out = ""
        self.err = ""

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _pump(self, timeout: float) -> bool:
        """Read what is there; False once both pipes are closed."""
        pipes = [p for p in (self.proc.stdout, self.proc.stderr) if p is not None and not p.closed]
        if not pipes:
            return False
        ready, _, _ = select.select(pipes, [], [], timeout)
        for pipe in ready:
            data = os.read(pipe.fileno(), 65536)
            if not data:
                pipe.close()
            elif pipe is self.proc.stdout:
                self.out += data.decode("utf-8", "replace")
            else:
                self.err += data.decode("utf-8", "replace")
        return True

    def wait_for(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        """Wait until stdout shows ``pattern``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = re.search(pattern, self.out)
            if match:
                return match
            if not self._pump(0.1) and self.proc.poll() is not None:
                break
        raise AssertionError(f"no {pattern!r} from {self.proc.args}:\n{self.out}\n{self.err}")

    def wait(self, timeout: float) -> int:
        """Its exit code, once it has exited (reading everything it wrote on the way)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._pump(0.05)
            code = self.proc.poll()
            if code is not None:
                drained = time.monotonic() + 2  # its app workers may hold the pipes a moment
                while self._pump(0.05) and time.monotonic() < drained:
                    pass
                return code
        raise AssertionError(f"{self.proc.args} still runs after {timeout} s:\n{self.err}")

    def kill(self) -> None:
        """SIGKILL: nothing is tidied, the lock and the socket stay behind."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None and not pipe.closed:
                pipe.close()


def serve(data_dir: Path, *args: str, **options: object) -> tuple[Gambit, int]:
    """``gambit serve`` on a free port (no app workers unless asked); returns it and its port."""
    log = data_dir.parent / f"{data_dir.name}.log"
    if "--workers" not in args:
        args = (*args, "--workers", "0")
    proc = Gambit(
        "serve",
        "--port",
        "0",
        "--data-dir",
        str(data_dir),
        "--log-file",
        str(log),
        *args,
        **options,  # type: ignore[arg-type]  # keyword arguments of mixed types
    )
    try:
        port = int(proc.wait_for(r"ssh -p (\d+) play@localhost").group(1))
    except BaseException:
        proc.stop()
        raise
    return proc, port


def serve_log(data_dir: Path) -> str:
    log = data_dir.parent / f"{data_dir.name}.log"
    return log.read_text() if log.exists() else ""


def hub(data_dir: Path, *args: str) -> Gambit:
    """``gambit hub`` on ``DATA_DIR/hub.sock`` (or ``--unix``), once it says it is ready."""
    proc = Gambit("hub", "--data-dir", str(data_dir), *args)
    try:
        proc.wait_for("gambit hub ready", timeout=20)
    except BaseException:
        proc.stop()
        raise
    return proc


def process_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie nobody has reaped yet counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (its app workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as stat:
            if int(stat.read().rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry))
    return found
