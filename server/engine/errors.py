"""One family of rules errors, so callers can catch exactly what a player did wrong.

Every error carries a stable ``code`` (for translation and for the protocol) and a message a
player can read. Raising one never changes the state: engines validate before they mutate.
"""

from __future__ import annotations

from typing import Any


class RulesError(Exception):
    """An action the rules refuse. ``code`` is stable; ``str(err)`` is for people."""

    code = "rules"

    def __init__(self, message: str, **params: object) -> None:
        super().__init__(message)
        self.message = message
        self.params = params

    def to_wire(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "params": dict(self.params)}


class MalformedAction(RulesError):
    """The action is not of any shape this game knows (wrong type, missing or odd fields)."""

    code = "malformed"


class OutOfTurn(RulesError):
    """The seat has nothing to decide now (not its turn, or the game is over)."""

    code = "out_of_turn"


class IllegalAction(RulesError):
    """A well-formed action that the rules do not allow this seat now."""

    code = "illegal"


class BadSetup(RulesError):
    """A game cannot be created from these parameters (player count, options, deck)."""

    code = "bad_setup"
