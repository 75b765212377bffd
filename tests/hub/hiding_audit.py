"""The hidden-card audit of the hub's frames, shared by tests/hub/test_hiding.py (a few games a
CI run) and bench/leak_audit.py (10^5 games).

The hub end of every connection is wrapped (:class:`AuditedConnection`): each frame the hub
sends is checked as it is written, synchronously, before the client can read it, so the check runs
against the engine state exactly as it is when the frame goes out. What a reader may know is
tracked the way the engine conformance suite tracks it (tests/engine/test_conformance.py): cards
ever in a public place, its own seat's cards, and Prophet's Gambit's Seer and Darklord
glimpses. A card in another seat's hand or Fate, or in the deck, high deck or set-aside pile,
that the reader never legitimately saw must not appear in any string of the frame's msgpack
form (nor as a word inside a string). Lobby frames and the other out-of-table messages must
carry no card code at all. A view's public part (``State.public_view``) may hold only what
every seat and the spectators know.

A frame as written is first looked at in its bytes (:func:`codes_in_bytes`, one regular
expression): a code in any of its strings is in them, so where none of the cards a check looks
for is, that check passes without walking the decoded message; where one is (most often a card
the reader may see, by chance a code's bytes in a longer word), the strings are walked as
always. The verdicts are the walk's (tests/hub/test_hiding_bytes.py).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

from protocol.actions import Bid, Play
from protocol.cards import DECKS
from protocol.codec import MAX_CLIENT_FRAME, MAX_SERVER_FRAME, FrameDecoder, ProtocolError
from protocol.connection import ConnectionClosed, QueueConnection
from protocol.event_log import DELTA, expand
from server.engine import RulesError
from server.hub import Hub
from tests.engine.pg_knowledge import may_reshuffle, shown_in_reshuffle
from tests.engine.play import is_hidden_place, owner, strings_in, wire_strings
from tests.engine.test_conformance import Knowledge, glimpses

ALL_CARDS = frozenset(c for deck in DECKS.values() for c in deck)
#: Frames that are not about a table: they must hold no card code whatsoever.
CARDLESS = {"welcome", "you", "lobby", "lobby_update", "pong", "left", "friends", "invites"}
WORD = re.compile(r"[\w*]+")


def words(message: dict[str, Any], wire: bool = False) -> set[str]:
    """Every string in the message's msgpack form, and every word inside those strings
    (``wire``: the message was read back from msgpack already, so it need not be again)."""
    out = set(wire_strings(message) if wire else strings_in(message))
    for s in [s for s in out if len(s) > 3]:  # card codes have 2 or 3 characters
        out.update(WORD.findall(s))
    return out


#: Each card code's bytes. msgpack writes a string as its UTF-8 bytes after a header, so a
#: code that is a string of a frame, or a word inside one, is in the frame's bytes as they
#: are, within a run of the bytes codes are made of (more of them may stand around it).
CODE_BYTES = {c.encode(): c for c in ALL_CARDS}
CODE_SIZES = sorted({len(b) for b in CODE_BYTES})
CODE_RUN = re.compile(
    b"["
    + b"".join(re.escape(bytes([byte])) for byte in sorted(set(b"".join(CODE_BYTES))))
    + b"]{%d,}" % CODE_SIZES[0]
)


def codes_in_bytes(data: bytes) -> set[str]:
    """Every card code whose bytes are anywhere in ``data``: all the codes among the strings
    of a message framed in ``data``, and the words in them, that :func:`words` finds, and
    maybe more (a code's bytes inside a longer word, or a number's bytes). One regular
    expression (in C) finds the runs of code bytes; every code that lies in a run is read
    from it. Where this finds none of a set of cards, no string of the message holds one:
    the exact walk is needed only where it finds some (see :meth:`Auditor.audit`)."""
    found: set[str] = set()
    known = _RUN_CODES
    for run in set(CODE_RUN.findall(data)):
        codes = known.get(run)
        if codes is None:
            codes = codes_in_run(run)
            if len(run) <= 4:  # (runs this short are few: most are a code alone)
                known[run] = codes
        found |= codes
    return found


_RUN_CODES: dict[bytes, frozenset[str]] = {}


def codes_in_run(run: bytes) -> frozenset[str]:
    """Every card code that lies in ``run``, at any place in it."""
    get = CODE_BYTES.get
    n = len(run)
    return frozenset(
        code
        for size in CODE_SIZES
        for start in range(n - size + 1)
        if (code := get(run[start : start + size])) is not None
    )


class Tracker:
    """What each seat (and a spectator) may know about one game, as in the engine suite."""

    def __init__(self, state) -> None:
        self.state = state  # kept alive so that id(state) stays unique
        self.known = Knowledge(state.num_players)
        self.extra: dict[int | None, set[str]] = {
            s: set() for s in (None, *range(state.num_players))
        }
        #: The seat each player who stood up during this game held: what the hub made for
        #: them while they sat may still be on its way out (the outbox sends it once stored),
        #: until their ``left``.
        self.left: dict[str, int] = {}
        #: hidden_from's answers for the state as it is now (emptied by every action).
        self._hidden: dict[int | None, set[str]] = {}
        #: The step (moves so far) the cards below were read at, and the cards in a hidden
        #: place then, by the seat that holds them (None: the deck, high deck, set-aside
        #: pile): read once a step for every seat, not once a seat.
        self._step = -1
        self._hidden_places: list[tuple[int | None, list[str]]] = []
        #: hidden_from_any's answer for the state as it is now (None: not made yet).
        self._hidden_any: tuple[set[str], int] | None = None
        self._public_keys: tuple[int, list[str]] = (-1, [])
        self.observe()

    def observe(self) -> None:
        """Read where the cards are now: what is public or a seat's own joins what each may
        know, and hidden_from reads the hidden places anew."""
        locations = self.state.card_locations()
        self.known.observe(locations)
        self._hidden.clear()
        self._hidden_any = None
        self._step = len(self.state.history)
        self._hidden_places = [
            (owner(place), cards) for place, cards in locations.items() if is_hidden_place(place)
        ]

    def seat_of(self, table, who: str) -> int | None:
        """The seat ``who`` holds at ``table``, or held in this game until they stood up."""
        seat = table.seat_of(who)
        return self.left.get(who) if seat is None else seat

    def public_keys(self, table) -> list[str]:
        """The fields of a view that ``State.public_view`` makes, as the state is now (read
        from the public part the hub made for the table's last change, if it is of now)."""
        step = len(self.state.history)
        if self._public_keys[0] != step:
            shared = getattr(table, "shared", None)
            public = shared.public if shared is not None and shared.public else None
            self._public_keys = (step, list(public or self.state.public_view()))
        return self._public_keys[1]

    def hidden_from(self, seat: int | None) -> set[str]:
        """Cards in a hidden place now that ``seat`` (None: a spectator) never saw."""
        if len(self.state.history) != self._step:
            self.observe()
        cached = self._hidden.get(seat)
        if cached is not None:
            return cached
        hidden: set[str] = set()
        for holder, cards in self._hidden_places:
            if seat is None or holder != seat:
                hidden.update(cards)
        allowed = self.known.public | self.extra[None]
        if seat is not None:
            allowed = allowed | self.known.own[seat] | self.extra[seat]
        self._hidden[seat] = hidden = hidden - allowed
        return hidden

    def hidden_from_any(self) -> tuple[set[str], int]:
        """The cards hidden from some seat or from the spectators now (every
        :meth:`hidden_from` joined), and how many of those readers have any."""
        if len(self.state.history) != self._step:
            self.observe()
        if self._hidden_any is None:
            sets = [self.hidden_from(s) for s in (None, *range(self.state.num_players))]
            self._hidden_any = (set().union(*sets), sum(1 for hidden in sets if hidden))
        return self._hidden_any


class WatchedHub(Hub):
    """A hub that keeps a knowledge tracker per game and records the glimpses of every
    action it accepts (computed before the action, as the engine suite does)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Each frame is checked against the engine as it is when the frame goes out: frames
        # must go out in the loop's turn they are made, not after a thread's fsync, when
        # the next deal may have begun (what they show was true when they were made).
        self.store.sync_off_loop(False)
        self.trackers: dict[int, Tracker] = {}
        # Every action the hub accepts (a client's or a bot's) goes through play's.
        self._apply_action = self.play.apply_action
        self.play.apply_action = self.apply_action  # type: ignore[method-assign]  # a stand-in that counts or records
        self._vacate = self.seating.vacate
        self.seating.vacate = self.vacate  # type: ignore[method-assign]  # a stand-in that records

    def tracker(self, state) -> Tracker:
        tracker = self.trackers.get(id(state))
        if tracker is None or tracker.state is not state:
            tracker = self.trackers[id(state)] = Tracker(state)
        return tracker

    def forget(self, state) -> None:
        """Drop a finished game's tracker (a long run keeps only the live ones)."""
        tracker = self.trackers.get(id(state))
        if tracker is not None and tracker.state is state:
            del self.trackers[id(state)]

    def vacate(self, table, player) -> None:
        seat = table.seat_of(player.id)
        if seat is not None and table.state is not None:
            self.tracker(table.state).left[player.id] = seat
        self._vacate(table, player)

    def apply_action(self, table, seat: int, action: dict[str, Any]) -> None:
        state = table.state
        tracker = self.tracker(state)
        try:
            checked = state.check_action(seat, action)
        except RulesError:
            checked = None  # the hub refuses it below; nothing is revealed
        # PG's cards discarded and reshuffled within the action are read from the events
        # the action itself adds, not from playing it first on a deep copy of the game.
        events = len(state.events)
        reshuffle = (
            checked is not None and state.game.name == "prophets_gambit" and may_reshuffle(state)
        )
        if checked is not None:
            for who, cards in glimpses(state, seat, checked, reshuffle=False).items():
                tracker.extra[who] |= cards
        self._apply_action(table, seat, action)
        if reshuffle:  # (before any frame of this action goes out: they wait for the commit)
            tracker.extra[None] |= shown_in_reshuffle(state.events[events:])
        tracker.observe()


class Auditor:
    """Checks every frame the hub sends, at the moment it sends it.

    ``own_tables``: a frame about a table is checked against that table only, and another
    frame against the tables its reader sits at or watches. A hub with one table (the test)
    checks every frame against every table; with many tables of one game their decks hold the
    same codes, so a card of one's own hand is another table's hidden card (the bench).
    ``keep``: keep every frame (the test compares them with what the clients read)."""

    def __init__(self, hub: WatchedHub, own_tables: bool = False, keep: bool = True) -> None:
        self.hub = hub
        self.own_tables = own_tables
        self.keep = keep
        self.frames: dict[str, list[dict[str, Any]]] = {}
        #: The frames as their reader puts them together (deltas of a view made whole).
        self.whole: dict[str, list[dict[str, Any]]] = {}
        self._last_table: dict[tuple[str, int], dict[str, Any]] = {}
        self.violations: list[str] = []
        self.checked_frames = 0
        self.checked_tables = 0  # table frames checked against a non-empty hidden set
        self.checked_public = 0  # public parts checked against some seat's non-empty hidden set
        self.typed_actions = 0  # legal plays and bids read as typed actions
        self.errors: list[str] = []

    def audit(
        self, who: str, message: dict[str, Any], framed: bytes | None = None
    ) -> dict[str, Any] | None:
        """The frame as its reader puts it together (None if it could not be read). Never
        raises: a failure is recorded (the hub would swallow an exception). ``framed``: bytes
        the frame lies in (the very bytes written): where no card it is checked for is in
        them, its strings need no walk (:func:`codes_in_bytes`)."""
        try:
            present = codes_in_bytes(framed) if framed is not None else None
            whole = message
            if message.get("t") == "table":
                key = (who, message["table"])
                whole = self._last_table[key] = expand(self._last_table.get(key), message)
            elif message.get("t") == "left":
                self._last_table.pop((who, message["table"]), None)
                table = self.hub.tables.get(message["table"])
                if table is not None and table.state is not None:
                    # What was made while they sat has gone out before this (one session's
                    # frames keep their order): nothing more of the seat is theirs to see.
                    self.hub.tracker(table.state).left.pop(who, None)
            if self.keep:
                self.frames.setdefault(who, []).append(message)
                self.whole.setdefault(who, []).append(whole)
            self.checked_frames += 1
            self.violations.extend(self.leaks(who, message, wire=True, present=present))
            self.violations.extend(
                self.public_leaks(who, whole, message, wire=True, present=present)
            )
            self.violations.extend(self.untyped_actions(who, whole))
            if message.get("t") == "table" and message["table"] in self.hub.tables:
                table = self.hub.tables[message["table"]]
                seat = table.seat_of(who)
                if seat is None and table.state is not None:
                    seat = self.hub.tracker(table.state).seat_of(table, who)
                if message["seat"] != seat:  # a view for a seat this reader does not hold
                    self.violations.append(f"{who} at seat {seat} got seat {message['seat']}")
            return whole
        except Exception as err:  # pragma: no cover - a bug in the audit itself
            self.errors.append(f"{who}: {err!r}")
            return None

    def tables_for(self, who: str, message: dict[str, Any]) -> list[Any]:
        tables = self.hub.tables
        if not self.own_tables:
            return list(tables.values())
        if isinstance(message.get("table"), int):
            table = tables.get(message["table"])
            return [] if table is None else [table]
        watching = self.hub.watchers.by_table

        def watches(table_id: int) -> bool:
            return any(
                s.player is not None and s.player.id == who for s in watching.get(table_id, ())
            )

        return [t for t in tables.values() if t.seat_of(who) is not None or watches(t.id)]

    def leaks(
        self,
        who: str,
        message: dict[str, Any],
        wire: bool = False,
        present: set[str] | None = None,
    ) -> list[str]:
        """``present``: the codes whose bytes are in the frame (:func:`codes_in_bytes`); the
        message's strings are walked only if some of them are cards to look for."""
        seen: set[str] | None = None
        kind = message.get("t")
        out = []
        if kind in CARDLESS and (present is None or present):
            seen = words(message, wire)
            if seen & ALL_CARDS:
                out.append(f"{who} got card codes {sorted(seen & ALL_CARDS)} in {kind!r}")
        for table in self.tables_for(who, message):
            if table.state is None:
                continue
            tracker = self.hub.tracker(table.state)
            seat = tracker.seat_of(table, who)
            hidden = tracker.hidden_from(seat)
            if kind == "table" and message["table"] == table.id and hidden:
                self.checked_tables += 1
            if present is not None and present.isdisjoint(hidden):
                continue  # no hidden card's bytes are in the frame: none is in its strings
            if seen is None:
                seen = words(message, wire)
            leaked = seen & hidden
            if leaked:
                out.append(
                    f"{who} (seat {seat}) got hidden {sorted(leaked)} in {kind!r} at table "
                    f"{table.id}, step {len(table.state.history)}, game "
                    f"{table.game} {table.state.options}"
                )
        return out

    def untyped_actions(self, who: str, message: dict[str, Any]) -> list[str]:
        """Every play (and trick bid) a view offers is a typed action, written back unchanged
        (protocol/actions.py): the hub's messages are validated as the client's are."""
        if message.get("t") != "table" or not message.get("view"):
            return []
        out = []
        for action in message["view"]["legal"]:
            kinds = [Play] + ([Bid] if message["view"]["game"] != "prophets_gambit" else [])
            for kind in kinds:
                if action.get("type") == kind.TYPE:
                    self.typed_actions += 1
                    try:
                        ok = kind.from_wire(action).to_wire() == action
                    except ProtocolError:
                        ok = False
                    if not ok:
                        out.append(f"{who} was offered a malformed {kind.TYPE}: {action}")
        return out

    def public_leaks(
        self,
        who: str,
        message: dict[str, Any],
        delta: dict[str, Any] | None = None,
        wire: bool = False,
        present: set[str] | None = None,
    ) -> list[str]:
        """The hidden cards of any seat (or of the spectators) in the public part of a whole
        table view: its fields that ``State.public_view`` makes, shared by every reader.
        ``delta``: the frame ``message`` was put together from; if it is a delta, only what it
        changed in the public part is read (the rest passed when it came: a card all readers
        may know stays so). ``present``: the codes whose bytes are in that frame
        (:func:`codes_in_bytes`); its strings are walked only if some seat's hidden cards are
        among them."""
        if message.get("t") != "table" or not message.get("view"):
            return []
        table = self.hub.tables.get(message["table"])
        if table is None or table.state is None:
            return []
        if present is not None:
            hidden_any, readers = self.hub.tracker(table.state).hidden_from_any()
            if present.isdisjoint(hidden_any):  # no seat's hidden card is in the frame
                self.checked_public += readers
                return []
        keys = self.hub.tracker(table.state).public_keys(table)
        if delta is not None and DELTA in delta:
            parts: list[Any] = []
            for entries in (delta[DELTA].get("set") or [], delta[DELTA].get("add") or []):
                for path, value in entries:
                    if path == ["view"] and isinstance(value, dict):
                        parts.append({k: value[k] for k in keys if k in value})
                    elif len(path) > 1 and path[0] == "view" and path[1] in keys:
                        parts.append(value)
            seen = words({"parts": parts}, wire) & ALL_CARDS
        else:
            view = message["view"]
            seen = words({k: view[k] for k in keys if k in view}, wire) & ALL_CARDS
        tracker = self.hub.tracker(table.state)
        if not seen:
            self.checked_public += sum(
                1 for seat in (None, *range(table.state.num_players)) if tracker.hidden_from(seat)
            )
            return []
        out = []
        for seat in (None, *range(table.state.num_players)):
            hidden = tracker.hidden_from(seat)
            if hidden:
                self.checked_public += 1
            leaked = seen & hidden
            if leaked:
                out.append(
                    f"{who}'s public part shows {sorted(leaked)}, hidden from seat {seat}, at "
                    f"table {table.id}, step {len(table.state.history)}"
                )
        return out


class Frames(FrameDecoder):
    """The frames the hub writes, read back; says whether it holds a frame's first bytes."""

    @property
    def holding(self) -> bool:
        return bool(self._buf or self._skip)


class AuditedConnection(QueueConnection):
    """The hub's end of an in-process connection, checking each frame as it is written: the
    very bytes the client would read, the hub's shared frames (encoded once for many, views
    joined from parts) included. ``reader``, if given, is handed each frame made whole
    instead of the bytes being queued for a client (the bench's clients act on what they are
    sent, without a reader task)."""

    def __init__(
        self,
        inbox: asyncio.Queue,
        outbox: asyncio.Queue,
        auditor: Auditor,
        who: str,
        reader: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        super().__init__(inbox, outbox, max_frame=MAX_CLIENT_FRAME, trusted=True)
        self.auditor = auditor
        self.who = who
        self.reader = reader
        self._frames = Frames(MAX_SERVER_FRAME)

    def write(self, data: bytes) -> None:
        if self._out_closed:
            raise ConnectionClosed
        frames = self._frames
        alone = not frames.holding
        messages = list(frames.feed(data))
        # The frames read lie within ``data`` (it began with one and held their ends): their
        # bytes are looked in for card codes before their strings are walked.
        framed = data if alone and not frames.holding else None
        for message in messages:
            if isinstance(message, ProtocolError):
                self.auditor.errors.append(f"{self.who}: the hub wrote a bad frame: {message}")
                continue
            whole = self.auditor.audit(self.who, message, framed)
            if self.reader is not None and whole is not None:
                self.reader(whole)
        if self.reader is None:
            super().write(data)
