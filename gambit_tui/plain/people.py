"""The plain mode's people: profiles (``profile``, ``profile NAME``), the leaderboards (``top``,
``top GAME``), friends (``friends``, ``friend NAME``, ``unfriend NAME``) and invitations
(``invite NAME``; one received is said with the bell and how to accept it).

The requests are the full-screen screens' (``Player``, ``Leaderboard``, ``Friend``,
``Invite``); the hub's answers are said as lines when they come. Refusals the hub sends
(no such player, a guest...) are said by the client like any other.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from protocol.requests import Friend, Invite, Join, Leaderboard, Player

from ..i18n import N_, _, ngettext
from ..names import game_title
from .new_table import _game_of
from .parser import command_name

if TYPE_CHECKING:  # for type hints only
    from protocol.requests import Request

    from ..model import ClientModel

#: The games in the order the full-screen leaderboards go through them.
GAME_ORDER = ("prophets_gambit", "prophet", "fortunes")
#: The leaderboard's lines said.
TOP = 10
#: The hub's messages said here.
PEOPLE_MESSAGES = ("player", "leaderboard", "friends", "friend_request", "invites")

PEOPLE_HELP: dict[str, str] = {
    "profile": N_(
        "Says your profile, or another player's: profile and a name. Ratings per game, games "
        "played and won."
    ),
    "top": N_(
        "Says a game's leaderboard, the best ten: top, or top and a game, as in top prophet."
    ),
    "friends": N_("Lists your friends, whether each is online and at which table."),
    "friend": N_("Asks a player to be your friend, or accepts their asking: friend and a name."),
    "unfriend": N_("Ends a friendship: unfriend and a name."),
    "invite": N_("Invites a player to your table: invite and a name."),
}


class PeopleCommands:
    """Profiles, leaderboards, friends and invitations for
    :class:`~gambit_tui.plain.client.PlainClient` (a mixin: it uses the client's model,
    ``say``, ``send`` and ``table``)."""

    if TYPE_CHECKING:
        model: ClientModel
        table: int | None

        def say(self, *lines: str, bell: bool = False) -> None: ...
        def send(self, request: Request) -> None: ...

    #: Whether the next ``friends`` message answers the player (and is said).
    friends_asked: bool = False

    # --- profiles and leaderboards ---------------------------------------------------------------

    def do_profile(self, arg: str) -> None:
        self.send(Player(arg.strip()[:24] or self.model.name))

    def do_top(self, arg: str) -> None:
        games = sorted(
            (g["name"] for g in self.model.server.get("games", [])),
            key=lambda g: GAME_ORDER.index(g) if g in GAME_ORDER else len(GAME_ORDER),
        )
        word = arg.strip()
        game = _game_of(word, games) if word else self._game_here(games)
        if game is None:
            self.say(
                _("There is no game {word}: type top and one of {games}.").format(
                    word=word, games=", ".join(game_title(g) for g in games)
                )
            )
            return
        self.send(Leaderboard(game))

    def _game_here(self, games: list[str]) -> str | None:
        """The game of the player's table, else the first game."""
        message = self.model.views.get(self.table or 0)
        if message is not None:
            return str(message["info"]["game"])
        return games[0] if games else None

    def _profile_lines(self, profile: dict[str, Any]) -> list[str]:
        name = profile["name"]
        state = _("online") if profile.get("online") else _("offline")
        since = time.strftime("%Y-%m-%d", time.localtime(profile["since"]))
        total = int(profile["games"])
        lines = [
            f"{name}, {state}. "
            + _("Plays here since {date}.").format(date=since)
            + " "
            + ngettext("{n} finished game.", "{n} finished games.", total).format(n=total)
        ]
        if name.casefold() == self.model.name.casefold():
            chips = int(self.model.you.get("chips", 0))
            lines.append(
                ngettext("You: {chips} chip.", "You: {chips} chips.", chips).format(chips=chips)
            )
        if not profile["by_game"]:
            lines.append(_("No rating yet: ratings come with the first finished game."))
        for game, found in profile["by_game"].items():
            parts = [
                _("{game}: rating {rating}").format(game=game_title(game), rating=found["rating"]),
                ngettext("{n} game, {wins} won", "{n} games, {wins} won", found["games"]).format(
                    n=found["games"], wins=found["wins"]
                ),
            ]
            best = found.get("best_chips")
            if best is not None and best > 0:
                parts.append(_("best game: +{chips} chips").format(chips=best))
            lines.append("; ".join(parts) + ".")
        return lines

    def _leaderboard_lines(self, board: dict[str, Any]) -> list[str]:
        head = ngettext(
            "Players with at least {n} finished game, best rating first.",
            "Players with at least {n} finished games, best rating first.",
            board["min_games"],
        ).format(n=board["min_games"])
        lines = [f"{game_title(board['game'])}: {head}"]
        for place, row in enumerate(board["rows"][:TOP], start=1):
            lines.append(
                ngettext(
                    "{place}. {name}, rating {rating}, {n} game.",
                    "{place}. {name}, rating {rating}, {n} games.",
                    row["games"],
                ).format(place=place, name=row["name"], rating=row["rating"], n=row["games"])
            )
        if not board["rows"]:
            lines.append(_("No one has played enough games yet."))
        return lines

    # --- friends and invitations -----------------------------------------------------------------

    def do_friends(self, arg: str) -> None:
        self.friends_asked = True
        self.send(Friend("list"))

    def _named(self, arg: str, command: str) -> str | None:
        name = arg.strip()
        if not name:
            self.say(
                _("Whom? Type {command} and a name, as in {command} Anna.").format(command=command)
            )
            return None
        return name[:24]

    def do_friend(self, arg: str) -> None:
        name = self._named(arg, command_name("friend"))
        if name is not None:
            self.friends_asked = True
            self.send(Friend("add", name=name))

    def do_unfriend(self, arg: str) -> None:
        name = self._named(arg, command_name("unfriend"))
        if name is not None:
            self.friends_asked = True
            self.send(Friend("remove", name=name))

    def do_invite(self, arg: str) -> None:
        if self.table is None or self.table not in self.model.views:
            self.say(_("You are not at a table: type tables, then join and its number."))
            return
        name = self._named(arg, command_name("invite"))
        if name is not None:
            self.send(Invite("send", self.table, name=name))

    def join_request(self, table_id: int) -> Request:
        """Joining a table one is invited to accepts the invitation (the hub then seats the
        player as ``join`` would)."""
        if any(i.get("table") == table_id for i in self.model.invites):
            self.model.forget_invite(table_id)
            return Invite("accept", table_id)
        return Join(table_id)

    def _friend_lines(self) -> list[str]:
        model = self.model
        lines = []
        for friend in model.friends or []:
            name = friend["name"]
            where = self._table_of(name) if friend.get("online") else None
            if where is not None:
                lines.append(_("{name}: online, at table {n}.").format(name=name, n=where))
            elif friend.get("online"):
                lines.append(_("{name}: online.").format(name=name))
            else:
                lines.append(_("{name}: offline.").format(name=name))
        for asked in model.sent:
            lines.append(_("{name}: asked, no answer yet.").format(name=asked["name"]))
        for request in model.requests:
            lines.append(self._request_line(request["name"]))
        return lines or [_("No friends yet: type friend and a name to add one.")]

    def _table_of(self, name: str) -> int | None:
        """A table where ``name`` sits, as the lobby lists them."""
        for table_id, info in sorted(self.model.tables.items()):
            if any(s.get("name") == name for s in info.get("seats", [])):
                return table_id
        return None

    @staticmethod
    def _request_line(name: str) -> str:
        return _("{name} asks to be your friend: type friend {name} to accept.").format(name=name)

    def _invite_line(self, invite: dict[str, Any]) -> str:
        return _("{name} invites you to table {n}: type join {n}.").format(
            name=invite.get("from"), n=invite["table"]
        )

    # --- what the hub says -----------------------------------------------------------------------

    def hear_people(self, message: dict[str, Any]) -> None:
        """Say one of :data:`PEOPLE_MESSAGES` (the model has taken it in already)."""
        kind = message["t"]
        if kind == "player":
            self.say(*self._profile_lines(message))
        elif kind == "leaderboard":
            self.say(*self._leaderboard_lines(message))
        elif kind == "friends" and self.friends_asked:
            self.friends_asked = False
            self.say(*self._friend_lines())
        elif kind == "friend_request":
            self.say(self._request_line(message["from"]), bell=True)
        elif kind == "invites":
            lines = [self._invite_line(i) for i in message["invites"] if i.get("game")]
            if lines:
                self.say(*lines, bell=True)
