"""Typed actions: an action as a frozen value, and its wire form (after python-chess's
``Move.from_uci``/``Move.uci()``).

On the wire an action is a small map with a ``"type"`` (``{"type": "play", "card": "W7"}``, see
``docs/protocol.md``, "Action vocabulary"). Here every action of the three games is a value a
client builds and reads without spelling the map out: those that name a card (:class:`Play`,
:class:`Risk`, :class:`Discard`, :class:`Give`, :class:`Pick`, :class:`Take`, and Prophet's
Gambit's :class:`BidCard`), a number of tricks (:class:`Bid`), a seat (:class:`Target`), or
nothing but their type (:class:`Draw`, :class:`Stay`, :class:`NextDeal`, …).
:func:`action_from_wire` refuses anything but exactly one of these maps with a clear
:class:`ProtocolError`; whether the action is legal now is the engine's to say, once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from .codec import ProtocolError

#: The longest card code of any deck ("W14", "*21", "HSE").
MAX_CARD = 3
#: More tricks than any deal has (Fortunes: 19).
MAX_TRICKS = 52
#: More seats than any table has.
MAX_SEAT = 5


def _fields(wire: Any, kind: str, name: str | None) -> Any:
    """The one field ``name`` of an action map of type ``kind`` (None: it has none), else
    ProtocolError."""
    if not isinstance(wire, dict) or wire.get("type") != kind:
        raise ProtocolError("invalid", f"An action of type {kind!r} must be a map with that type.")
    extra = sorted(str(k)[:32] for k in wire if k not in ("type", name))
    if extra:
        raise ProtocolError("invalid", f"Unexpected field {extra[0]!r} in a {kind} action.")
    if name is None:
        return None
    if name not in wire:
        raise ProtocolError("invalid", f"A {kind} action needs the field {name!r}.")
    return wire[name]


@dataclass(frozen=True, slots=True)
class Action:
    """One action; ``TYPE`` is its wire type, ``FIELD`` the one field it carries (if any)."""

    TYPE: ClassVar[str] = ""
    FIELD: ClassVar[str | None] = None
    #: This class's values made so far (:meth:`of`); set for every class below.
    made: ClassVar[Made]

    def to_wire(self) -> dict[str, Any]:
        if self.FIELD is None:
            return {"type": self.TYPE}
        return {"type": self.TYPE, self.FIELD: getattr(self, self.FIELD)}

    @classmethod
    def from_wire(cls, wire: Any) -> Action:
        value = _fields(wire, cls.TYPE, cls.FIELD)
        make: Callable[..., Action] = cls  # (a subclass's: it takes its one field)
        return make() if cls.FIELD is None else make(value)

    @classmethod
    def of(cls, value: Any = None) -> Action:
        """``cls(value)`` (``cls()`` for an action without a field), made once and shared
        (:class:`Made`): ``cls.made[value]`` is the same, quicker in a loop."""
        return cls.made[value]


class Made(dict[Any, Action]):
    """One action class's values by their field, each made when first asked for and then
    handed out again: the engines list a hand's actions at every move, and a value that
    cannot change may be shared. A lookup of one already made is a plain dict's, about half
    the cost of building the value. Only the engines fill it, with their own cards, counts
    and seats (a few hundred values at most), never with a client's."""

    __slots__ = ("cls",)

    def __init__(self, cls: type[Action]) -> None:
        super().__init__()
        self.cls = cls

    def __missing__(self, value: Any) -> Action:
        cls = self.cls
        make: Callable[..., Action] = cls  # (a subclass's: it takes its one field)
        made = self[value] = make() if cls.FIELD is None else make(value)
        return made


@dataclass(frozen=True, slots=True)
class _CardAction(Action):
    """An action that names one card by its code."""

    FIELD: ClassVar[str | None] = "card"
    card: str

    def to_wire(self) -> dict[str, Any]:  # (every legal card of every view: kept quick)
        return {"type": self.TYPE, "card": self.card}

    def __post_init__(self) -> None:
        if not isinstance(self.card, str) or not 0 < len(self.card) <= MAX_CARD:
            raise ProtocolError("invalid", f"A {self.TYPE} action names one card by its code.")


@dataclass(frozen=True, slots=True)
class Play(_CardAction):
    """Play one card: ``{"type": "play", "card": "W7"}`` (every game)."""

    TYPE: ClassVar[str] = "play"


