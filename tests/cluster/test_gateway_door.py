"""A gateway as a public front door, with ``gambit serve``'s options for it: a password night
with a few listed keys, and its metrics (and the hub's), over real ``ssh`` through NATS to a
hub."""

from __future__ import annotations

import os
import re
import subprocess
import urllib.request

import pytest

from tests.ssh.conftest import needs_openssh
from tests.ssh.harness import SSHTerminal, ssh_command, ssh_keygen

from .harness import Gateway, start_hub

pytestmark = [pytest.mark.cluster, needs_openssh]

PASSWORD = "s3cret"


@pytest.fixture(scope="module")
def door(nats, tmp_path_factory):
    """A hub and one gateway that asks for a password, except of one listed key."""
    folder = tmp_path_factory.mktemp("door")
    secret = folder / "password"
    secret.write_text(PASSWORD + "\n")
    listed, unlisted = ssh_keygen(folder / "listed"), ssh_keygen(folder / "unlisted")
    allowed = folder / "authorized_keys"
    allowed.write_text(listed.with_suffix(".pub").read_text())
    hub = start_hub(folder, nats.url, "--metrics", "127.0.0.1:0")
    try:
        hub.wait_line("/metrics")
        hub_metrics = int(re.search(r"Metrics: http://127.0.0.1:(\d+)/metrics", hub.out).group(1))
        gateway = Gateway(
            "gw-door",
            folder,
            nats.url,
            folder / "host_key",
            "--workers",
            "0",
            "--password-file",
            str(secret),
            "--authorized-keys",
            str(allowed),
            "--metrics",
            "127.0.0.1:0",
        )
    except BaseException:
        hub.stop()
        raise
    metrics = re.search(r"Metrics: http://127.0.0.1:(\d+)/metrics", gateway.out)
    assert metrics, gateway.out
    yield {
        "folder": folder,
        "gateway": gateway,
        "metrics": int(metrics.group(1)),
        "hub_metrics": hub_metrics,
        "listed": listed,
        "unlisted": unlisted,
    }
    gateway.stop()
    hub.stop()
    for process in (gateway, hub):
        assert "Traceback" not in process.log(), process.log()


def askpass(folder, password: str) -> dict[str, str]:
    """OpenSSH's own way to be given a password without a person typing it."""
    script = folder / f"askpass-{password}"
    script.write_text(f"#!/bin/sh\necho {password}\n")
    script.chmod(0o700)
    return {"SSH_ASKPASS": str(script), "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": ":0"}


PASSWORD_ONLY = ["-o", "NumberOfPasswordPrompts=1", "-o", "PreferredAuthentications=password"]


def run_ssh(cmd: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    proc = subprocess.run(
        cmd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")}
        | (env or {}),
        start_new_session=True,  # no terminal: ssh must not prompt
    )
    return proc.returncode, proc.stdout + proc.stderr


def scrape(port: int, path: str = "/metrics") -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as answer:
        return answer.read().decode()


def value(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} ([0-9.e+-]+)$", text, re.MULTILINE)
    assert match, f"no {name} in:\n{text}"
    return float(match.group(1))


def test_a_wrong_password_is_refused_and_the_right_one_plays(door):
    gateway, folder = door["gateway"], door["folder"]
    code, out = run_ssh(
        ssh_command(gateway.port, extra=[*PASSWORD_ONLY, "-tt"]), askpass(folder, "wrong")
    )
    assert code == 255 and "Permission denied" in out
    # A key the gateway does not list does not open it either.
    code, out = run_ssh(
        ssh_command(gateway.port, key=door["unlisted"], extra=["-o", "BatchMode=yes", "-tt"])
    )
    assert code == 255 and "Permission denied" in out
    # The right password: the hub's lobby, across the bus (a guest, as in gambit serve).
    term = SSHTerminal(
        ssh_command(gateway.port, extra=PASSWORD_ONLY), env=askpass(folder, PASSWORD)
    )
    try:
        term.wait_for("Enter the lobby", timeout=30)
        term.send("\r")
        term.wait_for("Lobby chat")
        text = scrape(door["metrics"])
        assert value(text, "gambit_sessions") == 1
        assert value(text, "gambit_bus_sessions") == 1
        assert value(text, "gambit_bus_connected") == 1
        assert value(text, "gambit_bus_hub_listening") == 1
        assert value(text, "gambit_app_workers") == 0
        assert value(text, 'gambit_refusals_total{reason="auth_failed"}') >= 2
        assert value(text, "gambit_event_loop_lag_seconds_count") > 0
        assert scrape(door["metrics"], "/healthz") == "ok\n"
        # The hub's own (gambit hub --metrics): the player it serves through the bus.
        assert value(scrape(door["hub_metrics"]), "gambit_players_online") == 1
    finally:
        term.close()


def test_a_listed_key_needs_no_password(door):
    term = SSHTerminal(ssh_command(door["gateway"].port, "Lee", key=door["listed"]))
    try:
        term.wait_for("Enter the lobby|Lobby chat", timeout=30)
    finally:
        term.close()


def test_a_gateway_says_its_refusals_in_the_clients_language(door):
    """The gateway's hub is across the bus (no stored language to ask for): a refusal follows
    the locale the client sends, else English."""
    key = door["listed"]
    code, out = run_ssh(ssh_command(door["gateway"].port, key=key, remote=["ls"]))
    assert code == 1 and "Gambit runs no commands" in out
    ukrainian = ["-o", "SetEnv=LANG=uk_UA.UTF-8"]
    cmd = ssh_command(door["gateway"].port, key=key, extra=ukrainian, remote=["ls"])
    code, out = run_ssh(cmd)
    assert code == 1 and "Gambit не виконує команд" in out
