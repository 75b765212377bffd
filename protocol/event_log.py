"""Table messages sent as deltas of the last one (protocol v2).

A table message (the table's ``info`` and the reader's ``view``) goes out after every move, and
most of it is what the reader already has: the deal's events, the finished tricks, the seats,
the options. The hub remembers, per connection and table, the last message it sent; the next
one carries only what changed, as a ``delta``:

* ``"set"``: ``[path, value]`` pairs, each a value that is new or changed;
* ``"add"``: ``[path, items]`` pairs, each a list that only grew (an event log, the finished
  tricks), with the items added at its end.

A path is a list of keys from the message: ``["view", "trick", "cards"]``,
``["view", "seats", 2, "cards"]`` (a list's index is an int), starting with ``"info"`` or
``"view"``. A delta message has ``t``, ``table``, ``seat`` and ``delta`` but no ``info`` or
``view``. A first message, one for another seat, and every message after a ``left`` or on a new
connection (a reconnecting client) go whole. The receiver keeps the last whole message of each
table and puts the next one together again (:func:`expand`), so everything past the connection
sees whole messages; the unchanged parts are shared with the previous message, not copied.

Values that compare equal count as unchanged (``1 == 1.0 == True``): a field keeps one type.

Every seat at a table gets a message at every move, and the seats' messages share most of
what they carry: the ``info`` and the view's public part. A sender that builds them once
(:class:`Shared`) and sends each seat a :class:`TableMessage` has their delta made once per
move, not once per seat; only each seat's private part is compared per seat. The deltas are
the very ones the general comparison makes (the view is the public part's keys, then the
private part's, never the same key in both).
"""

from __future__ import annotations

import itertools
from typing import Any

import msgpack

from .codec import HEADER, ProtocolError, packb

#: The field of a table message that says it is a delta of the last one.
DELTA = "delta"
_ROOTS = ("info", "view")
#: What a delta's path goes down through (a tuple made once, see _walk).
_CONTAINERS = (dict, list)

Path = list[str | int]
_serials = itertools.count(1)
#: A frame's end for seats whose own part only gained the same events (:func:`_tail_of`).
_Tail = tuple[list[Any] | None, bytes, bytes]


class Shared:
    """What every reader of one change of a table shares: its ``info`` and the public part
    of its view (None: no game). The info as readers hold it, and its delta (and the public
    part's) from an earlier change's, are made once, however many readers there are."""

    __slots__ = ("_deltas", "_frames", "_snapshot", "_tails", "info", "public", "serial")

    def __init__(
        self, info: dict[str, Any], public: dict[str, Any] | None, last: Shared | None = None
    ) -> None:
        self.info = info
        self.public = public
        self.serial = next(_serials)
        self._snapshot: dict[str, Any] | None = None
        # The info did not change (most moves): no copy. The very same object as the last
        # change's is the sender's word that it did not (see Play.shared_table_info).
        if (
            last is not None
            and last._snapshot is not None
            and (last.info is info or last._snapshot == info)
        ):
            self._snapshot = last._snapshot
        #: Per earlier change (by serial, so that no chain of changes is kept alive): the
        #: info's sets and adds, and the public part's (None: it lost a key).
        self._deltas: dict[int, tuple[Any, Any, Any]] = {}
        #: Per earlier change: the shared sets' and adds' encodings (see :meth:`encoded_from`).
        self._frames: dict[int, tuple[int, bytes, int, bytes] | None] = {}
        #: Per earlier change and events added: a frame's end, from its ``delta`` on, for
        #: seats whose own part only gained those events (see :meth:`SentLogs.frame`).
        self._tails: dict[tuple[int, int | tuple[int, ...]], _Tail] = {}

    def snapshot(self) -> dict[str, Any]:
        """The info as the readers hold it: a msgpack copy, made when it is first sent (it
        holds the hub's own objects, which may change later)."""
        if self._snapshot is None:
            self._snapshot = _copy(self.info)
        return self._snapshot

    def delta_from(self, before: Shared) -> tuple[Any, Any, Any]:
        found = self._deltas.get(before.serial)
        if found is None:
            sets: list[list[Any]] = []
            adds: list[list[Any]] = []
            if before.snapshot() is not self.snapshot():
                _diff(before.snapshot(), self.info, ["info"], sets, adds)
            public = None
            if before.public is not None and self.public is not None:
                public = _entries(before.public, self.public, ["view"])
            found = self._deltas[before.serial] = (sets, adds, public)
        return found

    def encoded_from(self, before: Shared) -> tuple[int, bytes, int, bytes] | None:
        """The delta's shared ``set`` and ``add`` entries from ``before`` (the info's, then
        the public part's), counted and encoded once: every seat's frame starts its lists
        with them. None when the public part lost a key (its view then goes whole)."""
        try:
            return self._frames[before.serial]
        except KeyError:
            pass
        info_sets, info_adds, public = self.delta_from(before)
        found = None
        if public is not None:
            sets = [*info_sets, *public[0]]
            adds = [*info_adds, *public[1]]
            found = (len(sets), _items(sets), len(adds), _items(adds))
        self._frames[before.serial] = found
        return found


