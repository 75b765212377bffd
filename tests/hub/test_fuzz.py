"""Fuzzing the hub through both transports: bad frames never crash it nor change it.

A hub runs two tables: table A (Prophet's Gambit, stake 10) is frozen mid-game waiting for its
two human seats, who are the fuzzers — one over the in-process queue transport, one over a
unix socket — and table B (Prophet, one honest client and two bots) keeps playing all along.
Hypothesis builds bursts of random bytes, oversized length prefixes, valid msgpack of wrong
shapes, valid messages with a field mutated (wrong type, missing, unknown, too long, out of
range, deeply nested), unknown types, well-formed requests the hub must refuse, and illegal
actions in ``act``, split into chunks at random places. For every burst the tests check that

* each frame gets exactly one answer, in order: an ``error`` (with ``ref`` for well-formed
  requests that were refused, without it for broken frames), or ``pong`` for a ping;
* a client that sends ``max_bad_frames`` broken frames in a row gets ``bye`` and is cut off,
  and frames after that get nothing;
* nothing changed: table A's engine snapshot, seats and stored actions, both tables' seats,
  the fuzzers' balances, names, friends and invites, the pot, and the ledger (sums to zero);
* the hub never logs an error nor answers ``internal``, and table B's games went on.

The frames and checks are in tests/hub/fuzzing.py, which bench/fuzz.py sends 10^6 of.
"""

from __future__ import annotations

import asyncio
import itertools
import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.codec import encode
from server.hub import Hub
from server.hub.listener import serve_unix

from .conftest import fast_config
from .fuzzing import (
    MAX_BAD,
    PROTOCOL_CODES,
    World,
    answers,
    broken,
    check_answers,
    draw_attack,
    expected,
    finish,
    no_errors_logged,
    ping,
    refused,
    same,
)
from .harness import Client, connect, connect_unix


