"""A plain session against a real hub, in process (no SSH): what the plain mode's command
tests type and read (the lines said, and the raw bytes for the bell)."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable

from gambit_tui.plain.client import PlainClient
from protocol.connection import queue_pair
from server.hub import Hub


class PlainSession:
    """One player's plain session, connected the way the SSH host connects one."""

    def __init__(self, hub: Hub, name: str = "Ada", identity: str | None = "SHA256:ada") -> None:
        client_end, hub_end = queue_pair(trusted=True)
        loop = asyncio.get_running_loop()
        self._serving = loop.create_task(hub.serve(hub_end))
        self.raw = bytearray()
        self.client = PlainClient(client_end, self.raw.extend, name=name, identity=identity)
        # Its own context, as the app host gives it: the catalog it sets is its own.
        self._task = loop.create_task(self.client.run(), context=contextvars.Context())

    @property
    def said(self) -> list[str]:
        return self.client.said

    async def wait_for(self, predicate: Callable[[], object], timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError("timed out; said:\n" + "\n".join(self.said[-30:]))
            await asyncio.sleep(0.01)

    async def heard(self, text: str, since: int = 0) -> list[str]:
        """Wait until a line from ``since`` on contains ``text``; the lines from ``since``."""
        await self.wait_for(lambda: any(text in line for line in self.said[since:]))
        return self.said[since:]

    async def type(self, line: str, until: str) -> list[str]:
        """Type ``line`` and Enter; the lines said after it, once one contains ``until``."""
        since = len(self.said)
        self.client.feed(line.encode() + b"\r")
        return await self.heard(until, since)

    async def close(self) -> None:
        self.client.exit()
        await asyncio.wait_for(self._task, 5)
        await self.client.conn.close()
