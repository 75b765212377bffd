"""The hub: the one place where every table, seat, chip and game of a server lives.

Each connection runs :meth:`Hub.serve`, which reads protocol messages, validates them and calls
one handler (:meth:`Hub._routes` says which part answers each request class). Handlers are plain
synchronous methods, so every change to the hub happens atomically on the event loop. Anything
accepted is written to the store before anyone is told about it.

The hub itself keeps who is connected (sessions, players, their names) and the commit of each
burst of writes, says hello, and wires the parts. What every part works with (store, settings,
outbox, timers, the tables and players) is one :class:`~.runtime.HubRuntime`; each part is
given it and exactly the peers it uses, made in that order, and none holds the hub:
:class:`~.lobby.Lobby`, :class:`~.seating.Seating` (who sits where), :class:`~.watchers.Watchers`
(who watches where), :class:`~.social.Social` (chat, friends, invites),
:class:`~.guests.Guests`, :class:`~.history.History`, :class:`~.replays.Replays`,
:class:`~.entropy.Entropy`, :class:`~.duplicate.Duplicate`, :class:`~.money.Money` (chips),
:class:`~.turns.Turns` (bots, turn timers, stand-ins), :class:`~.play.Play` (actions, payouts,
the next game), :class:`~.absence.Absence` (players who drop and come back),
:class:`~.recovery.Recovery`, :class:`~.admin.Admin` and :class:`~.nights.Nights` (game nights,
told of each game's end and each table's closing). Seating, entropy and turns, made before
play, reach it through narrow interfaces (:class:`~.table_events.TableEvents`,
:class:`~.turns.Mover`). Names are claimed in :mod:`~.names`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import Counter
from collections.abc import Callable, Collection, Coroutine
from typing import TYPE_CHECKING, Any

from protocol.codec import ProtocolError
from protocol.connection import Connection, ConnectionClosed
from protocol.messages import PROTOCOL_VERSION, error, validate_client
from protocol.requests import (
    Act,
    AddBot,
    Chat,
    CreateTable,
    Friend,
    Hello,
    Ignore,
    Invite,
    Join,
    Leaderboard,
    Leave,
    LobbyWatch,
    Night,
    Ping,
    Profile,
    Record,
    RemoveBot,
    Replay,
    Report,
    ResultRead,
    Spectate,
    Stand,
    Start,
    request_of,
)
from protocol.requests import Admin as AdminRequest
from protocol.requests import Entropy as EntropyRequest
from protocol.requests import History as HistoryRequest
from protocol.requests import Player as PlayerRequest
from server.engine import RulesError, all_games
from server.store import Store, StoreError

from .absence import Absence
from .admin import Admin, is_local_admin
from .chat import RateLimiter
from .config import HubConfig
from .duplicate import Duplicate
from .entropy import Entropy
from .errors import HubError, said
from .guests import Guests
from .history import History
from .hooks import ActionHook, HubHooks
from .limits import Budget
from .lobby import Lobby
from .money import Money
from .names import NameClaims
from .nights import Nights
from .online_names import OnlineNames
from .outbox import Outbox
from .play import Play
from .recovery import Recovery
from .replays import Replays
from .restart import Restart
from .routes import Handler, Routes
from .runtime import HubRuntime
from .seating import Seating
from .session import Player, Session, chosen_language, need_player
from .social import Social
from .turns import Turns
from .watchers import Watchers
from .you import you

if TYPE_CHECKING:  # for type hints only
    from protocol.server_messages import Sentence, YouInfo
    from server.gc_freeze import FrozenSessions

    from .table import Table

log = logging.getLogger(__name__)

#: A connection's messages handled in one turn of the event loop, at most.
TURN_MESSAGES = 16
#: The guest retention's sweep runs at most this many seconds apart ...
GUEST_SWEEP_MAX = 600.0
#: ... and its next batch this soon while one leaves candidates behind (see guests.py).
GUEST_SWEEP_AGAIN = 0.05


class Hub:
    """Lobby, tables, seats, timers, bots and money for every connected player."""

    def __init__(
        self, store: Store, config: HubConfig | None = None, hooks: HubHooks | None = None
    ) -> None:
        hooks = hooks or HubHooks()
        # A burst's writes are committed once, and what shows them waits for that commit.
        run = self.runtime = HubRuntime(store, config or HubConfig(), Outbox(store))
        self.store, self.config, self.outbox = run.store, run.config, run.outbox
        self.sessions, self.players, self.tables, self.names = (
            run.sessions,
            run.players,
            run.tables,
            run.names,
        )
        self.online_names = OnlineNames()
        self.name_claims = NameClaims(store, self.online_names)
        #: What :meth:`start` restored: tables, and the guests whose chips it sent home.
        self.recovered: dict[str, int] = {}
        store.hold_commits(self._commit_soon)
        # ... and waits for the disk off the event loop (outbox.py), in a file of our own.
        store.sync_off_loop()
        self.outbox.on_sync_failed = self._sync_failed
        #: Called if the store cannot commit (the server must stop: memory is ahead of disk).
        self.on_fatal = hooks.on_fatal
        #: Called with (table, seat, action) after each accepted action is stored and told
        #: (metrics). And what was refused, by code (over budget, too many tables…).
        self.action_hooks: list[ActionHook] = hooks.action_hooks
        self.refusals: Counter[str] = Counter()
        run.timers.away = self.database_error
        # The parts, each made after the parts it holds; seating and entropy tell play
        # (made last: it holds them) of changes through the narrow TableEvents.
        self.restart = Restart()
        self.watchers = Watchers()
        self.lobby = Lobby(run, self.watchers)
        self.money = Money(store)
        self.guests = Guests(run, self.money)
        self.history = History(run)
        self.duplicate = Duplicate(run, self.watchers)
        self.replays = Replays(run, self.duplicate)
        self.entropy = Entropy(run)
        self.seating = Seating(
            run, self.lobby, self.entropy, self.duplicate, self.guests, self.watchers, self.restart
        )
        self.social = Social(run, self.seating, self.lobby)
        self.turns = Turns(run, self.money)
        self.play = Play(
            run,
            self.seating,
            self.lobby,
            self.entropy,
            self.duplicate,
            self.guests,
            self.restart,
            self.money,
            self.turns,
            self.action_hooks,
        )
        self.seating.connect(self.play)
        self.entropy.connect(self.play)
        self.turns.connect(self.play)
        self.absence = Absence(run, self.seating, self.guests, self.turns, self.play)
        self.admin = Admin(
            run,
            self.restart,
            self.seating,
            self.play,
            self.money,
            on_restart=hooks.on_restart,
            describe_connection=hooks.describe_connection,
        )
        self.recovery = Recovery(
            run, self.duplicate, self.seating, self.play, self.turns, self.absence
        )
        self.nights = Nights(run, self.seating, self.play, self.duplicate)
        self.play.game_end_hooks.append(self.nights.game_ended)
        self.seating.closed_hooks.append(self.nights.table_closed)
        self.seating.closed_hooks.append(self.social.table_closed)
        #: Message type → the handler that answers it (see :meth:`handle`).
        self.handlers: dict[str, Handler] = self._routes()

    # --- life cycle --------------------------------------------------------------------------

    async def start(self) -> None:
        """Rebuild the tables that were running when the server last stopped (or died)."""
        self.recovery.restore_tables()
        self.nights.restore()
        # No guest survives a restart (a guest is one connection): their chips go home now.
        guests, chips = self.guests.retire_guests()
        self.recovery.resume_tables()
        self.nights.resume()
        self.lobby.start()
        self._forget_gone_guests()
        self.recovered = {"tables": len(self.tables), "guests": guests, "guest_chips": chips}
        log.info(
            "started: %d table(s) restored; %d chip(s) of %d guest(s) went back to the bank",
            len(self.tables),
            chips,
            guests,
        )

    def _forget_gone_guests(self, so_far: int | None = None) -> None:
        """The owner's guest retention (``--guest-retention``), from a timer now and then
        (every quarter of the retention, at most every 10 min; soon again while a batch
        leaves candidates behind: ``so_far``, those forgotten by the sweep's earlier batches);
        and the names of players gone from the hub's map."""
        retention = self.config.guest_retention
        more = False
        forgotten = so_far or 0
        if so_far is None:
            self.runtime.forget_unused_names()
        try:
            batch, more = self.guests.forget_gone_guests(retention)
            forgotten += batch
        except StoreError as err:
            if not self.database_error(err):
                log.exception("forgetting gone guests failed")
            else:  # (the next sweep forgets them)
                log.warning("forgetting gone guests waits for the database: %s", err)
        if forgotten and not more:
            log.info("forgot %d guest(s) gone for over %.0f s", forgotten, retention)
        timers = self.runtime.timers
        if more:
            timers.later(
                ("guest_retention",), GUEST_SWEEP_AGAIN, self._forget_gone_guests, forgotten
            )
            return
        every = min(GUEST_SWEEP_MAX, max(1.0, retention / 4))
        timers.later(("guest_retention",), every, self._forget_gone_guests)

    async def stop(self) -> None:
        self.runtime.timers.stop()
        self.social.close()
        self.lobby.stop()
        # Every guest's connection ends here and none can come back as the same guest.
        try:
            guests, chips = self.guests.retire_guests()
        except StoreError as err:  # (the database away, or its lock lost: the next start does it)
            owed = len(self.guests.owed)
            meanwhile = f" ({owed} guest(s) left while the database was away)" if owed else ""
            log.warning(
                "stopping: guests' chips not sent home now%s, the next start sends them: %s",
                meanwhile,
                err,
            )
            guests = chips = 0
        if chips:
            log.info("stopping: %d chip(s) of %d guest(s) went back to the bank", chips, guests)
        self.commit()
        self.outbox.flush_now()  # (what waits for the disk goes now, before the goodbyes)
        self.outbox.close()
        for session in list(self.sessions):
            with contextlib.suppress(Exception):
                await session.conn.close()
        await self.runtime.timers.end_tasks()
        self.turns.bot_pool.close()

    # --- a database that went away -----------------------------------------------------------

    def database_away(self, why: str) -> None:
        """The PostgreSQL lock went with its session (the database restarting, a link cut;
        server/store/pg_lock.py): nothing is written until it is ours again."""
        self.store.fence(why)

    def database_error(self, err: BaseException) -> bool:
        """``err`` is a write refused because the database is away (fenced: see
        :meth:`database_away`), or a database error that found its connection gone
        (``Store.connection_lost``): not the code's failure, and tried again once back."""
        if isinstance(err, StoreError) and self.store.fenced:
            return True
        return self.store.connection_lost(err)

    async def database_back(self) -> bool:
        """The lock is ours again and nobody held it meanwhile: the store's connection is
        opened anew and writing goes on; False (the hub must stop) if writes were held on
        the old connection (memory is ahead of the database) or the database does not answer.
        The connect waits off the loop (``Store.reconnect``): players are served meanwhile,
        as while the database was away (fenced); everything after it runs at once.

        What was refused meanwhile is picked up: a bot's or a stand-in's move, the next game,
        or anything else whose timer fired then (``Timers.refused``) is set again, and every
        table is sent again to its readers (a player whose move was refused sees it is still
        theirs, and moves again). What changed meanwhile without a request (a player who
        dropped from a waiting table left their seat, a grace period ran out, a table closed)
        is written now: every table is saved again as memory has it, those closed meanwhile
        are forgotten, and the chips of guests who left meanwhile go home."""
        try:
            if not await self.store.reconnect():
                return False
        except StoreError:
            log.warning("the database does not answer on a new connection", exc_info=True)
            return False
        self.store.fence(None)
        try:
            self._save_tables_again()
            guests, chips = self.guests.send_owed_home()
        except StoreError:
            log.warning("the database is back but the tables could not be saved", exc_info=True)
            return False
        if chips:
            log.info("the database is back: %d chip(s) of %d guest(s) went home", chips, guests)
        timers = self.runtime.timers
        for table in list(self.tables.values()):
            if table.status == "playing" and table.state is not None and table.state.is_over:
                self.play.settle(table)
            elif table.status == "between" and ("next", table.id) not in timers.pending:
                timers.later(("next", table.id), 0.0, self.play.next_game, table.id)
            if table.id in self.tables:
                self.turns.arm(table)
        timers.again()  # (a game night's round, a deal that waited for reveals: now)
        self.tables_again(list(self.sessions))
        return True

    def _save_tables_again(self) -> None:
        """Every table whose record the store has not as memory has it saved again, and the
        store's tables no longer open here forgotten (see :meth:`database_back`)."""
        stored = {row["id"]: row["info"] for row in self.store.live_tables()}
        behind = [t for t in self.tables.values() if stored.get(t.id) != t.record()]
        gone = sorted(set(stored) - set(self.tables))
        if not behind and not gone:
            return
        with self.store.transaction():
            for table in behind:
                self.runtime.save(table)
            for table_id in gone:
                self.store.delete_table(table_id)

    def _commit_soon(self) -> None:
        """The store opened a batch: commit it once the handlers ready now have run."""
        asyncio.get_running_loop().call_soon(self.commit)

    def commit(self) -> None:
        """Commit the held writes, then send what waited for them. If they cannot be, the
        hub stops (memory is ahead of the store); a batch that went with the database (a
        PostgreSQL killed under it: :meth:`database_error`) is said in one line, no
        traceback: not the code's failure."""
        try:
            self.nights.save_held()  # (the events changed in the batch, each written once)
            self.store.commit_held()
        except Exception as err:
            if self.database_error(err):  # (the held writes went with the database: one line)
                log.critical("the store cannot commit; stopping: %s", err)
            else:
                log.critical("the store cannot commit; stopping", exc_info=True)
            self.outbox.drop()
            if self.on_fatal is not None:
                self.on_fatal()
            return
        self.outbox.flush()

    def _sync_failed(self) -> None:
        if self.on_fatal is not None:  # (as a commit that fails: memory is ahead of the disk)
            self.on_fatal()

    @property
    def memory(self) -> FrozenSessions | None:
        """The process's garbage-collection policy, told of sessions (``gambit hub`` sets it;
        in ``gambit serve`` the SSH host's is told of its own sessions)."""
        return self.runtime.memory

    @memory.setter
    def memory(self, memory: FrozenSessions | None) -> None:
        self.runtime.memory = memory

    def observe_actions(self, hook: ActionHook) -> Callable[[], None]:
        """Tell ``hook`` of every accepted action from now on: the way in for an observer
        made after the hub because it reads the hub (the metrics); those known before are
        :attr:`HubHooks.action_hooks`. Returns what stops telling it."""
        self.action_hooks.append(hook)

        def stop() -> None:
            if hook in self.action_hooks:
                self.action_hooks.remove(hook)

        return stop

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        return self.runtime.timers.spawn(coro)

    def tables_again(self, sessions: Collection[Session]) -> None:
        """Every table ``sessions`` sit at or watch, sent again to its readers (the bus, after
        NATS came back: what it published meanwhile may be lost; see bus.py)."""
        players = {s.player.id for s in sessions if s.player is not None}
        watching = set(sessions)
        for table in list(self.tables.values()):
            readers = self.watchers.by_table.get(table.id, ())
            if any(seat.player in players for seat in table.seats) or not watching.isdisjoint(
                readers
            ):
                self.play.views.send(table)

    def later(self, key: Any, delay: float, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback`` after ``delay`` seconds, replacing any timer under ``key``."""
        self.runtime.timers.later(key, delay, callback, *args)

    def cancel(self, key: Any) -> None:
        self.runtime.timers.cancel(key)

    @property
    def timers(self) -> dict[Any, asyncio.TimerHandle]:
        """The timers set now, by key (read only: :meth:`later` and :meth:`cancel` set them)."""
        return self.runtime.timers.pending

    def cancel_table(self, table_id: int) -> None:
        """Cancel every timer of a table (keys ``(kind, table id, …)``): it closes."""
        self.runtime.timers.cancel_table(table_id)

    # --- one connection ----------------------------------------------------------------------

    async def serve(self, conn: Connection) -> None:
        """Talk to one client until it leaves. Never raises for anything the client sends."""
        config = self.config
        session = Session(
            conn,
            outbox=self.outbox,
            refusals=RateLimiter(config.max_refused, config.max_refused / 10),
        )
        self.sessions.add(session)
        self.lobby.session_added(session)
        if self.memory is not None:
            self.memory.session_started()
        try:
            hello = await self._await_hello(session)
            if hello is None:
                return
            request = request_of(hello)  # (a hello is always of a shape)
            assert isinstance(request, Hello)
            self.on_hello(session, request)
            if hasattr(conn, "on_message"):  # (a bus session: see BusConnection.received)

                def handle_now(message: dict[str, Any] | ProtocolError) -> bool:
                    if not session.alive or session.ending:
                        return False
                    try:
                        self.handle(session, message)
                    except Exception:
                        log.exception("session %s failed", session.id)
                        return False
                    return session.alive and not session.ending

                conn.on_message = handle_now
            handled = 0
            while session.alive and not session.ending:
                try:
                    message = await conn.recv()
                except ConnectionClosed:
                    break
                self.handle(session, message)
                handled += 1
                if handled % TURN_MESSAGES == 0:
                    # Frames already buffered are read without a pause: one client's burst
                    # must not keep the event loop from everyone else until it is all handled.
                    await asyncio.sleep(0)
        except Exception:
            log.exception("session %s failed", session.id)
        finally:
            if hasattr(conn, "on_message"):
                conn.on_message = None
            self.commit()  # what was said to this client goes out before it is hung up ...
            try:
                self._drop_session(session, sending=True)
            except Exception:  # (the connection is closed below whatever happened)
                log.exception("session %s: dropping it failed", session.id)
            await self.outbox.sent()  # ... once on the disk (see outbox.py)
            session.alive = False
            with contextlib.suppress(Exception):
                await conn.close()

    async def _await_hello(self, session: Session) -> dict[str, Any] | None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.hello_timeout  # in all, not per message
        while True:
            try:
                message = await asyncio.wait_for(
                    session.conn.recv(), timeout=max(0.0, deadline - loop.time())
                )
            except (ConnectionClosed, TimeoutError):
                return None
            try:
                message = self._check(session, message)
            except ProtocolError as err:
                if not self._refuse_frame(session, err):
                    return None
                continue
            if message["t"] != "hello":
                session.push(error("hello_first", "Say hello first."))
                continue
            if message["v"] != PROTOCOL_VERSION:
                self.bye(
                    session,
                    "version",
                    said(
                        "This server speaks protocol version {server}; your client speaks "
                        "version {client}. Please update.",
                        server=PROTOCOL_VERSION,
                        client=message["v"],
                    ),
                )
                return None
            return message

    def _check(self, session: Session, message: dict | ProtocolError) -> dict[str, Any]:
        if isinstance(message, ProtocolError):
            raise message
        validate_client(message)
        session.bad_frames = 0
        return message

    def _refuse_frame(self, session: Session, err: ProtocolError) -> bool:
        """Answer a bad frame; False once the client has sent too many in a row."""
        session.bad_frames += 1
        if session.bad_frames >= self.config.max_bad_frames:
            self.bye(session, "too_many_errors", said("Too many malformed messages; goodbye."))
            return False
        session.push(error(err.code, err.message))
        return True

    def bye(self, session: Session, code: str, sentence: Sentence) -> None:
        """Say goodbye (``sentence``: :func:`errors.said`) after everything said before it,
        then hang up."""
        self.runtime.bye(session, code, sentence)

    def _routes(self) -> dict[str, Handler]:
        """Each client message (its request class) and the part that answers it."""
        social, seating, history, replays = self.social, self.seating, self.history, self.replays
        routes = Routes()
        routes.add(Hello, self.on_hello)
        routes.add(Profile, self.on_profile)
        routes.add(Ping, self.on_ping)
        routes.add(AdminRequest, self.on_admin)
        routes.add(LobbyWatch, self.lobby.on_lobby_watch)
        routes.add(CreateTable, seating.on_create_table)
        routes.add(Join, seating.on_join)
        routes.add(Leave, seating.on_leave)
        routes.add(Stand, seating.on_stand)
        routes.add(Spectate, seating.on_spectate)
        routes.add(AddBot, seating.on_add_bot)
        routes.add(RemoveBot, seating.on_remove_bot)
        routes.add(Start, seating.on_start)
        routes.add(ResultRead, self.play.on_result_read)
        routes.add(Chat, social.on_chat)
        routes.add(Ignore, social.on_ignore)
        routes.add(Report, social.on_report)
        routes.add(Friend, social.on_friend)
        routes.add(Invite, social.on_invite)
        routes.add(Night, self.nights.on_night)
        routes.add(HistoryRequest, history.on_history)
        routes.add(Leaderboard, history.on_leaderboard)
        routes.add(PlayerRequest, history.on_player)
        routes.add(Record, replays.on_record)
        routes.add(Replay, replays.on_replay)
        routes.add(EntropyRequest, self.entropy.on_entropy)
        routes.add(Act, self.play.on_act)
        return routes.complete()

    def handle(self, session: Session, message: dict | ProtocolError) -> None:
        """Validate and dispatch one message; refusals become ``error`` replies."""
        try:
            message = self._check(session, message)
        except ProtocolError as err:
            self._refuse_frame(session, err)
            return
        kind = message["t"]
        handler = self.handlers[kind]
        try:
            if session.player is not None:
                session.player.budget.spend(kind)
        except HubError as err:
            self._over_budget(session, err, kind)
            return
        try:
            handler(session, request_of(message))
        except ProtocolError as err:
            # An act whose action has no shape any game knows: said as the engine says
            # one of no shape this game knows (it is no bad frame).
            session.push(error("malformed", err.message, ref=kind))
        except HubError as err:
            self.refusals[err.code] += 1
            session.push(error(err.code, ref=kind, **err.wire()))
        except RulesError as err:
            session.push(error(err.code, err.message, ref=kind))
        except StoreError:
            # (fenced: away, or a write found the connection gone: Store.connection_lost)
            if not self.store.fenced:
                log.exception("handler %s failed", kind)
                session.push(error("internal", "Something went wrong on the server.", ref=kind))
                return
            self._not_saved(session, kind)
        except Exception as err:
            if self.store.connection_lost(err):  # (a read found it gone: said the same)
                self._not_saved(session, kind)
                return
            log.exception("handler %s failed", kind)
            session.push(error("internal", "Something went wrong on the server.", ref=kind))

    def _not_saved(self, session: Session, kind: str) -> None:
        """The database is away (database_away, or the store's connection found gone):
        nothing of the request was written (a move is stored before it is applied: the game
        is as it was), and the same request is taken once the database is back, in a
        moment: the player reads that."""
        self.refusals["not_saved"] += 1
        text = said("The server could not save that just now; try again in a moment.")
        session.push(error("not_saved", ref=kind, **text))

    def _over_budget(self, session: Session, err: HubError, kind: str) -> None:
        """A message past the player's budget is refused; a client that keeps sending them
        (hundreds within seconds) is cut off."""
        self.refusals["over_budget"] += 1
        if session.refusals is not None and not session.refusals.allow():
            self.refusals["cut_off"] += 1
            log.info("session %s sent too many messages too fast; cut off", session.id)
            self.bye(session, "too_fast", said("You sent too many messages too fast; goodbye."))
            return
        session.push(error(err.code, ref=kind, **err.wire()))

    # --- hello, identity and names -----------------------------------------------------------

    def on_hello(self, session: Session, message: Hello) -> None:
        if session.player is not None:
            raise HubError("already_hello", "You have already said hello.")
        identity = message.identity
        local_admin = is_local_admin(identity, session)
        if session.conn.trusted and identity and (local_admin or not identity.startswith("admin:")):
            pid, guest = identity, False
        else:
            pid, guest = f"guest:{secrets.token_hex(8)}", True
        # A key the hub has met before, under a name of its own, goes straight back to where
        # it was (``returning``); one that never kept a name is asked for one again.
        before = None if guest else self.store.get_player(pid)
        known = before is not None and bool(before.get("name"))
        record = self.store.ensure_player(pid, starting_chips=self.config.starting_chips)
        stored_lang = record.get("lang")
        lang = chosen_language(message.lang, stored_lang)
        player = self.players.get(pid)
        warning = None
        if player is None:
            wished = message.name or record.get("name")
            try:
                name = self.name_claims.claim(pid, guest, wished)
            except HubError as err:
                warning = err
                name = self.name_claims.claim(pid, guest, None)
            player = Player(
                pid,
                name,
                guest,
                lang,
                RateLimiter(self.config.chat_burst, self.config.chat_per_second),
                budget=Budget.of(self.config),
                friends=set() if guest else set(self.store.friends(pid)),
                ignores=set() if guest else self.store.ignored_by(pid),
                admin=local_admin or (not guest and pid in self.config.admins),
            )
            self.players[pid] = player
            self.online_names.add(pid, name)
            self.names[pid] = name
            self.lobby.players_changed()
        player.lang = lang
        if stored_lang is None and message.lang:  # a first choice, from the client's locale
            self.store.set_lang(pid, message.lang)
        player.sessions.add(session)
        session.player = player
        session.push(
            {
                "t": "welcome",
                "v": PROTOCOL_VERSION,
                "you": self.you(player),
                "server": self.server_info(),
                # Their name is theirs as before: no need to ask it again.
                "returning": known and warning is None,
            }
        )
        if warning is not None:
            session.push(error(warning.code, ref="hello", **warning.wire()))
        session.push(self.lobby.message(session))
        self.absence.player_back(player)
        if not guest and self.store.friend_requests_to(pid):
            session.push(self.social.friends_message(player))  # requests that came while away
        invites = self.store.invites_for(pid)
        if invites:
            session.push({"t": "invites", "invites": [self.social.invite_info(i) for i in invites]})

    def language_on(self, conn: Connection) -> str | None:
        """The language of the player talking on ``conn`` (their choice, a guest's too; None
        before their hello): what the SSH host says its goodbye in when their app could not
        tell it (the key's stored language covers registered players only)."""
        for session in self.sessions:
            if session.conn is conn and session.player is not None:
                return session.player.lang or None
        return None

    def stored_language(self, identity: str | None) -> str | None:
        """The language stored with a player's key (None for a guest, a key never seen, or
        one whose player never had a language): what the SSH host needs to say a refusal in
        the player's language before their app has said hello."""
        if not identity:
            return None
        record = self.store.get_player(identity)
        return record.get("lang") if record is not None else None

    def stored_plain(self, identity: str | None) -> bool:
        """Whether the player of this key chose the plain mode in their settings (their
        ``plain`` preference): the SSH host then starts a plain session for them."""
        if not identity:
            return False
        record = self.store.get_player(identity)
        prefs = (record or {}).get("prefs") or {}
        return prefs.get("plain") is True

    def on_profile(self, session: Session, message: Profile) -> None:
        player = need_player(session)
        if message.name is not None:
            name = self.name_claims.claim(player.id, player.guest, message.name, strict=True)
            player.name = name
            self.online_names.add(player.id, name)
            self.names[player.id] = name
            self.lobby.players_changed()
            for table in self.tables.holding(player.id):
                if player.id in table.humans():
                    self.play.table_changed(table)
        if message.lang is not None:
            player.lang = message.lang
            self.store.set_lang(player.id, player.lang)
        if message.prefs is not None:
            if player.guest:
                player.prefs = dict(message.prefs)
            else:
                self.store.set_prefs(player.id, message.prefs)
        player.push({"t": "you", **self.you(player)})

    def name_of(self, player_id: str) -> str:
        """A player's name now (the hub's own map for those it knows, else the store's)."""
        return self.runtime.name_of(player_id)

    def you(self, player: Player) -> YouInfo:
        return you(self.store, player)

    def server_info(self) -> dict[str, Any]:
        games = []
        for game in all_games().values():
            games.append(
                {
                    "name": game.name,
                    "title": game.title,
                    "min_players": game.min_players,
                    "max_players": game.max_players,
                    "options": {
                        name: {
                            "default": spec.default,
                            "choices": list(spec.choices) if spec.choices else None,
                            "min": spec.minimum,
                            "max": spec.maximum,
                            "house_rule": spec.house_rule,
                            "favours": dict(spec.favours),
                        }
                        for name, spec in game.options.items()
                    },
                }
            )
        return {
            "games": games,
            "chat_max": 500,
            "turn_timer": self.config.turn_timer,
            "starting_chips": self.config.starting_chips,
            "motd": self.store.motd(),
        }

    def save(self, table: Table) -> None:
        self.runtime.save(table)

    def tell(self, player_id: str, code: str, sentence: Sentence) -> None:
        """An ``error`` not caused by a request (``sentence``: :func:`errors.said`)."""
        self.runtime.tell(player_id, code, sentence)

    def _drop_session(self, session: Session, sending: bool = False) -> None:
        """The session is gone from the hub (``sending``: what waits in the outbox for it
        still goes out, then the caller marks it dead)."""
        if not sending:
            session.alive = False
        self.sessions.discard(session)
        self.lobby.session_removed(session)
        if self.memory is not None:
            self.memory.session_ended(len(self.sessions))
        for table_id in sorted(self.watchers.session_gone(session)):
            table = self.tables.get(table_id)
            if table is not None:
                self.lobby.table_changed(table)
        player = session.player
        if player is None:
            return
        player.sessions.discard(session)
        if not player.sessions and not self.runtime.timers.stopped:
            del self.players[player.id]
            self.online_names.remove(player.id)
            self.lobby.players_changed()
            self.absence.player_gone(player)
            if player.guest:
                self.guests.guest_left(player.id, self.seating.after_seat_change)

    def on_admin(self, session: Session, message: AdminRequest) -> None:
        self.admin.handle(session, message)

    def on_ping(self, session: Session, message: Ping) -> None:
        session.push({"t": "pong", "n": message.n})
