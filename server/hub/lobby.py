"""The lobby: tables and players online, pushed to every client, coalesced, and bounded.

A burst of changes (a table filling with bots, ten players arriving) marks tables and the
player list dirty; one flush per ``lobby_interval`` sends each client at most one
``lobby_update`` with only what changed for them. Players coming and going are sent at most
once per ``lobby_players_every`` flushes (a second): every client in the lobby shows the
number online, so while players arrive ten a second each arrival made every lobby on the
server draw itself again, the cost of an arrival growing with the players already there.

What a client is shown is bounded by design, whatever others do: at most ``lobby_tables``
tables (their own first: where they sit, are kept a seat, own or watch; then tables with a
free seat, newest first; then the rest, newest first) and at most ``lobby_players`` players
(them, their friends online, then by name), with the totals of both. One player opening
thousands of tables once made the lobby larger than a frame may be, and nobody got one.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from protocol.requests import LobbyWatch
from protocol.server_messages import Lobby as LobbyMessage

from .frames import Prepared, array_of, map_frame, packed
from .session import need_player

if TYPE_CHECKING:  # for type hints only
    from .runtime import HubRuntime
    from .session import Player, Session
    from .table import Table
    from .watchers import Watchers


class Lobby:
    """What every client in the lobby is shown, and the bookkeeping that keeps it cheap."""

    def __init__(self, run: HubRuntime, watchers: Watchers) -> None:
        # Collaborators: the config, the store (ratings), the players online, the tables and
        # players' names; who watches which table; the timers to run the lobby's loop.
        self.run = run
        self.timers = run.timers
        self.config = run.config
        self.store = run.store
        self.players = run.players
        self.tables = run.tables
        self.names = run.names
        self.watchers = watchers
        self._dirty_tables: set[int] = set()
        self._removed_tables: set[int] = set()
        self._players_dirty = False
        self._rows: dict[int, dict[str, Any]] = {}  # each table's row as last sent
        self._task: asyncio.Task | None = None
        #: What every client without a table of its own was last shown (see flush).
        self._common: frozenset[int] = frozenset()
        #: (valid or None, made at, listing, players by name, online): see _snapshot.
        self._cache: tuple[Any, ...] | None = None
        #: A client was shown a lobby made from that snapshot, which may be older than what
        #: it shows (message): the next flush goes through every client, even if no row
        #: changed, and sends what it showed differently.
        self._shown_stale = False
        self._wakeup = asyncio.Event()
        #: When players' comings and goings were last sent, and the wake-up that sends the
        #: ones held since (see flush).
        self._players_sent_at = float("-inf")
        self._players_wake: asyncio.TimerHandle | None = None
        #: The table listing (see _listing_now), kept while no table's place in it changed:
        #: remaking it went through every table and seat, at every flush, while thousands of
        #: tables played on and none moved in it. What decides each table's place and owners
        #: (see _listing_key), as the listing was last made; the tables to look at again.
        self._listing: tuple[list[int], dict[str, list[int]]] | None = None
        self._listing_keys: dict[int, tuple[Any, ...]] = {}
        self._listing_check: set[int] = set()
        self._online: int | None = None  # players online, kept until one comes or goes
        #: The sessions that show the lobby (``lobby_watching``): a flush goes through these,
        #: a thousand, not through every session online (ten thousand, most at tables).
        self._watching: set[Session] = set()

    def start(self) -> None:
        self._task = self.timers.spawn(self._loop())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._players_wake is not None:
            self._players_wake.cancel()

    async def _loop(self) -> None:
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            with contextlib.suppress(Exception):
                self.flush()
            await asyncio.sleep(self.config.lobby_interval)

    def session_added(self, session: Session) -> None:
        if session.lobby_watching:
            self._watching.add(session)

    def session_removed(self, session: Session) -> None:
        self._watching.discard(session)

    def table_changed(self, table: Table, *, info_made: bool = False) -> None:
        """A table's row may have changed. What changes it changes its table info too, which
        is then made anew at the table's next change (``info_made``: it was, for this one)."""
        if not info_made:
            table.shown_info = None
        self._dirty_tables.add(table.id)
        self._listing_check.add(table.id)
        self._stale()
        self._wakeup.set()

    def table_removed(self, table_id: int) -> None:
        self._dirty_tables.discard(table_id)
        self._removed_tables.add(table_id)
        self._listing_check.add(table_id)
        self._stale()
        self._wakeup.set()

    def players_changed(self) -> None:
        self._players_dirty = True
        self._online = None
        self._stale()
        self._wakeup.set()

    def flush(self) -> None:
        """Send each client one coalesced update of what changed in the lobby it is shown.

        Most clients in the lobby have no table of their own: they are shown the same tables
        and get the same update, made and encoded once (see frames.py); a players list, which
        starts with its recipient, is joined from each player's entry encoded once.

        Players who came or went wait until ``lobby_players_every`` intervals have passed
        since the last players' update (a wake-up is set for then); an update of tables
        meanwhile carries the number online as it is now."""
        players_due = self._players_dirty and self._players_due()
        if not (self._dirty_tables or self._removed_tables or players_due):
            return
        # A move at a table usually leaves its lobby row as it was: send only rows that changed.
        changed = set()
        for table_id in self._dirty_tables:
            if table_id in self.tables:
                info = self.table_info(self.tables[table_id])
                if self._rows.get(table_id) != info:
                    self._rows[table_id] = info
                    changed.add(table_id)
        if not (changed or self._removed_tables or players_due or self._shown_stale):
            # Only moves (at thousands of tables, four times a second): no row changed, so
            # every table's place and every client's lobby is as it was sent. Nothing to go
            # through, let alone send.
            self._dirty_tables.clear()
            return
        self._shown_stale = False
        for table_id in self._removed_tables:
            self._rows.pop(table_id, None)
        players_dirty = players_due
        self._dirty_tables.clear()
        self._removed_tables.clear()
        if players_due:
            self._players_dirty = False
            self._players_sent_at = asyncio.get_running_loop().time()
        self._cache = None
        listing = self._listing_now()
        order, own = listing
        by_name, online = self._players_now() if players_dirty else ([], self._online_now())
        update = _Update(self, online, players_dirty, by_name)
        # Shown to a client with no table of its own and none watched: the same for all.
        common = order[: self.config.lobby_tables]
        common_set = frozenset(common)
        before = self._common
        self._common = common_set
        common_rows = [t for t in common if t in changed or t not in before]
        common_gone = sorted(before.difference(common_set))
        for session in list(self._watching):
            player = session.player
            if player is None:
                continue  # (not yet said hello: it gets the whole lobby when it does)
            if self.watchers.tables_of(session) or player.id in own:
                shown = self._tables_for(session, listing)
                shown_set: frozenset[int] | set[int] = set(shown)
            else:
                shown, shown_set = common, common_set
            was = session.lobby_shown
            if shown_set is common_set and was is before:
                rows, gone = common_rows, common_gone
            else:
                rows = [t for t in shown if t in changed or t not in was]
                gone = sorted(was.difference(shown_set))
            session.lobby_shown = shown_set
            if not (rows or gone or players_dirty):
                continue
            session.push(update.message(rows, gone, session, player))

    def _players_due(self) -> bool:
        """Whether players' comings and goings may be sent now; if not, wake the lobby's loop
        when they may."""
        loop = asyncio.get_running_loop()
        due_at = self._players_sent_at + self.config.lobby_interval * max(
            1, self.config.lobby_players_every
        )
        wait = due_at - loop.time()
        if wait <= 0:
            return True
        if self._players_wake is None or self._players_wake.when() > loop.time() + wait:
            if self._players_wake is not None:
                self._players_wake.cancel()
            self._players_wake = loop.call_later(wait, self._players_woken)
        return False

    def _players_woken(self) -> None:
        self._players_wake = None
        self._wakeup.set()

    def on_lobby_watch(self, session: Session, message: LobbyWatch) -> None:
        """The client shows the lobby, or stops showing it (it is at a table, say)."""
        need_player(session)
        was, session.lobby_watching = session.lobby_watching, message.on
        if message.on:  # (not in the lobby: it gets a fresh one when it comes back)
            self._watching.add(session)
        else:
            self._watching.discard(session)
        if message.on and not was:
            session.push(self.message(session))

    def message(self, session: Session) -> LobbyMessage:
        """The whole lobby as ``session`` is shown it (sent once, after ``welcome``).

        A thousand players arriving at once must not sort every table and player a thousand
        times: what all of them are shown is made at most once per ``lobby_interval`` while
        it changes (see :meth:`_snapshot`); the flush that follows any change sends
        whatever this one showed differently."""
        assert session.player is not None
        (order, _), by_name, online = self._snapshot()
        pid = session.player.id
        # (the snapshot may be from before this player came)
        mine = [t.id for t in reversed(self.tables.involving(pid))]
        listing = (order, {pid: mine})
        self._shown_stale = True
        shown = [t for t in self._tables_for(session, listing) if t in self.tables]
        session.lobby_shown = set(shown)
        listed = self.listed_for(session.player, by_name)
        session.lobby_players = _players_key(listed)
        return {
            "t": "lobby",
            "tables": [self.row(t) for t in shown],
            "players": [{"name": p.name, "guest": p.guest} for p in listed],
            "online": online,
            "tables_total": len(self.tables),
        }

    def _snapshot(
        self,
    ) -> tuple[tuple[list[int], dict[str, list[int]]], list[Player], int]:
        """The table listing, the players by name and their number: remade when something
        changed, but not more often than once per ``lobby_interval``."""
        now = asyncio.get_running_loop().time()
        cache = self._cache
        if cache is None or (cache[0] is None and now - cache[1] >= self.config.lobby_interval):
            by_name, online = self._players_now()
            self._cache = cache = (True, now, self._listing_now(), by_name, online)
        return cache[2], cache[3], cache[4]

    def _stale(self) -> None:
        """Something the lobby lists changed: the snapshot is remade when next asked (or a
        little later, in a burst)."""
        cache = self._cache
        if cache is not None and cache[0] is not None:
            self._cache = (None, *cache[1:])

    def _players_now(self) -> tuple[list[Player], int]:
        listed = self.listed_players()
        return sorted(listed, key=lambda p: p.name.casefold()), len(listed)

    def _online_now(self) -> int:
        if self._online is None:
            admins = sum(1 for p in self.players if p.startswith("admin:"))
            self._online = len(self.players) - admins
        return self._online

    def row(self, table_id: int) -> dict[str, Any]:
        row = self._rows.get(table_id)
        if row is None:
            row = self._rows[table_id] = self.table_info(self.tables[table_id])
        return row

    # --- what each client is shown -----------------------------------------------------------

    def _listing_now(self) -> tuple[list[int], dict[str, list[int]]]:
        """Every table in the order the lobby offers them (a free seat first, newest first),
        and each player's own tables (they sit, are kept a seat, or own it), newest first.
        Made again only when a table came, went, or changed its place or its people."""
        check, self._listing_check = self._listing_check, set()
        keys = self._listing_keys
        for table_id in check:
            table = self.tables.get(table_id)
            key = None if table is None else _listing_key(table)
            if keys.get(table_id) != key:
                self._listing = None
                if key is None:
                    keys.pop(table_id, None)
                else:
                    keys[table_id] = key
        if self._listing is not None:
            return self._listing
        newest = sorted(self.tables.values(), key=lambda t: -t.id)
        order = [t.id for t in newest if t.status == "waiting" and any(s.empty for s in t.seats)]
        free = set(order)
        order += [t.id for t in newest if t.id not in free]
        own: dict[str, list[int]] = {}
        for table in newest:
            keys[table.id] = _listing_key(table)
            own.setdefault(table.owner, []).append(table.id)
            for seat in table.seats:
                for pid in (seat.player, seat.reserved):
                    if pid is not None and pid != table.owner:
                        ids = own.setdefault(pid, [])
                        if not ids or ids[-1] != table.id:
                            ids.append(table.id)
        self._listing = (order, own)
        return self._listing

    def _tables_for(
        self, session: Session, listing: tuple[list[int], dict[str, list[int]]]
    ) -> list[int]:
        """The tables ``session`` is shown: its own, then the offered ones, at most so many."""
        order, own = listing
        assert session.player is not None
        limit = self.config.lobby_tables
        mine = own.get(session.player.id, [])
        watched = sorted(
            (t for t in self.watchers.tables_of(session) if t in self.tables), reverse=True
        )
        shown: list[int] = []
        seen: set[int] = set()
        for table_id in (*mine, *watched, *order):
            if len(shown) >= limit:
                break
            if table_id not in seen:
                seen.add(table_id)
                shown.append(table_id)
        return shown

    def players_for(
        self, player: Player, by_name: list[Player] | None = None
    ) -> list[dict[str, Any]]:
        """Players online as ``player`` is shown them: themself, friends, then others by name,
        at most so many (the total is in the message's ``online``). ``by_name``: everyone
        online sorted by name, made once for all clients of a flush."""
        return [{"name": p.name, "guest": p.guest} for p in self.listed_for(player, by_name)]

    def listed_for(self, player: Player, by_name: list[Player] | None = None) -> list[Player]:
        """The players ``player`` is shown (see :meth:`players_for`)."""
        if by_name is None:
            by_name = self.players_by_name()
        limit = self.config.lobby_players
        friends = sorted(
            (self.players[f] for f in player.friends if f in self.players),
            key=lambda p: p.name.casefold(),
        )
        listed = [player, *friends][:limit]
        first = {p.id for p in listed}
        for other in by_name:
            if len(listed) >= limit:
                break
            if other.id not in first:
                listed.append(other)
        return listed

    def players_by_name(self) -> list[Player]:
        return sorted(self.listed_players(), key=lambda p: p.name.casefold())

    def listed_players(self) -> list[Player]:
        """Players the lobby shows: not ``gambit admin`` (a tool, not a player)."""
        return [p for p in self.players.values() if not p.id.startswith("admin:")]

    def table_info(self, table: Table) -> dict[str, Any]:
        """What the lobby (and the table header) shows of a table; no card, no hidden fact."""
        seats = []
        for i, seat in enumerate(table.seats):
            seats.append(
                {
                    "seat": i,
                    "name": self.names.get(seat.player) if seat.player else None,
                    "bot": seat.bot,
                    "away": seat.player is not None and seat.player not in self.players,
                    "reserved": self.names.get(seat.reserved) if seat.reserved else None,
                }
            )
        return {
            "id": table.id,
            "game": table.game,
            "title": table.title,
            "players": table.players,
            "options": table.options,
            # (an event's table: its host, as the event names it)
            "owner": (table.night or {}).get("host") or self.names.get(table.owner, "?"),
            "access": table.access,
            "max_rating": table.max_rating,
            "stake": table.stake,
            "timer": table.timer,
            "status": table.status,
            "dealer": table.dealer,
            "games_played": table.games_played,
            "seats": seats,
            "spectators": self.watchers.count(table.id),
            "rating_changes": list(table.rating_changes),
            "first_ratings": list(table.first_ratings),
            "duplicate": table.duplicate["set"] if table.duplicate else None,
        }


