"""The hub's refusals in the player's language.

An ``error`` carries a stable ``code`` and an English ``message`` (``docs/protocol.md``). A
code known here, with the fields it carries, is said again in the player's language; any
other refusal shows the hub's own words.
"""

from __future__ import annotations

from typing import Any

from .i18n import N_, _

#: code → what to say, filled from the error's fields.
REFUSALS = {
    "duplicate_seen": N_(
        "You have seen game {game} of the duplicate set {set}: at this table you would hold "
        "cards you know. Join a table of the set that is past it."
    ),
    "duplicate_seated": N_(
        "You hold a seat at table {table} of the duplicate set {set}: one table of a set at a "
        "time, not even to watch another."
    ),
    "duplicate_unplayed": N_(
        "Game {game} of the duplicate set {set} is yet to be played at your table {table}; its "
        "record opens once you have played it."
    ),
    "duplicate_watching": N_(
        "You are watching table {table} of the duplicate set {set}; leave it before you sit "
        "at another table of the set."
    ),
}


def refusal_text(message: dict[str, Any]) -> str:
    """What to tell the player of this ``error`` (or ``notice``)."""
    template = REFUSALS.get(str(message.get("code")))
    if template is not None:
        try:
            return _(template).format_map(message)
        except (KeyError, IndexError, ValueError):
            pass  # a field missing: the hub's own words
    return str(message.get("message") or _("The server refused."))
