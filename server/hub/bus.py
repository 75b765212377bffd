"""The hub's end of the bus: every gateway's sessions served like local connections.

Each session a gateway opens becomes a :class:`BusConnection`, and the hub serves it with
:meth:`Hub.serve` as it serves a unix-socket client: the same frames, checked the same way.
Whether the identity in its ``hello`` is believed depends on the gateway: only one that
knows the shared token (``--bus-token``) is trusted; anyone else on the bus gets guests.

A gateway that falls silent (killed, cut off) for :data:`~server.bus.wire.SILENCE` seconds
has its sessions ended here: their players' seats wait out the grace period, as for any
dropped connection, and a player who comes back through another gateway gets theirs back.
Nothing is said to the gateway: one that was only held up or cut off opens its sessions
here again when it is heard (the SSH sessions never ended).

What goes each way is numbered per gateway and sent again when lost (a NATS restart loses
what was in flight and what either side published meanwhile): see server/bus/replay.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable, Collection, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from protocol.codec import MAX_CLIENT_FRAME, ProtocolError
from protocol.connection import ConnectionClosed, InboxConnection
from protocol.event_log import SentLogs
from server.bus import wire
from server.bus.replay import Link

if TYPE_CHECKING:  # for type hints only
    from protocol.connection import Connection
    from server.store import Store

    from .session import Session

log = logging.getLogger(__name__)

#: A burst of messages from gateways is handled in slices of about this long (see
#: HubBus._on_message).
SLICE = 0.01


class Served(Protocol):
    """What the bus asks of the hub it serves gateways for (:class:`~.hub.Hub` implements
    it): its connection loop, a task of its own, who is connected, and the bans."""

    sessions: set[Session]
    store: Store

    async def serve(self, conn: Connection) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]: ...

    def tables_again(self, sessions: Collection[Session]) -> None: ...


class BusConnection(InboxConnection):
    """One gateway session, as the hub sees it."""

    def __init__(self, bus: HubBus, gateway: str, session: int, *, trusted: bool, peer: str):
        super().__init__(asyncio.Queue(), max_frame=MAX_CLIENT_FRAME, trusted=trusted, peer=peer)
        self._bus = bus
        self.gateway = gateway
        self.session = session
        #: The player's address, as its gateway saw it (admins' session list, bans).
        self.address: str | None = None

    def write(self, data: bytes) -> None:
        if self._out_closed:
            raise ConnectionClosed
        bus = self._bus
        if not bus.detached:  # (HubBus.out, inline: every frame the hub sends comes here)
            bus._out.add(self.gateway, (self.session, data))

    #: Set by the hub once the session said hello (see :meth:`Hub.serve`): it handles each
    #: message at once, as its serving task would.
    on_message: Callable[[dict[str, Any] | ProtocolError], bool] | None = None

    def received(self, data: bytes | None) -> None:
        """Bytes from the gateway (None: the session ended there). Once the session said
        hello, frames are decoded and handled here, in the bus's callback, rather than
        queued for the session's task to wake up for each (thousands a second); only while
        that task still has some queued (or it is not yet serving) do they queue behind them,
        so the order holds."""
        handle = self.on_message
        if handle is not None and data is not None and not self._ready and self._inbox.empty():
            for message in list(self._decoder.feed(data)):
                if not handle(message):  # the session ends: its task is woken to end it
                    self.on_message = None
                    self._inbox.put_nowait(None)
                    return
            return
        self._inbox.put_nowait(data)

    def _end_output(self) -> None:
        self._bus.out(self.gateway, self.session, None)


class HubBus:
    """Subscribes to what gateways send, and publishes what the hub answers."""

    def __init__(self, served: Served | None, url: str, token: str | None = None) -> None:
        #: The hub served (None: a standby, waiting for the lease: given by :meth:`start`).
        self.served = served
        self.url = url
        self.token = token or ""
        self.instance = secrets.token_hex(8)
        self.nc: Any = None
        self.conns: dict[tuple[str, int], BusConnection] = {}
        #: Each gateway's sessions here (a gateway's heartbeat lists its own).
        self.by_gateway: dict[str, set[int]] = {}
        #: When each gateway was last heard, by a clock that stops while this loop lags.
        self.seen: dict[str, float] = {}
        self.clock = wire.ResponsiveClock()
        self._sender: wire.Sender | None = None
        self._out = wire.Coalescer(self._flush)
        #: When the slice of a burst being handled began (None: none is; see _on_message).
        self._slice_began: float | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.detached = False
        #: Sessions ended because their gateway went silent (tests and logs).
        self.dropped_by_silence = 0
        #: Gateways whose sessions get their tables again once the gateway is heard (after
        #: NATS came back: see :meth:`_reconnected`).
        self.tables_owed: set[str] = set()
        #: Each gateway's link: what was sent it and received from it, numbered (replay.py);
        #: made when a gateway that numbers its messages is first heard.
        self.links: dict[str, Link] = {}
        #: Messages sent again to gateways that had missed them, and links started again
        #: because what a gateway missed was no longer kept (tests, logs).
        self.replayed = 0
        self.resets = 0

    async def connect(self) -> None:
        """Reach NATS (a hub does before it asks for the lease, see lease.py)."""
        self.nc = await wire.connect(
            self.url,
            "gambit hub",
            disconnected_cb=self._disconnected,
            reconnected_cb=self._reconnected,
        )

    async def start(self, served: Served | None = None) -> None:
        """Serve gateways: from now on the hub hears them and answers."""
        if served is not None:
            self.served = served
        assert self.served is not None, "a hub to serve, given here or when made"
        if self.nc is None:
            await self.connect()
        self._sender = wire.Sender(self.nc.publish)
        await self.nc.subscribe(wire.HUB_SUBJECT, cb=self._on_message)
        await self.nc.flush()
        loop = asyncio.get_running_loop()
        self._tasks.append(loop.create_task(self._heartbeat()))

    @staticmethod
    def describe(conn: Connection) -> dict[str, Any]:
        """What the bus knows of one of the hub's connections: a gateway session's player's
        address, as its gateway saw it (the admins' list of sessions). The hub's owner gives
        it to the hub when it makes it (``HubHooks(describe_connection=HubBus.describe)``)."""
        if isinstance(conn, BusConnection):
            return {"address": conn.address} if conn.address else {}
        return {}

    async def stop(self) -> None:
        """Stop serving gateways and leave NATS (twice is harmless)."""
        for task in self._tasks:
            task.cancel()
        self._tasks.clear()
        for conn in list(self.conns.values()):
            conn.received(None)
        if self._sender is not None:
            await self._sender.flushed()
        if self.nc is not None and not self.nc.is_closed:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.nc.drain(), 2)

    async def _disconnected(self) -> None:
        log.warning("bus: disconnected from NATS; reconnecting")

    async def _reconnected(self) -> None:
        """What was published while NATS was away may be lost: every bus session's next
        table view goes out whole, not as a delta of one it may never have had. And that
        next view must not wait for the table's next move: the move lost may be the one that
        made it a player's turn (the table then waited for a player who never saw it was
        theirs: ``bench/chaos.py``, NATS restarts). So each gateway's sessions get their
        tables again, whole, as soon as the gateway is heard again (its heartbeat comes
        once it is back on NATS, its subscriptions with it)."""
        log.warning("bus: reconnected to NATS")
        if self.served is None:  # a standby, still waiting for the lease
            return
        for session in self.served.sessions:
            if isinstance(session.conn, BusConnection):
                session.sent_logs = SentLogs()
        self.tables_owed = set(self.by_gateway)

    def _tables_again(self, gateway: str) -> None:
        """``gateway``'s sessions' tables, sent again (whole: see :meth:`_reconnected`)."""
        self.tables_owed.discard(gateway)
        if self.served is None:
            return
        sessions = [
            s
            for s in self.served.sessions
            if isinstance(s.conn, BusConnection) and s.conn.gateway == gateway
        ]
        if sessions:
            self.served.tables_again(sessions)

    # --- gateways → hub ----------------------------------------------------------------------

    async def _on_message(self, msg: Any) -> None:
        """One gateway's message. NATS hands a subscription's waiting messages over one after
        another without letting the loop run in between, so a burst (thousands of players'
        moves at once) would be handled whole before any of it is committed and sent: at
        10,000 players the hub went through 60 ms of messages at a time, then committed and
        sent 70 ms of answers, then published them, and a move that came first in a burst
        waited for all of it. Handled in slices of :data:`SLICE` seconds instead, each
        slice's moves are committed, sent and published while the next slice waits."""
        try:
            message = wire.unpack(msg.data)
            gateway = str(message[0])
            self.seen[gateway] = self.clock.now()
            if len(message) == 2:  # (not numbered: a stand-in gateway's)
                events = message[1]
            elif not self._in_order(gateway, message):
                return
            else:
                events = message[3]
            for kind, session, data in events:
                self._event(gateway, int(kind), int(session), data)
                # (A gateway's message holds its sessions' frames of a tick: hundreds, at
                # thousands of players.)
                began = self._slice_began
                if began is None:
                    self._slice_began = time.perf_counter()
                    asyncio.get_running_loop().call_soon(self._slice_over)
                elif time.perf_counter() - began > SLICE:
                    await self._slice_out()
        except Exception:
            log.exception("bus: a message from a gateway could not be handled; dropped")

    async def _slice_out(self) -> None:
        """Let the slice's moves be committed, sent and published before the next slice:
        each step is a callback the one before makes ready (the commit, then the tick's
        output, then the publishing task), so without waiting for them the next slice ran
        before the last one's answers were published, adding a slice to every move's time."""
        await asyncio.sleep(0)  # the hub's commit sends the slice's answers (Hub.commit) ...
        await asyncio.sleep(0)  # ... the tick's output goes to the sender (_flush) ...
        if self._sender is not None:
            await self._sender.flushed()  # ... and is handed to NATS

    def _slice_over(self) -> None:
        """The loop went on to other work: the next message begins a slice of its own."""
        self._slice_began = None

    # --- each gateway's link: numbered, sent again when lost (server/bus/replay.py) ----------

    def _in_order(self, gateway: str, message: list[Any]) -> bool:
        """Whether a gateway's message is to be handled now: the next numbered one of its
        link, or one not numbered (a heartbeat, a request to send again: its link's part is
        handled here). A copy of one handled, or one after a gap, is dropped (and what is
        missing asked for); so are numbered messages meant for another hub instance (the one
        before this: the gateway opens its sessions here again once it hears this one)."""
        _, hub, seq, events, reset = message
        ours = hub == self.instance
        seq = int(seq)
        if not seq:
            if ours:
                for kind, _, data in events:
                    self._control(gateway, int(kind), data)
            return True
        if not ours:
            return False
        link = self._link(gateway)
        if link.inbox.take(seq, bool(reset)):
            return True
        if seq > link.inbox.got + 1:
            self._ask(gateway, link)
        return False

    def _control(self, gateway: str, kind: int, data: bytes) -> None:
        if kind == wire.ALIVE:  # (its sessions are seen to by _event)
            info = wire.unpack(data)
            link = self._link(gateway)
            link.outbox.acked(int(info.get("got", 0)))
            if link.inbox.got < int(info.get("last", 0)):  # the last ones were lost
                self._ask(gateway, link)
        elif kind == wire.RESEND:
            known = self.links.get(gateway)
            if known is not None:
                self._resend(gateway, known, int(wire.unpack(data)["from"]))

    def _link(self, gateway: str) -> Link:
        """``gateway``'s link, made when first heard: a gateway that was linked to this hub
        before (this hub gave it up while it was silent) is told its link starts again."""
        link = self.links.get(gateway)
        if link is None:
            link = self.links[gateway] = Link()
            self._sync(gateway, reset=link.outbox.next)
        return link

    def _sync(self, gateway: str, **fields: Any) -> None:
        """Tell ``gateway`` about its link (on its own subject: behind what was sent it)."""
        if self._sender is not None:
            payload = wire.pack({"hub": self.instance, **fields})
            self._sender.send(wire.sync_subject(gateway), payload)

    def _ask(self, gateway: str, link: Link) -> None:
        want = link.inbox.ask(time.monotonic())
        if want is not None:
            self._sync(gateway, want=want)

    def _resend(self, gateway: str, link: Link, first: int) -> None:
        """Send ``gateway`` again what it missed from number ``first`` on; if that is no
        longer kept, its link starts again (the gateway opens its sessions again here)."""
        again = link.outbox.since(first)
        if again is None:
            log.warning(
                "bus: gateway %s missed more than was kept; its sessions start again", gateway
            )
            self.resets += 1
            link.outbox.clear()
            self._sync(gateway, reset=link.outbox.next)
            return
        if self._sender is not None:
            self.replayed += len(again)
            for _, subject, payload in again:
                self._sender.send(subject, payload)

    def _forget(self, gateway: str, session: int) -> None:
        sessions = self.by_gateway.get(gateway)
        if sessions is not None:
            sessions.discard(session)

    def _event(self, gateway: str, kind: int, session: int, data: Any) -> None:
        key = (gateway, session)
        if kind == wire.FRAMES:
            conn = self.conns.get(key)
            if conn is not None:
                conn.received(bytes(data))
            # else: sent to the hub before this one; its gateway opens it here again once it
            # hears this hub (see server/bus/gateway.py), and what was sent before is lost
        elif kind == wire.OPEN:
            old = self.conns.pop(key, None)
            if old is not None:
                # Opened again (its gateway thought this hub gone): the new one replaces it,
                # and the old one ends here without a word to the gateway.
                old._out_closed = True
                old.received(None)
            info = wire.unpack(data)
            token = str(info.get("token") or "")
            trusted = bool(self.token) and hmac.compare_digest(token, self.token)
            peer = f"bus {gateway} {str(info.get('peer', '?'))[:64]}"
            conn = BusConnection(self, gateway, session, trusted=trusted, peer=peer)
            address = info.get("address")
            conn.address = str(address)[:64] if address else None
            self.conns[key] = conn
            self.by_gateway.setdefault(gateway, set()).add(session)
            assert self.served is not None  # (gateways are heard once it is: see start)
            self.served.spawn(self._serve(conn))
        elif kind == wire.END:
            conn = self.conns.pop(key, None)
            self._forget(gateway, session)
            if conn is not None:
                conn.received(None)
        elif kind == wire.ALIVE:
            live = set(wire.unpack(data).get("sessions", ()))
            for sid in list(self.by_gateway.get(gateway, ())):
                if sid not in live:
                    conn = self.conns.pop((gateway, sid), None)
                    self._forget(gateway, sid)
                    if conn is not None:
                        conn.received(None)
            if gateway in self.tables_owed:
                self._tables_again(gateway)

    async def _serve(self, conn: BusConnection) -> None:
        try:
            assert self.served is not None
            await self.served.serve(conn)
        finally:
            key = (conn.gateway, conn.session)
            if self.conns.get(key) is conn:
                del self.conns[key]
                self._forget(conn.gateway, conn.session)

    # --- hub → gateways ----------------------------------------------------------------------

    def out(self, gateway: str, session: int, data: bytes | None) -> None:
        """Queue ``data`` for a session (None: the hub hung up); sent at the end of the tick."""
        if not self.detached:
            self._out.add(gateway, (session, data))

    def detach(self) -> None:
        """Say nothing more to gateways (the hub is stopping): their sessions are not ended
        but kept for the hub that answers next."""
        self.detached = True

    def _flush(self, items: dict[str, list[tuple[int, bytes | None]]]) -> None:
        """One tick's output, per gateway: a session's consecutive frames joined, and one
        message for all of a gateway's sessions (a lobby update to thousands is one publish,
        or a few of at most :data:`~server.bus.wire.MAX_MESSAGE`)."""
        sender = self._sender
        if sender is None:
            return
        for gateway, pairs in items.items():
            # (runs for every message the hub sends: one plain pass, few calls)
            batch: list[list[Any]] = []
            joined = False  # some session's consecutive frames are to be joined
            last_session = last_data = None
            total = 0
            for session, data in pairs:
                if data is not None:
                    total += len(data)
                    if session == last_session and last_data is not None and data:
                        batch[-1].append(data)
                        joined = True
                        continue
                batch.append([session, data])
                last_session, last_data = session, data
            if joined:
                batch = [[b[0], b"".join(b[1:])] if len(b) > 2 else b for b in batch]
            first = batch[0][0]
            if len(batch) == 1 or all(b[0] == first for b in batch):
                only: int | None = first  # (one session's subject)
                payloads = [piece for _, data in batch for piece in wire.chunks(data or b"")]
            else:  # one message holds them all, or a few
                only = None
                groups = [batch] if total <= wire.MAX_MESSAGE else wire.packed_batches(batch)
                payloads = [wire.pack(group) for group in groups]
            # Numbered and kept until the gateway has them (server/bus/replay.py); not for a
            # gateway that does not number its own (a stand-in's), nor one given up.
            link = self.links.get(gateway)
            outbox = link.outbox if link is not None else None
            for payload in payloads:
                seq = outbox.next if outbox is not None else 0
                if only is None:
                    subject = wire.gateway_subject(gateway, seq)
                else:
                    subject = wire.session_subject(gateway, only, seq)
                if outbox is not None:
                    outbox.add(subject, payload)
                sender.send(subject, payload)

    # --- liveness --------------------------------------------------------------------------

    async def _heartbeat(self) -> None:
        alive = wire.pack({"hub": self.instance})
        beats = 0
        while True:
            self.clock.tick()
            # Once detached (the hub is stopping, its store about to close) the hub is not
            # alive for the gateways, and reads no bans from a store that may be closed.
            if self._sender is not None and not self.detached:
                self._sender.send(wire.HUB_ALIVE_SUBJECT, alive)
                if beats % wire.BANS_EVERY == 0 and (bans := self._bans()) is not None:
                    self._sender.send(wire.BANS_SUBJECT, bans)
                for gateway, link in self.links.items():  # (behind what was sent it)
                    self._sync(gateway, last=link.outbox.last, got=link.inbox.got)
            beats += 1
            now = self.clock.now()
            for gateway, at in list(self.seen.items()):
                if now - at > wire.SILENCE:
                    del self.seen[gateway]
                    self._gateway_gone(gateway)
            await asyncio.sleep(wire.HEARTBEAT)

    def _bans(self) -> bytes | None:
        """The bans in force, for the gateways; None if they cannot be read now (the
        database away): then nothing is said, and gateways keep the last ones (an empty
        list would let every banned key in until the database is back)."""
        keep = ("fingerprint", "address", "until", "reason")
        try:
            assert self.served is not None
            bans = self.served.store.bans()
        except Exception as err:
            log.warning("bus: could not read the bans (%s); gateways keep the last ones", err)
            return None
        return wire.pack([{k: ban[k] for k in keep} for ban in bans])

    def _gateway_gone(self, gateway: str) -> None:
        """``gateway`` has been silent for :data:`~server.bus.wire.SILENCE`: its sessions end
        here (their seats wait out the grace period). Without a word to it: it may only have
        been held up or cut off, and then its goodbyes would end its players' SSH sessions
        the moment it is back. Heard again, it is told its link starts again (:meth:`_link`)
        and opens every session it still has here again, with its app's hello."""
        ended = [key for key in self.conns if key[0] == gateway]
        if ended:
            log.warning("bus: gateway %s is silent; ending its %d session(s)", gateway, len(ended))
        self.by_gateway.pop(gateway, None)
        self.links.pop(gateway, None)  # (heard again, it is told its link starts again)
        for key in ended:
            conn = self.conns.pop(key)
            self.dropped_by_silence += 1
            conn._out_closed = True  # (no goodbye: see above)
            conn.received(None)
