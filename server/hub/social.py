"""Chat (table and lobby channels, with length and rate limits), friends and invites."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .errors import HubError

if TYPE_CHECKING:
    from .hub import Hub
    from .session import Session


class SocialMixin:
    # --- chat -------------------------------------------------------------------------------

    def on_chat(self: Hub, session: Session, message: dict[str, Any]) -> None:
        player = self.need_player(session)
        text = " ".join(message["text"].split())
        text = "".join(ch for ch in text if ch.isprintable())
        if not text:
            raise HubError("empty", "Say something.")
        out = {
            "t": "chat",
            "channel": message["channel"],
            "from": player.name,
            "text": text,
            "ts": int(time.time()),
        }
        if message["channel"] == "lobby":
            self.spend_chat_token(player)
            for s in list(self.sessions):
                if s.player is not None:
                    s.push(out)
            return
        if "table" not in message:
            raise HubError("no_table", "Table chat needs a table.")
        table = self.table_of(message["table"])
        watching = session in self.spectators.get(table.id, ())
        if table.seat_of(player.id) is None and not watching:
            raise HubError("not_at_table", "Sit at or watch a table to chat there.")
        self.spend_chat_token(player)
        out["table"] = table.id
        for pid in table.humans():
            if pid in self.players:
                self.players[pid].push(out)
        for s in list(self.spectators.get(table.id, ())):
            s.push(out)

    def spend_chat_token(self: Hub, player) -> None:
        """Only a message that would be delivered counts against the rate limit."""
        if self.config.chat_limit and not player.chat.allow():
            raise HubError("slow_down", "You are sending messages too fast; wait a moment.")

    # --- friends ----------------------------------------------------------------------------

    def on_friend(self: Hub, session: Session, message: dict[str, Any]) -> None:
        player = self.need_player(session)
        if player.guest and message["op"] != "list":
            raise HubError("guest", "Guests cannot keep friends; connect with an SSH key.")
        op = message["op"]
        if op in ("add", "remove"):
            name = message.get("name")
            if not name:
                raise HubError("no_player", "Name the player.")
            other = self.store.name_owner(name)
            if other is None:
                raise HubError("no_player", f"There is no player called {name}.")
            if other == player.id:
                raise HubError("self", "You cannot befriend yourself.")
            if op == "add":
                self.store.add_friend(player.id, other)
                player.friends.add(other)
            else:
                self.store.remove_friend(player.id, other)
                player.friends.discard(other)
            self.lobby_players_changed()  # friends online come first in their lobby
        session.push({"t": "friends", "friends": self.friends_info(player.id)})

    def friends_info(self: Hub, player_id: str) -> list[dict[str, Any]]:
        out = []
        for fid in self.store.friends(player_id):
            name = self.names.get(fid) or (self.store.get_player(fid) or {}).get("name") or "?"
            out.append({"name": name, "online": fid in self.players})
        return sorted(out, key=lambda f: f["name"].casefold())

    # --- invites ----------------------------------------------------------------------------

    def on_invite(self: Hub, session: Session, message: dict[str, Any]) -> None:
        player = self.need_player(session)
        table = self.table_of(message["table"])
        op = message["op"]
        if op == "send":
            self.need_seated_or_owner(table, player)
            name = message.get("name")
            if not name:
                raise HubError("no_player", "Name the player to invite.")
            invitee = self.store.name_owner(name)
            if invitee is None:
                online = {p.name.casefold(): p.id for p in self.players.values()}
                invitee = online.get(name.casefold())
            if invitee is None:
                raise HubError("no_player", f"There is no player called {name}.")
            self.store.add_invite(table.id, player.id, invitee)
            if invitee in self.players:
                self.players[invitee].push(
                    {"t": "invite", "table": table.id, "from": player.name, "game": table.game}
                )
            session.push({"t": "notice", "code": "invited", "message": f"Invited {name}."})
            return
        if player.id not in self.store.invited(table.id):
            raise HubError("no_invite", "You have no invitation to this table.")
        if op == "decline":
            self.store.set_invite(table.id, player.id, "declined")
            session.push({"t": "notice", "code": "declined", "message": "Invitation declined."})
            return
        self.store.set_invite(table.id, player.id, "accepted")
        self.on_join(session, {"t": "join", "table": table.id})

    def invite_info(self: Hub, invite: dict[str, Any]) -> dict[str, Any]:
        table = self.tables.get(invite["table_id"])
        return {
            "table": invite["table_id"],
            "from": self.names.get(invite["sender"]) or "?",
            "game": table.game if table else None,
        }
