"""Creating tables, sitting, standing, spectating, bots in seats — with every table option
enforced here, never trusted from the client.

A seat changes in memory before the table is saved, so while the database is away
(``Hub.database_away``) each change asks first whether it could be written
(``Store.need_writable``): refused, nothing changes, and the player reads ``not_saved``
(the hub's ``handle``), as for a move."""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

from protocol.requests import AddBot, CreateTable, Join, Leave, RemoveBot, Spectate, Stand, Start
from server.engine import RulesError, get_game

from . import ratings
from .errors import HubError
from .money import Account
from .session import need_player
from .table import Seat, Table
from .table_events import NotConnected

if TYPE_CHECKING:  # for type hints only
    from .duplicate import Duplicate
    from .entropy import Entropy
    from .guests import Guests
    from .lobby import Lobby
    from .restart import Restart
    from .runtime import HubRuntime
    from .session import Player, Session
    from .table_events import TableEvents
    from .watchers import Watchers


class Seating:
    """Who sits where and who watches: opening and closing tables, sitting, standing,
    watching, bots in seats. The tables themselves are the hub's (``hub.tables``)."""

    def __init__(
        self,
        run: HubRuntime,
        lobby: Lobby,
        entropy: Entropy,
        duplicate: Duplicate,
        guests: Guests,
        watchers: Watchers,
        restart: Restart,
    ) -> None:
        # Collaborators: the store, the config, the tables, timers, saving a table; the
        # lobby, entropy, duplicate sets, guests, watchers and a coming restart; play
        # (connected once built, :meth:`connect`) to show a table and start or end a game.
        self.run = run
        self.timers = run.timers
        self.store = run.store
        self.config = run.config
        self.tables = run.tables
        self.lobby = lobby
        self.entropy = entropy
        self.duplicate = duplicate
        self.guests = guests
        self.watchers = watchers
        self.restart = restart
        self.play: TableEvents = NotConnected()  # (see connect)
        #: Told each table that closes, once it is gone (a game night counts an unfinished
        #: game of its round as a draw).
        self.closed_hooks: list[Callable[[Table], None]] = []

    def connect(self, play: TableEvents) -> None:
        """Play, built after seating (it holds seating), is what seating tells of changes."""
        self.play = play

    def table_of(self, table_id: int) -> Table:
        return self.tables.need(table_id)

    def on_create_table(self, session: Session, message: CreateTable) -> None:
        player = need_player(session)
        self.restart.refuse_new_games()
        owned = sum(1 for t in self.tables.values() if t.owner == player.id)
        if owned >= self.config.tables_per_player:
            raise HubError(
                "too_many_tables",
                "You already have {count} tables open; close one before opening another.",
                count=owned,
            )
        if len(self.tables) >= self.config.max_tables:
            raise HubError(
                "server_full", "The server has all the tables it can hold; join one instead."
            )
        game = get_game(message.game)
        try:
            options = game.resolve_options(message.players, message.options)
            # A throwaway state proves the whole setup is playable before anything is stored.
            game.new_state(message.players, options, 0, 0)
        except RulesError as err:
            raise HubError.untranslated("bad_options", err.message) from None
        stake = message.stake or 0
        balance = self.store.balance(Account.player(player.id))
        if stake > balance:
            raise HubError(
                "chips",
                "A stake of {stake} is more than your {chips} chips.",
                stake=stake,
                chips=balance,
            )
        self.store.need_writable()
        table_id = self.store.next_table_id()
        # The first dealer is drawn at random (Prophet ruling 3; the same for every game).
        if self.config.seed is None:
            dealer = secrets.randbelow(message.players)
        else:
            dealer = random.Random(f"{self.config.seed}:{table_id}").randrange(message.players)
        table = Table(
            id=table_id,
            dealer=dealer,
            game=game.name,
            players=message.players,
            options=options,
            owner=player.id,
            access=message.access or "everyone",
            max_rating=message.max_rating,
            stake=stake,
            timer=float(self.config.turn_timer if message.timer is None else message.timer),
        )
        if message.duplicate:
            self.duplicate.join(table, message.duplicate, player)
        self.duplicate.draw_deal(table)  # its first deal's commitment shows from the start
        self.tables[table.id] = table
        self.sit(table, 0, player)  # the creator takes the first seat (and saves the table)
        self.lobby.table_changed(table)

    def may_join(self, table: Table, player: Player) -> None:
        """Raise unless the table's options let this player in."""
        if player.id == table.owner:
            return
        if table.access == "friends" and player.id not in self.store.friends(table.owner):
            raise HubError("not_allowed", "Only the owner's friends may join this table.")
        if table.access == "invited" and player.id not in self.store.invited(table.id):
            raise HubError("not_allowed", "Only invited players may join this table.")
        if table.max_rating is not None:
            rating = self.rating_of(player.id, table.game)
            if rating > table.max_rating:
                raise HubError(
                    "rating_too_high",
                    "Your rating {rating} is above this table's limit of {limit}.",
                    rating=rating,
                    limit=table.max_rating,
                )

    def rating_of(self, player_id: str, game: str) -> int:
        return ratings.display(self.store.rating(player_id, game))

    def on_join(self, session: Session, message: Join) -> None:
        player = need_player(session)
        table = self.table_of(message.table)
        reclaim = table.reserved_seat_of(player.id)
        if table.seat_of(player.id) is not None:
            raise HubError("seated", "You already sit at this table.")
        wanted = message.seat
        if reclaim is not None and wanted in (None, reclaim):
            self.store.need_writable()
            table.seats[reclaim] = Seat(player=player.id)
            away = table.away.pop(player.id, None)
            self.play.table_updated(table)
            if away:
                games, chips = away["games"], away["chips"]
                player.push({"t": "stand_in", "table": table.id, "games": games, "chips": chips})
            return
        self.may_join(table, player)
        self.duplicate.may_sit(table, player)
        if wanted is None:
            free = [i for i, s in enumerate(table.seats) if s.empty]
            if not free:
                raise HubError("full", "This table has no free seat.")
            wanted = free[0]
        if not 0 <= wanted < table.players:
            raise HubError("no_seat", "There is no such seat at this table.")
        if not table.seats[wanted].empty:
            raise HubError("seat_taken", "That seat is taken.")
        if table.status != "waiting":
            raise HubError("started", "The game has started; join as a spectator or wait.")
        balance = self.store.balance(Account.player(player.id))
        if balance < table.stake:
            raise HubError(
                "chips",
                "This table's stake is {stake}; you have {chips}.",
                stake=table.stake,
                chips=balance,
            )
        self.sit(table, wanted, player)

    def sit(self, table: Table, index: int, player: Player) -> None:
        self.store.need_writable()
        table.seats[index] = Seat(player=player.id)
        for session in player.sessions:
            self.watchers.unwatch(session, table.id)
        self.entropy.seats_changed(table)
        self.play.table_updated(table)

    def on_stand(self, session: Session, message: Stand | Leave) -> None:
        player = need_player(session)
        table = self.table_of(message.table)
        if table.seat_of(player.id) is None:
            raise HubError("not_seated", "You do not sit at this table.")
        self.vacate(table, player)

    def vacate(self, table: Table, player: Player) -> None:
        """``player`` leaves their seat at ``table`` by the table's rules for leaving (also
        when a game night's round seats them elsewhere)."""
        index = table.seat_of(player.id)
        if index is None:
            return
        self.store.need_writable()
        if table.status == "playing":
            # Mid-game a seat cannot vanish: a bot finishes the game in it, and the seat stays
            # reserved so the player can sit down again.
            table.seats[index] = Seat(bot="heuristic", reserved=player.id)
        else:
            table.seats[index] = Seat()
        player.push({"t": "left", "table": table.id})
        self.after_seat_change(table)

    def on_leave(self, session: Session, message: Leave) -> None:
        player = need_player(session)
        table = self.table_of(message.table)
        watching = self.watchers.is_watching(player, table.id)
        if table.seat_of(player.id) is None and not watching:
            raise HubError("not_at_table", "You are neither seated at nor watching this table.")
        if table.seat_of(player.id) is not None:
            self.on_stand(session, message)
        for s in player.sessions:
            if table.id in self.watchers.tables_of(s):
                self.watchers.unwatch(s, table.id)
                s.push({"t": "left", "table": table.id})
                self.lobby.table_changed(table)

    def on_spectate(self, session: Session, message: Spectate) -> None:
        player = need_player(session)
        table = self.table_of(message.table)
        if table.seat_of(player.id) is not None:
            raise HubError("seated", "You sit at this table; you see it from your seat.")
        if table.access != "everyone":
            self.may_join(table, player)
        self.duplicate.watch(table, player)
        self.watchers.watch(session, table.id)
        session.push(self.play.table_message(table, None))
        self.lobby.table_changed(table)

    def on_add_bot(self, session: Session, message: AddBot) -> None:
        player = need_player(session)
        table = self.table_of(message.table)
        self.need_seated_or_owner(table, player)
        index = message.seat
        if not 0 <= index < table.players:
            raise HubError("no_seat", "There is no such seat at this table.")
        seat = table.seats[index]
        if not seat.empty and (seat.bot is None or seat.player or seat.reserved):
            raise HubError("seat_taken", "That seat is taken.")
        if table.status != "waiting":
            raise HubError("started", "Bots can be seated only before the game starts.")
        self.store.need_writable()
        # A bot's seat takes a new level: the lobby changes a bot's level this way.
        table.seats[index] = Seat(bot=message.kind or "heuristic")
        self.play.table_updated(table)

    def on_remove_bot(self, session: Session, message: RemoveBot) -> None:
        player = need_player(session)
        table = self.table_of(message.table)
        self.need_seated_or_owner(table, player)
        index = message.seat
        if not 0 <= index < table.players or table.seats[index].bot is None:
            raise HubError("no_bot", "There is no bot in that seat.")
        if table.status != "waiting":
            raise HubError("started", "Bots can be removed only before the game starts.")
        self.store.need_writable()
        table.seats[index] = Seat()
        self.play.table_updated(table)

    def need_seated_or_owner(self, table: Table, player: Player) -> None:
        if player.id != table.owner and table.seat_of(player.id) is None:
            raise HubError("not_seated", "Only players at this table may do that.")

    def on_start(self, session: Session, message: Start) -> None:
        player = need_player(session)
        table = self.table_of(message.table)
        if table.seat_of(player.id) is None:
            raise HubError("not_seated", "Only players at this table may start it.")
        if table.status != "waiting":
            raise HubError("started", "The game is already under way.")
        if not table.full:
            raise HubError("not_full", "Every seat must be taken (add bots to fill them).")
        self.restart.refuse_new_games()
        self.store.need_writable()
        self.play.start_game(table)

    def after_seat_change(self, table: Table) -> None:
        """Save, tell everyone, and close the table once no human holds a seat in it. While
        the database is away only a change without a request comes here (a player dropped
        from a waiting table, a grace period ran out: a request is refused before it changes
        anything): everyone is told now, and the table is saved once it is back
        (``Hub.database_back``)."""
        # Mid-game, a seat reserved for a player who stood up keeps the table (a bot finishes).
        reserved = table.status == "playing" and any(s.reserved for s in table.seats)
        if not table.humans() and not reserved:
            self.close_table(table)
            return
        self.entropy.seats_changed(table)
        if not self.store.fenced:
            try:
                self.play.table_updated(table)
                return
            except Exception as err:  # (the connection found gone as it wrote: as away)
                if not self.timers.away(err):
                    raise
        self.play.table_changed(table)

    def _forget_stored(self, table_id: int) -> None:
        """The store forgets a closed table; while the database is away (or found gone as
        this writes) it is forgotten once the database is back (``Hub.database_back``)."""
        if self.store.fenced:
            return
        try:
            self.store.delete_table(table_id)
        except Exception as err:
            if not self.timers.away(err):
                raise

    def close_table(self, table: Table) -> None:
        self.timers.cancel_table(table.id)
        if table.state is not None and not table.state.is_over:
            self.play.refund_pot(table)
        guests = self.guests.guests_at(table)
        self.duplicate.table_closed(table)
        del self.tables[table.id]
        self._forget_stored(table.id)
        for pid in guests:
            self.guests.send_guest_chips_home(pid)
        for session in self.watchers.table_closed(table.id):
            session.push({"t": "left", "table": table.id})
        self.lobby.table_removed(table.id)
        for hook in self.closed_hooks:
            hook(table)
