"""``gambit hub``'s exit code tells a service manager whether to start it again: 75 (as after
an admin's restart, or its database lock lost) when its store cannot commit, so that it starts
again from what the store holds; 0 when it was asked to stop."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from protocol.connection import open_tcp
from protocol.messages import PROTOCOL_VERSION
from server.hub.main import RESTART_EXIT

from .harness import Client
from .hub_process import HubProcess


def refusing_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[HubProcess, Path]:
    """A real ``gambit hub`` whose database refuses to commit once the flag file exists
    (tests/hub/commit_fails.py), and that file's path."""
    flag = tmp_path / "refuse-commits"
    monkeypatch.setenv("GAMBIT_TEST_COMMIT_FAILS", str(flag))
    hub = HubProcess(tmp_path / "data")
    hub.module = "tests.hub.commit_fails"
    return hub, flag


@pytest.mark.parametrize("refused", ["once", "always"])
async def test_a_hub_whose_store_cannot_commit_exits_to_be_started_again(
    tmp_path, monkeypatch, refused
):
    hub, flag = refusing_hub(tmp_path, monkeypatch)
    try:
        await hub.start()
        flag.write_text(refused)
        # A guest arrives: their chips are written (a batch), and the welcome waits for it.
        client = Client(await open_tcp("127.0.0.1", hub.tcp_port))
        await client.send("hello", v=PROTOCOL_VERSION, lang="en", name="Ada")
        assert hub.proc is not None
        code = await asyncio.wait_for(hub.proc.wait(), 15)
        await client.close()
        log = hub.log.read_text()
        assert code == RESTART_EXIT, log
        assert "the store cannot commit; stopping" in log
        assert not any(m["t"] == "welcome" for m in client.log)  # (nothing it did not store)
    finally:
        await hub.close()


async def test_a_hub_asked_to_stop_exits_0(tmp_path, monkeypatch):
    hub, _flag = refusing_hub(tmp_path, monkeypatch)
    try:
        await hub.start()
        client = await hub.guest("Ada")
        await client.close()
        assert await hub.stop(signal.SIGTERM) == 0
    finally:
        await hub.close()
