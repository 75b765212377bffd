"""Which handler answers each client message, keyed by its request class.

The request classes (``protocol/requests.py``) are the one declaration of the client
messages: routes are added by class, never by a type's name, the type checker checks that each
handler takes that class's value, and :meth:`Routes.complete` refuses a table that leaves a
request unanswered."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from protocol.requests import REQUESTS, Request

if TYPE_CHECKING:  # for type hints only
    from .session import Session

R = TypeVar("R", bound=Request)
#: A part's method that answers one client message (given its typed value).
Handler = Callable[["Session", Any], None]


class Routes:
    """Handlers by the wire type of the request they answer."""

    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {}

    def add(self, request: type[R], handler: Callable[[Session, R], None]) -> None:
        assert request.TYPE not in self.handlers, f"{request.TYPE} has two handlers"
        self.handlers[request.TYPE] = handler

    def complete(self) -> dict[str, Handler]:
        """The handlers, once every request has one (else AssertionError, naming those
        without)."""
        missing = sorted(set(REQUESTS).difference(self.handlers))
        assert not missing, f"client messages without a handler: {missing}"
        return self.handlers