def test_fuzzed_frames_never_crash_the_hub_nor_change_it(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    with asyncio.Runner() as runner:
        world = runner.run(World.create(tmp_path))
        try:
            before = world.fingerprint()
            games_before = world.hub.tables[world.b_id].games_played

            @settings(
                max_examples=100,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                database=None,
            )
            @given(data=st.data())
            def attack(data):
                caplog.clear()
                start = world.fingerprint()
                runner.run(world.attack(draw_attack(data, world)))
                same(world.fingerprint(), start)
                assert world.store.ledger_total() == 0 and not world.store.audit()
                no_errors_logged(caplog)

            attack()
            same(world.fingerprint(), before)
            assert world.frames_sent >= 3000, world.frames_sent
            # every layer was reached: framing, msgpack, validation, handlers, the engine
            assert set(world.codes) >= {*PROTOCOL_CODES, "malformed", "illegal", "pong"}, (
                world.codes
            )
            runner.run(finish(world, games_before, before["a_row"]["actions"]))
            no_errors_logged(caplog)
        finally:
            runner.run(world.close())


# --- the stream itself: prefixes that never end, frames cut short, bytes one at a time -------


async def stream_client(hub: Hub, tmp_path, unix: bool) -> tuple[Client, asyncio.Server | None]:
    if not unix:
        return await connect(hub, trusted=False), None
    server = await serve_unix(hub, tmp_path / "s.sock")
    return await connect_unix(str(tmp_path / "s.sock")), server


@pytest.mark.parametrize("unix", [False, True], ids=["queue", "unix"])
async def test_frames_arriving_one_byte_at_a_time_are_answered(hub, tmp_path, unix):
    client, server = await stream_client(hub, tmp_path, unix)
    try:
        await client.hello()
        frames = [ping(), broken(b"\xc1"), refused({"t": "start", "table": 99}), ping()]
        data = b"".join(f.data for f in frames)
        start = len(client.log)
        for i in range(len(data)):
            await client.conn.send_raw(data[i : i + 1])
            if i % 7 == 0:
                await asyncio.sleep(0)
        await client.expect("pong", n=frames[-1].n)
        check_answers(answers(client.log[start:]), expected(frames)[0])
    finally:
        await client.close()
        if server is not None:
            server.close()


@pytest.mark.parametrize("unix", [False, True], ids=["queue", "unix"])
@pytest.mark.parametrize(
    "tail",
    [
        b"\xff\xff\xff\xff" + b"x" * 100 + encode({"t": "ping", "n": 5}),  # a prefix of 4 GiB
        b"\x00\x00",  # half a length prefix
        b"\x00\x00\x01\x00" + b"\x81" * 40,  # 256 bytes promised, 40 sent
    ],
    ids=["endless", "half-prefix", "short-body"],
)
async def test_a_stream_cut_short_ends_only_its_own_session(hub, store, tmp_path, unix, tail):
    """An oversized or unfinished frame at the end of a stream: the hub answers what it can,
    swallows the rest, and when the client goes its session ends cleanly; others play on."""
    other = await connect(hub)
    await other.hello("Other", identity="key-other")
    client, server = await stream_client(hub, tmp_path, unix)
    try:
        await client.hello()
        sessions = len(hub.sessions)
        first = ping()
        start = len(client.log)
        await client.conn.send_raw(first.data + tail)
        await client.expect("pong", n=first.n)
        await asyncio.sleep(0.05)
        got = answers(client.log[start:])
        if tail.startswith(b"\xff"):
            assert [m.get("code") for m in got[1:]] == ["frame_too_large"]  # then nothing
        else:
            assert got[1:] == []
        await client.close()
        async with asyncio.timeout(5):
            while len(hub.sessions) != sessions - 1:
                await asyncio.sleep(0.005)
        if not unix:
            await asyncio.wait_for(client.hub_task, 5)  # type: ignore[attr-defined]  # noted on the test's client
        await other.send("ping", n=42)
        await other.expect("pong", n=42)
        assert store.ledger_total() == 0
    finally:
        await other.close()
        if server is not None:
            server.close()


@pytest.mark.parametrize("unix", [False, True], ids=["queue", "unix"])
async def test_only_broken_frames_in_a_row_cut_a_client_off(hub, tmp_path, unix):
    client, server = await stream_client(hub, tmp_path, unix)
    try:
        await client.hello()
        run = [broken(b"\xc1")] * (MAX_BAD - 1)
        frames = [*run, refused({"t": "start", "table": 99}), *run, ping()]
        start = len(client.log)
        await client.conn.send_raw(b"".join(f.data for f in frames))
        await client.expect("pong", n=frames[-1].n)
        check_answers(answers(client.log[start:]), expected(frames)[0])
        start = len(client.log)
        await client.conn.send_raw(b"".join(f.data for f in [broken(b"\xc1")] * MAX_BAD))
        async with asyncio.timeout(5):
            while not client.closed:
                await asyncio.sleep(0.005)
        got = answers(client.log[start:])
        assert [m["t"] for m in got] == ["error"] * (MAX_BAD - 1) + ["bye"]
        assert got[-1]["code"] == "too_many_errors"
    finally:
        await client.close()
        if server is not None:
            server.close()


@pytest.mark.parametrize("unix", [False, True], ids=["queue", "unix"])
async def test_chatter_without_hello_does_not_keep_a_connection_open(store, tmp_path, unix):
    """``hello_timeout`` is the time a connection has to say hello, in all: well-formed or
    broken frames before it do not buy more time."""
    hub = Hub(store, fast_config(hello_timeout=0.3))
    await hub.start()
    client, server = await stream_client(hub, tmp_path, unix)
    try:
        started = asyncio.get_running_loop().time()
        async with asyncio.timeout(3):
            for i in itertools.count():
                if client.closed:
                    break
                await client.conn.send_raw(broken(b"").data if i % 3 == 2 else ping().data)
                await asyncio.sleep(0.05)
        assert asyncio.get_running_loop().time() - started < 1.0
        assert not hub.sessions
        got = answers(client.log)
        assert got and all(m["code"] in ("hello_first", "bad_frame") for m in got[:-1])
    finally:
        await client.close()
        if server is not None:
            server.close()
        await hub.stop()
