"""Chat (table and lobby channels, with length and rate limits), friends and invites."""

from __future__ import annotations

import logging
import time
from collections import deque
from typing import TYPE_CHECKING, Any, TextIO

from protocol.requests import Chat, Friend, Ignore, Invite, Join, Report
from protocol.server_messages import Chat as ChatLine
from protocol.server_messages import Friends
from server.store import StoreError

from .errors import HubError, said
from .session import need_player

if TYPE_CHECKING:  # for type hints only
    from .lobby import Lobby
    from .runtime import HubRuntime
    from .seating import Seating
    from .session import Player, Session
    from .table import Table

log = logging.getLogger(__name__)
#: Chat lines kept per channel: a reported line comes with the lines before and after it.
CHAT_CONTEXT = 20


class Social:
    """Chat, ignoring and reporting, friends and invites, with the chat lines they keep."""

    def __init__(self, run: HubRuntime, seating: Seating, lobby: Lobby) -> None:
        # Collaborators: the store, the config, who is online (players and sessions), the
        # tables, players' names; seating (tables, watchers, joining) and the lobby.
        self.run = run
        self.store = run.store
        self.config = run.config
        self.players = run.players
        self.sessions = run.sessions
        self.tables = run.tables
        self.seating = seating
        self.watchers = seating.watchers
        self.lobby = lobby
        #: Each chat channel's last lines (lobby, or a table id): a report's context.
        self.recent_chat: dict[Any, deque[dict[str, Any]]] = {}
        #: The chat log file (``chat_log`` in the config), or None.
        self.chat_log: TextIO | None = None
        if self.config.chat_log:
            self.chat_log = open(self.config.chat_log, "a", encoding="utf-8")  # noqa: SIM115

    def close(self) -> None:
        """The hub stops: close the chat log."""
        if self.chat_log is not None:
            self.chat_log.close()
            self.chat_log = None

    # --- chat -------------------------------------------------------------------------------

    def on_chat(self, session: Session, message: Chat) -> None:
        player = need_player(session)
        text = " ".join(message.text.split())
        text = "".join(ch for ch in text if ch.isprintable())
        if not text:
            raise HubError("empty", "Say something.")
        mute = self.store.mute_on(player.id)
        if mute is not None:
            until = time.strftime("%H:%M UTC", time.gmtime(mute["until"]))
            raise HubError(
                "muted",
                "An admin muted you in chat until {until}: {reason}",
                until=until,
                reason=mute["reason"],
            )
        out: ChatLine = {
            "t": "chat",
            "channel": message.channel,
            "from": player.name,
            "text": text,
            "ts": int(time.time()),
        }
        if message.channel == "lobby":
            self.spend_chat_token(player)
            self.chat_said(player, out)
            for s in list(self.sessions):
                if s.player is not None and player.id not in s.player.ignores:
                    s.push(out)
            return
        if message.table is None:
            raise HubError("no_table", "Table chat needs a table.")
        table = self.seating.table_of(message.table)
        watching = session in self.watchers.by_table.get(table.id, ())
        if table.seat_of(player.id) is None and not watching:
            raise HubError("not_at_table", "Sit at or watch a table to chat there.")
        self.spend_chat_token(player)
        out["table"] = table.id
        self.chat_said(player, out)
        for pid in table.humans():
            if pid in self.players and player.id not in self.players[pid].ignores:
                self.players[pid].push(out)
        for s in list(self.watchers.by_table.get(table.id, ())):
            if s.player is None or player.id not in s.player.ignores:
                s.push(out)

    def table_closed(self, table: Table) -> None:
        """A closed table's chat is no longer here to report (each table's last lines would
        otherwise stay for as long as the hub runs)."""
        self.recent_chat.pop(table.id, None)

    def chat_said(self, player: Player, line: ChatLine) -> None:
        """Keep a channel's last lines (a report's context) and write the chat log."""
        key = line.get("table", "lobby")
        recent = self.recent_chat.setdefault(key, deque(maxlen=CHAT_CONTEXT))
        recent.append({**line, "id": player.id})
        if self.chat_log is not None:
            where = f"table {line['table']}" if "table" in line else "lobby"
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(line["ts"]))
            self.chat_log.write(f"{stamp} {where} {player.name} ({player.id}): {line['text']}\n")
            self.chat_log.flush()

    # --- ignoring and reporting --------------------------------------------------------------

    def on_ignore(self, session: Session, message: Ignore) -> None:
        """Someone's chat and invites disappear for this player (or come back)."""
        player = need_player(session)
        other = self.player_named(message.name)
        if other == player.id:
            raise HubError("self", "You cannot ignore yourself.")
        if message.on:
            player.ignores.add(other)
        else:
            player.ignores.discard(other)
        if not player.guest:
            self.store.set_ignore(player.id, other, message.on)
        name = message.name
        sentence = (
            said("Ignoring {name}.", name=name)
            if message.on
            else said("No longer ignoring {name}.", name=name)
        )
        session.push({"t": "notice", "code": "ignored", **sentence})

    def on_report(self, session: Session, message: Report) -> None:
        """A chat line reported to the admins, with the lines around it for context."""
        player = need_player(session)
        key = message.table if message.channel == "table" and message.table is not None else "lobby"
        recent = list(self.recent_chat.get(key, ()))
        reported = next(
            (
                line
                for line in reversed(recent)
                if line["from"] == message.sender and line["text"] == message.text
            ),
            None,
        )
        if reported is None:
            raise HubError("no_line", "That line is no longer here to report.")
        context = [{k: v for k, v in line.items() if k != "id"} for line in recent]
        self.store.add_report(player.id, reported["id"], reported, context)
        log.info("%s reported a chat line of %s", player.id, reported["id"])
        session.push(
            {"t": "notice", "code": "reported", **said("Reported to the admins. Thank you.")}
        )

    def player_named(self, name: str) -> str:
        online = {p.name.casefold(): p.id for p in self.players.values()}
        pid = online.get(name.casefold()) or self.store.name_owner(name)
        if pid is None:
            raise HubError("no_player", "There is no player called {name}.", name=name)
        return pid

    def spend_chat_token(self, player: Player) -> None:
        """Only a message that would be delivered counts against the rate limit."""
        if self.config.chat_limit and not player.chat.allow():
            raise HubError("slow_down", "You are sending messages too fast; wait a moment.")

    # --- friends ----------------------------------------------------------------------------

    def on_friend(self, session: Session, message: Friend) -> None:
        """Friendship is asked for and answered: ``add`` asks (or accepts a request the other
        way), ``accept``/``decline`` answer, ``remove`` ends it for both."""
        player = need_player(session)
        op = message.op
        if player.guest and op != "list":
            raise HubError("guest", "Guests cannot keep friends; connect with an SSH key.")
        if op != "list":
            name = message.name
            if not name:
                raise HubError("no_player", "Name the player.")
            other = self.store.name_owner(name)
            if other is None and any(
                p.guest and p.name.casefold() == name.casefold() for p in self.players.values()
            ):
                raise HubError(
                    "guest", "{name} is a guest, and guests cannot keep friends.", name=name
                )
            if other is None:
                raise HubError("no_player", "There is no player called {name}.", name=name)
            if other == player.id:
                raise HubError("self", "You cannot befriend yourself.")
            getattr(self, f"_friend_{op}")(session, player, other)
        session.push(self.friends_message(player))

    def _friend_add(self, session: Session, player: Player, other: str) -> None:
        if other in player.friends and player.id in self.store.friends(other):
            raise HubError(
                "already_friends", "You and {name} are friends.", name=self.run.name_of(other)
            )
        if other in self.store.friend_requests_to(player.id):
            self._friend_accept(session, player, other)  # they asked first: that is a yes
            return
        if self.store.request_friend(player.id, other):
            target = self.players.get(other)
            if target is not None and player.id not in target.ignores:
                target.push({"t": "friend_request", "from": player.name})
        session.push(
            {
                "t": "notice",
                "code": "friend_asked",
                **said("Asked {name} to be friends.", name=self.run.name_of(other)),
            }
        )

    def _friend_accept(self, session: Session, player: Player, other: str) -> None:
        self._answer_request(other, player, accept=True)
        player.friends.add(other)
        asker = self.players.get(other)
        if asker is not None:
            asker.friends.add(player.id)
            asker.push(
                {
                    "t": "notice",
                    "code": "friend_accepted",
                    **said("{name} accepted your friend request.", name=player.name),
                }
            )
            asker.push(self.friends_message(asker))
        self.lobby.players_changed()  # friends online come first in their lobby

    def _friend_decline(self, session: Session, player: Player, other: str) -> None:
        self._answer_request(other, player, accept=False)
        asker = self.players.get(other)
        if asker is not None:  # their list of requests sent shrinks; no notice
            asker.push(self.friends_message(asker))

    def _friend_remove(self, session: Session, player: Player, other: str) -> None:
        self.store.unfriend(player.id, other)
        player.friends.discard(other)
        former = self.players.get(other)
        if former is not None:
            former.friends.discard(player.id)
            former.push(self.friends_message(former))
        self.lobby.players_changed()

    def _answer_request(self, sender: str, player: Player, accept: bool) -> None:
        try:
            self.store.answer_friend_request(sender, player.id, accept)
        except StoreError:
            name = self.run.name_of(sender)
            raise HubError(
                "no_request", "{name} has not asked to be your friend.", name=name
            ) from None

    def friends_message(self, player: Player) -> Friends:
        """The player's friends, who asks them (not whom they ignore) and whom they asked."""
        if player.guest:
            return {"t": "friends", "friends": [], "requests": [], "sent": []}
        requests = [
            {"name": self.run.name_of(pid)}
            for pid in self.store.friend_requests_to(player.id)
            if pid not in player.ignores
        ]
        asked = self.store.friend_requests_from(player.id)
        sent = [{"name": self.run.name_of(pid)} for pid in asked]
        return {
            "t": "friends",
            "friends": self.friends_info(player.id),
            "requests": requests,
            "sent": sent,
        }

    def friends_info(self, player_id: str) -> list[dict[str, Any]]:
        out = []
        for fid in self.store.friends(player_id):
            out.append({"name": self.run.name_of(fid), "online": fid in self.players})
        return sorted(out, key=lambda f: f["name"].casefold())

    # --- invites ----------------------------------------------------------------------------

    def on_invite(self, session: Session, message: Invite) -> None:
        player = need_player(session)
        table = self.seating.table_of(message.table)
        op = message.op
        if op == "send":
            self.seating.need_seated_or_owner(table, player)
            name = message.name
            if not name:
                raise HubError("no_player", "Name the player to invite.")
            invitee = self.store.name_owner(name)
            if invitee is None:
                online = {p.name.casefold(): p.id for p in self.players.values()}
                invitee = online.get(name.casefold())
            if invitee is None:
                raise HubError("no_player", "There is no player called {name}.", name=name)
            self.store.add_invite(table.id, player.id, invitee)
            ignored = invitee in self.players and player.id in self.players[invitee].ignores
            if invitee in self.players and not ignored:
                self.players[invitee].push(
                    {"t": "invite", "table": table.id, "from": player.name, "game": table.game}
                )
            session.push({"t": "notice", "code": "invited", **said("Invited {name}.", name=name)})
            return
        if player.id not in self.store.invited(table.id):
            raise HubError("no_invite", "You have no invitation to this table.")
        if op == "decline":
            self.store.set_invite(table.id, player.id, "declined")
            session.push({"t": "notice", "code": "declined", **said("Invitation declined.")})
            return
        self.store.set_invite(table.id, player.id, "accepted")
        self.seating.on_join(session, Join(table.id))

    def invite_info(self, invite: dict[str, Any]) -> dict[str, Any]:
        table = self.tables.get(invite["table_id"])
        return {
            "table": invite["table_id"],
            "from": self.run.name_of(invite["sender"]),
            "game": table.game if table else None,
        }
