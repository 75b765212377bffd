"""The server's changes to asyncssh (``server/ssh/asyncssh_layer.py``): no empty
``SSH_MSG_IGNORE`` before every packet under an AEAD cipher, counted by a real OpenSSH client
(its ``DEBUG3`` log names every such packet it receives); packets described for asyncssh's
debug log only when it logs them; a closed connection freed without the collector."""

from __future__ import annotations

import gc
import time

import pytest
from asyncssh.connection import SSHConnection, SSHServerConnection
from asyncssh.logging import SSHLogger
from asyncssh.packet import SSHPacketLogger

from server.ssh import asyncssh_layer

from .conftest import needs_openssh
from .harness import ssh_command
from .test_host import run_ssh


def test_asyncssh_is_the_code_the_changes_were_written_for():
    """An asyncssh whose originals changed fails here (and the server leaves them as they
    are, with a warning): read the new ones, then take their fingerprints."""
    assert asyncssh_layer.changed() == []


def ignores_received(port: int, cipher: str) -> int:
    """``SSH_MSG_IGNORE`` packets an OpenSSH client receives in a short session (a command,
    refused with a message) with ``cipher``."""
    cmd = ssh_command(port, remote=["ls"], log_level="DEBUG3", extra=["-o", f"Ciphers={cipher}"])
    code, out = run_ssh(cmd)
    assert code == 1 and "Gambit runs no commands" in out  # the session itself is as before
    return out.count("Received SSH2_MSG_IGNORE")


@needs_openssh
@pytest.mark.parametrize("cipher", ["chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com"])
def test_an_aead_cipher_gets_no_empty_packet_before_each_packet(standin_server, cipher):
    server = standin_server()
    assert SSHConnection.send_packet is not asyncssh_layer.SEND_PACKET  # (the host installs)
    assert ignores_received(server.port, cipher) == 0
    asyncssh_layer.uninstall()
    try:
        assert ignores_received(server.port, cipher) >= 5  # asyncssh's own: one per packet
    finally:
        asyncssh_layer.install()


@needs_openssh
def test_other_ciphers_keep_asyncssh_s_packets(standin_server):
    server = standin_server()
    assert ignores_received(server.port, "aes128-ctr") >= 5


def test_packets_are_described_only_when_asyncssh_logs_them(monkeypatch):
    described = []
    monkeypatch.setattr(asyncssh_layer, "LOG_PACKET", lambda *args: described.append(args))
    asyncssh_layer.install()
    logger = SSHPacketLogger()
    logger.log_sent_packet(94, 7, b"data")
    assert described == []
    monkeypatch.setattr(SSHLogger, "_debug_level", 3)
    logger.log_sent_packet(94, 7, b"data")
    assert len(described) == 1


def connections_left(server) -> int:
    """asyncssh connections the server process still holds, garbage in cycles included."""

    def count() -> int:
        return sum(isinstance(o, SSHServerConnection) for o in gc.get_objects())

    return server.sync(count)


@needs_openssh
@pytest.mark.parametrize("installed", [True, False], ids=["installed", "asyncssh's own"])
def test_a_closed_connection_is_freed_without_the_collector(standin_server, installed):
    """Closed connections waited in a reference cycle for the server process's sweeps, which
    come every few hundred sessions: megabytes between sweeps in a soak."""
    server = standin_server()
    if not installed:
        asyncssh_layer.uninstall()
    gc.collect()
    gc.disable()  # (the whole process: only reference counting frees anything now)
    try:
        for _ in range(3):
            code, out = run_ssh(ssh_command(server.port, remote=["ls"]))
            assert code == 1 and "Gambit runs no commands" in out
        # (asyncssh's own: given time to clean up too, so that what is left is garbage)
        deadline = time.monotonic() + (5 if installed else 2)
        while (left := connections_left(server)) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        gc.enable()
        asyncssh_layer.install()
    assert left == (0 if installed else 3)
