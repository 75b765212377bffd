"""Table views sent as deltas of their event log (protocol v2).

A table's view holds the events of the deal in play, and a view is sent after every move: sent
whole, every message would repeat the deal's history (Fortunes' 300-action deals made each
message 4.5 KB). The hub remembers, per connection and table, the events it last sent; when a
new view's events begin with exactly those, it sends only the events after them and says from
which index they follow (``view["events_from"]``). Any other change (a new deal, a new round in
Prophet, a seat taken by a spectator) is sent whole. The receiver keeps the last view of each
table and puts the log together again, so everything past the connection sees whole views.
"""

from __future__ import annotations

from typing import Any

from .codec import ProtocolError

#: The view's field that says where a delta's events follow on.
EVENTS_FROM = "events_from"


class SentLogs:
    """The sender's side, one per connection: what each table's last view carried."""

    __slots__ = ("_sent",)

    def __init__(self) -> None:
        self._sent: dict[int, list[Any]] = {}

    def shrink(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` as it goes out on this connection: a table view whose events follow on
        from the last ones sent carries only the new ones. ``message`` itself is not changed
        (the same message may go to other connections)."""
        kind = message.get("t")
        if kind == "left":
            self._sent.pop(message["table"], None)
            return message
        if kind != "table":
            return message
        table, view = message["table"], message.get("view")
        events = view.get("events") if view else None
        if events is None:
            self._sent.pop(table, None)
            return message
        before = self._sent.get(table)
        self._sent[table] = events
        known = len(before) if before is not None else 0
        if not known or len(events) < known or events[:known] != before:
            return message
        return {**message, "view": {**view, "events": events[known:], EVENTS_FROM: known}}


def expand(previous: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """The whole table message ``message`` stands for, given the last whole message of the
    same table this connection received (None: none yet)."""
    view = message.get("view")
    if message.get("t") != "table" or not view or EVENTS_FROM not in view:
        return message
    known = view[EVENTS_FROM]
    before = ((previous or {}).get("view") or {}).get("events")
    if not isinstance(known, int) or before is None or len(before) != known:
        raise ProtocolError("invalid", "A table's view follows on from events this client lacks.")
    whole = {k: v for k, v in view.items() if k != EVENTS_FROM}
    whole["events"] = [*before, *view["events"]]
    return {**message, "view": whole}
