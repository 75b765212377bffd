"""The server's one change to asyncssh (``server/ssh/asyncssh_layer.py``): no empty
``SSH_MSG_IGNORE`` before every packet under an AEAD cipher, counted by a real OpenSSH client
(its ``DEBUG3`` log names every such packet it receives)."""

from __future__ import annotations

import pytest
from asyncssh.connection import SSHConnection

from server.ssh import asyncssh_layer

from .conftest import needs_openssh
from .harness import ssh_command
from .test_host import run_ssh


def test_asyncssh_send_packet_is_the_one_the_change_was_written_for():
    """An asyncssh whose ``send_packet`` changed fails here (and the server leaves it as it
    is, with a warning): read the new one, then take its fingerprint."""
    assert asyncssh_layer.fingerprint(asyncssh_layer.ORIGINAL) == asyncssh_layer.FINGERPRINT


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
    assert SSHConnection.send_packet is not asyncssh_layer.ORIGINAL  # (installed by the host)
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
