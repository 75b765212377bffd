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
"""

from __future__ import annotations

from typing import Any

import msgpack

from .codec import ProtocolError

#: The field of a table message that says it is a delta of the last one.
DELTA = "delta"
_ROOTS = ("info", "view")

Path = list[str | int]


class SentLogs:
    """The sender's side, one per connection: the last whole message of each table."""

    __slots__ = ("_sent",)

    def __init__(self) -> None:
        self._sent: dict[int, dict[str, Any]] = {}

    def shrink(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` as it goes out on this connection: a delta of the last one sent for the
        same table and seat, else whole. ``message`` itself is not changed (the same message
        may go to other connections)."""
        kind = message.get("t")
        if kind == "left":
            self._sent.pop(message["table"], None)
            return message
        if kind != "table" or DELTA in message:
            return message
        table = message["table"]
        before = self._sent.get(table)
        whole = {key: message.get(key) for key in _ROOTS}
        # The info as the reader holds it (a msgpack copy: it holds the hub's own objects, which
        # may change later). The view is the engine's, built fresh for every change; what it
        # shares with the state (events, finished tricks) is never changed once made.
        info = msgpack.unpackb(msgpack.packb(whole["info"]), raw=False, strict_map_key=False)
        self._sent[table] = {"seat": message.get("seat"), "info": info, "view": whole["view"]}
        if before is None or before["seat"] != message.get("seat"):
            return message
        sets: list[list[Any]] = []
        adds: list[list[Any]] = []
        for key in _ROOTS:
            _diff(before[key], whole[key], [key], sets, adds)
        delta: dict[str, Any] = {}
        if sets:
            delta["set"] = sets
        if adds:
            delta["add"] = adds
        out = {k: v for k, v in message.items() if k not in _ROOTS}
        out[DELTA] = delta
        return out


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
        if len(new) > n and old == list(new[:n]):
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
    node: Any = root
    for depth, key in enumerate(path):
        if isinstance(node, dict) and isinstance(key, str):
            if depth == len(path) - 1:
                return node, key
            child = node.get(key)
        elif (
            isinstance(node, list)
            and isinstance(key, int)
            and not isinstance(key, bool)
            and 0 <= key < len(node)
        ):
            if depth == len(path) - 1:
                return node, key
            child = node[key]
        else:
            raise ProtocolError("invalid", "A table's delta names a place the table lacks.")
        if isinstance(child, dict | list) and id(child) not in fresh:
            child = child.copy()
            fresh.add(id(child))
            node[key] = child
        node = child
    raise AssertionError("unreachable")  # pragma: no cover
