"""Refusals the hub sends back to a client as an ``error`` message."""

from __future__ import annotations


class HubError(Exception):
    """A request the hub refuses; nothing has changed. ``code`` is stable for translations;
    ``extra`` fields go with the error so an app can say it in its own language."""

    def __init__(self, code: str, message: str, **extra: object) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra
