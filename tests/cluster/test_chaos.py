"""The chaos run's short form (bench/chaos.py is the long one): five faults, every kind of
process killed at least once, while players play across two gateways, one of them at a real
terminal (OpenSSH in a pty). When a check fails, every process's log is kept (in this test's
folder, ``kept``: PostgreSQL's own folder is removed), and the failure names it."""

from __future__ import annotations

import pytest

from tests.cluster_support import postgres
from tests.cluster_support.chaos import KINDS, Settings, fault_plan, run

from .harness import nats_server_binary

pytestmark = pytest.mark.cluster


async def test_five_faults_lose_nothing_and_everyone_comes_back(tmp_path):
    if nats_server_binary() is None or not postgres.available():
        pytest.skip("nats-server or PostgreSQL is not installed")
    settings = Settings(
        players=8,
        terminals=1,
        faults=5,
        seed=3,
        between=(1.0, 2.0),
        down=(0.3, 0.8),
        logs=tmp_path / "kept",
    )
    assert set(fault_plan(settings)) == set(KINDS)
    with postgres.running_postgres(durable=True) as server:  # (of its own: it is killed)
        result = await run(settings, tmp_path, server)
    assert result["faults"] == 5, result
    assert result["actions_checked"] > 0, result
    assert result["actions_lost"] == 0, result
    assert result["ledger_sum"] == 0, result
    assert result["not_back"] == 0, result
    assert result["back_to_play_s_max"] <= settings.bound, result
    assert result["two_hubs"] == 0 and result["deals_recorded_twice"] == 0, result
    # The terminal was back at its table after every fault, its seat's moves in the store;
    # its gateway (gw1, the first fault) was killed: the player ran ssh again.
    assert result["sequence"][0] == "gw1" and result["terminal_reconnects"] >= 1, result
    assert result["terminals_not_back"] == 0, result
    assert result["terminal_back_s_max"] <= settings.bound, result
    assert result["terminal_actions_checked"] > 0, result
