"""What the parts that change a table (seating, entropy, admin) ask of play: the narrow
interface :class:`~server.hub.play.Play` implements, so that they need not hold play itself
(play is built after them, and holds them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # for type hints only
    from protocol.server_messages import Table as TableMessage

    from .table import Table


class TableEvents(Protocol):
    def table_changed(self, table: Table, *, moved: bool = False) -> None:
        """Tell everyone at the table (and the lobby) what changed."""

    def table_updated(self, table: Table) -> None:
        """Save the table, then tell everyone what changed (``table_changed``)."""

    def start_game(self, table: Table, *, waited: bool = False) -> None:
        """Start the table's next game (it is full)."""

    def refund_pot(self, table: Table) -> None:
        """Give back the chips in a game that ends unfinished (its table closes)."""

    def table_message(
        self,
        table: Table,
        seat: int | None,
        info: dict[str, Any] | None = None,
        public: dict[str, Any] | None = None,
    ) -> TableMessage:
        """What ``seat`` (None: a spectator) is sent of ``table``."""
        ...


class NotConnected:
    """Stands for play until the hub connects it (a part's calls before that are a bug)."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"play is not connected yet ({name})")
