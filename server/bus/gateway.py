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

What was published while NATS restarted (either way) is not lost: the link with the hub is
numbered, and what one side missed the other sends again (server/bus/replay.py).
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
from .replay import Link

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
        #: The link with the hub: what was sent it and received from it, numbered, kept
        #: until acknowledged and sent again when lost (replay.py); new with each hub.
        self.link = Link()
        #: The number from which the link started again (the gateway opened every session
        #: again): the message with it tells the hub to forget the gap before it.
        self._reset_from: int | None = None
        #: Messages sent again, and times the link started again (tests, logs).
        self.replayed = 0
        self.restarts = 0
        self._prefix = f"{wire.PREFIX}.gw.{self.gateway}."

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
        else:
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
        for group in wire.packed_batches(items[None]):
            self._send_numbered(group)

    def _send_numbered(self, events: list[list[Any]]) -> None:
        """Publish ``events`` to the hub, numbered, and keep them until it has them."""
        if self._sender is None:
            return
        outbox = self.link.outbox
        seq = outbox.next
        reset = seq == self._reset_from
        payload = wire.pack([self.gateway, self.hub_instance, seq, events, reset])
        outbox.add(wire.HUB_SUBJECT, payload)
        self._sender.send(wire.HUB_SUBJECT, payload)

    def _send_control(self, kind: int, info: dict[str, Any]) -> None:
        """Publish a heartbeat or a request to the hub: not numbered, not kept."""
        if self._sender is not None:
            events = [[kind, 0, wire.pack(info)]]
            self._sender.send(
                wire.HUB_SUBJECT, wire.pack([self.gateway, self.hub_instance, 0, events, False])
            )

    # --- hub → sessions ------------------------------------------------------------------------

    async def _on_message(self, msg: Any) -> None:
        try:
            # gambit.gw.ID.sync, or gambit.gw.ID.NUMBER.all or gambit.gw.ID.NUMBER.s.SESSION
            head, _, rest = msg.subject[len(self._prefix) :].partition(".")
            if head == "sync":
                self._on_sync(wire.unpack(msg.data))
                return
            seq = int(head)
            if seq and not self._in_order(seq):
                return
            if rest == "all":
                for session, data in wire.unpack(msg.data):
                    self._deliver(int(session), data)
            else:
                self._deliver(int(rest.rsplit(".", 1)[1]), msg.data)
        except Exception:
            log.exception("bus: a message from the hub could not be handled; dropped")

    # --- the link's numbers (replay.py) ----------------------------------------------------

    def _in_order(self, seq: int) -> bool:
        """Whether the hub's message ``seq`` is the next one (a copy of one had, or one
        after a gap, is dropped, and what is missing asked for)."""
        inbox = self.link.inbox
        if inbox.take(seq):
            return True
        if seq > inbox.got + 1:
            self._ask()
        return False

    def _ask(self) -> None:
        want = self.link.inbox.ask(time.monotonic())
        if want is not None:
            self._send_control(wire.RESEND, {"from": want})

    def _on_sync(self, info: dict[str, Any]) -> None:
        """The hub about this link, behind what it sent: what it has had from here, what it
        sent last (some missing here: asked for), what it wants sent again, or that its
        numbers start again (it gave this gateway up, or forgot what this one missed)."""
        if info.get("hub") != self.hub_instance:
            return  # (another hub's, or one this gateway does not listen to yet)
        link = self.link
        if "got" in info:
            link.outbox.acked(int(info["got"]))
        if "reset" in info:
            start = int(info["reset"])
            if link.inbox.got != start - 1:  # something was missed, or the hub forgot us
                link.inbox.got = start - 1
                self._restart("the hub's messages start again")
        if "want" in info:
            self._resend(int(info["want"]))
        if link.inbox.got < int(info.get("last", 0)):  # the last ones were lost
            self._ask()

    def _resend(self, first: int) -> None:
        """Send the hub again what it missed from number ``first`` on; if that is no longer
        kept, every session starts again."""
        outbox = self.link.outbox
        again = outbox.since(first)
        if again is None and self._reset_from is not None and first < self._reset_from:
            # The hub missed the new start: from it, or a message that carries it.
            if outbox.next == self._reset_from:
                self._send_numbered([])
                return
            again = outbox.since(self._reset_from)
        if again is None:
            self._restart("the hub missed more than was kept")
            return
        self.replayed += len(again)
        assert self._sender is not None  # (the hub is heard once started)
        for _, subject, payload in again:
            self._sender.send(subject, payload)

    def _restart(self, why: str) -> None:
        """What was lost can no longer be sent again: every session is opened again on the
        hub with its app's hello (the hub answers as to a player who reconnects: lobby,
        seats, tables, whole), and the numbers go on with a message that says so."""
        log.warning("bus: %s; opening every session again", why)
        self.restarts += 1
        outbox = self.link.outbox
        outbox.clear()
        self._reset_from = outbox.next
        self._rehome_all()

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
                self.link = Link()  # (numbered afresh for that hub)
                self._reset_from = None
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
            if self.ready:  # (behind what was sent: the hub sees what it missed)
                link = self.link
                alive = {
                    "sessions": list(self.conns),
                    "last": link.outbox.last,
                    "got": link.inbox.got,
                }
                self._send_control(wire.ALIVE, alive)
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
