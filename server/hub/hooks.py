"""What the hub's owner gives it, typed, when it is made: whom to tell when the store fails or
an admin's restart comes, who is told of each action, and who describes a connection.

The hub calls these; it never learns who its owner is (``gambit serve``, ``gambit hub``, a
test). What the SSH host knows of a connection reaches the hub's admins through
:attr:`HubHooks.describe_connection` (``server/ssh/live_sessions.py``'s ``describe``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type hints only
    from protocol.connection import Connection

    from .table import Table

#: Called with (table, seat, action) after each accepted action is stored and told.
ActionHook = Callable[["Table", int, Any], None]
#: What the front end knows of one of the hub's connections: ``address``, ``idle`` seconds
#: (empty: nothing).
DescribeConnection = Callable[["Connection"], dict[str, Any]]


@dataclass
class HubHooks:
    """The hub's owner's hooks (each optional)."""

    #: The store cannot commit: the server must stop (memory is ahead of disk).
    on_fatal: Callable[[], None] | None = None
    #: An admin's announced restart is due (``gambit serve`` stops, to be started again).
    on_restart: Callable[[], None] | None = None
    #: The front end's description of a connection, for the admins' list of sessions.
    describe_connection: DescribeConnection | None = None
    #: Told of every accepted action (an observer made later, which reads the hub, comes in
    #: through :meth:`Hub.observe_actions`).
    action_hooks: list[ActionHook] = field(default_factory=list)
