"""The one shape every game has, after OpenSpiel's state API.

A :class:`Game` holds the fixed facts (name, seat range, options) and makes a :class:`State`.
A state answers who must decide now (:meth:`State.pending`), what a seat may do
(:meth:`State.legal_actions`), applies an action (:meth:`State.apply`), builds what a seat may
see (:meth:`State.view`, the only place a state is serialised for a player) and says how it
ended (:meth:`State.outcome`).

Conventions every engine follows:

* Seats are numbered ``0..n-1`` clockwise. "Left" is the next seat (``s + 1``), "right" the
  previous one. Play normally passes to the left.
* Cards are protocol card codes (short strings). An action is a small dict with a ``"type"``
  and a few int/str/bool fields, e.g. ``{"type": "play", "card": "S7"}``.
* A state's attributes are plain msgpack data (dicts with str keys, lists, ints, strs, bools,
  None), so a snapshot is ``msgpack(self.__dict__)`` and restoring is the reverse. No live RNG:
  randomness comes from :func:`server.engine.rng.rng_for` with a stored counter.
* ``apply`` validates fully before it mutates: a refused action raises a
  :class:`~server.engine.errors.RulesError` subclass and changes nothing.
* Events are dicts with an ``"e"`` kind; a private one carries ``"to": [seats]`` and is shown
  only to those seats (the key itself is stripped from views).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import msgpack

from .errors import BadSetup, IllegalAction, MalformedAction, OutOfTurn

Action = dict[str, Any]

_SCALARS = (int, str, bool, type(None))


@dataclass(frozen=True, slots=True)
class Ask:
    """What one seat is being asked now: a kind (``"bid"``, ``"turn"``…) and public details."""

    kind: str
    info: dict[str, Any] = field(default_factory=dict)

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.info}


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """A table option: its default and what values it may take."""

    default: Any
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    help: str = ""
    house_rule: bool = False

    def check(self, name: str, value: Any) -> Any:
        if self.choices is not None:
            if value not in self.choices:
                raise BadSetup(
                    f"Option {name} must be one of {', '.join(map(str, self.choices))}.",
                    option=name,
                )
            return value
        if isinstance(self.default, int) and not isinstance(self.default, bool):
            if not isinstance(value, int) or isinstance(value, bool):
                raise BadSetup(f"Option {name} must be a whole number.", option=name)
            if self.minimum is not None and value < self.minimum:
                raise BadSetup(f"Option {name} must be at least {self.minimum}.", option=name)
            if self.maximum is not None and value > self.maximum:
                raise BadSetup(f"Option {name} must be at most {self.maximum}.", option=name)
        return value


@dataclass(slots=True)
class Outcome:
    """How a game ended; the single place that decides the result and the pot.

    ``winners`` are the seats that share the pot, listed in the order that remainder chips go
    (ruling 2: closest to the dealer clockwise first). ``contributions`` are each seat's antes
    in stake units (1 each unless the game raised). With ``refund`` every seat takes back what
    it put in (a drawn Fortunes deal).
    """

    ranking: list[int]
    scores: list[int]
    winners: list[int]
    hands: list[dict[str, Any] | None] | None = None
    contributions: list[int] | None = None
    refund: bool = False
    detail: dict[str, Any] = field(default_factory=dict)

    def payouts(self, stake: int) -> list[int]:
        """Chips each seat receives from the pot when every unit of ante is ``stake`` chips."""
        n = len(self.scores)
        contrib = self.contributions or [1] * n
        if self.refund:
            return [c * stake for c in contrib]
        pot = sum(contrib) * stake
        share, rest = divmod(pot, len(self.winners))
        out = [0] * n
        for i, seat in enumerate(self.winners):
            out[seat] = share + (1 if i < rest else 0)
        return out

    def to_wire(self) -> dict[str, Any]:
        return {
            "ranking": list(self.ranking),
            "scores": list(self.scores),
            "winners": list(self.winners),
            "hands": self.hands,
            "contributions": self.contributions,
            "refund": self.refund,
            "detail": self.detail,
        }


def tie_order(dealer: int, n: int) -> list[int]:
    """Seats in tie-break order (ruling 2): dealer's left first, clockwise, the dealer last."""
    return [(dealer + 1 + i) % n for i in range(n)]


