"""The SSH host with the real OpenSSH client: who comes in as whom, what is refused, limits.

The server runs the stand-in app (tests/ssh/standin.py), which shows on screen what the host
handed it, so these tests do not depend on the Gambit app's screens.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import time
import weakref

from server.apphost.in_process import InProcessLauncher

from .conftest import needs_openssh
from .harness import SSHTerminal, idle_goodbye, key_fingerprint, ssh_command
from .standin import make_standin

pytestmark = needs_openssh


def run_ssh(cmd: list[str], env: dict[str, str] | None = None, timeout: float = 20):
    """A non-interactive ssh run: its exit code and everything it printed."""
    proc = subprocess.run(
        cmd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")}
        | (env or {}),
        start_new_session=True,  # no controlling terminal: ssh must not prompt
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_a_client_without_a_key_is_a_guest(standin_server):
    server = standin_server()
    term = SSHTerminal(ssh_command(server.port, "play"))
    try:
        screen = term.wait_for("hub name=Guest-\\d+ guest=True")
        assert "identity=guest" in screen
        assert "wished=None" in screen
        assert "term=xterm-256color colors=256" in screen
    finally:
        term.close()


def test_a_key_is_the_identity_and_the_username_the_wished_name(standin_server, client_key):
    server = standin_server()
    term = SSHTerminal(ssh_command(server.port, "Alice", key=client_key))
    try:
        screen = term.wait_for("hub name=Alice guest=False")
        assert f"identity={key_fingerprint(client_key)}" in screen
        assert "wished=Alice" in screen
    finally:
        term.close()


def test_the_clients_locale_and_colour_settings_reach_the_app(standin_server):
    server = standin_server()
    cmd = ssh_command(server.port, extra=["-o", "SendEnv=LANG COLORTERM"])
    term = SSHTerminal(cmd, env={"LANG": "de_DE.ISO-8859-1", "COLORTERM": "truecolor"})
    try:
        screen = term.wait_for("unicode=")
        assert "colors=truecolor unicode=False lang=de_DE.ISO-8859-1" in screen
    finally:
        term.close()


def test_keys_resize_and_quit(standin_server):
    server = standin_server()
    term = SSHTerminal(ssh_command(server.port), cols=80, rows=24)
    try:
        term.wait_for("size=80x24")
        term.wait_for("hub name")
        term.send("x")
        term.wait_for("key=x")
        term.send("\x1b")  # a lone Escape
        term.wait_for("key=escape")
        term.resize(100, 30)
        term.wait_for("size=100x30")
        term.send("q")
        assert term.wait_exit() == 0
        assert term.output().endswith("\x1b[?1049l")  # the player's own screen is back
    finally:
        term.close()
    assert server.sync(lambda: len(server.host.sessions)) == 0


def test_a_command_is_refused_with_a_message(standin_server):
    server = standin_server()
    code, out = run_ssh(ssh_command(server.port, remote=["ls", "/"]))
    assert code == 1
    assert "Gambit runs no commands" in out


def test_a_shell_without_a_terminal_is_refused(standin_server):
    server = standin_server()
    code, out = run_ssh(ssh_command(server.port, extra=["-T"]))
    assert code == 1
    assert "played in a terminal" in out


def test_sftp_and_other_subsystems_are_refused(standin_server):
    server = standin_server()
    code, out = run_ssh(ssh_command(server.port, extra=["-s"], remote=["sftp"]))
    assert code != 0
    assert "no file transfer" in out


def test_port_forwarding_is_refused(standin_server):
    server = standin_server()
    extra = ["-N", "-o", "ExitOnForwardFailure=yes", "-R", "0:127.0.0.1:9"]
    code, out = run_ssh(ssh_command(server.port, extra=extra))
    assert code != 0
    assert "forwarding failed" in out


def test_compression_is_offered(standin_server):
    server = standin_server()
    cmd = ssh_command(server.port, extra=["-C"], remote=["x"], log_level="DEBUG1")
    _, out = run_ssh(cmd)
    assert "compression: zlib@openssh.com" in out


def test_per_address_limit(standin_server):
    server = standin_server(max_per_address=1)
    first = SSHTerminal(ssh_command(server.port))
    try:
        first.wait_for("hub name")
        code, out = run_ssh(ssh_command(server.port, extra=["-tt"]))
        assert code != 0
        assert "Too many connections from your address" in out
    finally:
        first.close()


def test_password_night(standin_server, client_key, tmp_path):
    server = standin_server(password="s3cret")
    askpass = tmp_path / "askpass"
    for password, ok in (("wrong", False), ("s3cret", True)):
        askpass.write_text(f"#!/bin/sh\necho {password}\n")
        askpass.chmod(0o700)
        env = {"SSH_ASKPASS": str(askpass), "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": ":0"}
        extra = ["-o", "NumberOfPasswordPrompts=1", "-o", "PreferredAuthentications=password"]
        code, out = run_ssh(ssh_command(server.port, extra=extra, remote=["x"]), env=env)
        if ok:
            assert "Gambit runs no commands" in out  # got in (and was told what to do)
        else:
            assert code == 255 and "Permission denied" in out
    # Without a password, a key alone does not open a private server.
    code, out = run_ssh(ssh_command(server.port, key=client_key, extra=["-o", "BatchMode=yes"]))
    assert code == 255 and "Permission denied" in out


def test_authorized_keys_only(standin_server, client_key, other_key, tmp_path):
    listed = tmp_path / "authorized_keys"
    listed.write_text(client_key.with_suffix(".pub").read_text())
    server = standin_server(authorized_keys=listed)
    term = SSHTerminal(ssh_command(server.port, key=client_key))
    try:
        term.wait_for(re.escape(f"identity={key_fingerprint(client_key)}"))
    finally:
        term.close()
    for key in (other_key, None):
        cmd = ssh_command(server.port, key=key, extra=["-o", "BatchMode=yes", "-tt"])
        code, out = run_ssh(cmd)
        assert code == 255 and "Permission denied" in out


def test_idle_sessions_are_closed(standin_server):
    server = standin_server(idle_timeout=1.0)
    assert "Disconnected after 1 s without a key press." in idle_goodbye(server.port)


def test_host_key_is_private_and_kept(standin_server):
    server = standin_server()
    key_file = server.data_dir / "ssh_host_ed25519_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    from server.ssh.keys import fingerprint, load_or_create_host_key

    again = load_or_create_host_key(server.data_dir)
    assert fingerprint(again) == fingerprint(server.host.host_key)


def test_no_app_outlives_its_session(standin_server):
    """Many sessions, closed out of order: no app (or its screens) may stay alive."""
    server = standin_server()
    made: list = []

    def factory(conn, term, identity, name):
        app = make_standin(conn, term, identity, name)
        made.append(weakref.ref(app))
        return app

    server.host.launcher = InProcessLauncher(factory)
    terms = [SSHTerminal(ssh_command(server.port)) for _ in range(4)]
    try:
        for term in terms:
            term.wait_for("hub name")
        for term in (terms[1], terms[3]):
            term.send("q")
        terms[0].kill()
        terms[2].send("q")
        for term in terms:
            if term.proc.poll() is None:
                term.wait_exit()
    finally:
        for term in terms:
            term.close()
    deadline = time.monotonic() + 10
    while server.sync(lambda: len(server.host.sessions)) and time.monotonic() < deadline:
        time.sleep(0.05)

    assert len(made) == 4
    assert server.alive(made) == 0
    assert "textual" not in type(sys.stdout).__module__


async def test_a_client_that_stops_reading_gets_the_latest_screen(standin_server, monkeypatch):
    """Its backlog stays bounded while it does not read; when it reads again, it is current."""
    import asyncio

    import asyncssh
    import pyte

    from server.terminal import driver

    monkeypatch.setattr(driver, "CONGESTED_BYTES", 4096)
    monkeypatch.setattr(driver, "DRAINED_BYTES", 1024)
    server = standin_server()
    screen = pyte.Screen(80, 24)
    stream = pyte.ByteStream(screen)

    class Reader(asyncssh.SSHClientSession):
        def data_received(self, data, datatype):
            stream.feed(data)

    class Guest(asyncssh.SSHClient):
        def kbdint_auth_requested(self):
            return ""

    async with asyncssh.connect(
        "127.0.0.1",
        server.port,
        username="play",
        known_hosts=None,
        client_keys=None,
        agent_path=None,
        client_factory=Guest,
        preferred_auth=["keyboard-interactive"],
    ) as conn:
        chan, _ = await conn.create_session(
            Reader, term_type="xterm-256color", term_size=(80, 24), encoding=None, window=8192
        )
        for _ in range(100):
            if "hub name" in "\n".join(screen.display):
                break
            await asyncio.sleep(0.05)
        chan.write(b"c")  # the stand-in starts redrawing a counter every 10 ms
        await asyncio.sleep(0.3)
        chan.pause_reading()
        session_driver = server.sync(lambda: next(iter(server.host.sessions)).app.driver)
        backlog = []
        for _ in range(100):  # until it has skipped frames for a while (at most 5 s)
            await asyncio.sleep(0.05)
            backlog.append(
                server.sync(lambda: max(s.pending_output() for s in server.host.sessions))
            )
            if session_driver.frames_skipped > 20:
                break
        assert session_driver.frames_skipped > 20
        assert max(backlog) < 4096 + 2048  # the threshold and at most one frame over it
        chan.resume_reading()
        latest = 0
        for _ in range(100):
            await asyncio.sleep(0.05)
            shown = re.findall(r"count=(\d+)", "\n".join(screen.display))
            app_count = server.sync(lambda: next(iter(server.host.sessions)).app.app.count)
            if shown and app_count - int(shown[0]) < 30:  # within a few frames of the app
                latest = int(shown[0])
                break
        assert latest > 0
