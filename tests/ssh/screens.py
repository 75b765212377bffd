"""What a terminal player's screen says at each step, as the benches and tests that drive real
terminal sessions look for it (English): ``bench/ssh_load.py``, ``bench/soak.py`` and the
chaos run's terminals (``tests/cluster_support/terminals.py``)."""

from __future__ import annotations

#: The welcome screen (a key the server has not seen, or a guest): Enter goes on.
WELCOME = "Enter the lobby"
#: The lobby.
LOBBY = "Lobby chat"
#: A table's screen (its status line names it: "Table 7 · stake 5 · ...").
TABLE = "Table "
#: What a terminal shows once past the welcome screen: the lobby, or its table.
PAST_WELCOME = (LOBBY, TABLE)


def table_title(table: int) -> str:
    """What the screen of table ``table`` shows (and no other table's: "Table 1" is followed by
    a space, not another digit)."""
    return f"{TABLE}{table} "
