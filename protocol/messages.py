"""Every message of the Gambit protocol, and strict validation of what clients send.

A message is a msgpack map with ``"t"`` naming its type. Clients send the types in
:data:`CLIENT_MESSAGES`, read from the request classes of ``protocol/requests.py`` (their one
declaration, with each field's rule from ``protocol/fields.py``); the hub answers with the
types in :data:`SERVER_MESSAGES`, read from ``protocol/server_messages.py``. Every incoming
message is checked by :func:`validate_client` (type known, required fields present, no unknown
fields, types, lengths and ranges right) before the hub looks at it. ``docs/protocol.md``
documents each message with an example.
"""

from __future__ import annotations

from typing import Any

from .codec import ProtocolError
from .fields import (
    ACCESS,
    ADMIN_OPS,
    BOT_KINDS,
    GAMES,
    LANGUAGES,
    MAX_CHAT,
    MAX_ID,
    MAX_NAME,
    Field,
)
from .requests import CLIENT_MESSAGES, validate_client
from .server_messages import Error, fields_by_type

__all__ = [
    "ACCESS",
    "ADMIN_OPS",
    "BOT_KINDS",
    "CLIENT_MESSAGES",
    "GAMES",
    "HISTORY_PAGE",
    "LANGUAGES",
    "LEADERBOARD_ROWS",
    "MAX_CHAT",
    "MAX_ID",
    "MAX_NAME",
    "PROTOCOL_VERSION",
    "SERVER_MESSAGES",
    "Field",
    "error",
    "validate_client",
    "validate_server",
]

PROTOCOL_VERSION = 2

#: What the hub sends (each type's fields), as :mod:`protocol.server_messages` declares it;
#: documented in docs/protocol.md. Checked in tests and debug runs (:func:`validate_server`);
#: where each message is made, by the type checker.
SERVER_MESSAGES: dict[str, tuple[str, ...]] = fields_by_type()
#: Finished games per page of a player's history.
HISTORY_PAGE = 10
#: Rows of a leaderboard.
LEADERBOARD_ROWS = 20


def validate_server(message: dict[str, Any]) -> dict[str, Any]:
    """The message unchanged if it is a message the hub may send (type known, no field
    :data:`SERVER_MESSAGES` does not list); else ProtocolError. The hub's tests check every
    message their clients receive with it, and the app does when ``GAMBIT_CHECK_MESSAGES`` is
    set (a debug run)."""
    kind: Any = message.get("t")  # (unchecked yet: anything)
    fields = SERVER_MESSAGES.get(kind)
    if fields is None:
        raise ProtocolError("unknown_type", f"The hub sent an unknown type {str(kind)[:32]!r}.")
    extra = sorted(name for name in message if name != "t" and name not in fields)
    if extra:
        raise ProtocolError("invalid", f"The hub sent an unlisted field {extra[0]!r} in {kind}.")
    return message


def error(
    code: str,
    message: str,
    *,
    ref: str | None = None,
    text: str | None = None,
    args: dict[str, Any] | None = None,
) -> Error:
    """An ``error`` (``ref``: the type of the request it refuses; ``text`` and ``args``: the
    sentence's template, see :class:`~protocol.server_messages.Sentence`)."""
    out: Error = {"t": "error", "code": code, "message": message}
    if text is not None:
        out["text"] = text
    if args is not None:
        out["args"] = args
    if ref is not None:
        out["ref"] = ref
    return out
