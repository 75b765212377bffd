"""The one shape every game has, after OpenSpiel's state API.

A :class:`Game` holds the fixed facts (name, seat range, options) and makes a :class:`State`.
A state answers who must decide now (:meth:`State.pending`), what a seat may do
(:meth:`State.legal_actions`), applies an action (:meth:`State.apply`), builds what a seat may
see (:meth:`State.view`, the only place a state is serialised for a player) and says how it
ended (:meth:`State.outcome`).

Conventions every engine follows:

* Seats are numbered ``0..n-1`` clockwise. "Left" is the next seat (``s + 1``), "right" the
  previous one. Play normally passes to the left.
* Cards are protocol card codes (short strings). An action is a typed value of
  ``protocol.actions`` (``Play("S7")``, ``Bid(2)``, ``Draw()``): the engines list, check and
  apply those; a game's history keeps each one's wire map (``{"type": "play", "card": "S7"}``),
  plain data like the rest of a state, and a seat's view lists its legal actions so too.
* A state's attributes are plain msgpack data (dicts with str keys, lists, ints, strs, bools,
  None), so a snapshot is ``msgpack(self.__dict__)`` and restoring is the reverse. No live RNG:
  randomness comes from :func:`server.engine.rng.rng_for` with a stored counter.
* A view has two parts (after OpenSpiel's observers): the **public** part every seat and
  spectator shares (:meth:`State.public_view`, built once per change and sent to all) and the
  **private** part of one seat (:meth:`State.private_view`: its hand, ask, legal actions and the
  events it may see). Facts the rules derive (who wins the trick so far, which way it goes) are
  in the public part, so no client needs the rules to show them. A view is built fresh; what it
  shares with the state (an event, a finished trick) is never changed once made, because the
  hub sends each view as a delta of the last one it sent (``protocol/event_log.py``).
* ``apply`` validates fully before it mutates: a refused action raises a
  :class:`~server.engine.errors.RulesError` subclass and changes nothing.
* Events are dicts with an ``"e"`` kind; a private one carries ``"to": [seats]`` and is shown
  only to those seats (the key itself is stripped from views).
"""

from __future__ import annotations

import copy
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeGuard

import msgpack

from protocol.actions import Action, action_from_wire
from protocol.codec import ProtocolError

from .errors import BadSetup, IllegalAction, MalformedAction, OutOfTurn

_SCALARS = (int, str, bool, type(None))

#: msgpack's integer range: a seed outside it could not be stored with the game.
_SEED_RANGE = (-(2**63), 2**64 - 1)
#: What a value of an option must be, by the type of the option's default.
_KIND_NAMES = {int: "a whole number", str: "text", bool: "true or false"}
#: The creation parameters :meth:`Game.replay` needs (``new_state`` stores them all).
_PARAM_KEYS = ("num_players", "options", "dealer", "seed", "deck")


def _is_int(value: object) -> TypeGuard[int]:
    """An int that is not a bool: Python counts True as 1, but it is never a count or a seat."""
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: object) -> str:
    """A short, safe description of an untrusted value for an error message (a repr could be
    huge, or fail outright for an int of thousands of digits)."""
    if isinstance(value, str):
        return repr(value if len(value) <= 20 else value[:20] + "…")
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return repr(value) if abs(value) < 10**12 else "a very large number"
    if isinstance(value, dict):
        return "a map"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a value of type {type(value).__name__}"


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
    #: Choices that fail the fairness bar (Fortunes ruling 11), each with the side it favours
    #: (``"dealer"``: the first dealer's team), so the lobby can say so.
    favours: dict[Any, str] = field(default_factory=dict)

    def check(self, name: str, value: Any) -> Any:
        """``value`` if this option may take it, else BadSetup. The type must be the default's
        exactly: Python finds 52.0 == 52 and True == 1, but neither is a deck size or a cap."""
        if self.choices is not None:
            for choice in self.choices:
                if type(value) is type(choice) and value == choice:
                    return choice
            raise BadSetup(
                f"Option {name} must be one of {', '.join(map(str, self.choices))}.",
                option=name,
            )
        kind = type(self.default)
        if kind in _KIND_NAMES and type(value) is not kind:
            raise BadSetup(f"Option {name} must be {_KIND_NAMES[kind]}.", option=name)
        if kind is int:
            if self.minimum is not None and value < self.minimum:
                raise BadSetup(f"Option {name} must be at least {self.minimum}.", option=name)
            if self.maximum is not None and value > self.maximum:
                raise BadSetup(f"Option {name} must be at most {self.maximum}.", option=name)
        return value