def _listing_key(table: Table) -> tuple[Any, ...]:
    """What decides a table's place in the listing and whose own table it is."""
    free = table.status == "waiting" and any(s.empty for s in table.seats)
    return (free, table.owner, *(s.player for s in table.seats), *(s.reserved for s in table.seats))


def _player_key(player: Player) -> tuple[str, str, bool]:
    return (player.id, player.name, player.guest)


def _players_key(players: list[Player]) -> tuple[Any, ...]:
    return tuple(_player_key(p) for p in players)


_KEYS = {k: packed(k) for k in ("t", "tables", "removed", "players", "online", "tables_total")}


class _Update:
    """One flush's ``lobby_update`` messages: parts shared by recipients encoded once."""

    def __init__(self, lobby: Lobby, online: int, players_dirty: bool, by_name: list[Player]):
        self.lobby = lobby
        self.t = packed("lobby_update")
        self.count = online
        self.online = packed(online)
        self.total = packed(len(lobby.tables))
        self.players_dirty = players_dirty
        self.by_name = by_name
        self.tables: dict[tuple[int, ...], tuple[list[dict[str, Any]], bytes]] = {}
        self.gone: dict[tuple[int, ...], bytes] = {}
        self.entries: dict[str, bytes] = {}  # each player's entry in a players list
        self.limit = lobby.config.lobby_players
        self.head = by_name[: self.limit]
        self.head_ids = {p.id for p in self.head}
        self.common_key = _players_key(self.head[: self.limit - 1])
        self.frames: dict[tuple[tuple[int, ...], tuple[int, ...]], Prepared] = {}

    def message(
        self, rows: list[int], gone: list[int], session: Session, player: Player
    ) -> Prepared:
        key = (tuple(rows), tuple(gone))
        players, encoded = None, None
        if self.players_dirty:
            listed = self._listed(player)
            shown = listed if isinstance(listed, tuple) else _players_key(listed)
            if shown != session.lobby_players:  # else only the number online changed
                session.lobby_players = shown
                if isinstance(listed, tuple):
                    listed = [player, *self.head[: self.limit - 1]]
                entries = []
                for p in listed:
                    entry = self.entries.get(p.id)
                    if entry is None:
                        entry = self.entries[p.id] = packed({"name": p.name, "guest": p.guest})
                    entries.append(entry)
                players = [{"name": p.name, "guest": p.guest} for p in listed]
                encoded = array_of(entries)
        if players is None:
            done = self.frames.get(key)  # the very same update as another client's
            if done is None:
                done = self.frames[key] = self._make(key, None, None)
            return done
        return self._make(key, players, encoded)

    def _listed(self, player: Player) -> list[Player] | tuple[Any, ...]:
        """The players ``player`` is shown; for most (no friend online, not among the first
        by name) the common list after themself, given as its key, without a per-client
        pass over anyone."""
        if player.id not in self.head_ids and not (
            player.friends and any(f in self.lobby.players for f in player.friends)
        ):
            return (_player_key(player), *self.common_key)
        return self.lobby.listed_for(player, self.by_name)

    def _make(
        self, key: tuple[tuple[int, ...], tuple[int, ...]], players: Any, encoded: bytes | None
    ) -> Prepared:
        rows, gone = key
        tables = self.tables.get(rows)
        if tables is None:
            listed = [self.lobby.row(t) for t in rows]
            tables = self.tables[rows] = (listed, array_of([packed(r) for r in listed]))
        removed = self.gone.get(gone)
        if removed is None:
            removed = self.gone[gone] = packed(list(gone))
        k = _KEYS
        message = {
            "t": "lobby_update",
            "tables": tables[0],
            "removed": list(gone),
            "players": players,
            "online": self.count,
            "tables_total": len(self.lobby.tables),
        }
        frame = map_frame(
            [
                (k["t"], self.t),
                (k["tables"], tables[1]),
                (k["removed"], removed),
                (k["players"], encoded if encoded is not None else packed(None)),
                (k["online"], self.online),
                (k["tables_total"], self.total),
            ]
        )
        return Prepared(message, frame)
