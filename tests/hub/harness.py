"""Scripted clients for hub tests: real protocol frames over either transport."""

from __future__ import annotations

import asyncio
from typing import Any

from protocol.codec import ProtocolError
from protocol.connection import Connection, ConnectionClosed, open_unix, queue_pair
from protocol.event_log import expand
from protocol.messages import PROTOCOL_VERSION, validate_server
from server.hub import Hub


class Client:
    """A client that records every message it receives, in order."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.log: list[dict[str, Any]] = []
        self._seen = 0
        self._new = asyncio.Event()
        self.closed = False
        #: Messages the hub may not send (unknown type, unlisted field): waits fail on them.
        self.bad: list[str] = []
        self.tables: dict[int, dict[str, Any]] = {}
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                msg = await self.conn.recv()
                if isinstance(msg, ProtocolError):
                    raise AssertionError(f"hub sent a bad frame: {msg}")
                try:
                    validate_server(msg)  # as the hub checks what clients send
                except ProtocolError as err:
                    self.bad.append(f"{err} {msg}")
                if msg["t"] == "table":  # as the app does: a delta made whole
                    msg = expand(self.tables.get(msg["table"]), msg)
                self.log.append(msg)
                if msg["t"] == "table":
                    self.tables[msg["table"]] = msg
                self._new.set()
        except ConnectionClosed:
            self.closed = True
            self._new.set()

    async def send(self, t: str, **fields: Any) -> None:
        await self.conn.send({"t": t, **fields})

    async def expect(self, t: str, timeout: float = 5.0, **match: Any) -> dict[str, Any]:
        """The next message of type ``t`` (with matching fields) after the last one taken."""

        async def wait() -> dict[str, Any]:
            while True:
                for i in range(self._seen, len(self.log)):
                    msg = self.log[i]
                    if msg["t"] == t and all(msg.get(k) == v for k, v in match.items()):
                        self._seen = i + 1
                        return msg
                if self.bad:
                    raise AssertionError(f"the hub sent {self.bad[0]}")
                if self.closed:
                    raise AssertionError(f"closed while waiting for {t}: {self.log[-3:]}")
                self._new.clear()
                await self._new.wait()

        return await asyncio.wait_for(wait(), timeout)

    async def until(self, predicate, timeout: float = 10.0) -> dict[str, Any]:
        """Wait until some received message satisfies ``predicate``; returns it."""

        async def wait() -> dict[str, Any]:
            start = 0
            while True:
                for i in range(start, len(self.log)):
                    if predicate(self.log[i]):
                        self._seen = max(self._seen, i + 1)
                        return self.log[i]
                start = len(self.log)
                if self.bad:
                    raise AssertionError(f"the hub sent {self.bad[0]}")
                if self.closed:
                    raise AssertionError("closed while waiting")
                self._new.clear()
                await self._new.wait()

        return await asyncio.wait_for(wait(), timeout)

    async def hello(
        self, name: str | None = None, identity: str | None = None, lang: str = "en"
    ) -> dict[str, Any]:
        fields: dict[str, Any] = {"v": PROTOCOL_VERSION, "lang": lang}
        if name:
            fields["name"] = name
        if identity:
            fields["identity"] = identity
        await self.send("hello", **fields)
        return await self.expect("welcome")

    async def close(self) -> None:
        await self.conn.close()
        self._reader.cancel()


async def connect(hub: Hub, *, trusted: bool = True) -> Client:
    client_end, hub_end = queue_pair(trusted=trusted)
    task = asyncio.get_running_loop().create_task(hub.serve(hub_end))
    client = Client(client_end)
    client.hub_task = task  # type: ignore[attr-defined]  # noted on the test's client
    return client


async def table_with_bots(client: Client, game: str, players: int = 3, **fields: Any) -> int:
    """A new table of ``game`` made by ``client`` (seat 0), every other seat a bot; its id."""
    await client.send("create_table", game=game, players=players, **fields)
    table = (await client.expect("table"))["table"]
    for seat in range(1, players):
        await client.send("add_bot", table=table, seat=seat)
    await client.until(
        lambda m: m["t"] == "table" and all(s["bot"] or s["name"] for s in m["info"]["seats"])
    )
    return int(table)


async def connect_unix(path: str) -> Client:
    return Client(await open_unix(path))


async def play_to_end(clients: dict[int, Client], table_id: int, timeout: float = 30.0) -> dict:
    """Seated clients answer every ask with their first legal action until the game is over."""

    async def run() -> dict:
        while True:
            for client in clients.values():
                msg = client.tables.get(table_id)
                if msg is None or msg["view"] is None:
                    continue
                view = msg["view"]
                if view["over"]:
                    return view
                if view["legal"] and msg.get("_answered") is not True:
                    msg["_answered"] = True
                    await client.send("act", table=table_id, action=view["legal"][0])
            await asyncio.sleep(0.005)

    return await asyncio.wait_for(run(), timeout)
