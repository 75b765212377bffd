"""A plain session on a real hub, in this process (no SSH): a :class:`PlainClient` on an
in-process connection, lines typed as keys, and the lines it said."""

from __future__ import annotations

import asyncio
import contextvars
import re
import time
from collections.abc import Callable

from gambit_tui.plain.client import PlainClient
from protocol.connection import queue_pair
from server.hub import Hub

#: Seconds a test waits for a line before it fails.
WAIT = 10.0


class Session:
    """A plain client on the hub, and what it said (the game and history tests' helper;
    :class:`PlainSession` is the command tests' one)."""

    def __init__(self, client: PlainClient, tasks: list[asyncio.Task]) -> None:
        self.client = client
        self.tasks = tasks
        #: The turn prompts said (the lines said with a bell), in order.
        self.prompts: list[str] = []
        say = client.say

        def said(*lines: str, bell: bool = False) -> None:
            if bell:
                self.prompts.extend(lines)
            say(*lines, bell=bell)

        client.say = said  # type: ignore[method-assign]  # (a test's tap on what is said)

    @property
    def said(self) -> list[str]:
        return self.client.said

    def type(self, line: str) -> int:
        """Type ``line``; the number of lines said before it (what it says comes after)."""
        before = len(self.said)
        self.client.feed(line.encode() + b"\r")
        return before

    async def until(self, found: Callable[[list[str]], object], timeout: float = WAIT) -> None:
        async def wait() -> None:
            while not found(self.said):
                await asyncio.sleep(0.005)

        await asyncio.wait_for(wait(), timeout)

    async def line(self, pattern: str, after: int = 0) -> str:
        """The first line said since ``after`` that matches ``pattern`` (waited for)."""
        await self.until(lambda said: any(re.search(pattern, x) for x in said[after:]))
        return next(x for x in self.said[after:] if re.search(pattern, x))

    async def settle(self) -> None:
        """Wait until a moment passes with nothing new said."""
        for _ in range(200):
            before = len(self.said)
            await asyncio.sleep(0.05)
            if len(self.said) == before:
                return

    async def close(self) -> None:
        self.client.exit()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def plain(hub: Hub, name: str, lang: str | None = None) -> Session:
    client_end, hub_end = queue_pair(trusted=True)
    loop = asyncio.get_running_loop()
    served = loop.create_task(hub.serve(hub_end))
    client = PlainClient(client_end, lambda data: None, lang=lang, identity=f"SHA256:{name}")
    client.wished_name = name
    # (its own context, as the server runs it: the catalog it chooses is its own)
    run = loop.create_task(client.run(), context=contextvars.Context())
    session = Session(client, [served, run])
    await session.until(lambda said: len(said) >= 2)  # (the welcome's two lines)
    return session


def _seated(session: Session) -> int:
    message = session.client.model.views.get(session.client.table or 0) or {}
    seats = (message.get("info") or {}).get("seats") or []
    return sum(1 for s in seats if s.get("name") or s.get("bot"))


async def play(
    session: Session, new: str, bots: int, over: str = "Game over.", turns: int = 400
) -> list[str]:
    """A game opened by ``new``, against ``bots`` bots, each prompt answered with 1, until
    ``over`` is said; the lines said from its start to its end."""
    session.type(new)
    await session.until(lambda said: session.client.table is not None)
    for seat in range(1, bots + 1):
        session.type("bot")
        await session.until(lambda said, seat=seat: _seated(session) > seat)
    start = session.type("start")
    answered = len(session.prompts)
    for _ in range(turns):
        await session.until(
            lambda said, n=answered: over in said[start:] or len(session.prompts) > n
        )
        if over in session.said[start:]:
            break
        answered += 1
        session.type("1")
    await session.settle()
    return session.said[start:]


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
