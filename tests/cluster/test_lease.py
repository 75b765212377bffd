"""The hub's lease (server/hub/lease.py) through a short NATS pause: a renewal asked while
NATS did not answer, given up by the hub after its wait, is still written once NATS answers
again. The lease then stands at a revision the hub never heard of, still naming it: it is
the hub's own, and the hub serves on (it stopped there, exit 75, and its standby took over:
the chaos run's hub that lost its lease once NATS was back, after a heal that saw it serve).
"""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from .harness import start_hub

pytestmark = pytest.mark.cluster


async def test_a_renewal_written_after_its_wait_ended_leaves_the_lease_with_the_hub(nats, tmp_path):
    import nats as nats_client

    from server.hub.lease import BUCKET, KEY, TTL

    hub = await asyncio.to_thread(start_hub, tmp_path, nats.url, name="solo")
    nc = await nats_client.connect(nats.url)
    try:
        kv = await nc.jetstream().key_value(BUCKET)
        # Just after a renewal (at r): NATS frozen from r + 0.1 to r + 2.3. The next renewal
        # is asked at r + 1, given up at r + 2 (its wait is TTL / 3), and written at r + 2.3,
        # before the entry's TTL ends (r + 3); the one after is asked at r + 3.
        first = (await kv.get(KEY)).revision
        deadline = time.monotonic() + 10
        while (await kv.get(KEY)).revision == first:
            assert time.monotonic() < deadline, "the hub does not renew its lease"
            await asyncio.sleep(0.02)
        renewed = time.monotonic()
        await asyncio.sleep(0.1)
        os.kill(nats.proc.pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(2.2)
        finally:
            os.kill(nats.proc.pid, signal.SIGCONT)
        assert time.monotonic() - renewed < TTL, "(the pause was longer than planned)"
        await asyncio.sleep(TTL + 1.0)  # (renewed since, twice)

        assert hub.proc.poll() is None, hub.log()
        assert "lease: lost" not in hub.log()
        assert "it still named this hub" in hub.log(), hub.log()
        entry = await kv.get(KEY)
        assert entry.revision > first + 2 and b"another" not in entry.value
    finally:
        await nc.close()
        await asyncio.to_thread(hub.stop)
