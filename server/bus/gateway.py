"""A gateway's end of the bus: what an :class:`~server.ssh.host.SSHHost` takes for its hub.

The SSH host hands each session's hub connection to ``hub.serve`` as it does in ``gambit
serve``; here that relays the app's bytes to the hub over NATS, untouched, and writes what
the hub answers back into the connection. The app cannot tell the difference.

What goes to the hub waits (in order) until the hub is known to listen: until its first
heartbeat, and again after the link to NATS dropped, until the hub is heard once more (a
NATS server restarting forgets every subscription; what was published before the hub had
subscribed again would be lost). A new session meanwhile shows "Connecting…".

If the hub falls silent for :data:`~server.bus.wire.SILENCE` seconds, what sessions send is
held (the apps are told "Reconnecting to the tables…"); if the same hub answers again (it
was only busy, or cut off), it carries on. When another hub instance answers (a restart, a
standby taking over), that hub has never heard of these sessions: each is opened again
there with the app's own ``hello`` (kept from when it was said). The SSH session
stays up; the new hub answers as it answers a player who reconnects (their seats wait for
them).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from protocol.codec import MAX_CLIENT_FRAME, FrameDecoder, encode
from protocol.connection import Connection, ConnectionClosed

from . import wire

if TYPE_CHECKING:  # for type hints only
    from server.hub.hooks import DescribeConnection

log = logging.getLogger(__name__)

#: Events held while the hub is not listening, at most; past that every session is ended.
MAX_HELD = 100_000
#: What an app is told while its session moves to another hub.
RECONNECTING = encode(
    {"t": "notice", "code": "reconnecting", "message": "Reconnecting to the tables…"}
)


class GatewayAdmin:
    """What the SSH host asks of the hub's admin: whether a key or address is banned. Bans
    live in the hub's store; the hub publishes those in force every few seconds."""

    def __init__(self, describe_connection: DescribeConnection | None = None) -> None:
        #: What the SSH host knows of a connection (its player's address goes to the hub).
        self.describe_connection = describe_connection
        self.bans: list[dict[str, Any]] = []

    def banned(self, address: str | None = None, fingerprint: str | None = None) -> str | None:
        from server.hub.admin import ban_text

        now = time.time()
        for ban in self.bans:
            if ban["until"] is not None and ban["until"] <= now:
                continue
            if (fingerprint is not None and ban["fingerprint"] == fingerprint) or (
                address is not None and ban["address"] == address
            ):
                return ban_text(ban)
        return None