@dataclass(slots=True)
class Outcome:
    """How a game ended; the single place that decides the result and the pot.

    ``winners`` are the seats that share the pot, listed in the order that remainder chips go
    (ruling 2: closest to the dealer clockwise first). ``contributions`` are what each seat put
    in, in stake units (1 each unless the game took more: Fortunes' stays and raises). With
    ``refund`` every seat takes back what it put in (a drawn Fortunes deal).
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


_MISSING = object()


def tie_order(dealer: int, n: int) -> list[int]:
    """Seats in tie-break order (ruling 2): dealer's left first, clockwise, the dealer last."""
    return [(dealer + 1 + i) % n for i in range(n)]


class State(ABC):
    """One game in progress. Subclasses keep all their data as plain attributes."""

    game: ClassVar[Game]
    #: The action classes of this game; anything else is malformed.
    ACTIONS: ClassVar[frozenset[type[Action]]] = frozenset()
    # ``_seen``: per seat, the events it may see as found so far (visible_events); a slot,
    # not an attribute, so that snapshots, clones and restores know nothing of it.
    __slots__ = ("__dict__", "__weakref__", "_seen")
    #: Per seat: [the events list, since, how far it was read, the events found].
    _seen: dict[int | None, list[Any]]

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
    def _public_view(self) -> dict[str, Any]:
        """The game-specific part of what every seat and spectator may see."""

    @abstractmethod
    def _private_view(self, seat: int | None) -> dict[str, Any]:
        """The game-specific part only ``seat`` may see (None: a spectator, who holds
        nothing of its own)."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The result once the game is over, else None."""

    @abstractmethod
    def card_locations(self) -> dict[str, list[str]]:
        """Where every card is, by place name (for audits and tests; never sent to players)."""

    def explain_illegal(self, seat: int, action: Action) -> str:
        """A readable reason why a well-formed action is refused; games override for detail."""
        return "That move is not allowed now."

    def stake_due(self, seat: int, action: Action) -> int:
        """Stakes ``action`` puts into the pot (a Fortunes stay or raise), which the hub moves
        before it applies the action; most actions cost nothing."""
        return 0

    # --- the shared API ----------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.outcome() is not None

    def rng(self) -> random.Random:
        """A fresh deterministic RNG for one random event."""
        from .rng import rng_for

        self.rng_counter += 1
        return rng_for(self.seed, self.rng_counter)

    def check_action(self, seat: Any, action: Any) -> Action:
        """Raise the right RulesError unless ``seat`` may take ``action`` now."""
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.num_players:
            raise MalformedAction("There is no such seat at this table.", seat=_shown(seat))
        if type(action) not in self.ACTIONS:
            if not isinstance(action, Action):
                raise MalformedAction("An action must be one of the game's actions.")
            ours = [cls.FIELD for cls in self.ACTIONS if cls.TYPE == action.TYPE]
            if ours:  # the same word, another game's sense (a bid of tricks, not of a card)
                raise MalformedAction(
                    f"A {action.TYPE} here takes the field {ours[0]!r}.", type=action.TYPE
                )
            raise MalformedAction(f"Unknown action {action.TYPE!r}.", type=action.TYPE)
        if self.is_over:
            raise OutOfTurn("The game is over.")
        if self.ask(seat) is None:
            raise OutOfTurn("It is not your turn to decide.", seat=seat)
        if action not in self.legal_actions(seat):
            raise IllegalAction(self.explain_illegal(seat, action), type=action.TYPE)
        checked: Action = action  # (of a type in ACTIONS)
        return checked

    def apply(self, seat: int, action: Action) -> None:
        """Apply ``action`` for ``seat``; on any RulesError the state is unchanged."""
        self.apply_checked(seat, self.check_action(seat, action))

    def apply_checked(self, seat: int, action: Action) -> None:
        """Apply an action :meth:`check_action` has just returned for ``seat``, without
        checking it again (the hub checks an action before it stores it, and only once)."""
        self._apply(seat, action)
        self.history.append([seat, action.to_wire()])

    def ask(self, seat: int) -> Ask | None:
        """What ``seat`` is asked now, if anything (games may answer without
        :meth:`pending`: it is asked for every seat's view at every move)."""
        return self.pending().get(seat)

    def waiting(self) -> list[int]:
        """The seats that must decide now, in order."""
        return sorted(self.pending())

    def public_view(self) -> dict[str, Any]:
        """What every seat and spectator may know: built once per change and shared."""
        outcome = self.outcome()
        view: dict[str, Any] = {
            "game": self.game.name,
            "players": self.num_players,
            "options": dict(self.options),
            "waiting": self.waiting(),
            "over": outcome is not None,
            "outcome": outcome.to_wire() if outcome else None,
        }
        view.update(self._public_view())
        return view

    def private_view(self, seat: int | None) -> dict[str, Any]:
        """What only ``seat`` may know (None: a spectator): its ask, its legal actions, the
        events it may see, and the game's private part."""
        ask = self.ask(seat) if seat is not None else None
        view: dict[str, Any] = {
            "seat": seat,
            "ask": ask.to_wire() if ask else None,
            "legal": [a.to_wire() for a in self.legal_actions(seat)]
            if ask and seat is not None
            else [],
            "events": self.visible_events(seat),
        }
        view.update(self._private_view(seat))
        return view

    def view_events_start(self) -> int:
        """Where a view's events start in the log: 0, the whole game, unless a game shows
        only this round's or this deal's (it says where, and :meth:`visible_events` starts
        there)."""
        return 0

    def events_mark(self) -> tuple[Any, ...]:
        """Where the views' events stand now, for :meth:`public_events_since`."""
        return (self.events, self.view_events_start(), len(self.events))

    def public_events_since(
        self, mark: tuple[Any, ...] | None
    ) -> tuple[list[Any], set[Any]] | None:
        """Since ``mark`` (:meth:`events_mark` then): the events added that every seat sees,
        and the seats that got one of their own meanwhile. None when views' events did not
        only grow since (another game, round or deal: they start elsewhere now)."""
        events = self.events
        if (
            mark is None
            or mark[0] is not events
            or mark[2] > len(events)
            or mark[1] != self.view_events_start()
        ):
            return None
        public: list[Any] = []
        own: set[Any] = set()
        for ev in events[mark[2] :]:
            to = ev.get("to")
            if to is None:
                public.append(ev)
            else:
                own.update(to)
        return public, own

    def private_view_since(
        self, seat: int | None, before: dict[str, Any], public: list[Any]
    ) -> dict[str, Any] | None:
        """:meth:`private_view` of ``seat`` made from ``before``, its private view at some
        mark, when ``public`` (:meth:`public_events_since` that mark, no event of the seat's
        own among them) is all that changed: the seat decides nothing, now or then, and its
        game part is as it was (equal and of one type, as the deltas compare). Then its
        view is ``before`` with those events added (``before`` itself if there are none);
        else None. Most seats at most moves: nothing is built or compared again but the
        game's small private part."""
        if before["ask"] is not None or (seat is not None and self.ask(seat) is not None):
            return None
        own = self._private_view(seat)
        if len(own) + 4 != len(before):
            return None
        missing = _MISSING
        for key, value in own.items():
            was = before.get(key, missing)
            if type(was) is not type(value) or was != value:
                return None
        if not public:
            return before
        return {**before, "events": before["events"] + public}

    def view(self, seat: int | None, public: dict[str, Any] | None = None) -> dict[str, Any]:
        """Everything ``seat`` may know and nothing more; ``None`` is a spectator. ``public``
        is :meth:`public_view` if the caller already built it for this state."""
        if public is None:
            public = self.public_view()
        return {**public, **self.private_view(seat)}

    def visible_events(self, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
        """The events from ``since`` that ``seat`` may see (a private one without its ``to``).

        A view is built at every move for every seat, so what was found is kept (events are
        only ever appended, and never changed once made): each call looks only at the events
        added since the last one, and returns a new list.
        """
        try:
            seen = self._seen
        except AttributeError:
            seen = self._seen = {}
        events = self.events
        found = seen.get(seat)
        if found is None or found[0] is not events or found[1] != since or found[2] > len(events):
            found = seen[seat] = [events, since, since, []]
        out = found[3]
        for ev in events[found[2] :]:
            to = ev.get("to")
            if to is None:
                out.append(ev)
            elif seat is not None and seat in to:
                out.append({k: v for k, v in ev.items() if k != "to"})
        found[2] = max(len(events), since)
        return list(out)

    def snapshot(self) -> bytes:
        data: bytes = msgpack.packb(self.__dict__, use_bin_type=True)
        return data

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
    #: Seats that win or lose together (Fortunes' two partnerships), if the game has any:
    #: a partnership is rated by its result, not its players' own scores.
    partnerships: ClassVar[tuple[tuple[int, ...], ...] | None] = None

    def resolve_options(self, num_players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """Defaults filled in and every value checked; raises BadSetup. Options come from a
        client, so anything but a map of this game's option names to allowed values is refused.
        """
        self.check_players(num_players)
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise BadSetup(f"The options must be a map of names to values, not {_shown(options)}.")
        for key in options:
            if not isinstance(key, str):
                raise BadSetup(f"An option's name must be text, not {_shown(key)}.")
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise BadSetup(f"{self.title} has no option {_shown(unknown[0])}.")
        return {
            name: spec.check(name, options.get(name, spec.default))
            for name, spec in self.options.items()
        }

    def check_players(self, num_players: Any) -> int:
        """``num_players`` if this game seats that many, else BadSetup."""
        if not _is_int(num_players) or not self.min_players <= num_players <= self.max_players:
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
        return num_players

    def check_setup(
        self, num_players: Any, options: Any, dealer: Any, seed: Any, deck: Any
    ) -> dict[str, Any]:
        """The creation parameters of a new game, every one checked; raises BadSetup.

        The one gate for every game's setup input (a client's or a stored record's), so that a
        bad value is refused here with a readable reason instead of failing deep in a deal.
        """
        num_players = self.check_players(num_players)
        if not _is_int(dealer) or not 0 <= dealer < num_players:
            raise BadSetup(f"The dealer must be one of the seats 0 to {num_players - 1}.")
        resolved = self.resolve_options(num_players, options)
        return {
            "game": self.name,
            "num_players": num_players,
            "options": resolved,
            "dealer": dealer,
            "seed": self.check_seed(seed),
            "deck": self.check_deck(deck, resolved),
        }

    @staticmethod
    def check_seed(seed: Any) -> int | str:
        """The seed to store (None: 0). It must be a whole number that msgpack can store, or
        text that encodes as UTF-8, since :mod:`.rng` seeds ``Random`` with its text."""
        if seed is None:
            return 0
        if _is_int(seed):
            if not _SEED_RANGE[0] <= seed <= _SEED_RANGE[1]:
                raise BadSetup("The seed must be a whole number from -2**63 to 2**64 - 1.")
            return seed
        if isinstance(seed, str):
            try:
                seed.encode("utf-8")
            except UnicodeEncodeError:
                raise BadSetup("The seed must be valid text.") from None
            return seed
        raise BadSetup(f"The seed must be a whole number or text, not {_shown(seed)}.")

    def check_deck(self, deck: Any, options: dict[str, Any]) -> list[str] | None:
        """A stacked deck as a new list (None: unstacked), else BadSetup. It lists the top
        cards in order, each a distinct code of the deck these (resolved) options play with;
        it may stop after a few cards or name them all."""
        if deck is None:
            return None
        if not isinstance(deck, list | tuple):
            raise BadSetup(f"A stacked deck must be a list of card codes, not {_shown(deck)}.")
        cards = self.cards(options)
        if len(deck) > len(cards):
            raise BadSetup(f"A stacked deck has at most {len(cards)} cards, not {len(deck)}.")
        known = set(cards)
        seen: set[str] = set()
        for code in deck:
            if not isinstance(code, str):
                raise BadSetup(f"A stacked deck lists card codes (text), not {_shown(code)}.")
            if code not in known:
                raise BadSetup(f"{_shown(code)} is not a card of this deck.")
            if code in seen:
                raise BadSetup(f"{code!r} appears twice in the deck order.")
            seen.add(code)
        return list(deck)

    def new_state(
        self,
        num_players: int,
        options: dict[str, Any] | None = None,
        dealer: int = 0,
        seed: int | str | None = None,
        deck: list[str] | None = None,
    ) -> State:
        """A new game. ``deck`` stacks the top of the deck (top first); the rest follows
        shuffled by ``seed`` (0 when not given). Any bad argument raises BadSetup."""
        params = self.check_setup(num_players, options, dealer, seed, deck)
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
        """Re-create a game from its creation parameters and applied actions. Both come from
        storage, so a malformed record raises BadSetup and a refused action its RulesError."""
        if not isinstance(params, dict):
            raise BadSetup(f"A game's parameters must be a map, not {_shown(params)}.")
        missing = [key for key in _PARAM_KEYS if key not in params]
        if missing:
            raise BadSetup(f"The game's parameters lack {missing[0]!r}.")
        if params.get("game", self.name) != self.name:
            raise BadSetup(f"These parameters are not for a game of {self.title}.")
        if not isinstance(history, list | tuple):
            raise BadSetup(f"A game's history must be a list, not {_shown(history)}.")
        state = self.new_state(
            params["num_players"],
            params["options"],
            params["dealer"],
            params["seed"],
            params["deck"],
        )
        for step in history:
            if not isinstance(step, list | tuple) or len(step) != 2:
                raise BadSetup("Each step of a game's history must be [seat, action].")
            try:
                action = action_from_wire(step[1])
            except ProtocolError as err:
                raise MalformedAction(err.message) from None
            state.apply(step[0], action)
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