class TableMessage(dict[str, Any]):
    """A whole table message whose view is ``{**shared.public, **private}``: sent as a delta
    from parts compared once per change (:class:`Shared`) and the seat's own part."""

    __slots__ = ("private", "shared")

    def __init__(
        self, table: int, seat: int | None, shared: Shared, private: dict[str, Any]
    ) -> None:
        assert shared.public is not None
        super().__init__(
            t="table",
            table=table,
            info=shared.info,
            seat=seat,
            view={**shared.public, **private},
        )
        self.shared = shared
        self.private = private


def _copy(value: Any) -> Any:
    return msgpack.unpackb(msgpack.packb(value), raw=False, strict_map_key=False)


def _array_header(n: int) -> bytes:
    if n < 16:
        return bytes((0x90 | n,))
    if n < 0x10000:
        return b"\xdc" + n.to_bytes(2, "big")
    return b"\xdd" + n.to_bytes(4, "big")


def _items(entries: list[Any]) -> bytes:
    """The encodings of ``entries``' items, one after another (the list's without its
    header)."""
    n = len(entries)
    if not n:
        return b""
    return packb(entries)[1 if n < 16 else 3 if n < 0x10000 else 5 :]


# The fixed pieces of a delta frame: {"t": "table", "table": …, "seat": …, "delta": {…}}.
_START = b"\x84" + packb("t") + packb("table") + packb("table")
_SEAT = packb("seat")
_DELTA_KEY = packb(DELTA)
_SET = packb("set")
_ADD = packb("add")
_EVENTS = ["view", "events"]
#: A seat's number as encoded (a spectator's None), for the frames joined per seat.
_SEAT_CODES = {seat: packb(seat) for seat in [None, *range(16)]}
_NONE: list[Any] = []


