"""What a terminal player's screen says at each step, as the benches and tests that drive real
terminal sessions look for it (English): ``bench/ssh_load.py``, ``bench/soak.py`` and the
chaos run's terminals (``tests/cluster_support/terminals.py``)."""

from __future__ import annotations

import re

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


#: The footer's label and key of one action of each Prophet's Gambit decision, in the order a
#: player who presses "the key the footer offers" prefers them (a turn risks a card, which
#: turns up High cards and their decisions; Play is the only key of the Marionette's forced
#: play, which left without it went to the turn timer: a minute). tests/tui/test_asks.py
#: checks that every decision's footer offers one of them.
DECISION_KEYS = (
    ("Keep Fate", "k"),
    ("Pass", "n"),
    ("Highest", "h"),
    ("Save", "s"),
    ("Risk", "x"),
    ("Play", "p"),
)


def decision_key(footer: str) -> str | None:
    """The key for a decision the footer offers, if any (the first card by default)."""
    if "⏎" in footer:
        return "\r"
    for label, key in DECISION_KEYS:
        if re.search(rf"\b{key} {label}", footer):
            return key
    return None
