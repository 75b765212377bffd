"""Admins: what they may do to a running server, from the app or ``gambit admin``.

Who is an admin: a player whose key is in the server's admin list (``--admin-keys``), or a
client of the hub's own unix socket that says hello as ``admin:local`` (only the server's
owner can reach that socket: ``gambit admin`` is that client). Every action is logged and
stored with who did it. Bans are checked where a client comes in (the SSH host, the TCP
listener) so that a banned client never gets an app.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from protocol.requests import Admin as AdminRequest

from .errors import HubError, said
from .money import Account, Money
from .restart import minutes_text
from .session import need_player
from .table import Seat
from .you import you

if TYPE_CHECKING:  # for type hints only
    from .hooks import DescribeConnection
    from .restart import Restart
    from .runtime import HubRuntime
    from .seating import Seating
    from .session import Player, Session
    from .table_events import TableEvents

log = logging.getLogger(__name__)

LOCAL_ADMIN = "admin:local"
#: When the countdown of a restart is told again (seconds before it).
RESTART_NOTICES = (3600, 1800, 900, 600, 300, 120, 60, 30, 10)


def is_local_admin(identity: str | None, session: Session) -> bool:
    return identity == LOCAL_ADMIN and session.conn.peer == "unix" and session.conn.trusted


def ban_text(ban: dict[str, Any]) -> str:
    """What a banned client is told (the SSH host's words, or a gateway's)."""
    until = (
        "for good"
        if ban["until"] is None
        else "until " + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ban["until"]))
    )
    return f"You are banned from this server {until}: {ban['reason']}"


class Admin:
    """The hub's admin powers, one method an op."""

    def __init__(
        self,
        run: HubRuntime,
        restart: Restart,
        seating: Seating,
        play: TableEvents,
        *,
        on_restart: Callable[[], None] | None = None,
        describe_connection: DescribeConnection | None = None,
    ) -> None:
        # Collaborators: the store, who is online (players and sessions), the tables, timers;
        # the coming restart it announces; seating and play to change and close tables.
        self.run = run
        self.store = run.store
        self.players = run.players
        self.sessions = run.sessions
        self.tables = run.tables
        self.timers = run.timers
        self.restart = restart
        self.seating = seating
        self.play = play
        self.money = Money(run.store)
        #: Called when that time comes (``gambit serve`` stops, to be started again).
        self.on_restart = on_restart
        #: The SSH host tells what it knows of a hub connection: address and idle seconds.
        self.describe_connection = describe_connection

    @property
    def restart_at(self) -> float | None:
        """When a restart announced by an admin happens (loop time), if one is coming."""
        return self.restart.at

    @restart_at.setter
    def restart_at(self, at: float | None) -> None:
        self.restart.at = at

    def is_admin(self, player: Player) -> bool:
        return player.admin

    # --- dispatch ----------------------------------------------------------------------------

    def handle(self, session: Session, message: AdminRequest) -> None:
        player = need_player(session)
        if not player.admin:
            raise HubError("not_admin", "Only the server's admins may do that.")
        op = message.op
        data = getattr(self, f"op_{op}")(player, message)
        if op not in ("sessions", "audit", "bans", "reports", "log"):
            detail = {k: v for k, v in message.to_wire().items() if k not in ("t", "op")}
            self.store.log_admin(player.id, op, detail)
            log.info("admin %s (%s): %s %s", player.name, player.id, op, detail)
        session.push({"t": "admin_reply", "op": op, "data": data})

    # --- who is here -------------------------------------------------------------------------

    def op_sessions(self, player: Player, message: AdminRequest) -> list[dict[str, Any]]:
        out = []
        for session in self.sessions:
            who = session.player
            if who is None or who.id.startswith("admin:"):
                continue
            seen = (
                self.describe_connection(session.conn)
                if self.describe_connection is not None
                else {}
            )
            tables = [t.id for t in self.tables.holding(who.id) if t.seat_of(who.id) is not None]
            out.append(
                {
                    "name": who.name,
                    "id": who.id,
                    "guest": who.guest,
                    "address": seen.get("address") or session.conn.peer,
                    "idle": seen.get("idle"),
                    "tables": tables,
                }
            )
        return sorted(out, key=lambda s: s["name"].casefold())

    def target(self, message: AdminRequest) -> str:
        """The player an op names: by name (online or registered) or by key fingerprint."""
        who = message.who
        if not who:
            raise HubError("no_player", "Name the player.")
        for p in self.players.values():
            if p.name.casefold() == who.casefold() or p.id == who:
                return p.id
        owner = self.store.name_owner(who)
        if owner is not None:
            return owner
        if who.startswith("SHA256:"):
            return who
        raise HubError("no_player", "There is no player called {name}.", name=who)

    # --- removing players --------------------------------------------------------------------

    def op_kick(self, player: Player, message: AdminRequest) -> dict[str, Any]:
        pid = self.target(message)
        reason = message.reason or "no reason given"
        kicked = self.kick(
            pid, said("An admin removed you from the server: {reason}", reason=reason)
        )
        return {"kicked": kicked}

    def kick(self, pid: str, why: dict[str, Any], code: str = "kicked") -> int:
        """End every session of ``pid`` (told why); their seats pass to bots for good."""
        for table in list(self.tables.values()):
            index = table.seat_of(pid)
            if index is not None and table.status != "waiting":
                table.seats[index] = Seat(bot="heuristic")
                self.play.table_updated(table)
            elif index is not None:
                table.seats[index] = Seat()
                self.seating.after_seat_change(table)
        target = self.players.get(pid)
        sessions = list(target.sessions) if target is not None else []
        for session in sessions:
            self.run.bye(session, code, why)
        return len(sessions)

    def op_ban(self, player: Player, message: AdminRequest) -> dict[str, Any]:
        seconds = message.seconds
        until = time.time() + seconds if seconds else None
        reason = message.reason or "no reason given"
        fingerprint = self.target(message) if message.who else None
        address = message.address
        if fingerprint is None and address is None:
            raise HubError("no_player", "Name a player (their key) or an address to ban.")
        if fingerprint is not None and fingerprint.startswith("guest:"):
            fingerprint = None  # a guest has no key: ban where they come from instead
            address = address or self._address_of(self.target(message))
        ban = self.store.add_ban(
            fingerprint=fingerprint, address=address, until=until, reason=reason, by=player.id
        )
        why = said("You are banned from this server: {reason}", reason=reason)
        kicked = 0
        for pid in list(self.players):
            if pid == fingerprint or (address and self._address_of(pid) == address):
                kicked += self.kick(pid, why, code="banned")
        return {"ban": ban, "kicked": kicked, "until": until}

    def _address_of(self, pid: str) -> str | None:
        online = self.players.get(pid)
        if online is None or self.describe_connection is None:
            return None
        for session in online.sessions:
            address = self.describe_connection(session.conn).get("address")
            if address:
                return address
        return None

    def op_unban(self, player: Player, message: AdminRequest) -> dict[str, Any]:
        fingerprint = self.target(message) if message.who else None
        lifted = self.store.lift_bans(fingerprint=fingerprint, address=message.address)
        return {"lifted": lifted}

    def op_bans(self, player: Player, message: AdminRequest) -> list[dict[str, Any]]:
        return self.store.bans()

    def banned(self, *, fingerprint: str | None = None, address: str | None = None) -> str | None:
        """Why this key or address may not come in, if it is banned."""
        ban = self.store.ban_on(fingerprint=fingerprint, address=address)
        return None if ban is None else ban_text(ban)

    # --- chat --------------------------------------------------------------------------------

    def op_mute(self, player: Player, message: AdminRequest) -> dict[str, Any]:
        pid = self.target(message)
        seconds = message.seconds or 3600
        until = time.time() + seconds
        reason = message.reason or "no reason given"
        self.store.set_mute(pid, until, reason, player.id)
        self.run.tell(
            pid,
            "muted",
            said(
                "An admin muted you in chat for {time}: {reason}",
                time=minutes_text(seconds),
                reason=reason,
            ),
        )
        return {"until": until}

    def op_unmute(self, player: Player, message: AdminRequest) -> dict[str, Any]:
        return {"lifted": self.store.lift_mute(self.target(message))}

    def op_broadcast(self, player: Player, message: AdminRequest) -> dict[str, Any]:
        text = message.text or ""
        if not text.strip():
            raise HubError("empty", "Say something.")
        notice = {"t": "notice", "code": "broadcast", "message": text}
        told = 0
        for session in list(self.sessions):
            if session.player is not None:
                session.push(notice)
                told += 1
        return {"told": told}

    def op_motd(self, player: Player, message: AdminRequest) -> dict[str, Any]:
        self.store.set_motd((message.text or "").strip())
        return {"motd": self.store.motd()}

    def op_reports(self, player: Player, message: AdminRequest) -> list[dict[str, Any]]:
        return self.store.reports()

    def op_log(self, player: Player, message: AdminRequest) -> list[dict[str, Any]]:
        return self.store.admin_log()

    # --- tables and chips --------------------------------------------------------------------

    def op_close_table(self, player: Player, message: AdminRequest) -> dict[str, Any]:
        table = self.seating.table_of(message.table or 0)
        reason = message.reason or "no reason given"
        for pid in table.humans():
            self.run.tell(
                pid,
                "table_closed",
                said("An admin closed table {table}: {reason}", table=table.id, reason=reason),
            )
        self.seating.close_table(table)  # refunds a pot in play
        return {"closed": table.id}

    def op_chips(self, player: Player, message: AdminRequest) -> dict[str, Any]:
        pid = self.target(message)
        amount = message.amount or 0
        reason = message.reason or "no reason given"
        if amount == 0:
            raise HubError("invalid", "Give an amount of chips (negative to take them).")
        account = Account.player(pid)
        if amount < 0:
            have = self.money.balance(account)
            if have < -amount:
                raise HubError("chips", "They have only {chips} chips.", chips=have)
        self.money.grant(account, amount, f"admin: {reason}")
        if pid in self.players:
            self.players[pid].push({"t": "you", **you(self.store, self.players[pid])})
        return {"balance": self.store.balance(account)}

    def op_audit(self, player: Player, message: AdminRequest) -> dict[str, Any]:
        store = self.store
        return {"problems": store.audit(), "ledger_total": store.ledger_total()}

    # --- restarting ------------------------------------------------------------------------

    def op_restart(self, player: Player, message: AdminRequest) -> dict[str, Any]:
        """Announce a restart in ``seconds`` (0: at once): a countdown to everyone, no new
        games meanwhile, then the server stops in order (seats kept, everything stored)."""
        import asyncio

        seconds = float(message.seconds or 0)
        loop = asyncio.get_running_loop()
        self.restart_at = loop.time() + seconds
        for before in (*RESTART_NOTICES, 0):
            if before <= seconds:
                self.timers.later(("restart", before), seconds - before, self._restart_tick, before)
        return {"in_seconds": seconds}

    def op_cancel_restart(self, player: Player, message: AdminRequest) -> dict[str, Any]:
        cancelled = self.restart_at is not None
        self.restart_at = None
        for before in (*RESTART_NOTICES, 0):
            self.timers.cancel(("restart", before))
        if cancelled:
            self._tell_all("restart", said("The restart is called off."))
        return {"cancelled": cancelled}

    def _restart_tick(self, before: float) -> None:
        if before == 0:
            self._tell_all("restart", said("The server restarts now. Your seat is kept."))
            if self.on_restart is not None:
                self.on_restart()
            return
        self._tell_all(
            "restart",
            said(
                "The server restarts in {time}. Games under way go on; "
                "no new game starts. Your seat is kept.",
                time=minutes_text(before),
            ),
        )

    def _tell_all(self, code: str, sentence: dict[str, Any]) -> None:
        for session in list(self.sessions):
            if session.player is not None:
                session.push({"t": "notice", "code": code, **sentence})