class State(ABC):
    """One game in progress. Subclasses keep all their data as plain attributes."""

    game: ClassVar[Game]
    #: action type -> {field name: python type}; anything else is malformed.
    ACTIONS: ClassVar[dict[str, dict[str, type]]] = {}

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        self.num_players: int = params["num_players"]
        self.options: dict[str, Any] = params["options"]
        self.seed = params["seed"]
        self.rng_counter = 0
        self.history: list[list[Any]] = []
        self.events: list[dict[str, Any]] = []

    # --- what subclasses provide -------------------------------------------------------------

    @abstractmethod
    def pending(self) -> dict[int, Ask]:
        """The seats that must decide now, each with what it is asked. Empty when over."""

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now; empty if it has nothing to decide."""

    @abstractmethod
    def _apply(self, seat: int, action: Action) -> None:
        """Carry out an action already known to be legal."""

    @abstractmethod
    def _view(self, seat: int | None) -> dict[str, Any]:
        """The game-specific part of what ``seat`` (None: a spectator) may see."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The result once the game is over, else None."""

    @abstractmethod
    def card_locations(self) -> dict[str, list[str]]:
        """Where every card is, by place name (for audits and tests; never sent to players)."""

    def explain_illegal(self, seat: int, action: Action) -> str:
        """A readable reason why a well-formed action is refused; games override for detail."""
        return "That move is not allowed now."

    # --- the shared API ----------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.outcome() is not None

    def rng(self):
        """A fresh deterministic RNG for one random event."""
        from .rng import rng_for

        self.rng_counter += 1
        return rng_for(self.seed, self.rng_counter)

    def check_action(self, seat: Any, action: Any) -> Action:
        """Raise the right RulesError unless ``seat`` may take ``action`` now."""
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.num_players:
            raise MalformedAction("There is no such seat at this table.", seat=repr(seat))
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise MalformedAction("An action must be a map with a 'type'.")
        fields = self.ACTIONS.get(action["type"])
        if fields is None:
            raise MalformedAction(f"Unknown action {action['type']!r}.", type=action["type"])
        extra = set(action) - {"type"} - set(fields)
        if extra:
            raise MalformedAction(f"Unexpected field {sorted(extra)[0]!r} in the action.")
        for name, kind in fields.items():
            value = action.get(name)
            if type(value) is not kind:
                raise MalformedAction(f"The action needs {name!r} ({kind.__name__}).", field=name)
        if self.is_over:
            raise OutOfTurn("The game is over.")
        if seat not in self.pending():
            raise OutOfTurn("It is not your turn to decide.", seat=seat)
        if action not in self.legal_actions(seat):
            raise IllegalAction(self.explain_illegal(seat, action), type=action["type"])
        return action

    def apply(self, seat: int, action: Action) -> None:
        """Apply ``action`` for ``seat``; on any RulesError the state is unchanged."""
        action = self.check_action(seat, action)
        action = dict(action)
        self._apply(seat, action)
        self.history.append([seat, action])

    def ask(self, seat: int) -> Ask | None:
        return self.pending().get(seat)

    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` may know and nothing more; ``None`` is a spectator."""
        pending = self.pending()
        ask = pending.get(seat) if seat is not None else None
        outcome = self.outcome()
        view: dict[str, Any] = {
            "game": self.game.name,
            "seat": seat,
            "players": self.num_players,
            "options": dict(self.options),
            "waiting": sorted(pending),
            "ask": ask.to_wire() if ask else None,
            "legal": self.legal_actions(seat) if ask else [],
            "events": self.visible_events(seat),
            "over": outcome is not None,
            "outcome": outcome.to_wire() if outcome else None,
        }
        view.update(self._view(seat))
        return view

    def visible_events(self, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
        out = []
        for ev in self.events[since:]:
            to = ev.get("to")
            if to is None:
                out.append(ev)
            elif seat is not None and seat in to:
                out.append({k: v for k, v in ev.items() if k != "to"})
        return out

    def snapshot(self) -> bytes:
        return msgpack.packb(self.__dict__, use_bin_type=True)

    def clone(self) -> State:
        new = object.__new__(type(self))
        new.__dict__.update(copy.deepcopy(self.__dict__))
        return new


class Game:
    """A game's fixed facts and the factory of its states."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    deck: ClassVar[str]
    options: ClassVar[dict[str, OptionSpec]] = {}
    state_class: ClassVar[type[State]]

    def resolve_options(self, num_players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """Defaults filled in and every value checked; raises BadSetup."""
        options = dict(options or {})
        unknown = set(options) - set(self.options)
        if unknown:
            raise BadSetup(f"{self.title} has no option {sorted(unknown)[0]!r}.")
        return {
            name: spec.check(name, options.get(name, spec.default))
            for name, spec in self.options.items()
        }

    def new_state(
        self,
        num_players: int,
        options: dict[str, Any] | None = None,
        dealer: int = 0,
        seed: int | str | None = None,
        deck: list[str] | None = None,
    ) -> State:
        """A new game. ``deck`` stacks the top of the deck (top first); the rest follows
        shuffled by ``seed`` (0 when not given)."""
        if not isinstance(num_players, int) or not (
            self.min_players <= num_players <= self.max_players
        ):
            count = (
                f"{self.min_players}"
                if self.min_players == self.max_players
                else f"{self.min_players} to {self.max_players}"
            )
            raise BadSetup(
                f"{self.title} takes {count} players.",
                min=self.min_players,
                max=self.max_players,
            )
        if not isinstance(dealer, int) or not 0 <= dealer < num_players:
            raise BadSetup("The dealer must be one of the seats.")
        params = {
            "game": self.name,
            "num_players": num_players,
            "options": self.resolve_options(num_players, options),
            "dealer": dealer,
            "seed": 0 if seed is None else seed,
            "deck": list(deck) if deck is not None else None,
        }
        try:
            return self.state_class(params)
        except ValueError as err:
            raise BadSetup(str(err)) from err

    def restore(self, data: bytes) -> State:
        """The state a snapshot was taken of."""
        state = object.__new__(self.state_class)
        state.__dict__.update(msgpack.unpackb(data, raw=False, strict_map_key=False))
        return state

    def replay(self, params: dict[str, Any], history: list[list[Any]]) -> State:
        """Re-create a game from its creation parameters and applied actions."""
        state = self.new_state(
            params["num_players"],
            params["options"],
            params["dealer"],
            params["seed"],
            params["deck"],
        )
        for seat, action in history:
            state.apply(seat, action)
        return state

    def deck_name(self, options: dict[str, Any]) -> str:
        """The protocol deck (a key of ``protocol.cards.DECKS``) these options play with."""
        return self.deck

    def cards(self, options: dict[str, Any]) -> tuple[str, ...]:
        """Every card this game uses with these (resolved) options."""
        from protocol.cards import DECKS

        return DECKS[self.deck_name(options)]

    def next_dealer(self, dealer: int, num_players: int) -> int:
        """The next game's dealer: one seat clockwise."""
        return (dealer + 1) % num_players