class SentLogs:
    """The sender's side, one per connection: the last whole message of each table."""

    __slots__ = ("_sent",)

    def __init__(self) -> None:
        self._sent: dict[int, dict[str, Any]] = {}

    def shrink(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` as it goes out on this connection: a delta of the last one sent for the
        same table and seat, else whole. ``message`` itself is not changed (the same message
        may go to other connections)."""
        if type(message) is TableMessage:
            return self._shrink_shared(message)
        kind = message.get("t")
        if kind == "left":
            self._sent.pop(message["table"], None)
            return message
        if kind != "table" or DELTA in message:
            return message
        return self._shrink_general(message)

    def frame(self, message: dict[str, Any]) -> bytes:
        """The frame of :meth:`shrink`'s answer, the very bytes ``encode`` makes of it (a
        :class:`TableMessage` is framed by :meth:`seat_frame`)."""
        if type(message) is TableMessage:
            return self.seat_frame(
                message["table"], message["seat"], message.shared, message.private
            )
        body = packb(self.shrink(message))
        return HEADER.pack(len(body)) + body

    def seat_frame(
        self,
        table: int,
        seat: int | None,
        shared: Shared,
        private: dict[str, Any],
        since: dict[str, Any] | None = None,
        added: list[Any] | None = None,
    ) -> bytes:
        """The frame of ``TableMessage(table, seat, shared, private)`` as it goes out on this
        connection (the very bytes ``encode`` makes of :meth:`shrink`'s answer), made without
        that message when it follows one on this connection (every move, every seat): it is
        joined from the shared entries' encodings, made once per change
        (:meth:`Shared.encoded_from`), and the seat's own, so the bulk of each seat's frame
        is neither compared nor encoded again per seat.

        ``since``: the seat's own part at the table's previous change, of which ``private`` is
        known to differ only by ``added`` events (None: not known). A connection that was
        sent that very part is sent their ``add`` without comparing the two."""
        before = self._sent.get(table)
        if (
            since is not None
            and before is not None
            and before["private"] is since
            and (not added or since["events"])  # (an empty list is set whole, not added to)
        ):
            last = before["shared"]
            encoded = shared.encoded_from(last)
            public = shared.public  # (not None when ``encoded`` is not)
            if encoded is not None and public is not None and public.keys().isdisjoint(private):
                if shared._snapshot is None:
                    shared.snapshot()  # the info as it is now, as it goes out
                self._sent[table] = {"seat": seat, "shared": shared, "private": private}
                # Every such seat of this change gains the same events: one frame's end.
                key: tuple[int, int | tuple[int, ...]] = (last.serial, id(added))
                found = shared._tails.get(key)
                if found is None:
                    mine: tuple[list[Any], list[Any]] = ([], [[_EVENTS, added]] if added else [])
                    found = shared._tails[key] = _tail_of(table, added, encoded, mine)
                _, head, tail = found
                code = _SEAT_CODES.get(seat) or packb(seat)
                return b"".join((HEADER.pack(len(head) + len(code) + len(tail)), head, code, tail))
        if before is not None and before["seat"] == seat and before["shared"] is not None:
            last = before["shared"]
            encoded = shared.encoded_from(last)
            public = shared.public  # (not None when ``encoded`` is not)
            if encoded is not None and public is not None and public.keys().isdisjoint(private):
                mine = _own_entries(before["private"], private)
                if mine is not None:
                    if shared._snapshot is None:
                        shared.snapshot()  # the info as it is now, as it goes out
                    self._sent[table] = {"seat": seat, "shared": shared, "private": private}
                    my_sets, my_adds = mine
                    if my_sets or len(my_adds) > 1:
                        return _delta_frame(table, seat, encoded, mine)
                    # Most seats at most moves: their own part only gained the events
                    # every other such seat gains, the very same objects. Their frames
                    # differ only by the seat: the rest is joined once per change.
                    added = my_adds[0][1] if my_adds else _NONE
                    if my_adds and my_adds[0][0] != _EVENTS:
                        return _delta_frame(table, seat, encoded, mine)
                    key = (last.serial, tuple(map(id, added)))
                    found = shared._tails.get(key)
                    if found is None:
                        found = shared._tails[key] = _tail_of(table, added, encoded, mine)
                    _, head, tail = found
                    code = _SEAT_CODES.get(seat) or packb(seat)
                    size = len(head) + len(code) + len(tail)
                    return b"".join((HEADER.pack(size), head, code, tail))
        body = packb(self.shrink(TableMessage(table, seat, shared, private)))
        return HEADER.pack(len(body)) + body

    def _shrink_general(self, message: dict[str, Any]) -> dict[str, Any]:
        table = message["table"]
        seat = message.get("seat")
        before = self._sent.get(table)
        fast = message if type(message) is TableMessage else None
        if fast is not None:
            fast.shared.snapshot()  # the info as it is now, as it goes out
            record = {"seat": seat, "shared": fast.shared, "private": fast.private}
        else:
            # The info as the reader holds it (a msgpack copy: it holds the hub's own objects,
            # which may change later). The view is the engine's, built fresh for every change;
            # what it shares with the state (events, finished tricks) is never changed once made.
            record = {
                "seat": seat,
                "shared": None,
                "private": None,
                "info": _copy(message.get("info")),
                "view": message.get("view"),
            }
        self._sent[table] = record
        if before is None or before["seat"] != seat:
            return message
        sets: list[list[Any]] = []
        adds: list[list[Any]] = []
        done = False
        if fast is not None and before["shared"] is not None:
            # The parts every reader shares are compared once per change; the seat's own here.
            info_sets, info_adds, public = fast.shared.delta_from(before["shared"])
            private = fast.private
            shared_public = fast.shared.public
            assert shared_public is not None  # (TableMessage's own check)
            if shared_public.keys().isdisjoint(private):
                mine = _own_entries(before["private"], private) if public else None
                if mine is not None:
                    sets = [*info_sets, *public[0], *mine[0]]
                    adds = [*info_adds, *public[1], *mine[1]]
                else:  # the view lost a key: it is set whole
                    sets = [*info_sets, [["view"], message["view"]]]
                    adds = list(info_adds)
                done = True
        if not done:
            sent = before["shared"].snapshot() if before["shared"] is not None else before["info"]
            _diff(sent, message.get("info"), ["info"], sets, adds)
            _diff(_view_of(before), message.get("view"), ["view"], sets, adds)
        delta: dict[str, Any] = {}
        if sets:
            delta["set"] = sets
        if adds:
            delta["add"] = adds
        out = {k: v for k, v in message.items() if k not in _ROOTS}
        out[DELTA] = delta
        return out

    def _shrink_shared(self, message: TableMessage) -> dict[str, Any]:
        """:meth:`shrink` of a :class:`TableMessage` whose last one was one too (every move
        at a table, for every seat: the parts every reader shares are compared once per
        change, the seat's own here); anything else goes the general way."""
        shared = message.shared
        shared.snapshot()  # the info as it is now, as it goes out
        table, seat, private = message["table"], message["seat"], message.private
        sent = self._sent
        before = sent.get(table)
        if before is None or before["shared"] is None or before["seat"] != seat:
            return self._shrink_general(message)
        view = message["view"]
        sent[table] = {"seat": seat, "shared": shared, "private": private}
        shared_public = shared.public
        assert shared_public is not None  # (TableMessage's own check)
        if not shared_public.keys().isdisjoint(private):  # pragma: no cover - no engine does
            sent[table] = before
            return self._shrink_general(message)
        info_sets, info_adds, public = shared.delta_from(before["shared"])
        mine = _own_entries(before["private"], private) if public else None
        if mine is not None:
            sets = [*info_sets, *public[0], *mine[0]] if info_sets or public[0] else mine[0]
            adds = [*info_adds, *public[1], *mine[1]] if info_adds or public[1] else mine[1]
        else:  # the view lost a key: it is set whole
            sets = [*info_sets, [["view"], view]]
            adds = list(info_adds)
        delta: dict[str, Any] = {}
        if sets:
            delta["set"] = sets
        if adds:
            delta["add"] = adds
        return {"t": "table", "table": table, "seat": seat, DELTA: delta}


def _view_of(record: dict[str, Any]) -> Any:
    """The view a record of :class:`SentLogs` stands for (a shared one is merged only when
    the general comparison needs it)."""
    shared = record["shared"]
    if shared is None:
        return record["view"]
    return {**shared.public, **record["private"]}


def _tail_of(table: int, added: list[Any] | None, shared: Any, mine: Any) -> _Tail:
    """For the frames that differ only by their seat: ``added`` (kept with it, so that the
    ids its key was made of stay those objects'), the frame's start up to the seat number
    and its end from the ``delta`` on."""
    return added, b"".join((_START, packb(table), _SEAT)), _delta_tail(shared, mine)


def _delta_frame(
    table: int, seat: int | None, shared: tuple[int, bytes, int, bytes], mine: Any
) -> bytes:
    """A delta message's frame, from the shared entries' encodings (counted) and the seat's
    own (sets, adds), in the order :meth:`SentLogs.shrink` puts them."""
    body = b"".join((_START, packb(table), _SEAT, packb(seat), _delta_tail(shared, mine)))
    return HEADER.pack(len(body)) + body


def _delta_tail(shared: tuple[int, bytes, int, bytes], mine: Any) -> bytes:
    """A delta frame's end: the ``delta`` key and its map."""
    n_sets, set_bytes, n_adds, add_bytes = shared
    my_sets, my_adds = mine
    n_sets += len(my_sets)
    n_adds += len(my_adds)
    parts = [_DELTA_KEY, bytes((0x80 | (n_sets > 0) + (n_adds > 0),))]
    if n_sets:
        parts += (_SET, _array_header(n_sets), set_bytes, _items(my_sets))
    if n_adds:
        parts += (_ADD, _array_header(n_adds), add_bytes, _items(my_adds))
    return b"".join(parts)


def _own_entries(old: dict[str, Any], new: dict[str, Any]) -> Any:
    """``_entries(old, new, ["view"])`` of a seat's own part of the view, found at once
    when all that changed is its events growing (most seats at most moves: a move shows
    them the public events and nothing of their own): the rest is compared in one go (as
    ``==`` compares: a field keeps one type, see above)."""
    events, was = new.get("events"), old.get("events")
    if type(events) is list and type(was) is list and old.keys() == new.keys():
        new["events"] = was  # (for the comparison only: ``new`` is given back as it was)
        try:
            rest_same = new == old
        finally:
            new["events"] = events
        if rest_same:
            n = len(was)
            if len(events) == n and events == was:
                return [], []
            if n and len(events) > n and events[:n] == was:
                return [], [[["view", "events"], events[n:]]]
    return _entries(old, new, ["view"])


def _entries(old: dict[str, Any], new: dict[str, Any], path: Path) -> Any:
    """:func:`_diff` of two maps' entries, as ``(sets, adds)``; None when ``old`` has a key
    ``new`` lacks (then the whole map is set)."""
    if not old.keys() <= new.keys():
        return None
    sets: list[list[Any]] = []
    adds: list[list[Any]] = []
    for key, value in new.items():
        if key not in old:
            sets.append([[*path, key], value])
            continue
        was = old[key]
        kind = type(was)
        if kind is not type(value) or was != value:  # (most are equal: no call)
            n = len(was) if kind is list else 0
            if n and type(value) is list and len(value) > n and value[:n] == was:
                adds.append([[*path, key], value[n:]])  # (the events: they grew)
            else:
                _diff(was, value, [*path, key], sets, adds)
    return sets, adds


def _diff(old: Any, new: Any, path: Path, sets: list[list[Any]], adds: list[list[Any]]) -> None:
    """The changes that make ``old`` into ``new``, as ``set``/``add`` entries under ``path``."""
    if type(old) is type(new) and old == new:
        return
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() <= new.keys():
        for key, value in new.items():
            if key in old:
                _diff(old[key], value, [*path, key], sets, adds)
            else:
                sets.append([[*path, key], value])
        return
    if isinstance(old, list) and isinstance(new, list | tuple) and old:
        n = len(old)
        if len(new) > n and old == (new[:n] if type(new) is list else list(new[:n])):
            adds.append([path, list(new[n:])])
            return
        if len(new) == n and all(isinstance(v, dict | list) for v in old):
            for i, (was, now) in enumerate(zip(old, new, strict=True)):
                _diff(was, now, [*path, i], sets, adds)
            return
    sets.append([path, new])


def expand(previous: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """The whole table message ``message`` stands for, given the last whole message of the
    same table this connection received (None: none yet). ``previous`` is not changed."""
    if message.get("t") != "table" or DELTA not in message:
        return message
    if previous is None or previous.get("seat") != message.get("seat"):
        raise ProtocolError("invalid", "A table's delta follows a message this client lacks.")
    delta = message[DELTA]
    if not isinstance(delta, dict):
        raise ProtocolError("invalid", "A table's delta must be a map.")
    root = {key: previous.get(key) for key in _ROOTS}
    fresh: set[int] = {id(root)}  # containers copied for this message: safe to change
    for entry in delta.get("set") or []:
        node, key = _walk(root, entry, fresh)
        node[key] = entry[1]
    for entry in delta.get("add") or []:
        node, key = _walk(root, entry, fresh)
        items = node[key]
        if not isinstance(items, list) or not isinstance(entry[1], list):
            raise ProtocolError("invalid", "A table's delta adds to something not a list.")
        if id(items) not in fresh:
            items = node[key] = list(items)
            fresh.add(id(items))
        items.extend(entry[1])
    out = {k: v for k, v in message.items() if k != DELTA}
    out.update(root)
    return out


def _walk(root: dict[str, Any], entry: Any, fresh: set[int]) -> tuple[Any, Any]:
    """The container that holds the last key of ``entry``'s path (copied on the way down, so
    the previous message keeps its own), and that key."""
    if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], list):
        raise ProtocolError("invalid", "A table's delta entry must be [path, value].")
    path = entry[0]
    if not path or path[0] not in _ROOTS:
        raise ProtocolError("invalid", "A table's delta names no part of the table.")
    # (every table message and the app's views go through here, a delta's ten entries at
    # every move: one pass, the container types checked against a tuple made once)
    # (a plain dict and string first, as decoded frames hold them: no isinstance call)
    node: Any = root
    last = len(path) - 1
    for depth, key in enumerate(path):
        if (type(node) is dict or isinstance(node, dict)) and (
            type(key) is str or isinstance(key, str)
        ):
            if depth == last:
                return node, key
            child = node.get(key)
        elif (
            isinstance(node, list)
            and isinstance(key, int)
            and not isinstance(key, bool)
            and 0 <= key < len(node)
        ):
            if depth == last:
                return node, key
            child = node[key]
        else:
            raise ProtocolError("invalid", "A table's delta names a place the table lacks.")
        if isinstance(child, _CONTAINERS) and id(child) not in fresh:
            child = child.copy()
            fresh.add(id(child))
            node[key] = child
        node = child
    raise AssertionError("unreachable")  # pragma: no cover
