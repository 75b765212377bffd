"""Typed actions: an action as a frozen value, and its wire form (after python-chess's
``Move.from_uci``/``Move.uci()``).

On the wire an action is a small map with a ``"type"`` (``{"type": "play", "card": "W7"}``, see
``docs/protocol.md``, "Action vocabulary"). Here the two actions of the trick games are values a
client builds and reads without spelling the map out: :class:`Play` (a card, in every game) and
:class:`Bid` (a number of tricks, in Prophet and Fortunes; Prophet's Gambit bids with a card,
which is not this). ``from_wire`` refuses anything but exactly that map with a clear
:class:`ProtocolError`; whether the action is legal now is the engine's to say, once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .codec import ProtocolError

#: The longest card code of any deck ("W14", "*21", "HSE").
MAX_CARD = 3
#: More tricks than any deal has (Fortunes: 19).
MAX_TRICKS = 52


def _fields(wire: Any, kind: str, name: str) -> Any:
    """The one field ``name`` of an action map of type ``kind``, else ProtocolError."""
    if not isinstance(wire, dict) or wire.get("type") != kind:
        raise ProtocolError("invalid", f"An action of type {kind!r} must be a map with that type.")
    extra = sorted(str(k)[:32] for k in wire if k not in ("type", name))
    if extra:
        raise ProtocolError("invalid", f"Unexpected field {extra[0]!r} in a {kind} action.")
    if name not in wire:
        raise ProtocolError("invalid", f"A {kind} action needs the field {name!r}.")
    return wire[name]


@dataclass(frozen=True, slots=True)
class Play:
    """Play one card: ``{"type": "play", "card": "W7"}``."""

    TYPE: ClassVar[str] = "play"
    card: str

    def __post_init__(self) -> None:
        if not isinstance(self.card, str) or not 0 < len(self.card) <= MAX_CARD:
            raise ProtocolError("invalid", "A play names one card by its code.")

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.TYPE, "card": self.card}

    @classmethod
    def from_wire(cls, wire: Any) -> Play:
        return cls(_fields(wire, cls.TYPE, "card"))


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid a number of tricks: ``{"type": "bid", "tricks": 3}`` (Prophet, Fortunes)."""

    TYPE: ClassVar[str] = "bid"
    tricks: int

    def __post_init__(self) -> None:
        tricks = self.tricks
        if type(tricks) is not int or not 0 <= tricks <= MAX_TRICKS:
            raise ProtocolError("invalid", f"A bid is a number of tricks from 0 to {MAX_TRICKS}.")

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.TYPE, "tricks": self.tricks}

    @classmethod
    def from_wire(cls, wire: Any) -> Bid:
        return cls(_fields(wire, cls.TYPE, "tricks"))
