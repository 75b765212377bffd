"""Real OpenSSH clients in pseudo-terminals, read with pyte, against a real Gambit SSH server.

* :class:`SSHTerminal` runs ``ssh`` on a pty of a given size and keeps a pyte screen of what
  it shows; every wait is bounded.
* :class:`ThreadServer` runs an :class:`~server.ssh.host.SSHHost` (with any app factory) on
  its own event loop in a thread, so a test can look inside it (sessions, leaks).
* :class:`ServeProcess` runs ``gambit serve`` itself, as a player's server would run.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import gc
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pyte

SSH = shutil.which("ssh")
SSH_KEYGEN = shutil.which("ssh-keygen")


def ssh_keygen(path: Path) -> Path:
    """A throwaway ed25519 client key without a passphrase; returns the private key's path."""
    assert SSH_KEYGEN is not None
    subprocess.run(
        [SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", str(path)],
        check=True,
        timeout=30,
    )
    return path


def key_fingerprint(path: Path) -> str:
    """``SHA256:…`` of a key file, as ``ssh-keygen -l`` prints it."""
    out = subprocess.run(
        [SSH_KEYGEN, "-l", "-E", "sha256", "-f", str(path)],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    return out.split()[1]


def ssh_command(
    port: int,
    user: str = "play",
    *,
    key: Path | None = None,
    extra: list[str] | None = None,
    remote: list[str] | None = None,
    log_level: str = "ERROR",
) -> list[str]:
    """``ssh`` with no user or system configuration, no known-hosts file, and one key or none."""
    assert SSH is not None
    cmd = [
        SSH,
        "-F",
        "/dev/null",
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        f"LogLevel={log_level}",
        "-o",
        "ConnectTimeout=10",
        "-o",
        "IdentityAgent=none",
        "-p",
        str(port),
    ]
    if key is not None:
        cmd += ["-o", "IdentitiesOnly=yes", "-i", str(key)]
    else:
        cmd += ["-o", "PubkeyAuthentication=no"]
    cmd += extra or []
    cmd.append(f"{user}@127.0.0.1")
    cmd += remote or []
    return cmd


def _set_size(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class SSHTerminal:
    """``ssh`` in a pseudo-terminal of ``cols``×``rows``, its output kept on a pyte screen."""

    def __init__(
        self, cmd: list[str], cols: int = 80, rows: int = 24, env: dict[str, str] | None = None
    ) -> None:
        self.master, slave = os.openpty()
        _set_size(slave, cols, rows)
        child_env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/tmp"),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
        }
        child_env.update(env or {})

        def controlling_tty() -> None:  # runs in the child, after setsid
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            cmd,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=child_env,
            start_new_session=True,
            preexec_fn=controlling_tty,
            close_fds=True,
        )
        os.close(slave)
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()

    # --- reading ---------------------------------------------------------------------------

    def pump(self, timeout: float = 0.05) -> bool:
        """Read what ssh has written so far; False once it has closed the terminal."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return False
        if not data:
            return False
        self.raw += data
        self.stream.feed(data)
        return True

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(self, pattern: str | Callable[[str], bool], timeout: float = 15.0) -> str:
        """Pump until the screen shows ``pattern`` (a regex, or a test on the screen's text)."""
        check = pattern if callable(pattern) else (lambda t: re.search(pattern, t) is not None)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            alive = self.pump()
            screen = self.text()
            if check(screen):
                return screen
            if not alive:
                break
        raise AssertionError(
            f"timed out waiting for {pattern!r}; the screen shows:\n{self.text()}\n"
            f"last output: {bytes(self.raw[-400:])!r}"
        )

    def wait_exit(self, timeout: float = 15.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pump()
            code = self.proc.poll()
            if code is not None:
                while self.pump(0.01) and select.select([self.master], [], [], 0)[0]:
                    pass
                return code
        raise AssertionError(f"ssh did not exit; the screen shows:\n{self.text()}")

    def output(self) -> str:
        """Everything ssh wrote, as text (for messages printed outside the alternate screen)."""
        return self.raw.decode("utf-8", "replace")

    # --- acting ----------------------------------------------------------------------------

    def send(self, data: str | bytes) -> None:
        os.write(self.master, data.encode() if isinstance(data, str) else data)

    def resize(self, cols: int, rows: int) -> None:
        """Change the window size as a terminal emulator would: ssh gets SIGWINCH."""
        _set_size(self.master, cols, rows)
        self.screen.resize(rows, cols)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGWINCH)

    def kill(self) -> None:
        """Drop the connection the hard way (the player's laptop lid closes)."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait(timeout=10)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.kill()
        with contextlib.suppress(OSError):
            os.close(self.master)


def idle_goodbye(port: int, extra: list[str] | None = None) -> str:
    """Connect, press nothing until the server hangs up (its exit status must be 1), and
    return everything the terminal was sent."""
    term = SSHTerminal(ssh_command(port, extra=extra))
    try:
        term.wait_for("hub name")
        assert term.wait_exit(timeout=10) == 1
        return term.output()
    finally:
        term.close()


class ThreadServer:
    """An SSHHost on its own event loop in a background thread, with a file store."""

    def __init__(self, data_dir: Path, app_factory: Any, **host_options: Any) -> None:
        self.data_dir = data_dir
        self.app_factory = app_factory
        self.host_options = host_options
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.host: Any = None
        self.hub: Any = None
        self.store: Any = None
        self.port = 0

    def start(self) -> ThreadServer:
        self.thread.start()
        self.call(self._start())
        return self

    async def _start(self) -> None:
        from server.hub import Hub, HubConfig
        from server.ssh.config import HostConfig
        from server.ssh.host import SSHHost
        from server.ssh.keys import load_or_create_host_key
        from server.store import Store

        self.store = Store.open(self.data_dir)
        self.hub = Hub(
            self.store, HubConfig(bot_delay=0.0, hello_timeout=5.0, bot_think_ms=5.0, bot_workers=0)
        )
        await self.hub.start()
        config = HostConfig(port=0, **self.host_options)
        key = load_or_create_host_key(self.data_dir)
        self.host = SSHHost(self.hub, config, key, app_factory=self.app_factory)
        self.port = await self.host.start()

    def call(self, coro: Coroutine[Any, Any, Any], timeout: float = 30.0) -> Any:
        """Run a coroutine on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def sync(self, fn: Callable[[], Any], timeout: float = 30.0) -> Any:
        """Run a plain function on the server's loop (to look at its state safely)."""

        async def run() -> Any:
            return fn()

        return self.call(run(), timeout)

    def alive(self, refs: list[Any], timeout: float = 10.0) -> int:
        """How many of ``refs`` (weak references) still live once they have had time to go.

        Not at once: asyncio keeps a cancelled timer, with the context it was made in (and so
        its app, Textual's ``active_app``), until the timer's deadline passes.
        """

        def count() -> int:
            gc.collect()
            return sum(ref() is not None for ref in refs)

        deadline = time.monotonic() + timeout
        while (left := self.sync(count)) and time.monotonic() < deadline:
            time.sleep(0.2)
        return left

    def stop(self) -> None:
        async def shutdown() -> None:
            await self.host.close()
            await self.hub.stop()
            self.store.close()

        try:
            self.call(shutdown())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)


class ServeProcess:
    """``gambit serve`` on a free loopback port with a temporary data directory; with ``seed``,
    its hub deals (and its bots choose) the same every run (``--seed``). ``module``: what runs
    as ``gambit`` (a test's may inject a fault first)."""

    def __init__(
        self, data_dir: Path, *args: str, seed: int | None = None, module: str = "server.cli"
    ) -> None:
        self.log_file = data_dir / "serve.log"
        if seed is not None:
            args = (*args, "--seed", str(seed))
        cmd = [
            sys.executable,
            "-m",
            module,
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(data_dir),
            "--log-file",
            str(self.log_file),
            *args,
        ]
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        self.banner = ""
        self.port = 0
        deadline = time.monotonic() + 30
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.banner += line
            if "Stop with Ctrl+C" in line:
                break
        match = re.search(r"ssh -p (\d+) play@localhost", self.banner)
        if match is None:
            self.stop()
            raise AssertionError(f"gambit serve did not start:\n{self.banner}\n{self.log()}")
        self.port = int(match.group(1))

    def log(self) -> str:
        return self.log_file.read_text() if self.log_file.exists() else ""

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        return self.proc.returncode
