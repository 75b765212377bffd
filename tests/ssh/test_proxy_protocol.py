"""The PROXY protocol before SSH (``--proxy-protocol``), and gateways sharing a port."""

from __future__ import annotations

import asyncio
import socket
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from server.ssh import proxy_protocol as pp
from server.ssh.door import FrontDoor, Listener

from .conftest import needs_openssh
from .harness import SSHTerminal, ssh_command

RELAY = Path(__file__).with_name("proxy_relay.py")


def test_v2_ipv4_and_ipv6_name_the_client():
    header = pp.v2_header("203.0.113.7", 51000, "10.0.0.1", 22)
    assert pp.parse_v2(header[:16], header[16:]) == "203.0.113.7"
    header = pp.v2_header("2001:db8::5", 51000, "2001:db8::1", 22)
    assert pp.parse_v2(header[:16], header[16:]) == "2001:db8::5"


def test_v2_local_is_the_balancers_own_connection():
    header = pp.V2_SIGNATURE + bytes([0x20, 0x00]) + (0).to_bytes(2, "big")
    assert pp.parse_v2(header, b"") is None


@pytest.mark.parametrize(
    "header",
    [
        b"\r\n\r\n\x00\r\nQUIX\n" + bytes([0x21, 0x11, 0, 12]),  # signature
        pp.V2_SIGNATURE + bytes([0x11, 0x11, 0, 12]),  # version 1 in a v2 header
        pp.V2_SIGNATURE + bytes([0x2F, 0x11, 0, 12]),  # command 15
        pp.V2_SIGNATURE + bytes([0x21, 0x11, 0, 4]),  # IPv4 cut short
    ],
)
def test_broken_v2_headers_are_refused(header):
    with pytest.raises(pp.ProxyHeaderError):
        pp.parse_v2(header[:16], bytes(int.from_bytes(header[14:16], "big")))


def test_v1_lines():
    assert pp.parse_v1(b"PROXY TCP4 198.51.100.2 10.0.0.1 51000 22\r\n") == "198.51.100.2"
    assert pp.parse_v1(b"PROXY TCP6 2001:db8::9 2001:db8::1 51000 22\r\n") == "2001:db8::9"
    assert pp.parse_v1(b"PROXY UNKNOWN\r\n") is None
    for bad in (
        b"PROXY TCP4 198.51.100.2 10.0.0.1 51000\r\n",
        b"PROXY TCP4 2001:db8::9 10.0.0.1 51000 22\r\n",
        b"PROXY TCP4 198.51.100.2 10.0.0.1 99999 22\r\n",
        b"PROXY TCP4 nowhere 10.0.0.1 1 22\r\n",
        b"SSH-2.0-OpenSSH_9.6\r\n",
    ):
        with pytest.raises(pp.ProxyHeaderError):
            pp.parse_v1(bad)


async def read_from(*chunks: bytes):
    a, b = socket.socketpair()
    a.setblocking(False)
    for chunk in chunks:
        b.sendall(chunk)
    try:
        return await pp.read_header(a)
    finally:
        a.close()
        b.close()


async def test_the_header_is_read_and_nothing_after_it_is_lost():
    v2 = pp.v2_header("203.0.113.7", 51000)
    assert await read_from(v2, b"SSH-2.0-x\r\n") == ("203.0.113.7", b"")
    # A v1 line shorter than the 16 bytes first read: SSH's start is handed on.
    assert await read_from(b"PROXY UNKNOWN\r\nSSH-2.0-x\r\n") == (None, b"S")
    with pytest.raises(pp.ProxyHeaderError):
        await read_from(b"SSH-2.0-OpenSSH_9.6\r\n")


@needs_openssh
def test_the_address_in_the_header_is_the_one_the_host_sees(standin_server):
    server = standin_server(proxy_protocol=True, max_per_address=1)
    relay = f"{sys.executable} {RELAY} {server.port} 203.0.113.7"
    cmd = ssh_command(server.port, extra=["-o", f"ProxyCommand={relay}"])
    first = SSHTerminal(cmd)
    try:
        first.wait_for("hub name")
        assert server.sync(lambda: [s.address for s in server.host.sessions]) == ["203.0.113.7"]
        # The per-address limit counts the client named by the balancer, not the balancer.
        second = SSHTerminal(cmd)
        try:
            second.wait_for("Too many (sessions|connections) from your")
        finally:
            second.close()
        other = f"{sys.executable} {RELAY} {server.port} 198.51.100.4"
        third = SSHTerminal(ssh_command(server.port, extra=["-o", f"ProxyCommand={other}"]))
        try:
            third.wait_for("hub name")
        finally:
            third.close()
    finally:
        first.close()


def test_a_connection_without_a_header_is_dropped(standin_server):
    server = standin_server(proxy_protocol=True)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"SSH-2.0-OpenSSH_9.6\r\nmore bytes here")
        sock.settimeout(10)
        start = time.monotonic()
        try:
            said = sock.recv(100)
        except ConnectionResetError:  # closed with our bytes unread
            said = b""
        assert said == b""  # closed without a word: no SSH version, nothing
        assert time.monotonic() - start < 8


async def test_two_listeners_share_a_port_with_reuse_port():
    keeper = SimpleNamespace()  # (never asked: nobody connects)

    def door(reuse_port: bool) -> FrontDoor:
        return FrontDoor(keeper, reuse_port=reuse_port, proxy_protocol=False)  # type: ignore[arg-type]  # a stand-in keeper

    shared = door(True)
    first = Listener(shared, lambda *a: None, "127.0.0.1", 0)
    port = first.sockets[0].getsockname()[1]
    second = Listener(shared, lambda *a: None, "127.0.0.1", port)
    try:
        assert second.sockets[0].getsockname()[1] == port
    finally:
        first.close()
        second.close()
    taken = Listener(door(False), lambda *a: None, "127.0.0.1", 0)
    try:
        with pytest.raises(OSError):
            Listener(door(False), lambda *a: None, "127.0.0.1", taken.sockets[0].getsockname()[1])
    finally:
        taken.close()
    await asyncio.sleep(0)
