"""Hole 7 of issue 17: secrets and noise.

The password comes from a file or the environment (``--password`` still works, with a
warning: every local user sees a command line), and what reaches the log never holds the
password or a crashed app's local variables.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncssh
import pytest

from server.apphost.app_settings import TEST_APP_FACTORY
from server.ssh.serve import PASSWORD_ENV

from .crash_app import CRASH, SECRET_LOCAL
from .procs import Gambit, children, serve, serve_log

PASSWORD = "pw-correct-horse-42"


async def login(port: int, password: str) -> bool:
    """Whether a real asyncssh client gets in with this password."""
    try:
        conn = await asyncssh.connect(
            "127.0.0.1",
            port,
            username="play",
            password=password,
            known_hosts=None,
            client_keys=None,
            agent_path=None,
            preferred_auth="password",
            connect_timeout=10,
        )
    except asyncssh.PermissionDenied:
        return False
    conn.close()
    await conn.wait_closed()
    return True


def check_login(port: int) -> None:
    async def both() -> None:
        assert not await login(port, "wrong-" + PASSWORD)
        assert await login(port, PASSWORD)

    asyncio.run(asyncio.wait_for(both(), 30))


def cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def test_the_password_from_a_file(tmp_path):
    secret = tmp_path / "password"
    secret.write_text(f"  {PASSWORD}  \nthe second line is not read\n")
    server, port = serve(tmp_path / "data", "--password-file", str(secret))
    try:
        check_login(port)
        assert PASSWORD not in cmdline(server.pid)
    finally:
        server.stop()
    assert "warning" not in server.err
    assert PASSWORD not in serve_log(tmp_path / "data")


def test_the_password_from_the_environment_reaches_no_worker(tmp_path):
    data = tmp_path / "data"
    server, port = serve(data, "--workers", "1", env={PASSWORD_ENV: PASSWORD})
    try:
        check_login(port)
        (worker,) = children(server.pid)
        assert PASSWORD_ENV.encode() not in Path(f"/proc/{worker}/environ").read_bytes()
    finally:
        server.stop()
    assert "warning" not in server.err
    assert PASSWORD not in serve_log(data)


def test_the_password_on_the_command_line_works_with_a_warning(tmp_path):
    data = tmp_path / "data"
    server, port = serve(data, "--password", PASSWORD)
    try:
        check_login(port)
    finally:
        server.stop()
    assert "warning: --password is visible to every user" in server.err
    assert "--password-file" in server.err and PASSWORD_ENV in server.err
    log = serve_log(data)
    assert "--password is visible" in log
    assert PASSWORD not in log and PASSWORD not in server.err


@pytest.mark.parametrize(
    "args, env, error",
    [
        (["--password-file", "/nonexistent/pw"], {}, "cannot read the password file"),
        (["--password-file", "EMPTY"], {}, "gives an empty password"),
        ([], {PASSWORD_ENV: "  "}, f"the {PASSWORD_ENV} environment variable gives an empty"),
        (["--password", "a", "--password-file", "EMPTY"], {}, "not allowed with argument"),
    ],
)
def test_an_unusable_password_stops_the_server_before_it_starts(tmp_path, args, env, error):
    empty = tmp_path / "empty"
    empty.write_text("\n")
    args = [str(empty) if a == "EMPTY" else a for a in args]
    proc = Gambit("serve", "--port", "0", "--data-dir", str(tmp_path / "d"), *args, env=env)
    assert proc.wait(10) == 2
    assert error in proc.err
    assert "Gambit is serving" not in proc.out


@pytest.mark.parametrize("workers", ["0", "1"])
def test_a_crashing_app_is_logged_without_locals_or_secrets(tmp_path, workers):
    data = tmp_path / "data"
    secret = tmp_path / "password"
    secret.write_text(PASSWORD)
    env = {TEST_APP_FACTORY: "tests.security.crash_app:make_app"}
    server, port = serve(data, "--workers", workers, "--password-file", str(secret), env=env)

    async def play() -> tuple[int | None, str]:
        async with asyncssh.connect(
            "127.0.0.1",
            port,
            username="play",
            password=PASSWORD,
            known_hosts=None,
            client_keys=None,
            agent_path=None,
            preferred_auth="password",
        ) as conn:
            process = await conn.create_process(term_type="xterm-256color", term_size=(80, 24))
            out = await asyncio.wait_for(process.stdout.read(), 20)
            await process.wait_closed()
            return process.exit_status, out

    try:
        status, out = asyncio.run(asyncio.wait_for(play(), 30))
    finally:
        server.stop()
    assert status == 1
    assert "Sorry: the server could not run your session." in out
    log = serve_log(data)
    assert "the app crashed" in log
    assert "Traceback (most recent call last):" in log
    assert f"RuntimeError: {CRASH}" in log
    assert "ended by a failure of its app" in log
    assert "locals" not in log and "╭" not in log  # no Rich panels, no variables
    assert SECRET_LOCAL not in log
    assert PASSWORD not in log
