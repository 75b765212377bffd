"""Duplicate tables: every table of a named set is dealt the same cards, game by game.

A table joins a set when it is opened (``create_table`` with ``duplicate``: the set's name).
The first table of a set fixes its game, seats, options and first dealer and draws the set's
secret seed; game ``k`` of every table in the set is dealt from ``duplicate.deal_seed(seed,
k)`` (``server.engine.duplicate``), so whoever sits at seat ``s`` holds the same cards at each
table. When a game ends its results are kept with the set, and the table shows each seat how
the others who held the same cards did (``info.duplicate``).

**Rotation.** The set numbers its tables as they join it (0, 1, 2, …). After each game the
people at table ``t`` move ``t`` seats back (seat ``i`` → seat ``i - t``, bots and kept seats
with them); the first table keeps its seats. The deal moves on one seat as at any table, and
game ``k`` is dealt alike everywhere, so two tables whose numbers differ by ``d`` pair their
players on the same cards differently in each game: over ``n`` games (``d`` prime to the
seat count ``n``) each player at one has been compared with each player at the other. Seats
move only from one game to the next of the same company: a table that waited for players
starts its next game with everyone where they sat down.

**Nobody holds known cards.** Bots excepted, a person who has seen game ``k`` of a set (held
a seat, or a kept seat, or watched a table of the set while it was played or on show) may
not sit down for game ``k`` at another table: the hub keeps, per set, the last game each
person has seen, and refuses a seat at a table whose next game is not past it
(``duplicate_seen``). While a person sits (or is kept a seat) at one table of a set they may
neither sit at nor watch another (``duplicate_seated``), nor sit at one while watching
another (``duplicate_watching``); so what they see only grows with their own table's games.
A finished game's record or replay of an open set counts as seen too, and is refused to whose
own table of the set has yet to play it (``duplicate_unplayed``). The errors carry ``set``,
``table`` and ``game`` for the app to say them in its language.

Such deals are known before they are played (another table may have played them already), so
they are marked not fair, with their reason, at the table and in the record. A set lives as
long as one of its tables; each table keeps its own results, the set's seed and who has seen
what in its record, so a restarted server rebuilds its open sets.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from server.engine import duplicate, fairness

from . import deals
from .errors import HubError

if TYPE_CHECKING:  # for type hints only
    from server.engine.base import Outcome

    from .runtime import HubRuntime
    from .session import Player
    from .table import Table
    from .watchers import Watchers

#: A set's name is at most this long (it is shown in the lobby and the result).
MAX_NAME = 24
#: A table keeps its results of this many last games for the set (the record stays bounded).
KEPT_GAMES = 50
#: The result shows at most this many other tables per seat (it must fit 80x24).
SHOWN_OTHERS = 3


def _key(table: Table) -> dict[str, Any]:
    return {"game": table.game, "players": table.players, "options": table.options}


class Duplicate:
    """The open duplicate sets: their seeds, their tables' results and who has seen what.
    Each table of a set keeps its own part (``table.duplicate``) for a restart."""

    def __init__(self, run: HubRuntime, watchers: Watchers) -> None:
        # Collaborators: the config, the tables, saving a table, and who watches which table.
        self.run = run
        self.config = run.config
        self.tables = run.tables
        self.watchers = watchers
        #: name → {game, players, options, dealer, seed, results: {game index: {table: row}},
        #: seen: {player id: the last game index they have seen}, tables: how many joined}
        self.sets: dict[str, dict[str, Any]] = {}

    def join(self, table: Table, name: str, player: Player | None) -> None:
        """Put a new table, where ``player`` is to sit, in the set ``name`` (made if new);
        HubError if the set plays another game, number of seats or options, or if the player
        may not hold its first game's cards (:meth:`may_sit`). ``player`` None: a game
        night's table, whose players the night seated (they sit at no other of the set)."""
        name = " ".join(name.split())
        if not name:
            raise HubError("bad_options", "A duplicate set needs a name.")
        if len(name) > MAX_NAME:
            raise HubError(
                "bad_options", "A duplicate set's name has at most {count} letters.", count=MAX_NAME
            )
        found = self.sets.get(name)
        if found is None:
            seed = (
                secrets.token_hex(fairness.SEED_BYTES)
                if self.config.seed is None
                else f"{self.config.seed}:set:{name}"
            )
            found = {
                **_key(table),
                "dealer": table.dealer,
                "seed": seed,
                "results": {},
                "seen": {},
                "tables": 0,
            }
        elif any(found[k] != v for k, v in _key(table).items()):
            raise HubError(
                "bad_options",
                "The duplicate set {name} plays another game, number of players or options; "
                "open the table with the same ones, or name another set.",
                name=name,
            )
        elif player is not None:
            self._may_sit_in_set(name, found, table, player)
        self.sets[name] = found
        table.dealer = found["dealer"]
        table.duplicate = {
            "set": name,
            "seed": found["seed"],
            "dealer": table.dealer,
            "mine": {},
            "number": found["tables"],
            "seen": found["seen"],  # the set's own map: every save of a table keeps it
        }
        found["tables"] += 1

    # --- who may hold which cards ------------------------------------------------------------

    def _set_tables(self, name: str, but: Table) -> list[Table]:
        return [
            t
            for t in self.tables.values()
            if t.duplicate is not None and t.duplicate["set"] == name and t.id != but.id
        ]

    def _refuse_if_elsewhere(self, name: str, table: Table, player: Player) -> None:
        """HubError if the player holds (or is kept) a seat at another table of the set."""
        for other in self._set_tables(name, table):
            held = other.seat_of(player.id), other.reserved_seat_of(player.id)
            if held != (None, None):
                raise HubError(
                    "duplicate_seated",
                    "You hold a seat at table {table} of the duplicate set {set}: one "
                    "table of a set at a time, not even to watch another.",
                    set=name,
                    table=other.id,
                )

    def _may_sit_in_set(
        self, name: str, found: dict[str, Any], table: Table, player: Player
    ) -> None:
        self._refuse_if_elsewhere(name, table, player)
        for other in self._set_tables(name, table):
            if self.watchers.is_watching(player, other.id):
                raise HubError(
                    "duplicate_watching",
                    "You are watching table {table} of the duplicate set {set}; leave it "
                    "before you sit at another table of the set.",
                    set=name,
                    table=other.id,
                )
        seen = found["seen"].get(player.id)
        if seen is not None and seen >= table.games_played:
            raise HubError(
                "duplicate_seen",
                "You have seen game {game} of the duplicate set {set}: at this table you would "
                "hold cards you know. Join a table of the set that is past it.",
                set=name,
                game=seen + 1,
            )

    def may_sit(self, table: Table, player: Player) -> None:
        """Raise unless the player may sit down at this table of its set (if it has one)."""
        if table.duplicate is None:
            return
        name = table.duplicate["set"]
        found = self.sets.get(name)
        if found is not None:
            self._may_sit_in_set(name, found, table, player)

    def watch(self, table: Table, player: Player) -> None:
        """Before the player watches a table of a set: raise if they play at another of it;
        else what it shows (its game in play, or the finished one on show) counts as seen."""
        if table.duplicate is None:
            return
        self._refuse_if_elsewhere(table.duplicate["set"], table, player)
        if table.state is None:
            return
        shown = table.games_played if table.status == "playing" else table.games_played - 1
        if self._note_seen(table, [player.id], shown):
            self.run.save(table)

    def _note_seen(self, table: Table, players: list[str], index: int) -> bool:
        """These people have seen game ``index`` of the table's set; True if that is news."""
        assert table.duplicate is not None
        seen: dict[str, int] = table.duplicate["seen"]
        news = False
        for pid in players:
            if index >= 0 and seen.get(pid, -1) < index:
                seen[pid] = index
                news = True
        return news

    def game_starts(self, table: Table) -> None:
        """Just before a table of a set deals its next game (and is saved): its people move
        seats if the same company goes on from the last game, and everyone at the table or
        watching it has seen this game of the set from now on."""
        dup = table.duplicate
        if dup is None:
            return
        index = table.games_played
        move = dup.get("number", 0) % table.players
        if table.status == "between" and dup.get("turned", 0) < index and move:
            table.seats = table.seats[move:] + table.seats[:move]
            if len(table.rating_changes) == table.players:  # the last game's, by its seats
                table.rating_changes = table.rating_changes[move:] + table.rating_changes[:move]
            if len(table.first_ratings) == table.players:
                table.first_ratings = table.first_ratings[move:] + table.first_ratings[:move]
        dup["turned"] = index
        people = [p for s in table.seats for p in (s.player, s.reserved) if p is not None]
        watching = self.watchers.by_table.get(table.id, ())
        people += [s.player.id for s in watching if s.player is not None]
        self._note_seen(table, people, index)

    def may_open(self, player: Player, record: dict[str, Any]) -> None:
        """Before a finished game's record or replay (its seed, every hand) is shown: if it is
        a game of an open set, raise if the player's own table of the set has yet to play it;
        else it counts as seen."""
        deal = record.get("deal") or {}
        if deal.get("note") != deals.DUPLICATE_NOTE or not deal.get("hub_seed"):
            return
        for name, found in self.sets.items():
            tables = [t for t in self.tables.values() if (t.duplicate or {}).get("set") == name]
            if not tables:
                continue
            reached = max(t.games_played for t in tables)
            index = next(
                (
                    k
                    for k in range(reached + 1)
                    if duplicate.deal_seed(found["seed"], k) == deal["hub_seed"]
                ),
                None,
            )
            if index is None:
                continue
            for table in tables:
                held = table.seat_of(player.id), table.reserved_seat_of(player.id)
                if held != (None, None) and table.games_played <= index:
                    raise HubError(
                        "duplicate_unplayed",
                        "Game {game} of the duplicate set {set} is yet to be played at your "
                        "table {table}; its record opens once you have played it.",
                        set=name,
                        table=table.id,
                        game=index + 1,
                    )
            if self._note_seen(tables[0], [player.id], index):
                self.run.save(tables[0])
            return

    # --- deals and results --------------------------------------------------------------------

    def draw_deal(self, table: Table) -> dict[str, Any]:
        """The table's next deal, as ``deals.draw`` gives it; a duplicate table's is the set's
        deal for the table's next game, marked not fair."""
        if table.deal is None and table.duplicate is not None:
            hub_seed = duplicate.deal_seed(table.duplicate["seed"], table.games_played)
            table.deal = {
                "hub_seed": hub_seed,
                "commitment": fairness.commitment(hub_seed),
                "contributions": [],
                # Every table of the set must get these cards: no player's entropy is mixed in.
                "phase": deals.OFF,
                "commits": [],
                "left_out": [],
                "fair": False,
                "note": deals.DUPLICATE_NOTE,
            }
        return deals.draw(table, self.config)

    def note_result(self, table: Table, outcome: Outcome, results: list[dict[str, Any]]) -> None:
        """Keep a finished game's results with its set (call before ``games_played`` moves)."""
        if table.duplicate is None:
            return
        row = {
            "table": table.id,
            "seats": [
                {
                    "name": self.run.names.get(seat.player) if seat.player else None,
                    "bot": seat.bot,
                    "place": result["place"],
                    "score": outcome.scores[index],
                    "chips": result["chips"],
                }
                for index, (seat, result) in enumerate(zip(table.seats, results, strict=True))
            ],
        }
        index = str(table.games_played)
        mine = table.duplicate["mine"]
        mine[index] = row
        for old in sorted(mine, key=int)[:-KEPT_GAMES]:
            del mine[old]
        found = self.sets.get(table.duplicate["set"])
        if found is not None:
            found["results"].setdefault(index, {})[table.id] = row

    def info(self, table: Table) -> dict[str, Any] | None:
        """For the table: the set's name and, once a game of the set has ended here, how the
        other tables' players did with each seat's cards in that game."""
        if table.duplicate is None:
            return None
        name = table.duplicate["set"]
        info: dict[str, Any] = {
            "set": name,
            "game": table.games_played + 1,
            # After each game everyone here moves this many seats back (0: they stay).
            "move": table.duplicate.get("number", 0) % table.players,
            "others": [],
        }
        finished = table.state is not None and table.state.is_over
        if not finished or table.games_played == 0:
            return info
        index = str(table.games_played - 1)
        info["game"] = table.games_played
        found = self.sets.get(name) or {}
        rows = [
            r
            for tid, r in sorted((found.get("results") or {}).get(index, {}).items())
            if tid != table.id
        ]
        info["tables"] = len(rows)
        info["others"] = [
            [dict(r["seats"][s], table=r["table"]) for r in rows[:SHOWN_OTHERS]]
            for s in range(table.players)
        ]
        return info

    def table_closed(self, table: Table) -> None:
        """The set is forgotten with its last table; until then, what this table's people have
        seen is saved with the others (its own record goes)."""
        if table.duplicate is None:
            return
        name = table.duplicate["set"]
        others = self._set_tables(name, table)
        if not others:
            self.sets.pop(name, None)
        for other in others:
            self.run.save(other)

    def restore(self) -> None:
        """After a restart: every open set again, with the results its tables kept."""
        for table in sorted(self.tables.values(), key=lambda t: t.id):
            if table.duplicate is None:
                continue
            name = table.duplicate["set"]
            found = self.sets.setdefault(
                name,
                {
                    **_key(table),
                    "dealer": table.duplicate["dealer"],
                    "seed": table.duplicate["seed"],
                    "results": {},
                    "seen": {},
                    "tables": 0,
                },
            )
            for index, row in table.duplicate["mine"].items():
                found["results"].setdefault(index, {})[table.id] = row
            # Each table saved the set's map when it last changed: the most each one knew.
            for pid, index in (table.duplicate.get("seen") or {}).items():
                found["seen"][pid] = max(index, found["seen"].get(pid, -1))
            table.duplicate["seen"] = found["seen"]
            found["tables"] = max(found["tables"], table.duplicate.get("number", 0) + 1)
