"""A plain session on a real hub, in this process (no SSH): a :class:`PlainClient` on an
in-process connection, connected the way the SSH host connects one; lines typed as keys, the
lines it said, the bytes it wrote to the terminal and the turn prompts it rang the bell for."""

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
WAIT = 15.0


class PlainSession:
    """One player's plain session on the hub, and what it said and wrote."""

    def __init__(
        self, hub: Hub, name: str = "Ada", identity: str | None = None, lang: str | None = None
    ) -> None:
        client_end, hub_end = queue_pair(trusted=True)
        loop = asyncio.get_running_loop()
        self._serving = loop.create_task(hub.serve(hub_end))
        #: The bytes written to the player's terminal.
        self.raw = bytearray()
        self.client = PlainClient(
            client_end,
            self.raw.extend,
            name=name,
            lang=lang,
            identity=identity or f"SHA256:{name.lower()}",
        )
        #: The turn prompts said (the lines said with a bell), in order.
        self.prompts: list[str] = []
        say = self.client.say

        def said(*lines: str, bell: bool = False) -> None:
            if bell:
                self.prompts.extend(lines)
            say(*lines, bell=bell)

        self.client.say = said  # type: ignore[method-assign]  # (a test's tap on what is said)
        # Its own context, as the app host gives it: the catalog it sets is its own.
        self._task = loop.create_task(self.client.run(), context=contextvars.Context())

    @property
    def said(self) -> list[str]:
        return self.client.said

    async def wait_for(self, predicate: Callable[[], object], timeout: float = WAIT) -> None:
        """Wait until ``predicate()`` holds; fail, with the last lines said, after ``timeout``."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError("timed out; said:\n" + "\n".join(self.said[-30:]))
            await asyncio.sleep(0.005)

    def enter(self, line: str) -> int:
        """Type ``line`` and Enter; the number of lines said before it (what it says comes
        after)."""
        before = len(self.said)
        self.client.feed(line.encode() + b"\r")
        return before

    async def type(self, line: str, until: str) -> list[str]:
        """Type ``line`` and Enter; the lines said after it, once one contains ``until``."""
        return await self.heard(until, self.enter(line))

    async def heard(self, text: str, since: int = 0) -> list[str]:
        """Wait until a line from ``since`` on contains ``text``; the lines from ``since``."""
        await self.wait_for(lambda: any(text in line for line in self.said[since:]))
        return self.said[since:]

    async def line(self, pattern: str, after: int = 0) -> str:
        """The first line said since ``after`` that matches ``pattern`` (waited for)."""
        await self.wait_for(lambda: any(re.search(pattern, x) for x in self.said[after:]))
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
        await asyncio.wait_for(self._task, 5)
        await self.client.conn.close()
        await asyncio.wait({self._serving}, timeout=5)
        self._serving.cancel()
        await asyncio.gather(self._serving, return_exceptions=True)


async def plain(
    hub: Hub, name: str = "Ada", lang: str | None = None, identity: str | None = None
) -> PlainSession:
    """A plain session on ``hub``, once its welcome (two lines) has been said."""
    session = PlainSession(hub, name, identity, lang)
    await session.wait_for(lambda: len(session.said) >= 2)
    return session


def _seated(session: PlainSession) -> int:
    message = session.client.model.views.get(session.client.table or 0) or {}
    seats = (message.get("info") or {}).get("seats") or []
    return sum(1 for s in seats if s.get("name") or s.get("bot"))


async def play(
    session: PlainSession, new: str, bots: int, over: str = "Game over.", turns: int = 400
) -> list[str]:
    """A game opened by ``new``, against ``bots`` bots, each prompt answered with 1, until
    ``over`` is said; the lines said from its start to its end."""
    session.enter(new)
    await session.wait_for(lambda: session.client.table is not None)
    for seat in range(1, bots + 1):
        session.enter("bot")
        await session.wait_for(lambda seat=seat: _seated(session) > seat)
    start = session.enter("start")
    answered = len(session.prompts)
    for _ in range(turns):
        await session.wait_for(
            lambda n=answered: over in session.said[start:] or len(session.prompts) > n
        )
        if over in session.said[start:]:
            break
        answered += 1
        session.enter("1")
    await session.settle()
    return session.said[start:]
