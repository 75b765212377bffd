"""Duplicate tables: every table of a named set is dealt the same cards, game by game.

A table joins a set when it is opened (``create_table`` with ``duplicate``: the set's name).
The first table of a set fixes its game, seats, options and first dealer and draws the set's
secret seed; game ``k`` of every table in the set is dealt from ``duplicate.deal_seed(seed,
k)`` (``server.engine.duplicate``), so whoever sits at seat ``s`` holds the same cards at each
table. When a game ends its results are kept with the set, and the table shows each seat how
the others who held the same cards did (``info.duplicate``).

Such deals are known before they are played (another table may have played them already), so
they are marked not fair, with their reason, at the table and in the record. A set lives as
long as one of its tables; each table keeps its own results and the set's seed in its record,
so a restarted server rebuilds its open sets.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from server.engine import duplicate, fairness

from . import deals
from .errors import HubError

if TYPE_CHECKING:
    from server.engine.base import Outcome

    from .hub import Hub
    from .table import Table

#: A set's name is at most this long (it is shown in the lobby and the result).
MAX_NAME = 24
#: A table keeps its results of this many last games for the set (the record stays bounded).
KEPT_GAMES = 50
#: The result shows at most this many other tables per seat (it must fit 80x24).
SHOWN_OTHERS = 3


def _key(table: Table) -> dict[str, Any]:
    return {"game": table.game, "players": table.players, "options": table.options}


class DuplicateMixin:
    def _init_duplicate(self: Hub) -> None:
        #: name → {game, players, options, dealer, seed, results: {game index: {table: row}}}
        self.duplicate_sets: dict[str, dict[str, Any]] = {}

    def join_duplicate_set(self: Hub, table: Table, name: str) -> None:
        """Put a new table in the set ``name`` (made if new); BadOptions-like HubError if the
        set plays another game, number of seats or options."""
        name = " ".join(name.split())
        if not name:
            raise HubError("bad_options", "A duplicate set needs a name.")
        if len(name) > MAX_NAME:
            raise HubError(
                "bad_options", "A duplicate set's name has at most {count} letters.", count=MAX_NAME
            )
        found = self.duplicate_sets.get(name)
        if found is None:
            seed = (
                secrets.token_hex(fairness.SEED_BYTES)
                if self.config.seed is None
                else f"{self.config.seed}:set:{name}"
            )
            found = {**_key(table), "dealer": table.dealer, "seed": seed, "results": {}}
            self.duplicate_sets[name] = found
        elif any(found[k] != v for k, v in _key(table).items()):
            raise HubError(
                "bad_options",
                "The duplicate set {name} plays another game, number of players or options; "
                "open the table with the same ones, or name another set.",
                name=name,
            )
        table.dealer = found["dealer"]
        table.duplicate = {"set": name, "seed": found["seed"], "dealer": table.dealer, "mine": {}}

    def draw_deal(self: Hub, table: Table) -> dict[str, Any]:
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

    def note_duplicate_result(
        self: Hub, table: Table, outcome: Outcome, results: list[dict[str, Any]]
    ) -> None:
        """Keep a finished game's results with its set (call before ``games_played`` moves)."""
        if table.duplicate is None:
            return
        row = {
            "table": table.id,
            "seats": [
                {
                    "name": self.names.get(seat.player) if seat.player else None,
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
        found = self.duplicate_sets.get(table.duplicate["set"])
        if found is not None:
            found["results"].setdefault(index, {})[table.id] = row

    def duplicate_info(self: Hub, table: Table) -> dict[str, Any] | None:
        """For the table: the set's name and, once a game of the set has ended here, how the
        other tables' players did with each seat's cards in that game."""
        if table.duplicate is None:
            return None
        name = table.duplicate["set"]
        info: dict[str, Any] = {"set": name, "game": table.games_played + 1, "others": []}
        finished = table.state is not None and table.state.is_over
        if not finished or table.games_played == 0:
            return info
        index = str(table.games_played - 1)
        info["game"] = table.games_played
        found = self.duplicate_sets.get(name) or {}
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

    def duplicate_table_closed(self: Hub, table: Table) -> None:
        """The set is forgotten with its last table."""
        if table.duplicate is None:
            return
        name = table.duplicate["set"]
        if not any(
            t.duplicate is not None and t.duplicate["set"] == name
            for t in self.tables.values()
            if t.id != table.id
        ):
            self.duplicate_sets.pop(name, None)

    def restore_duplicate_sets(self: Hub) -> None:
        """After a restart: every open set again, with the results its tables kept."""
        for table in sorted(self.tables.values(), key=lambda t: t.id):
            if table.duplicate is None:
                continue
            name = table.duplicate["set"]
            found = self.duplicate_sets.setdefault(
                name,
                {
                    **_key(table),
                    "dealer": table.duplicate["dealer"],
                    "seed": table.duplicate["seed"],
                    "results": {},
                },
            )
            for index, row in table.duplicate["mine"].items():
                found["results"].setdefault(index, {})[table.id] = row
