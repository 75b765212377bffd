"""A connection to the hub that outlives a dropped link: what ``gambit connect``'s app holds.

When the link ends without the server's goodbye (a laptop lid, a train tunnel, a killed
socket), the app is told "reconnecting" (the notice a gateway sends when a hub moves, so the
app says it in its own words), and the link is dialled again with back-off until it answers
or the hub's grace period for a seat is over. The new link says the app's own hello again;
the hub answers as it answers any player who comes back (their seats waited for them), and
the app, welcomed a second time, stays on its screens ("Back at the tables.").
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from protocol.codec import MAX_SERVER_FRAME, ProtocolError, encode
from protocol.connection import Connection, ConnectionClosed

log = logging.getLogger(__name__)

#: What the app is told while its link is dialled again.
RECONNECTING: dict[str, Any] = {
    "t": "notice",
    "code": "reconnecting",
    "message": "Reconnecting to the tables…",
}
#: How long a dropped player's seat waits for them on a server with the default settings
#: (``HubConfig.grace``): no use dialling after that.
GRACE = 120.0
#: Seconds between attempts: doubling, then every ``MAX_DELAY``.
FIRST_DELAY = 0.5
MAX_DELAY = 8.0


class GiveUp(Exception):
    """Dialling again cannot help (the server's host key changed): end, saying ``str()``."""


def delays() -> Iterator[float]:
    delay = FIRST_DELAY
    while True:
        yield delay
        delay = min(MAX_DELAY, delay * 2)


class LastingConnection(Connection):
    """The app's connection: the current link, replaced by a new one after a drop."""

    def __init__(
        self,
        link: Connection,
        dial: Callable[[], Awaitable[Connection]],
        *,
        grace: float = GRACE,
    ) -> None:
        super().__init__(MAX_SERVER_FRAME)
        self.link: Connection | None = link
        self.dial = dial
        self.grace = grace
        #: The app's hello, said again on each new link.
        self.hello: dict[str, Any] | None = None
        #: The server said goodbye: a link that ends after it is not dialled again.
        self.bye = False
        #: A hub has welcomed the app: a link that ends after that was dropped.
        self.welcomed = False
        self.reconnects = 0
        #: Why the connection ended for good, when dialling gave up with a reason.
        self.reason: str | None = None
        self._dropped_at = 0.0
        self._delays: Iterator[float] = delays()

    # --- what the app sends ------------------------------------------------------------------

    async def send(self, message: dict[str, Any]) -> None:
        self.send_nowait(message)

    def send_nowait(self, message: dict[str, Any]) -> None:
        if message.get("t") == "hello" and self.hello is None:
            self.hello = dict(message)
        self.write(encode(message))

    def write(self, data: bytes) -> None:
        if self.link is None or self.closed:
            raise ConnectionClosed  # the app says "Not connected to the server."
        self.link.write(data)

    # --- what the app reads ------------------------------------------------------------------

    async def recv(self) -> dict[str, Any] | ProtocolError:
        while True:
            if self.closed:
                raise ConnectionClosed
            link = self.link
            if link is None:
                if not await self._dial_again():
                    return dict(RECONNECTING)  # still trying: the notice stays up
                continue
            try:
                message = await link.recv()
            except ConnectionClosed:
                # (Ended before any welcome: a refusal, not a drop. Nothing to come back to.)
                if self.bye or self.closed or not self.welcomed:
                    self.closed = True
                    raise
                log.info("the link dropped; dialling again")
                self.link = None
                self._dropped_at = time.monotonic()
                self._delays = delays()
                return dict(RECONNECTING)
            if isinstance(message, dict) and message.get("t") == "bye":
                self.bye = True
            elif isinstance(message, dict) and message.get("t") == "welcome":
                self.welcomed = True
            return message

    async def _dial_again(self) -> bool:
        """One attempt, after its back-off; True once a new link is up. Raises
        ConnectionClosed when the grace period is over or dialling cannot help."""
        delay = next(self._delays)
        if time.monotonic() + delay > self._dropped_at + self.grace:
            self.closed = True
            raise ConnectionClosed
        await asyncio.sleep(delay)
        try:
            link = await asyncio.wait_for(self.dial(), timeout=15)
        except GiveUp as err:
            self.reason = str(err)
            self.closed = True
            raise ConnectionClosed from None
        except Exception as err:  # the network, the server not back yet
            log.info("dialling again failed: %s", err)
            return False
        if self.closed:  # the app quit meanwhile
            await link.close()
            raise ConnectionClosed
        assert self.hello is not None
        try:
            await link.send(self.hello)
        except ConnectionClosed:
            return False
        self.link = link
        self.reconnects += 1
        return True

    async def _read_some(self) -> bytes:  # (recv is the link's)
        raise NotImplementedError

    async def close(self) -> None:
        self.closed = True
        link, self.link = self.link, None
        if link is not None:
            await link.close()