@dataclass(frozen=True, slots=True)
class Bid(Action):
    """Bid a number of tricks: ``{"type": "bid", "tricks": 3}`` (Prophet, Fortunes)."""

    TYPE: ClassVar[str] = "bid"
    FIELD: ClassVar[str | None] = "tricks"
    tricks: int

    def __post_init__(self) -> None:
        tricks = self.tricks
        if type(tricks) is not int or not 0 <= tricks <= MAX_TRICKS:
            raise ProtocolError("invalid", f"A bid is a number of tricks from 0 to {MAX_TRICKS}.")


@dataclass(frozen=True, slots=True)
class BidCard(_CardAction):
    """Prophet's Gambit bids with a card laid face down: ``{"type": "bid", "card": "C3"}``."""

    TYPE: ClassVar[str] = "bid"


@dataclass(frozen=True, slots=True)
class Risk(_CardAction):
    TYPE: ClassVar[str] = "risk"


@dataclass(frozen=True, slots=True)
class Discard(_CardAction):
    TYPE: ClassVar[str] = "discard"


@dataclass(frozen=True, slots=True)
class Give(_CardAction):
    TYPE: ClassVar[str] = "give"


@dataclass(frozen=True, slots=True)
class Pick(_CardAction):
    TYPE: ClassVar[str] = "pick"


@dataclass(frozen=True, slots=True)
class Take(_CardAction):
    TYPE: ClassVar[str] = "take"


@dataclass(frozen=True, slots=True)
class Target(Action):
    """Choose a seat: ``{"type": "target", "seat": 2}`` (Prophet's Gambit)."""

    TYPE: ClassVar[str] = "target"
    FIELD: ClassVar[str | None] = "seat"
    seat: int

    def __post_init__(self) -> None:
        if type(self.seat) is not int or not 0 <= self.seat <= MAX_SEAT:
            raise ProtocolError("invalid", f"A target is a seat from 0 to {MAX_SEAT}.")


def _plain(kind: str, doc: str) -> type[Action]:
    """An action that is its type alone."""
    cls = type(kind.title().replace("_", ""), (Action,), {"TYPE": kind, "__doc__": doc})
    cls.__module__ = __name__
    return dataclass(frozen=True, slots=True)(cls)


Draw = _plain("draw", "Take the bonus draw (Prophet's Gambit).")
Pass = _plain("pass", "Let the bonus draw go (Prophet's Gambit).")
Replace = _plain("replace", "Replace one's Fate (Prophet's Gambit).")
Keep = _plain("keep", "Keep one's Fate (Prophet's Gambit).")
Highest = _plain(
    "highest", "The Marionette's target plays their highest numbered card (Prophet's Gambit)."
)
Lowest = _plain(
    "lowest", "The Marionette's target plays their lowest numbered card (Prophet's Gambit)."
)
Kill = _plain("kill", "At the Execution, kill the Focus (Prophet's Gambit).")
Save = _plain("save", "At the Execution, save the Focus (Prophet's Gambit).")
Stay = _plain("stay", "Pay the ante again (Fortunes).")
Raise = _plain("raise", "Lift the ante by one stake (Fortunes).")
Fold = _plain("fold", "End the deal (Fortunes).")
NextDeal = _plain("next_deal", "Go on to the next deal (Fortunes).")

#: Every action class by its wire type and the one field it carries.
ACTIONS: dict[tuple[str, str | None], type[Action]] = {
    (cls.TYPE, cls.FIELD): cls
    for cls in (
        Play,
        Bid,
        BidCard,
        Risk,
        Discard,
        Give,
        Pick,
        Take,
        Target,
        Draw,
        Pass,
        Replace,
        Keep,
        Highest,
        Lowest,
        Kill,
        Save,
        Stay,
        Raise,
        Fold,
        NextDeal,
    )
}


for _cls in ACTIONS.values():
    _cls.made = Made(_cls)


def action_from_wire(wire: Any) -> Action:
    """The typed value of one action map, else ProtocolError."""
    if not isinstance(wire, dict) or not isinstance(wire.get("type"), str):
        raise ProtocolError("invalid", "An action is a map with a 'type'.")
    fields = [key for key in wire if key != "type"]
    cls = ACTIONS.get((wire["type"], fields[0] if len(fields) == 1 else None))
    if cls is None:
        known = {kind for kind, _ in ACTIONS}
        if wire["type"] not in known:
            raise ProtocolError("invalid", f"Unknown action type {wire['type'][:32]!r}.")
        cls = next(c for (kind, _), c in ACTIONS.items() if kind == wire["type"])
    return cls.from_wire(wire)
