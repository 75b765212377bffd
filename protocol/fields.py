"""The rules a client message's fields follow: types, lengths, ranges and choices.

Each request class (``protocol/requests.py``) gives each of its fields one of these rules in
its annotation (``table: Annotated[int, TABLE]``); the schema the hub validates against is
read from them. The limits the app needs too (names, chat) are named here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .codec import ProtocolError

LANGUAGES = ("en", "uk", "de")
GAMES = ("prophets_gambit", "prophet", "fortunes")
ACCESS = ("everyone", "friends", "invited")
BOT_KINDS = ("heuristic", "random", "strong")
#: Game nights' formats, and what becomes of players left over when tables do not divide.
NIGHT_FORMATS = ("swiss", "round_robin", "duplicate")
NIGHT_FILLS = ("bots", "byes")
NIGHT_OPS = (
    "list",
    "watch",
    "unwatch",
    "create",
    "register",
    "withdraw",
    "start",
    "pause",
    "resume",
    "extend",
    "cancel",
    "remove",
    "invite",
    "uninvite",
)
#: The host's ops on an event (its host or an admin only).
NIGHT_HOST_OPS = ("start", "pause", "resume", "extend", "cancel", "remove", "invite", "uninvite")
MAX_NAME = 24
MAX_CHAT = 500
MAX_ID = 128
ADMIN_OPS = (
    "sessions",
    "kick",
    "ban",
    "unban",
    "bans",
    "mute",
    "unmute",
    "broadcast",
    "motd",
    "close_table",
    "chips",
    "audit",
    "reports",
    "log",
    "restart",
    "cancel_restart",
)


@dataclass(frozen=True, slots=True)
class Field:
    """One field's rule: accepted python types, required or not, and limits."""

    types: tuple[type, ...]
    required: bool = True
    max_len: int | None = None
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False

    def check(self, name: str, value: Any) -> None:
        if value is None and self.nullable:
            return
        if type(value) not in self.types:  # bool is not an int here
            wanted = " or ".join(t.__name__ for t in self.types)
            raise ProtocolError("invalid", f"Field {name!r} must be {wanted}.")
        if self.max_len is not None and len(value) > self.max_len:
            raise ProtocolError("too_long", f"Field {name!r} is longer than {self.max_len}.")
        if self.choices is not None and value not in self.choices:
            raise ProtocolError(
                "invalid", f"Field {name!r} must be one of {', '.join(map(str, self.choices))}."
            )
        if self.minimum is not None and value < self.minimum:
            raise ProtocolError("invalid", f"Field {name!r} must be at least {self.minimum}.")
        if self.maximum is not None and value > self.maximum:
            raise ProtocolError("invalid", f"Field {name!r} must be at most {self.maximum}.")


def number(lo: int | None = None, hi: int | None = None, **kw: Any) -> Field:
    """A whole number's rule (``bool`` is not one here)."""
    return Field((int,), minimum=lo, maximum=hi, **kw)


def string(max_len: int, **kw: Any) -> Field:
    return Field((str,), max_len=max_len, **kw)


#: A small map of scalars (an action, table options, an app's preferences).
def mapping(max_len: int) -> Field:
    return Field((dict,), max_len=max_len)


FLAG = Field((bool,))
TABLE = number(1, 2**31)
SEAT = number(0, 5)
NAME = string(MAX_NAME)
LANGUAGE = string(8, choices=LANGUAGES)
CHANNEL = string(8, choices=("lobby", "table"))
GAME = string(32, choices=GAMES)
FINISHED_GAME = number(1, 2**62)


def check_scalar_tree(name: str, value: Any, depth: int = 0) -> None:
    """Actions and options hold only small scalars (and, in options, one level of nesting)."""
    if depth > 2:
        raise ProtocolError("invalid", f"Field {name!r} is nested too deeply.")
    if isinstance(value, dict):
        if len(value) > 16:
            raise ProtocolError("invalid", f"Field {name!r} has too many entries.")
        for key, item in value.items():
            if not isinstance(key, str) or len(key) > 32:
                raise ProtocolError("invalid", f"Field {name!r} has a bad key.")
            check_scalar_tree(name, item, depth + 1)
    elif isinstance(value, str):
        if len(value) > 64:
            raise ProtocolError("too_long", f"A value in {name!r} is too long.")
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        if not -(2**31) <= value < 2**31:
            raise ProtocolError("invalid", f"A number in {name!r} is out of range.")
    else:
        raise ProtocolError("invalid", f"Field {name!r} holds an unsupported value.")
