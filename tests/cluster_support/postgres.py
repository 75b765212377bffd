"""A throwaway PostgreSQL server for the tests: ``initdb`` into a temporary folder, ``postgres``
on a free loopback port (its unix socket in that folder too), stopped at the end.

Never a service left running: the server is our child, stopped by the fixture's finalizer,
and told by the kernel to quit (``PR_SET_PDEATHSIG``) if the test process dies without one.
It runs without fsync: the tests kill clients and hubs, never the machine, so what the
kernel keeps in memory is enough and every commit is cheap. The chaos run kills the server
itself (:meth:`PostgresServer.kill`, then :meth:`PostgresServer.restart`): it asks for
``durable`` commits (``synchronous_commit`` on), so that a commit a hub was told of has
reached the kernel before the kill.

The binaries are looked up on PATH, then in Debian's ``/usr/lib/postgresql/*/bin`` (where
``apt-get install postgresql`` puts them; ``.ci/run`` does that when they are missing).
PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` user (or
``nobody``), which owns the temporary folder.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SUPERUSER = "postgres"
_PR_SET_PDEATHSIG = 1
INITDB = ("--locale=C", "--no-sync")
#: Fast and small: nothing here needs to survive a crash of the server itself.
SETTINGS = ("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
SETTINGS += ("-c", "max_connections=60", "-c", "shared_buffers=32MB")
#: The same, with every commit in the kernel's hands before it is acknowledged.
DURABLE_SETTINGS = ("-c", "fsync=off", "-c", "full_page_writes=off")
DURABLE_SETTINGS += ("-c", "max_connections=60", "-c", "shared_buffers=32MB")


def find_bin(name: str) -> str | None:
    """``initdb``/``postgres`` from PATH, else the newest Debian install."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0,
    )
    return versions[-1] if versions else None


def available() -> bool:
    return find_bin("initdb") is not None and find_bin("postgres") is not None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGQUIT)  # SIGQUIT: PostgreSQL's immediate stop


class PostgresServer:
    """One running server; :meth:`url` names a database in it, :meth:`create_database` makes
    a new empty one."""

    def __init__(self, root: Path, *, durable: bool = False) -> None:
        self.root = root
        self.settings = DURABLE_SETTINGS if durable else SETTINGS
        self.data = root / "data"
        self.sockets = root / "sockets"
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self._user: dict[str, int] = {}
        self._made = 0
        if os.geteuid() == 0:
            try:
                entry = pwd.getpwnam("postgres")
            except KeyError:
                entry = pwd.getpwnam("nobody")
            self._user = {"user": entry.pw_uid, "group": entry.pw_gid}

    def _chown(self, path: Path) -> None:
        if self._user:
            os.chown(path, self._user["user"], self._user["group"])

    def start(self) -> None:
        initdb, postgres = find_bin("initdb"), find_bin("postgres")
        assert initdb and postgres, "PostgreSQL binaries not found"
        self._chown(self.root)
        self.sockets.mkdir(mode=0o700)
        self._chown(self.sockets)
        done = subprocess.run(
            [initdb, "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", *INITDB],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=self.root,
            **self._user,  # type: ignore[arg-type]  # keyword arguments of mixed types
        )
        assert done.returncode == 0, done.stderr
        for _ in range(5):  # a free port can be taken between asking and binding
            self.port = _free_port()
            if self._launch():
                return
            self.stop()
        raise RuntimeError(f"PostgreSQL did not start: {(self.root / 'postgres.log').read_text()}")

    def _launch(self) -> bool:
        """The server on :attr:`port` over the data folder; whether it answers."""
        postgres = find_bin("postgres")
        assert postgres, "PostgreSQL binaries not found"
        log = open(self.root / "postgres.log", "ab")  # noqa: SIM115 (closed once it runs)
        try:
            self.proc = subprocess.Popen(
                [
                    postgres,
                    "-D",
                    str(self.data),
                    "-p",
                    str(self.port),
                    *self._where(),
                    *self.settings,
                ],
                stdout=log,
                stderr=log,
                cwd=self.root,
                preexec_fn=_die_with_parent,
                **self._user,  # type: ignore[arg-type]  # keyword arguments of mixed types
            )
        finally:
            log.close()
        return self._wait_ready()

    def kill(self) -> None:
        """kill -9 the server and every process of it at once (a crash, not a shutdown)."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        children = _children(proc.pid)
        for pid in (proc.pid, *children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait(timeout=10)  # (bounded: a test fails rather than hangs)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.02)

    def restart(self) -> None:
        """The killed server started again on the same port and data (it recovers its WAL)."""
        for _ in range(3):  # (a child of the killed one may still hold shared memory)
            if self._launch():
                return
            self.stop()
            time.sleep(0.5)
        raise RuntimeError(
            f"PostgreSQL did not restart: {(self.root / 'postgres.log').read_text()}"
        )

    def _where(self) -> list[str]:
        return ["-h", "127.0.0.1", "-k", str(self.sockets)]

    def _wait_ready(self) -> bool:
        import psycopg

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                return False
            try:
                psycopg.connect(self.url("postgres"), connect_timeout=2).close()
                return True
            except psycopg.OperationalError:
                time.sleep(0.05)
        return False

    def url(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def admin(self):  # -> psycopg.Connection
        import psycopg

        return psycopg.connect(self.url("postgres"), autocommit=True)

    def create_database(self, prefix: str = "gambit") -> str:
        """A new, empty database; returns its URL."""
        self._made += 1
        name = f"{prefix}_{self._made}"
        with self.admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGINT)  # "fast" shutdown: clients are cut off
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (PostgreSQL's backends and workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as stat:
                if int(stat.read().rpartition(")")[2].split()[1]) == pid:
                    found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@contextlib.contextmanager
def running_postgres(*, durable: bool = False) -> Iterator[PostgresServer]:
    with tempfile.TemporaryDirectory(prefix="gambit-pg-") as folder:
        server = PostgresServer(Path(folder), durable=durable)
        try:
            server.start()
            yield server
        finally:
            server.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server (skips the test when PostgreSQL is not installed)."""
    if not available():
        pytest.skip("PostgreSQL is not installed (.ci/run installs it)")
    with running_postgres() as server:
        yield server
