"""Finding a server on the LAN (issue 42): ``gambit serve`` announces its SSH port with
DNS-SD over mDNS (on by default beyond loopback), the banner says so, ``gambit connect`` with
no host browses for it, and stopping the announcer leaves no socket, task or thread."""

from __future__ import annotations

import asyncio
import os
import socket
import threading

import asyncssh

from gambit_connect.discover import Found, browse
from protocol.lan import SERVICE_TYPE, SSH_SERVICE_TYPE
from server.announce import Announcer, instance_name, service_infos, wanted
from server.cli import build_parser
from server.ssh.banner import banner


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_announcing_is_on_beyond_loopback_unless_the_flags_say_otherwise():
    parse = build_parser().parse_args
    assert parse(["serve"]).announce is None
    assert parse(["serve", "--announce"]).announce is True
    assert parse(["serve", "--no-announce"]).announce is False
    assert not wanted(None, "127.0.0.1") and not wanted(None, "::1")
    assert wanted(None, "0.0.0.0") and wanted(None, "192.168.1.5")
    assert not wanted(False, "0.0.0.0") and wanted(True, "127.0.0.1")


def test_the_records_name_the_server_its_port_addresses_and_version():
    name = instance_name("box.example.org")
    assert name == "Gambit on box"
    infos = service_infos(name, 2222, ["192.168.1.5"], "0.1.0", hostname="box.example.org")
    assert [i.type for i in infos] == [SERVICE_TYPE, SSH_SERVICE_TYPE]
    for info in infos:
        assert info.name == f"Gambit on box.{info.type}"
        assert info.port == 2222
        assert info.parsed_addresses() == ["192.168.1.5"]
        assert info.decoded_properties == {"version": "0.1.0", "user": "play"}
        assert info.server == "box.local."
    assert len(instance_name("x" * 100).encode()) <= 63  # (one DNS label)


def test_the_banner_says_the_server_is_announced():
    key = asyncssh.generate_private_key("ssh-ed25519")
    text = banner("0.0.0.0", 2222, key, announced="Gambit on box")
    assert 'Announced on the local network as "Gambit on box" (mDNS)' in text
    assert "Announced" not in banner("127.0.0.1", 2222, key)


async def test_a_server_announced_on_loopback_is_found_by_browsing_and_stops_clean():
    port = _free_port()
    tasks, threads, files = asyncio.all_tasks(), threading.active_count(), _open_files()
    infos = service_infos("Gambit test", port, ["127.0.0.1"], "9.9", hostname="gambit-test")
    announcer = Announcer(infos, interfaces=["127.0.0.1"])
    await announcer.start()
    try:
        assert announcer.name == "Gambit test"
        found = await browse(1.5, interfaces=["127.0.0.1"])
    finally:
        await announcer.stop()
    assert Found("Gambit test", "127.0.0.1", port, "9.9") in found
    await asyncio.sleep(0)
    # Nothing of either side is left: no task, no thread, no socket.
    assert asyncio.all_tasks() == tasks
    assert threading.active_count() == threads
    assert _open_files() == files
