"""What every hub part works with: the store, the settings, the outbox, the timers, and the
hub's shared registries (players online, open tables, names met).

A part gets this and, in its constructor, exactly the peers it uses, so no part needs the
hub (the hub only wires the parts and runs the connections)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from server.store import Store

from .config import HubConfig
from .outbox import Outbox
from .tables import Tables
from .timers import Timers

if TYPE_CHECKING:  # for type hints only
    from protocol.server_messages import Sentence
    from server.gc_freeze import FrozenSessions

    from .session import Player, Session
    from .table import Table


@dataclass(eq=False, slots=True)
class HubRuntime:
    store: Store
    config: HubConfig
    outbox: Outbox
    timers: Timers = field(default_factory=Timers)
    tables: Tables = field(default_factory=Tables)
    #: Players online, by id.
    players: dict[str, Player] = field(default_factory=dict)
    sessions: set[Session] = field(default_factory=set)
    #: Player id → display name, for the players online and those the open tables name
    #: (:meth:`forget_unused_names` drops the rest now and then; :meth:`name_of` reads the
    #: store for them).
    names: dict[str, str] = field(default_factory=dict)
    #: The process's garbage-collection policy, told of sessions (``gambit hub`` sets it).
    memory: FrozenSessions | None = None

    def bye(self, session: Session, code: str, sentence: Sentence) -> None:
        """Say goodbye (``sentence``: :func:`errors.said`) after everything said before it,
        then hang up."""
        session.push({"t": "bye", "code": code, **sentence})
        session.ending = True  # nothing more it sends is read

        def hang_up() -> None:
            session.alive = False
            self.timers.spawn(session.conn.close())

        self.outbox.then(hang_up)

    def save(self, table: Table) -> None:
        self.store.save_table(table.id, table.record())

    def tell(self, player_id: str, code: str, sentence: Sentence) -> None:
        """An ``error`` not caused by a request (``sentence``: :func:`errors.said`)."""
        if player_id in self.players:
            self.players[player_id].push({"t": "error", "code": code, **sentence})

    def forget_unused_names(self) -> int:
        """Forget the names of players neither online nor named by an open table (seated,
        reserved for, owner): each guest who ever came would otherwise stay here for as long
        as the hub runs. Returns how many."""
        unused = [
            pid for pid in self.names if pid not in self.players and not self.tables.involving(pid)
        ]
        for pid in unused:
            del self.names[pid]
        return len(unused)

    def name_of(self, player_id: str) -> str:
        """A player's name now (the hub's own map for those it knows, else the store's)."""
        known = self.names.get(player_id)
        return known or (self.store.get_player(player_id) or {}).get("name") or "?"
