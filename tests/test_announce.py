"""Finding a server on the LAN (issue 42): ``gambit serve`` announces its SSH port with
DNS-SD over mDNS (on by default beyond loopback), the banner says so, ``gambit connect`` with
no host browses for it, and stopping the announcer leaves no socket, task or thread. It
registers in the background: the banner does not wait for it."""

from __future__ import annotations

import asyncio
import io
import os
import socket
import threading

import asyncssh

from gambit_connect.discover import Found, browse
from protocol.lan import SERVICE_TYPE, SSH_SERVICE_TYPE
from server.announce import Announcer, Announcing, instance_name, service_infos, wanted
from server.cli import build_parser
from server.hub import HubConfig
from server.ssh.banner import banner
from server.ssh.config import HostConfig
from server.ssh.serve import run_serve


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
    assert 'Announcing on the local network as "Gambit on box" (mDNS)' in text
    assert "Announcing" not in banner("127.0.0.1", 2222, key)


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
    assert _open_files() <= files  # (others' closed meanwhile, as the collector ran)


async def test_the_banner_does_not_wait_for_the_registration(tmp_path, monkeypatch):
    """Regression: ``gambit serve --announce`` probed the network for its name (about a
    second) before it showed its banner; a registration that takes its time (here until the
    test lets it end) no longer holds the banner back, and it is stopped with the server."""
    registering, release = asyncio.Event(), asyncio.Event()
    stopped: list[str] = []

    async def slow_start(self: Announcer) -> None:
        registering.set()
        await release.wait()

    async def stop(self: Announcer) -> None:
        stopped.append(self.name)

    monkeypatch.setattr(Announcer, "start", slow_start)
    monkeypatch.setattr(Announcer, "stop", stop)
    out = io.StringIO()
    serving = asyncio.create_task(
        run_serve(
            tmp_path,
            HubConfig(bot_workers=0),
            HostConfig(port=0, app_workers=0),
            out,
            announce=True,
        )
    )

    async def banner_shown() -> None:
        while "Host key fingerprint" not in out.getvalue():
            await asyncio.sleep(0.01)

    try:
        await asyncio.wait_for(banner_shown(), 10)
        await asyncio.wait_for(registering.wait(), 5)
        assert not release.is_set()  # (the registration is still under way)
        assert f'Announcing on the local network as "{instance_name()}" (mDNS)' in out.getvalue()
        release.set()
    finally:
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
    assert stopped == [instance_name()]


async def test_registering_in_the_background_is_found_and_stops_clean():
    port = _free_port()
    tasks, threads, files = asyncio.all_tasks(), threading.active_count(), _open_files()
    infos = service_infos("Gambit later", port, ["127.0.0.1"], "9.9", hostname="gambit-test")
    announcing = Announcing(Announcer(infos, interfaces=["127.0.0.1"]))
    assert announcing.name == "Gambit later"  # (known at once, for the banner)
    try:
        assert await announcing.registered()
        found = await browse(1.5, interfaces=["127.0.0.1"])
    finally:
        await announcing.stop()
    assert Found("Gambit later", "127.0.0.1", port, "9.9") in found
    # Stopped while it is still probing: nothing is left either.
    early = Announcing(Announcer(infos, interfaces=["127.0.0.1"]))
    await asyncio.sleep(0.1)
    await early.stop()
    await asyncio.sleep(0)
    assert asyncio.all_tasks() == tasks
    assert threading.active_count() == threads
    assert _open_files() <= files  # (others' closed meanwhile, as the collector ran)