class RemoteHub:
    """The hub, as far as the SSH host can tell: ``spawn``, ``serve``, ``admin`` and
    ``stored_language``."""

    def __init__(
        self,
        url: str,
        token: str | None = None,
        gateway: str | None = None,
        *,
        describe_connection: DescribeConnection | None = None,
    ) -> None:
        self.url = url
        self.token = token or ""
        self.gateway = gateway or secrets.token_hex(6)
        self.admin = GatewayAdmin(describe_connection)
        self.nc: Any = None
        self.conns: dict[int, Connection] = {}
        #: Each session's ``hello`` as its app said it (to say it again to another hub), or
        #: the decoder still looking for it.
        self.hellos: dict[int, bytes] = {}
        self._looking: dict[int, FrameDecoder] = {}
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._sender: wire.Sender | None = None
        self._out = wire.Coalescer(self._flush)
        self.hub_instance: str | None = None
        #: When the hub was last heard, by a clock that stops while this loop lags.
        self.hub_seen = 0.0
        self.clock = wire.ResponsiveClock()
        #: The hub listens: events go out as they come (else they are held, in order).
        self.ready = False
        self._held: list[list[Any]] = []
        #: How often another hub answered and every session moved to it (metrics).
        self.hub_changes = 0

    async def start(self) -> None:
        self.nc = await wire.connect(
            self.url, f"gambit gateway {self.gateway}", disconnected_cb=self._disconnected
        )
        self._sender = wire.Sender(self.nc.publish)
        await self.nc.subscribe(wire.gateway_wildcard(self.gateway), cb=self._on_message)
        await self.nc.subscribe(wire.HUB_ALIVE_SUBJECT, cb=self._on_hub_alive)
        await self.nc.subscribe(wire.BANS_SUBJECT, cb=self._on_bans)
        await self.nc.flush()
        self.spawn(self._heartbeat())

    async def stop(self) -> None:
        for conn in list(self.conns.values()):
            with contextlib.suppress(Exception):
                await conn.close()
        for task in list(self._tasks):
            task.cancel()
        if self._sender is not None:
            await self._sender.flushed()
        if self.nc is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.nc.drain(), 2)

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def stored_language(self, identity: str | None) -> str | None:
        """Unknown here: players' records are in the hub's store, across the bus, and a
        refusal is not worth a round trip. Only what the SSH host says before an app has run
        goes without it (in the client's language, else English); an app's goodbyes follow
        the language the hub told the app."""
        return None

    def stored_plain(self, identity: str | None) -> bool:
        """Unknown here (the players' records are across the bus): ``plain@`` or
        ``NAME+plain`` still asks for the plain mode."""
        return False

    # --- one session ---------------------------------------------------------------------------

    async def serve(self, conn: Connection) -> None:
        """Relay one session's connection until either end closes it."""
        session = next(self._ids)
        self.conns[session] = conn
        self._looking[session] = FrameDecoder(MAX_CLIENT_FRAME)
        self._open(session)
        try:
            while True:
                data = await conn.read_bytes()
                if not data:
                    break
                if session in self._looking:
                    self._look_for_hello(session, data)
                self._event(wire.FRAMES, session, data)
        finally:
            self.hellos.pop(session, None)
            self._looking.pop(session, None)
            if self.conns.pop(session, None) is not None:
                self._event(wire.END, session, b"")
            with contextlib.suppress(Exception):
                await conn.close()

    def _open(self, session: int) -> None:
        conn = self.conns[session]
        describe = self.admin.describe_connection  # the SSH host's: the player's address
        address = (describe(conn) if describe is not None else {}).get("address")
        info = {"peer": conn.peer, "address": address, "token": self.token}
        self._event(wire.OPEN, session, wire.pack(info))

    def _look_for_hello(self, session: int, data: bytes) -> None:
        for message in self._looking[session].feed(data):
            if isinstance(message, dict) and message.get("t") == "hello":
                self.hellos[session] = encode(message)
                del self._looking[session]
                return

    def _event(self, kind: int, session: int, data: bytes) -> None:
        if self.ready:
            self._out.add(None, [kind, session, data])
        elif kind != wire.ALIVE:
            self._held.append([kind, session, data])
            if len(self._held) > MAX_HELD:
                log.error("bus: the hub has not listened for too long; ending every session")
                self._held.clear()
                self._end_all()

    @property
    def held(self) -> int:
        """Events held until a hub listens."""
        return len(self._held)

    def _hub_listens(self) -> None:
        if self.ready:
            return
        self.ready = True
        held, self._held = self._held, []
        for event in held:
            self._out.add(None, event)

    async def _disconnected(self) -> None:
        log.warning("bus: disconnected from NATS; reconnecting")
        self.ready = False

    def _flush(self, items: dict[Any, list[Any]]) -> None:
        if self._sender is not None:
            for group in wire.packed_batches(items[None]):
                self._sender.send(wire.HUB_SUBJECT, wire.pack([self.gateway, group]))

    # --- hub → sessions ------------------------------------------------------------------------

    async def _on_message(self, msg: Any) -> None:
        try:
            if msg.subject.endswith(".all"):
                for session, data in wire.unpack(msg.data):
                    self._deliver(int(session), data)
            else:
                self._deliver(int(msg.subject.rsplit(".", 1)[1]), msg.data)
        except Exception:
            log.exception("bus: a message from the hub could not be handled; dropped")

    def _deliver(self, session: int, data: bytes | None) -> None:
        conn = self.conns.get(session)
        if conn is None:
            return
        if data:
            try:
                conn.write(bytes(data))
                return
            except ConnectionClosed:
                pass
        # The hub hung up (or the app's end is gone): end the session here too.
        self.conns.pop(session, None)
        self.spawn(conn.close())

    # --- liveness --------------------------------------------------------------------------

    async def _on_hub_alive(self, msg: Any) -> None:
        with contextlib.suppress(Exception):
            instance = str(wire.unpack(msg.data)["hub"])
            if self.hub_instance is not None and instance != self.hub_instance:
                log.warning("bus: another hub answers now; moving every session to it")
                self.hub_changes += 1
                self._rehome_all()
            self.hub_instance = instance
            self.hub_seen = self.clock.now()
            self._hub_listens()

    async def _on_bans(self, msg: Any) -> None:
        try:
            bans = wire.unpack(msg.data)
            self.admin.bans = [
                {k: ban.get(k) for k in ("fingerprint", "address", "until", "reason")}
                for ban in bans
            ]
        except Exception:
            log.exception("bus: the bans could not be read; keeping the last ones")

    async def _heartbeat(self) -> None:
        while True:
            self.clock.tick()
            self._event(wire.ALIVE, 0, wire.pack({"sessions": list(self.conns)}))
            if self.ready and self.clock.now() - self.hub_seen > wire.SILENCE:
                # Held, not moved: the same hub may only have been busy (then it carries on
                # with them), or another one takes over (then they move, see above).
                log.warning("bus: the hub is silent; what sessions send waits for a hub")
                self.ready = False
                self._tell_all(RECONNECTING)
            await asyncio.sleep(wire.HEARTBEAT)

    def _rehome_all(self) -> None:
        """Open every session again (on the hub that answers next) with its app's hello."""
        if self.ready:  # (when the hub went silent first, they were told then)
            self._tell_all(RECONNECTING)
        for session in list(self.conns):
            self._open(session)
            hello = self.hellos.get(session)
            if hello is not None:  # (one not said yet will be, by the app)
                self._event(wire.FRAMES, session, hello)

    def _tell_all(self, frame: bytes) -> None:
        """Say ``frame`` to every session's app (it is the gateway speaking, not a hub)."""
        for session in list(self.conns):
            if session not in self.hellos:
                continue  # no hub has welcomed it yet: nothing to reconnect
            with contextlib.suppress(ConnectionClosed):
                self.conns[session].write(frame)

    def _end_all(self) -> None:
        for session in list(self.conns):
            conn = self.conns.pop(session)
            self.spawn(conn.close())
